#!/usr/bin/env bash
# Every test: C++ (Catch2 via ctest), the same under AddressSanitizer + UBSan, Python (pytest:
# also ruff, mypy, the _core stub and the documentation site), and the package as a new user
# gets it (scripts/check_package.sh: sdist, wheel with C++ deps from PyPI, smoke tests).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# torch's default wheel drags in GBs of CUDA packages: take a CPU wheel from pip's find-links
# (this machine's /opt/wheels) if there is one; without torch its tests are skipped, visibly.
make_venv "test" "torch==2.13.0"
cmake_bin=$(command -v cmake || true)
[ -n "$cmake_bin" ] || { .venv/bin/python -m pip install -q cmake; cmake_bin=.venv/bin/cmake; }
jobs=$(nproc 2>/dev/null || echo 2)

echo "== C++ tests"
"$cmake_bin" -S . -B build-tests -DDNNMEM_BUILD_TESTS=ON -DDNNMEM_WERROR=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
"$cmake_bin" --build build-tests -j "$jobs" >/dev/null
ctest --test-dir build-tests --output-on-failure -j "$jobs"

echo "== C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer"
"$cmake_bin" -S . -B build-asan -DDNNMEM_BUILD_TESTS=ON -DDNNMEM_SANITIZE=ON -DDNNMEM_OPENMP=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
"$cmake_bin" --build build-asan -j "$jobs" >/dev/null
ctest --test-dir build-asan --output-on-failure -j "$jobs"

# Before pytest, whose closing line is the suite's count.
echo "== the package: sdist and wheel built with C++ deps from PyPI, smoke tests in a fresh venv"
bash scripts/check_package.sh python3

echo "== Python tests"
.venv/bin/python -m pytest "$@"

# The property tests again, against a build of the module with AddressSanitizer + UBSan (the
# sanitizer runtimes are preloaded: python itself is not instrumented; libstdc++ too, so that
# ASan finds the C++ runtime's __cxa_throw).
echo "== Python property tests against the module built with AddressSanitizer + UBSan"
.venv/bin/python -m pip install -q "pybind11>=2.12"  # the build requirement, for CMake here
"$cmake_bin" -S . -B build-asan-py -DDNNMEM_BUILD_PYTHON=ON -DDNNMEM_SANITIZE=ON -DDNNMEM_OPENMP=OFF \
  -DCMAKE_BUILD_TYPE=Debug -DPython_EXECUTABLE="$PWD/.venv/bin/python" \
  -Dpybind11_DIR="$(.venv/bin/python -m pybind11 --cmakedir)" >/dev/null
"$cmake_bin" --build build-asan-py -j "$jobs" --target _core >/dev/null
rm -rf build-asan-py/pkg && mkdir -p build-asan-py/pkg && cp -r python/dnnmem build-asan-py/pkg/
rm -f build-asan-py/pkg/dnnmem/_core*.so && cp build-asan-py/_core*.so build-asan-py/pkg/dnnmem/
LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libstdc++.so)" \
  ASAN_OPTIONS=detect_leaks=0 DNNMEM_HYPOTHESIS_EXAMPLES=150 PYTHONPATH="$PWD/build-asan-py/pkg" \
  .venv/bin/python -m pytest -q -p no:cacheprovider \
  -W "ignore:dnnmem was built without OpenMP:RuntimeWarning" tests/python/test_random_networks.py \
  tests/python/test_hardening.py tests/python/test_fuzz_networks.py

# libFuzzer over loader -> schedule -> every policy -> sweep (tests/fuzz/README.md): a fixed
# number of runs from the seed corpus, so that a run is reproducible. Needs clang.
echo "== libFuzzer: tests/fuzz/fuzz_pipeline, 300000 runs"
command -v clang++ >/dev/null 2>&1 || install_packages clang || true
if command -v clang++ >/dev/null 2>&1; then
  CXX=clang++ "$cmake_bin" -S . -B build-fuzz -DDNNMEM_FUZZ=ON -DDNNMEM_OPENMP=OFF >/dev/null
  if "$cmake_bin" --build build-fuzz -j "$jobs" --target fuzz_pipeline >/dev/null 2>&1; then
    rm -rf build-fuzz/corpus && mkdir -p build-fuzz/corpus
    if build-fuzz/tests/fuzz/fuzz_pipeline -seed=1 -runs=300000 -max_len=16384 \
        -dict=tests/fuzz/network.dict -artifact_prefix=build-fuzz/ -print_final_stats=1 \
        build-fuzz/corpus tests/fuzz/corpus >build-fuzz/fuzz.log 2>&1; then
      grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added)" build-fuzz/fuzz.log
    else
      tail -n 60 build-fuzz/fuzz.log
      echo "fuzz_pipeline failed: the input is saved as build-fuzz/crash-* (tests/fuzz/README.md)"
      exit 1
    fi
  else
    echo "note: fuzz_pipeline did not build (clang without libFuzzer?); skipped"
  fi
else
  echo "note: no clang++ (apt-get install clang): the libFuzzer run is skipped"
fi
