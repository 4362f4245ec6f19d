#!/usr/bin/env bash
# Every test: C++ (Catch2 via ctest), the same under AddressSanitizer + UBSan, and Python (pytest).
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

echo "== Python tests"
.venv/bin/python -m pytest "$@"
