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
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// KubeAPIServer is the real kube-apiserver 1.37 on its own etcd, for a test that compares
// Allot's answers with upstream's or runs Allot's components on a real cluster. Each role signs
// in with a static token of its own (Roles); the admin's is in system:masters.
type KubeAPIServer struct {
	URL string
	// The folder it runs in; CAFile is the certificate it made for itself, which its clients
	// and kube-controller-manager (as the service accounts' root CA) trust.
	Dir    string
	CAFile string
	// The key that signs (and checks) service account tokens.
	ServiceAccountKey string
	token             string
}

// Role is who a component signs in as: a static token's user and groups.
type Role struct {
	User   string
	Groups []string
}

// Roles are the identities the harness's token file holds, by name: admin (system:masters),
// kube-controller-manager and kube-scheduler (the users upstream's bootstrap RBAC binds).
var Roles = map[string]Role{
	"admin":                   {User: "admin", Groups: []string{"system:masters"}},
	"kube-controller-manager": {User: "system:kube-controller-manager"},
	"kube-scheduler":          {User: "system:kube-scheduler"},
}

func roleToken(name string) string { return "conformance-" + name + "-token" }

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
	token := roleToken("admin")
	tokens := filepath.Join(dir, "tokens.csv")
	var lines strings.Builder
	for name, r := range Roles { // token,user,uid,"group1,group2"
		fmt.Fprintf(&lines, "%s,%s,%s,\"%s\"\n", roleToken(name), r.User, r.User, strings.Join(r.Groups, ","))
	}
	if err := os.WriteFile(tokens, []byte(lines.String()), 0o600); err != nil {
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
	k := &KubeAPIServer{URL: fmt.Sprintf("https://127.0.0.1:%d", securePort), Dir: dir,
		CAFile: filepath.Join(dir, "certs", "apiserver.crt"), ServiceAccountKey: saKey, token: token}
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

// Kubeconfig writes a kubeconfig for `role` (a name of Roles) into the server's folder and
// returns its path: the role's token, the server's own certificate as the CA.
func (k *KubeAPIServer) Kubeconfig(t testing.TB, role string) string {
	t.Helper()
	if _, ok := Roles[role]; !ok {
		t.Fatalf("no role %q in the harness's token file", role)
	}
	path := filepath.Join(k.Dir, role+".kubeconfig")
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kube
  cluster: {server: %q, certificate-authority: %q}
users:
- name: %s
  user: {token: %q}
contexts:
- name: %s
  context: {cluster: kube, user: %s}
current-context: %s
`, k.URL, k.CAFile, role, roleToken(role), role, role, role)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// StartKubeControllerManager runs kube-controller-manager 1.37 against `k` until the test ends:
// every default controller (the resourceclaim controller makes claims from templates), each
// with its own service account's credentials as in a real cluster, no leader election, no
// serving port. Nodes have 10 minutes before the node lifecycle controller marks one that never
// reports (the harness runs no kubelet) as not ready. `extra` flags come last.
func (k *KubeAPIServer) StartKubeControllerManager(t testing.TB, extra ...string) *Process {
	t.Helper()
	args := []string{"--kubeconfig", k.Kubeconfig(t, "kube-controller-manager"),
		"--use-service-account-credentials=true",
		"--service-account-private-key-file", k.ServiceAccountKey,
		"--root-ca-file", k.CAFile,
		"--leader-elect=false", "--secure-port=0", "--controllers=*",
		"--node-monitor-grace-period=10m", "--node-startup-grace-period=10m"}
	return StartProcess(t, "kube-controller-manager", UpstreamBinary(t, "kube-controller-manager"),
		append(args, extra...)...)
}
