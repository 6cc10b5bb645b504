// etcd, the server the real kube-apiserver of the harness stores in, built from
// go.etcd.io/etcd/server/v3 at the release Kubernetes 1.37 pins.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
