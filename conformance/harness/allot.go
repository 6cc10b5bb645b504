// Package harness starts the processes the conformance tests run against: `allot serve` on a
// free port in a temporary folder, with its generated CA, admin credentials and kubeconfig.
package harness

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// AllotBinary is the allot program under test: $ALLOT, else build/allot of the repository.
func AllotBinary(t testing.TB) string {
	if p := os.Getenv("ALLOT"); p != "" {
		return p
	}
	p, err := filepath.Abs(filepath.Join("..", "build", "allot"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("allot binary not found at %s (build it, or set ALLOT): %v", p, err)
	}
	return p
}

// Allot is one `allot serve` process, stopped when the test ends.
type Allot struct {
	Dir        string // its data directory
	URL        string // https://127.0.0.1:PORT
	Kubeconfig string // the admin's (system:masters)
	binary     string
	cmd        *exec.Cmd
}

var (
	servingRE    = regexp.MustCompile(`serving on (https://127\.0\.0\.1:\d+)`)
	kubeconfigRE = regexp.MustCompile(`export KUBECONFIG=(\S+)`)
)

// StartAllot runs `allot serve --listen 127.0.0.1:0` with `extra` flags and waits until it has
// said where it serves and where its admin kubeconfig is. Its log is the test's log.
func StartAllot(t testing.TB, extra ...string) *Allot {
	t.Helper()
	a := &Allot{Dir: t.TempDir(), binary: AllotBinary(t)}
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", a.Dir}, extra...)
	a.cmd = exec.Command(a.binary, args...)
	logPath := filepath.Join(a.Dir, "serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	a.cmd.Stderr = logFile
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.stop()
		logFile.Close()
		if t.Failed() {
			if log, err := os.ReadFile(logPath); err == nil {
				t.Logf("allot serve's log:\n%s", tail(string(log), 200))
			}
		}
	})
	found := make(chan error, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			line := scanner.Text()
			if m := servingRE.FindStringSubmatch(line); m != nil {
				a.URL = m[1]
			}
			if m := kubeconfigRE.FindStringSubmatch(line); m != nil && a.URL != "" {
				a.Kubeconfig = m[1]
				found <- nil
				break
			}
		}
		for scanner.Scan() {
		}
		found <- fmt.Errorf("allot serve ended before it reported its address and kubeconfig")
	}()
	select {
	case err := <-found:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("allot serve did not report its address and kubeconfig within 60s")
	}
	return a
}

func (a *Allot) stop() {
	if a.cmd.Process == nil {
		return
	}
	_ = a.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = a.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = a.cmd.Process.Kill()
		<-done
	}
}

// Config is a client-go configuration from a kubeconfig file, without a client-side rate
// limit.
func Config(t testing.TB, kubeconfig string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	// Tests write in bursts; client-go's default client-side limit (5 QPS) would only slow them.
	cfg.QPS, cfg.Burst = 1000, 1000
	return cfg
}

// AdminConfig is client-go's configuration for the admin (TLS with the cluster CA, a client
// certificate in system:masters). It speaks JSON unless the caller sets ContentType.
func (a *Allot) AdminConfig(t testing.TB) *rest.Config { return Config(t, a.Kubeconfig) }

// IssueKubeconfig writes a kubeconfig for `user` in `groups` with a client certificate from
// this server's CA (`allot kubeconfig`) and returns its path.
func (a *Allot) IssueKubeconfig(t testing.TB, user string, groups ...string) string {
	t.Helper()
	path := filepath.Join(a.Dir, strings.ReplaceAll(user, ":", "_")+".kubeconfig")
	args := []string{"kubeconfig", "--data-dir", a.Dir, "--user", user, "--server", a.URL,
		"--out", path}
	if len(groups) > 0 {
		args = append(args, "--group", strings.Join(groups, ","))
	}
	if out, err := exec.Command(a.binary, args...).CombinedOutput(); err != nil {
		t.Fatalf("allot kubeconfig: %v\n%s", err, out)
	}
	return path
}

func tail(s string, lines int) string {
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
