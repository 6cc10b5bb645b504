package harness

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// KubeAPIServer is the real kube-apiserver 1.37 on its own etcd, for a test that compares
// Allot's answers with upstream's. Its admin is a static token in system:masters.
type KubeAPIServer struct {
	URL   string
	token string
}

// freePort asks the kernel for a port on the loopback that nothing listens on.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func writeServiceAccountKey(t testing.TB, path string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der := x509.MarshalPKCS1PrivateKey(key)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// StartKubeAPIServer starts etcd and kube-apiserver (built by UpstreamBinary) on free loopback
// ports in the test's temporary folder, serving every API version 1.37 has (the resource.k8s.io
// betas included, as Allot serves them), and waits until it is ready.
func StartKubeAPIServer(t testing.TB) *KubeAPIServer {
	t.Helper()
	dir := t.TempDir()
	clientPort, peerPort, securePort := freePort(t), freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	etcd := StartProcess(t, "etcd", UpstreamBinary(t, "etcd"),
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-cluster", fmt.Sprintf("default=http://127.0.0.1:%d", peerPort),
		"--unsafe-no-fsync")
	saKey := filepath.Join(dir, "sa.key")
	writeServiceAccountKey(t, saKey)
	const token = "conformance-admin-token"
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+",admin,admin,system:masters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	apiserver := StartProcess(t, "kube-apiserver", UpstreamBinary(t, "kube-apiserver"),
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(securePort), "--cert-dir", filepath.Join(dir, "certs"),
		"--token-auth-file", tokens, "--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", saKey, "--service-account-signing-key-file", saKey,
		"--service-cluster-ip-range", "10.96.0.0/12",
		"--runtime-config", "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true",
		"--enable-priority-and-fairness=false", "--endpoint-reconciler-type", "none")
	k := &KubeAPIServer{URL: fmt.Sprintf("https://127.0.0.1:%d", securePort), token: token}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // its own self-signed certificate
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if etcd.Exited() || apiserver.Exited() {
			t.Fatalf("etcd or kube-apiserver ended while starting")
		}
		req, _ := http.NewRequest("GET", k.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if res, err := client.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return k
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-apiserver not ready after 3 minutes; log tail:\n%s",
				tail(apiserver.Log(), 40))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// Config is client-go's configuration for the admin: the token, the server's certificate
// not checked (it made its own, for 127.0.0.1).
func (k *KubeAPIServer) Config() *rest.Config {
	return &rest.Config{Host: k.URL, BearerToken: k.token, QPS: 1000, Burst: 1000,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
}
