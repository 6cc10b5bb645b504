// Command upstream builds the upstream programs the conformance suite runs (kube-apiserver,
// kube-controller-manager, kube-scheduler, etcd) into their cache folder, skipping those already
// there, and prints the folder. scripts/conformance.sh runs it before the tests.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"allot.dev/conformance/harness"
)

func main() {
	moduleDir, err := filepath.Abs(".")
	if err == nil {
		var dir string
		dir, err = harness.UpstreamDir(moduleDir)
		if err == nil {
			var built []string
			var took time.Duration
			built, took, err = harness.BuildUpstream(moduleDir, dir, harness.UpstreamNames)
			if err == nil {
				if len(built) > 0 {
					fmt.Fprintf(os.Stderr, "conformance: built %v in %s\n", built, took.Round(time.Second))
				} else {
					fmt.Fprintf(os.Stderr, "conformance: upstream programs cached in %s, nothing to build\n", dir)
				}
				fmt.Println(dir)
				return
			}
		}
	}
	fmt.Fprintln(os.Stderr, "conformance: building the upstream programs:", err)
	os.Exit(1)
}
