package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The upstream programs the suite runs, by the package each is built from. They come from the
// modules conformance/go.mod pins (Kubernetes 1.37, etcd 3.7); nothing of theirs is in the repo.
var upstreamPackages = map[string]string{
	"kube-apiserver":          "k8s.io/kubernetes/cmd/kube-apiserver",
	"kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
	"kube-scheduler":          "k8s.io/kubernetes/cmd/kube-scheduler",
	"etcd":                    "allot.dev/conformance/cmd/etcd",
}

// UpstreamNames are the programs BuildUpstream builds, in a fixed order.
var UpstreamNames = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// UpstreamDir is where the upstream programs are cached: $ALLOT_UPSTREAM_BIN, else a folder
// under the user's cache directory named by a hash of go.sum and the Go version, so a change of
// either builds afresh and nothing else does.
func UpstreamDir(moduleDir string) (string, error) {
	if d := os.Getenv("ALLOT_UPSTREAM_BIN"); d != "" {
		return d, nil
	}
	sum, err := os.ReadFile(filepath.Join(moduleDir, "go.sum"))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(sum)
	h.Write([]byte(runtime.Version()))
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "allot-conformance", "upstream-"+hex.EncodeToString(h.Sum(nil))[:12]), nil
}

// BuildUpstream builds into `dir` those of `names` that are not there yet (one `go build` for
// all of them, run in the module at moduleDir) and says how long it took. A second call with
// everything present builds nothing.
func BuildUpstream(moduleDir, dir string, names []string) (built []string, took time.Duration, err error) {
	var pkgs []string
	for _, n := range names {
		pkg, ok := upstreamPackages[n]
		if !ok {
			return nil, 0, fmt.Errorf("no upstream program %q", n)
		}
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			continue
		}
		pkgs = append(pkgs, pkg)
		built = append(built, n)
	}
	if len(pkgs) == 0 {
		return nil, 0, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	// Build into a scratch folder first so an interrupted build never leaves a partial program
	// where the next run would take it for a finished one.
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	cmd := exec.Command("go", append([]string{"build", "-o", tmp + string(os.PathSeparator)}, pkgs...)...)
	cmd.Dir = moduleDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, 0, fmt.Errorf("go build %v: %v\n%s", pkgs, err, out)
	}
	for _, n := range built {
		if err := os.Rename(filepath.Join(tmp, n), filepath.Join(dir, n)); err != nil {
			return nil, 0, err
		}
	}
	return built, time.Since(start), nil
}

var upstreamMu sync.Mutex

// UpstreamBinary is the path of an upstream program, built first when the cache lacks it (when
// scripts/conformance.sh ran first, it is there already).
func UpstreamBinary(t testing.TB, name string) string {
	t.Helper()
	upstreamMu.Lock()
	defer upstreamMu.Unlock()
	moduleDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := UpstreamDir(moduleDir)
	if err != nil {
		t.Fatal(err)
	}
	built, took, err := BuildUpstream(moduleDir, dir, []string{name})
	if err != nil {
		t.Fatal(err)
	}
	if len(built) > 0 {
		t.Logf("built %v in %s", built, took.Round(time.Second))
	}
	return filepath.Join(dir, name)
}
