#!/usr/bin/env bash
# The package as a new user gets it: `python -m build` makes the sdist and, from the unpacked
# sdist, the wheel, with CMake told to ignore /usr as a prefix, so every C++ dependency comes
# from PyPI through build-system.requires (what `CMAKE_ARGS=... pip install .` does on a machine
# with nothing but Python and a C++ compiler). The wheel is then installed into a fresh virtual
# environment with only its own dependencies and must pass the smoke tests (tests/smoke).
#   bash scripts/check_package.sh [PYTHON]      (default python3; about 3 min on 2 cores)
# With DNNMEM_KEEP_WHEEL=DIR the checked wheel is copied into DIR (scripts/test.sh installs it
# into .venv rather than compiling the same sources a second time).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${1:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/dnnmem-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
# pip here may warn about index folders of this machine's configuration: noise, not our result.
pip_quiet() { "$@" 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }; }

echo "== building the sdist and, from it, the wheel (CMake ignores /usr: C++ deps from PyPI)"
"$python" -m venv "$work/build-env"
pip_quiet "$work/build-env/bin/python" -m pip install -q --upgrade pip build
CMAKE_ARGS="-DCMAKE_SYSTEM_IGNORE_PREFIX_PATH=/usr ${CMAKE_ARGS:-}" \
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}" \
  "$work/build-env/bin/python" -m build --outdir "$work/dist" "$repo" >"$work/build.log" 2>&1 \
  || { tail -n 60 "$work/build.log"; echo "FAILED: python -m build (log above)"; exit 1; }
grep -E "nlohmann_json|OpenMP" "$work/build.log" | sed 's/^/   /' || true
sdist=$(ls "$work"/dist/dnnmem-*.tar.gz)
wheel=$(ls "$work"/dist/dnnmem-*.whl)
echo "   $(basename "$sdist") ($(du -k "$sdist" | cut -f1) kB), $(basename "$wheel") ($(du -k "$wheel" | cut -f1) kB)"

# The sdist must carry what a build and a reader need; the wheel only the package.
tar -tzf "$sdist" >"$work/sdist.txt"
for f in LICENSE README.md pyproject.toml CMakeLists.txt cpp/src/estimate.cpp cpp/bindings/module.cpp \
         python/dnnmem/__init__.py python/dnnmem/_core.pyi python/dnnmem/data/hardware.json; do
  grep -q "^dnnmem-[^/]*/$f\$" "$work/sdist.txt" || { echo "FAILED: the sdist lacks $f"; exit 1; }
done
"$work/build-env/bin/python" - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["dnnmem/__init__.py", "dnnmem/py.typed", "dnnmem/_core.pyi", "dnnmem/data/hardware.json"]
missing = [n for n in need if n not in names]
core = [n for n in names if n.startswith("dnnmem/_core") and not n.endswith(".pyi")]
stray = [n for n in names if n.split("/")[0] not in ("dnnmem",) and ".dist-info/" not in n]
lic = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
assert not missing, f"the wheel lacks {missing}"
assert len(core) == 1, f"the wheel has no compiled core (or several): {core}"
assert not stray, f"the wheel holds files outside the package: {stray}"
assert lic, "the wheel has no LICENSE in its metadata"
print(f"   wheel: {len(names)} files, compiled core {core[0]}")
PY

if [ -n "${DNNMEM_KEEP_WHEEL:-}" ]; then
  mkdir -p "$DNNMEM_KEEP_WHEEL" && rm -f "$DNNMEM_KEEP_WHEEL"/dnnmem-*.whl && cp "$wheel" "$DNNMEM_KEEP_WHEEL"/
fi

echo "== installing the wheel into a fresh virtual environment"
"$python" -m venv "$work/env"
pip_quiet "$work/env/bin/python" -m pip install -q --upgrade pip
pip_quiet "$work/env/bin/python" -m pip install -q "$wheel" pytest
echo "== smoke tests of the installed wheel"
cd "$work"  # not the source tree: the installed package must be the one imported
"$work/env/bin/dnnmem" --version
"$work/env/bin/dnnmem" estimate --network resnet50 --batch 32 --hardware rtx2080ti --capacity 24MiB
"$work/env/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$repo" -c "$repo/pyproject.toml" \
  "$repo/tests/smoke"
