package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Process is an upstream program run for one test: its output goes to a log file in the test's
// temporary folder, it is interrupted (then killed) when the test ends, and its log is shown when
// the test failed.
type Process struct {
	Name    string
	LogPath string
	cmd     *exec.Cmd
	done    chan struct{}
}

// StartProcess runs `binary args...` until the test ends.
func StartProcess(t testing.TB, name, binary string, args ...string) *Process {
	t.Helper()
	p := &Process{Name: name, LogPath: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	logFile, err := os.Create(p.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(binary, args...)
	p.cmd.Stdout = logFile
	p.cmd.Stderr = logFile
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		logFile.Close()
		if t.Failed() {
			t.Logf("%s's log:\n%s", name, tail(p.Log(), 150))
		}
	})
	return p
}

// Log is what the program has written so far.
func (p *Process) Log() string {
	b, _ := os.ReadFile(p.LogPath)
	return string(b)
}

// Exited reports whether the program has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Kill ends the program at once (SIGKILL), as a crash would, and waits until it has.
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}
