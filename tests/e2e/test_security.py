"""TLS and authentication as users meet them: the admin kubeconfig `allot serve` writes, kubectl
auth whoami, 401 without credentials, bearer tokens with the Python client, and a scheduler in
its own process with a certificate `allot kubeconfig` issued."""
import http.client
import json
import os
import ssl
import subprocess
import tempfile

import harness
from kubernetes import client
from kubernetes.client.rest import ApiException


class SecurityTest(harness.TestCase):
    def test_admin_kubeconfig_whoami_and_401(self):
        with harness.Server(store="memory") as server:
            self.assertEqual(server.scheme, "https")
            k = harness.Kubectl(server)
            try:
                out = k.run("auth", "whoami").stdout
                self.assertIn("allot-admin", out)
                self.assertIn("system:masters", out)
                self.assertIn("system:authenticated", out)
                k.run("create", "namespace", "team-a")
                # RBAC objects as kubectl creates them (protobuf bodies); not enforced yet.
                k.run("create", "role", "pod-reader", "--verb=get,list", "--resource=pods",
                      "-n", "team-a")
                k.run("create", "rolebinding", "readers", "--role=pod-reader", "--user=jane",
                      "--group=devs", "-n", "team-a")
                binding = k.get("rolebinding", "readers", "-n", "team-a")
                self.assertEqual(binding["roleRef"], {"apiGroup": "rbac.authorization.k8s.io",
                                                      "kind": "Role", "name": "pod-reader"})
                self.assertEqual([s["name"] for s in binding["subjects"]], ["jane", "devs"])
                self.assertIn("cluster-admin", k.run("get", "clusterrolebindings").stdout)
                p = k.run("create", "rolebinding", "bad", "--clusterrole=x", "--user=u",
                          "-n", "team-a", "--dry-run=server", check=False)
                self.assertEqual(p.returncode, 0, p.stderr)
                # The same server and CA, a token nobody issued: 401, as kubectl words it.
                ca = os.path.join(server.data_dir, "pki", "ca.crt")
                p = subprocess.run(
                    ["/usr/bin/kubectl", "--kubeconfig", os.devnull, "--server", server.url,
                     "--certificate-authority", ca, "--token", "guessed", "get", "namespaces"],
                    capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
                    env=k.env())
                self.assertNotEqual(p.returncode, 0)
                # (kubectl's words for a 401 during discovery, as against kube-apiserver.)
                self.assertIn("error: You must be logged in to the server", p.stderr)
                # No credentials at all: a 401 Status.
                ctx = ssl.create_default_context(cafile=ca)
                conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=ctx,
                                                   timeout=30)
                conn.request("GET", "/api/v1/namespaces")
                resp = conn.getresponse()
                status = json.loads(resp.read())
                self.assertEqual(resp.status, 401)
                self.assertEqual((status["reason"], status["code"]), ("Unauthorized", 401))
                conn.close()
                # A CA that did not sign the server's certificate: refused by kubectl.
                other = tempfile.NamedTemporaryFile("w", suffix=".crt", delete=False)
                other.write(open(os.path.join(server.data_dir, "pki", "admin.crt")).read())
                other.close()
                p = subprocess.run(
                    ["/usr/bin/kubectl", "--kubeconfig", os.devnull, "--server", server.url,
                     "--certificate-authority", other.name, "--token", "any", "get",
                     "namespaces"],
                    capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
                    env=k.env())
                os.unlink(other.name)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn("certificate", p.stderr)
            finally:
                k.cleanup()

    def test_bearer_tokens_with_the_python_client(self):
        tokens = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
        tokens.write('t0ken-1,robot,uid-1,"robots,dev"\n')
        tokens.close()
        try:
            with harness.Server(store="memory", extra=["--token-auth-file", tokens.name]) as server:
                cfg = client.Configuration()
                cfg.host = server.url
                cfg.ssl_ca_cert = os.path.join(server.data_dir, "pki", "ca.crt")
                cfg.api_key = {"authorization": "t0ken-1"}
                cfg.api_key_prefix = {"authorization": "Bearer"}
                api = client.ApiClient(cfg)
                core = client.CoreV1Api(api)
                names = [n.metadata.name for n in core.list_namespace().items]
                self.assertIn("default", names)
                # SelfSubjectReview (what `kubectl auth whoami` sends), through the client.
                review = api.call_api(
                    "/apis/authentication.k8s.io/v1/selfsubjectreviews", "POST",
                    body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
                    response_type="object", auth_settings=["BearerToken"],
                    _return_http_data_only=True)
                self.assertEqual(review["status"]["userInfo"],
                                 {"username": "robot", "uid": "uid-1",
                                  "groups": ["robots", "dev", "system:authenticated"]})
                cfg.api_key = {"authorization": "wrong"}
                with self.assertRaises(ApiException) as err:
                    client.CoreV1Api(client.ApiClient(cfg)).list_namespace()
                self.assertEqual(err.exception.status, 401)
        finally:
            os.unlink(tokens.name)

    def test_scheduler_with_its_own_certificate(self):
        with harness.Server(store="memory", extra=["--sim-nodes", "3", "--no-scheduler"]) as server:
            k = harness.Kubectl(server)
            kubeconfig = os.path.join(server.data_dir, "scheduler.kubeconfig")
            subprocess.run([harness.ALLOT, "kubeconfig", "--data-dir", server.data_dir,
                            "--user", "system:kube-scheduler", "--server", server.url,
                            "--out", kubeconfig], check=True, capture_output=True, timeout=60)
            sched = subprocess.Popen([harness.ALLOT, "scheduler", "--kubeconfig", kubeconfig],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                k.run("run", "p1", "--image", "busybox", "--restart", "Never")
                self.wait("p1 scheduled", lambda: k.get("pod", "p1")["spec"].get("nodeName"),
                          timeout=60)
                # What the scheduler wrote was written as system:kube-scheduler.
                out = subprocess.run(
                    ["/usr/bin/kubectl", "--kubeconfig", kubeconfig, "auth", "whoami"],
                    capture_output=True, text=True, timeout=60, env=k.env()).stdout
                self.assertIn("system:kube-scheduler", out)
            finally:
                sched.terminate()
                sched.wait(timeout=20)
                k.cleanup()

    def test_plain_http_only_on_loopback(self):
        p = subprocess.run([harness.ALLOT, "serve", "--listen", "0.0.0.0:0", "--store", "memory",
                            "--insecure-plain-http"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("plain HTTP is only allowed on a loopback address", p.stderr)
        with harness.Server(store="memory", extra=["--insecure-plain-http"]) as server:
            self.assertEqual(server.scheme, "http")
            k = harness.Kubectl(server)
            try:
                self.assertIn("default", k.run("get", "namespaces").stdout)
            finally:
                k.cleanup()


if __name__ == "__main__":
    harness.main()
