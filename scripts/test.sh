#!/usr/bin/env bash
# Every test: C++ (Catch2 via ctest, under AddressSanitizer + UBSan), Python (pytest: also ruff,
# mypy, the _core stub and the documentation site), the property tests against the sanitized
# module, libFuzzer, and the package as a new user gets it (scripts/check_package.sh: sdist,
# wheel with C++ deps from PyPI, smoke tests).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
started=$SECONDS
# stage NAME: a heading with the time since the start, so that a slow stage shows in the log;
# the stages' times are repeated at the end (and on failure), where a log's tail shows them.
stages=""
stage() {
  local at="$(( (SECONDS - started) / 60 ))m$(( (SECONDS - started) % 60 ))s"
  echo "== $1   [at $at]"
  stages+="  $at  $1"$'\n'
}
fuzz_pid=""
trap 'echo "== stages (started at):"; printf "%s" "$stages"; echo "  total $(( (SECONDS - started) / 60 ))m$(( (SECONDS - started) % 60 ))s"
      [ -z "$fuzz_pid" ] || kill -- -"$fuzz_pid" 2>/dev/null || true' EXIT
jobs=$(nproc 2>/dev/null || echo 2)

# The libFuzzer harness's build (clang, its own build dir build-fuzz) needs neither Python nor
# the other builds, so it runs in the background from the start at the lowest priority: it takes
# the cycles the stages before its own leave idle (pip's downloads and installs, the
# single-threaded smoke tests, the tails of the other builds, of ctest and of pytest's workers),
# and the libFuzzer stage below waits for it. It starts as soon as a cmake is there (the
# system's; else the one pip puts into .venv, after the package stage). In its own process
# group (set -m), so that the EXIT trap above ends it with a failing run. Exit status 2: no
# clang++ (the libFuzzer run is then skipped, as is one whose build fails: clang without
# libFuzzer). CMAKE_UNITY_BUILD: see the sanitized build below; here clang's -O3 dominates,
# 198 -> 148 CPU s.
start_fuzz_build() {
  [ -z "$fuzz_pid" ] || return 0
  local cmake_here="$1"
  mkdir -p build-fuzz
  set -m
  (
    command -v clang++ >/dev/null 2>&1 || install_packages clang || true
    command -v clang++ >/dev/null 2>&1 || exit 2
    CXX=clang++ nice -n 19 "$cmake_here" -S . -B build-fuzz -DDNNMEM_FUZZ=ON -DDNNMEM_OPENMP=OFF \
      -DCMAKE_UNITY_BUILD=ON
    nice -n 19 "$cmake_here" --build build-fuzz -j "$jobs" --target fuzz_pipeline
  ) >build-fuzz/build.log 2>&1 &
  fuzz_pid=$!
  set +m
}
if command -v cmake >/dev/null 2>&1; then start_fuzz_build "$(command -v cmake)"; fi

# The package first: its wheel (sdist -> wheel, C++ deps from PyPI, smoke tests in a fresh venv)
# is then the one installed into .venv, so the sources are compiled for Python only once.
stage "the package: sdist and wheel built with C++ deps from PyPI, smoke tests in a fresh venv"
# Meanwhile the test environment's dependencies are downloaded and installed (network and disk
# beside the CPU-bound compilation; their log is shown only if they fail).
mkdir -p build-wheel
prefetch_venv_deps "test" "torch==2.13.0" >build-wheel/prefetch.log 2>&1 &
prefetch=$!
DNNMEM_KEEP_WHEEL=build-wheel bash scripts/check_package.sh python3
stage "the test environment: .venv with the checked wheel"
wait "$prefetch" || { cat build-wheel/prefetch.log; echo "FAILED: the test environment's dependencies"; exit 1; }
# torch's default wheel drags in GBs of CUDA packages: take a CPU wheel from pip's find-links
# (this machine's /opt/wheels) if there is one; without torch its tests are skipped, visibly.
make_venv "test" "torch==2.13.0" "$(ls build-wheel/dnnmem-*.whl)"
cmake_bin=$(command -v cmake || true)
[ -n "$cmake_bin" ] || { .venv/bin/python -m pip install -q cmake; cmake_bin=$PWD/.venv/bin/cmake; }
start_fuzz_build "$cmake_bin"  # (started already where the system has a cmake)

