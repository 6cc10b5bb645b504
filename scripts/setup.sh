#!/usr/bin/env bash
# The main job: install dependencies, build, and run the demo cluster (`allot serve --demo`,
# docs/demo.md) on the embedded sqlite store.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh allot
mkdir -p data
exec ./build/allot serve --demo --listen 127.0.0.1:${ALLOT_PORT:-6443} --data-dir ./data "$@"
