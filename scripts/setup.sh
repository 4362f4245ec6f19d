# Sourced by demo.sh and test.sh: everything a fresh Debian/Ubuntu machine needs, idempotent.
#   - system packages: a C++ compiler, nlohmann-json and Catch2 for the C++ tests' own CMake build
#     (pip builds take nlohmann-json from PyPI when the system has none; CMake comes from pip)
#   - a virtual environment in .venv with dnnmem installed (built by scikit-build-core)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DNNMEM_APT_PACKAGES="nlohmann-json3-dev catch2 g++ python3-venv"

install_system_packages() {
  install_packages $DNNMEM_APT_PACKAGES
}

# install_packages PACKAGE...: installs those of the Debian packages that are missing.
install_packages() {
  command -v dpkg >/dev/null 2>&1 || return 1
  local missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "== installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# make_venv EXTRAS [LOCAL_ONLY_REQUIREMENT [WHEEL]]: creates .venv (once) and installs dnnmem[EXTRAS]
# into it; the optional second argument is installed first, only from local wheels (--no-index).
# With WHEEL (a dnnmem wheel already built, e.g. by scripts/check_package.sh) that wheel is
# installed instead of building the source tree again.
make_venv() {
  local extras="${1:-}" local_only="${2:-}" wheel="${3:-}"
  if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    python3 -m venv .venv
  fi
  .venv/bin/python -m pip install -q --upgrade pip
  if [ -n "$local_only" ]; then
    # --no-index --no-deps finds it only in a local wheel; the second call adds its dependencies.
    if .venv/bin/python -m pip install -q --no-index --no-deps "$local_only" 2>/dev/null; then
      .venv/bin/python -m pip install -q "$local_only"
    else
      echo "note: $local_only has no local wheel here; the tests that need it will be skipped"
    fi
  fi
  if [ -n "$wheel" ]; then
    echo "== installing $(basename "$wheel")${extras:+ with [$extras]} into .venv"
    # --force-reinstall: a .venv from an earlier run may hold the same version, built from older code
    .venv/bin/python -m pip install -q --force-reinstall --no-deps "$wheel"
    .venv/bin/python -m pip install -q "$wheel${extras:+[$extras]}"
  else
    echo "== building and installing dnnmem${extras:+[$extras]} into .venv"
    .venv/bin/python -m pip install -q ".${extras:+[$extras]}"
  fi
}

# prefetch_venv_deps EXTRAS [LOCAL_ONLY_REQUIREMENT]: installs into .venv (created if missing)
# what dnnmem[EXTRAS] depends on, without dnnmem itself, so that it can run while the package is
# being compiled (downloads and unpacking beside a CPU-bound build); make_venv then finds every
# dependency in place. Needs tomllib (Python >= 3.11) to read pyproject.toml; without it, it
# does nothing and make_venv installs everything as before.
prefetch_venv_deps() {
  local extras="${1:-}" local_only="${2:-}"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -c "import tomllib" 2>/dev/null || return 0
  .venv/bin/python -m pip install -q --upgrade pip
  if [ -n "$local_only" ]; then
    .venv/bin/python -m pip install -q --no-index --no-deps "$local_only" 2>/dev/null \
      && .venv/bin/python -m pip install -q "$local_only" || true
  fi
  local reqs
  reqs=$(.venv/bin/python - "$extras" <<'PY'
import re
import sys
import tomllib

with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
extras = project.get("optional-dependencies", {})
out = list(project.get("dependencies", []))
todo, seen = [e for e in sys.argv[1].split(",") if e], set()
while todo:  # dnnmem[a,b] inside an extra names other extras: expand them
    extra = todo.pop()
    if extra in seen:
        continue
    seen.add(extra)
    for req in extras[extra]:
        self_ref = re.fullmatch(project["name"] + r"\[([^\]]+)\]", req.strip())
        if self_ref:
            todo.extend(x.strip() for x in self_ref.group(1).split(","))
        else:
            out.append(req)
print("\n".join(out))
PY
  )
  printf '%s\n' "$reqs" > .venv/prefetch-requirements.txt
  .venv/bin/python -m pip install -q -r .venv/prefetch-requirements.txt
}

# Python package deps exist only on Debian systems where dpkg does; elsewhere say what to do.
if command -v dpkg >/dev/null 2>&1; then
  install_system_packages
else
  echo "note: not a Debian system; for the C++ tests install nlohmann_json and Catch2 with your package manager"
fi
