#!/usr/bin/env bash
# The whole test suite: unit and integration tests, end-to-end tests with the real kubectl and
# python3-kubernetes, a short fuzz run of the decoders, and the conformance suite (client-go 1.37
# against Allot, docs/conformance.md). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
if ! command -v kubectl >/dev/null; then
  echo "kubectl is required for the end-to-end tests (expected at /usr/bin/kubectl)" >&2
  exit 1
fi
ctest --test-dir build --output-on-failure -j 2 --timeout 900
# Fuzz the JSON/YAML decoders and the CEL compiler briefly (libFuzzer, clang).
if [ "${ALLOT_SKIP_FUZZ:-0}" != 1 ]; then
  if [ ! -f build-fuzz/build.ninja ]; then
    # Libraries are instrumented too (fuzzer-no-link) so libFuzzer gets coverage feedback.
    cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DALLOT_FUZZ=ON \
      -DALLOT_BENCH=OFF -DALLOT_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" >/dev/null
  fi
  ninja -C build-fuzz -j "$(nproc)" decode_fuzz cel_fuzz credentials_fuzz request_body_fuzz
  mkdir -p build-fuzz/corpus build-fuzz/corpus-cel build-fuzz/corpus-credentials \
    build-fuzz/corpus-request-body
  UBSAN_OPTIONS=suppressions=tests/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1 \
  ./build-fuzz/src/decode_fuzz -max_total_time="${ALLOT_FUZZ_SECONDS:-30}" -rss_limit_mb=2048 \
    build-fuzz/corpus tests/fuzz/corpus/decode 2>&1 | tail -n 3
  echo "fuzz: decode_fuzz ran ${ALLOT_FUZZ_SECONDS:-30}s without a crash"
  # CEL selectors: compile, and evaluate what compiles, against a fixed device.
  UBSAN_OPTIONS=suppressions=tests/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1 \
  ./build-fuzz/src/cel_fuzz -max_total_time="${ALLOT_FUZZ_SECONDS:-30}" -rss_limit_mb=2048 \
    -max_len=2048 build-fuzz/corpus-cel tests/fuzz/corpus/cel 2>&1 | tail -n 3
  echo "fuzz: cel_fuzz ran ${ALLOT_FUZZ_SECONDS:-30}s without a crash"
  # Credentials: kubeconfigs, token files, PEM certificates and keys.
  UBSAN_OPTIONS=suppressions=tests/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1 \
  ./build-fuzz/src/credentials_fuzz -max_total_time="${ALLOT_FUZZ_SECONDS:-30}" \
    -rss_limit_mb=2048 -max_len=4096 build-fuzz/corpus-credentials \
    tests/fuzz/corpus/credentials 2>&1 | tail -n 3
  echo "fuzz: credentials_fuzz ran ${ALLOT_FUZZ_SECONDS:-30}s without a crash"
  # Request bodies: kubectl's protobuf, and the access reviews through the handler.
  UBSAN_OPTIONS=suppressions=tests/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1 \
  ./build-fuzz/src/request_body_fuzz -max_total_time="${ALLOT_FUZZ_SECONDS:-30}" \
    -rss_limit_mb=2048 -max_len=4096 build-fuzz/corpus-request-body \
    tests/fuzz/corpus/request_body 2>&1 | tail -n 3
  echo "fuzz: request_body_fuzz ran ${ALLOT_FUZZ_SECONDS:-30}s without a crash"
fi
# Last, so that where it cannot run (no Go of conformance/go.mod's version) its line saying so
# is the last one.
./scripts/conformance.sh
