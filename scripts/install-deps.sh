#!/usr/bin/env bash
# Installs the Debian packages Allot builds and tests with. Idempotent; safe to re-run.
# Why each one is here: docs/dependencies.md.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build ccache pkg-config
  libboost-dev            # Boost.Asio / Boost.Beast (HTTP server, header-only)
  libssl-dev              # OpenSSL: TLS for Asio, the CA and certificates (src/pki/)
  rapidjson-dev           # JSON DOM, reader and writer
  libyaml-cpp-dev         # YAML manifests
  libsqlite3-dev          # the embedded durable store
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler  # etcd's v3 API (src/etcd/)
  etcd-server etcd-client # etcd for the etcd store's tests (and etcdctl for backups)
  libre2-dev              # CEL matches()/find(): RE2, the engine Go's regexp and cel-go use
  libcli11-dev            # the allot command line (flags, help, validation, flag files)
  libspdlog-dev           # leveled logging with timestamps (-v)
  libgoogle-perftools-dev # TCMalloc, the allot binary's allocator
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev  # libFuzzer for the decoder fuzz target
  python3 python3-kubernetes python3-yaml  # end-to-end tests with the real Python client
  chromium chromium-driver python3-selenium fonts-dejavu-core  # the report and /ui in a real browser
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