# The C++ tests once, in a build with AddressSanitizer + UBSan (Debug, OpenMP on, warnings are
# errors), which also gives a Python module for the property tests below. (An optimised build of
# the same tests ran here too until it cost CI four minutes: the Python suite runs the optimised
# wheel, with OpenMP, through every part.) Line tables only (-g1): 7 % less compile than -g
# (529 vs 569 CPU s), the same reports; -O1 was tried: slower to compile, no faster to test,
# and GCC 12's -Wmaybe-uninitialized fires inside <regex>. A unity build (CMAKE_UNITY_BUILD:
# CMake compiles the sources of a target eight at a time as one translation unit) parses the
# headers (nlohmann/json, Catch2, pybind11) and emits their inline functions once per eight
# files instead of once per file: 412 -> 213 CPU s, the same tests and warnings. The sources
# keep names unique across files for it (helpers in anonymous namespaces included).
stage "C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer"
.venv/bin/python -m pip install -q "pybind11>=2.12"  # the build requirement, for CMake here
"$cmake_bin" -S . -B build-asan -DDNNMEM_BUILD_TESTS=ON -DDNNMEM_BUILD_PYTHON=ON -DDNNMEM_SANITIZE=ON \
  -DDNNMEM_WERROR=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_UNITY_BUILD=ON \
  -DPython_EXECUTABLE="$PWD/.venv/bin/python" \
  -Dpybind11_DIR="$(.venv/bin/python -m pybind11 --cmakedir)" >/dev/null
"$cmake_bin" --build build-asan -j "$jobs" >/dev/null
ctest --test-dir build-asan --output-on-failure -j "$jobs"

stage "Python tests"
# One worker per core (pytest-xdist); a file's tests stay on one worker, so that its
# module-scoped fixtures (a sweep, a built site) are made once.
.venv/bin/python -m pytest -n "$jobs" --dist loadfile --durations=25 "$@"

# The property tests again, against the module built with AddressSanitizer + UBSan (the
# sanitizer runtimes are preloaded: python itself is not instrumented; libstdc++ too, so that
# ASan finds the C++ runtime's __cxa_throw).
stage "Python property tests against the module built with AddressSanitizer + UBSan"
rm -rf build-asan/pkg && mkdir -p build-asan/pkg && cp -r python/dnnmem build-asan/pkg/
rm -f build-asan/pkg/dnnmem/_core*.so && cp build-asan/_core*.so build-asan/pkg/dnnmem/
LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libstdc++.so)" \
  ASAN_OPTIONS=detect_leaks=0 DNNMEM_HYPOTHESIS_EXAMPLES=50 PYTHONPATH="$PWD/build-asan/pkg" \
  .venv/bin/python -m pytest -q -p no:cacheprovider -n "$jobs" tests/python/test_random_networks.py \
  tests/python/test_hardening.py tests/python/test_fuzz_networks.py

# libFuzzer over loader -> schedule -> every policy -> sweep (tests/fuzz/README.md): a fixed
# number of runs from the seed corpus, so that a run is reproducible. Needs clang.
stage "libFuzzer: tests/fuzz/fuzz_pipeline, 100000 runs"
fuzz_built=0
wait "$fuzz_pid" || fuzz_built=$?
fuzz_pid=""
if [ "$fuzz_built" -eq 0 ]; then
  rm -rf build-fuzz/corpus && mkdir -p build-fuzz/corpus
  if build-fuzz/tests/fuzz/fuzz_pipeline -seed=1 -runs=100000 -max_len=16384 \
      -dict=tests/fuzz/network.dict -artifact_prefix=build-fuzz/ -print_final_stats=1 \
      build-fuzz/corpus tests/fuzz/corpus >build-fuzz/fuzz.log 2>&1; then
    grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added)" build-fuzz/fuzz.log
  else
    tail -n 60 build-fuzz/fuzz.log
    echo "fuzz_pipeline failed: the input is saved as build-fuzz/crash-* (tests/fuzz/README.md)"
    exit 1
  fi
elif [ "$fuzz_built" -eq 2 ]; then
  echo "note: no clang++ (apt-get install clang): the libFuzzer run is skipped"
else
  echo "note: fuzz_pipeline did not build (clang without libFuzzer?; build-fuzz/build.log); skipped"
fi
stage "done"
