#!/usr/bin/env bash
# The conformance suite (conformance/, docs/conformance.md): the real Kubernetes 1.37 client
# library and components (kube-scheduler; kube-apiserver, kube-controller-manager and etcd for the
# comparisons) run against build/allot. Builds allot first when it is missing, and the upstream
# programs into a cache folder outside the repository when they are not there yet (a second run
# builds nothing; ALLOT_UPSTREAM_BIN names another folder). Where no Go of the version conformance/go.mod names is installed, says so as its last
# line and exits 0 without running anything (CI always has that Go).
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(awk '$1 == "go" {print $2; exit}' conformance/go.mod)
skip() {
  echo "conformance: the suite did not run: $1"
  exit 0
}
command -v go >/dev/null || skip "no go command (conformance/go.mod wants Go $want or newer)"
have=$(go env GOVERSION)
have=${have#go}
# Whether $1 >= $2 as dotted versions.
version_at_least() {
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}
version_at_least "$have" "$want" || skip "Go $have is older than the $want conformance/go.mod wants"
[ -x build/allot ] || ./scripts/build.sh allot
cd conformance
upstream=$(go run ./cmd/upstream)
ALLOT="$(cd .. && pwd)/build/allot" ALLOT_UPSTREAM_BIN="$upstream" \
  go test -count=1 -timeout 20m ./... "$@"
