//go:build tools

// The upstream programs scripts/conformance.sh builds, named here so that go.mod pins the modules
// that hold them.
package conformance

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
