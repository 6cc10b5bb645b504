"""TLS, authentication and RBAC as users meet them: the admin kubeconfig `allot serve` writes,
kubectl auth whoami and can-i, 401 without credentials, 403 for what a role does not grant,
bearer tokens with the Python client, the audit log, and the scheduler, a node and a DRA driver
each in its own process with least privilege (certificates `allot kubeconfig` issued)."""
import http.client
import json
import os
import socket
import ssl
import subprocess
import tempfile

import harness
from kubernetes import client

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "controller")
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
                # RBAC objects as kubectl creates them (protobuf bodies).
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

    def test_tls_sessions_resume_as_the_same_user(self):
        """A client that resumes its TLS session (as browsers and Go clients do for their next
        connection) is served, and as the user of the certificate it first presented."""
        with harness.Server() as server:
            pki = os.path.join(server.data_dir, "pki")
            ctx = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
            ctx.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))

            def get(path, session=None):
                with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw:
                    with ctx.wrap_socket(raw, server_hostname="127.0.0.1",
                                         session=session) as s:
                        s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                   "Connection: close\r\n\r\n" % path).encode())
                        data = b""
                        while chunk := s.recv(65536):
                            data += chunk
                        return data.decode(), s.session, s.session_reused

            first, session, reused = get("/api/v1/namespaces/default")
            self.assertTrue(first.startswith("HTTP/1.1 200"), first[:200])
            self.assertFalse(reused)
            for _ in range(3):
                again, _, reused = get("/api/v1/namespaces/default", session)
                self.assertTrue(reused)
                self.assertTrue(again.startswith("HTTP/1.1 200"), again[:200])

    def test_bearer_tokens_with_the_python_client(self):
        tokens = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
        tokens.write('t0ken-1,robot,uid-1,"robots,dev"\n')
        tokens.close()
        try:
            with harness.Server(store="memory", extra=["--token-auth-file", tokens.name]) as server:
                admin = harness.Kubectl(server)
                admin.run("create", "clusterrole", "namespace-reader", "--verb=list",
                          "--resource=namespaces")
                admin.run("create", "clusterrolebinding", "robots-read-namespaces",
                          "--clusterrole=namespace-reader", "--group=robots")
                admin.cleanup()
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
                # Granted list, not create: 403 with Kubernetes' message.
                with self.assertRaises(ApiException) as err:
                    core.create_namespace(client.V1Namespace(
                        metadata=client.V1ObjectMeta(name="robots")))
                self.assertEqual(err.exception.status, 403)
                self.assertEqual(json.loads(err.exception.body)["message"],
                                 'namespaces is forbidden: User "robot" cannot create resource '
                                 '"namespaces" in API group "" at the cluster scope')
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

    def test_rbac_with_kubectl(self):
        server = harness.Server(store="memory", extra=["--no-scheduler"])
        audit_log = os.path.join(server.data_dir, "audit.log")
        server.extra += ["--audit-log-path", audit_log]
        with server:
            admin = harness.Kubectl(server)
            jane = harness.Kubectl(server, server.issue_kubeconfig("jane", ["devs"]))
            try:
                p = jane.run("auth", "can-i", "create", "pods", check=False)
                self.assertEqual((p.returncode, p.stdout.strip()), (1, "no"))
                p = jane.run("run", "p1", "--image", "busybox", "--restart", "Never", check=False)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn('Error from server (Forbidden): pods is forbidden: User "jane" '
                              'cannot create resource "pods" in API group "" in the namespace '
                              '"default"', p.stderr)
                # A role in default, bound to jane's group: granted there and nowhere else.
                admin.run("create", "role", "pod-runner", "--verb=create,get,list,delete",
                          "--resource=pods")
                admin.run("create", "rolebinding", "devs-run-pods", "--role=pod-runner",
                          "--group=devs")
                self.assertEqual(jane.run("auth", "can-i", "create", "pods").stdout.strip(),
                                 "yes")
                p = jane.run("auth", "can-i", "create", "pods", "-n", "kube-system", check=False)
                self.assertEqual((p.returncode, p.stdout.strip()), (1, "no"))
                jane.run("run", "p1", "--image", "busybox", "--restart", "Never")
                self.assertEqual(jane.get("pod", "p1")["metadata"]["name"], "p1")
                listing = jane.run("auth", "can-i", "--list").stdout
                self.assertRegex(listing, r"pods\s+\[\]\s+\[\]\s+\[create get list delete\]")
                p = jane.run("delete", "namespace", "kube-system", check=False)
                self.assertIn('cannot delete resource "namespaces"', p.stderr)
                self.assertIn("allot-admin", admin.run("auth", "whoami").stdout)
                self.assertEqual(admin.run("auth", "can-i", "delete", "nodes").stdout.strip(),
                                 "yes")
                # The audit log has jane's refused create and her granted one.
                events = [json.loads(line) for line in open(audit_log)]
                jane_creates = [(e["objectRef"].get("name"), e["responseStatus"]["code"])
                                for e in events if e["user"]["username"] == "jane"
                                and e["verb"] == "create"
                                and e.get("objectRef", {}).get("resource") == "pods"]
                self.assertEqual([code for _, code in jane_creates], [403, 201])
            finally:
                admin.cleanup()
                jane.cleanup()

    def test_every_role_with_least_privilege(self):
        """The scheduler, the controllers, a node (node-sim for one node, with a node-local GPU)
        and the KEP-3063 example driver, each in its own process with the bootstrap role of its
        kind: a pod's claim is allocated by the scheduler and the pod started by the node,
        trainers of examples/controller/ get claims from their template (the controllers) and
        are negotiated and allocated by the driver; what a node may not touch stays refused,
        and nothing else any of them did was."""
        server = harness.Server(store="memory", extra=["--no-scheduler", "--no-controllers"])
        audit_log = os.path.join(server.data_dir, "audit.log")
        server.extra += ["--audit-log-path", audit_log]
        with server:
            admin = harness.Kubectl(server)
            node = harness.Kubectl(
                server, server.issue_kubeconfig("system:node:edge-0", ["system:nodes"]))
            driver_kc = server.issue_kubeconfig("system:dra-driver:controller.example.com",
                                                ["system:dra-drivers"])
            sched_kc = server.issue_kubeconfig("system:kube-scheduler")
            controllers_kc = server.issue_kubeconfig("system:kube-controller-manager")
            template = os.path.join(server.data_dir, "edge.yaml")
            with open(template, "w") as f:
                f.write("apiVersion: v1\nkind: Node\nmetadata:\n  name: edge\n  labels:\n"
                        "    accelerators.example.com/fabric: \"true\"\n"
                        "    topology.example.com/rack: rack-a\n")
            # The administrator makes the drivers' DeviceClasses (drivers and nodes may not).
            admin.run("apply", "-f", os.path.join(EXAMPLES, "00-device-class.yaml"))
            admin.run("create", "-f", "-", stdin=json.dumps({
                "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                "metadata": {"name": "gpu.example.com"},
                "spec": {"selectors": [{"cel": {
                    "expression": "device.driver == 'gpu.example.com'"}}]}}))
            procs = []
            try:
                log = open(os.path.join(server.data_dir, "roles.log"), "w")
                self.addCleanup(log.close)
                for cmd in (
                        ["scheduler", "--kubeconfig", sched_kc],
                        ["controllers", "--kubeconfig", controllers_kc],
                        ["node-sim", "--kubeconfig", node.user_kubeconfig, "--nodes", "1",
                         "--node-template", template, "--name-prefix", "edge",
                         "--sim-gpus-per-node", "1"],
                        ["driver", "controller", "--kubeconfig", driver_kc,
                         "--config", os.path.join(EXAMPLES, "pool.yaml")]):
                    procs.append(subprocess.Popen([harness.ALLOT] + cmd, stdout=log,
                                                  stderr=log))
                self.wait("node edge-0", lambda: "edge-0" in [
                    n["metadata"]["name"] for n in admin.get("nodes")["items"]], timeout=60)
                admin.run("apply", "-f", os.path.join(EXAMPLES, "01-claim-template.yaml"),
                          "-f", os.path.join(EXAMPLES, "02-pods.yaml"))
                # And a pod whose claim the scheduler allocates from edge-0's own slice.
                admin.run("create", "-f", "-", stdin=json.dumps({
                    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": "gpu", "namespace": "default"},
                    "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                        "deviceClassName": "gpu.example.com"}}]}}}))
                admin.run("create", "-f", "-", stdin=json.dumps({
                    "apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": "local-gpu", "namespace": "default"},
                    "spec": {"containers": [{"name": "main", "image": "busybox",
                                             "resources": {"claims": [{"name": "gpu"}]}}],
                             "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu"}]}}))

                def pods():
                    return {p["metadata"]["name"]: p for p in admin.get("pods")["items"]}

                def bound_trainers():
                    return sorted(n for n, p in pods().items()
                                  if n.startswith("trainer-") and p["spec"].get("nodeName"))
                # The GPU pod runs (its claim allocated by the scheduler from edge-0's slice);
                # two trainers are bound to edge-0 with the driver's allocation (perNodeLimit
                # 2; the third waits). They do not start: node-sim's kubelet has no plugin of
                # controller.example.com registered, as a kubelet would refuse them.
                try:
                    self.wait("the GPU pod Running and two trainers bound", lambda: (
                        pods()["local-gpu"].get("status", {}).get("phase") == "Running" and
                        len(bound_trainers()) == 2), timeout=90)
                except AssertionError:
                    log.flush()
                    with open(os.path.join(server.data_dir, "roles.log")) as f:
                        print("roles.log (last lines):\n" + "".join(f.readlines()[-40:]))
                    raise
                gpu = admin.get("resourceclaim", "gpu")
                self.assertEqual(gpu["status"]["allocation"]["devices"]["results"][0]["driver"],
                                 "gpu.example.com")
                self.assertEqual(gpu["status"]["reservedFor"][0]["name"], "local-gpu")
                for name in bound_trainers():
                    p = pods()[name]
                    self.assertEqual(p["spec"]["nodeName"], "edge-0")
                    claim = admin.get("resourceclaim", p["status"]["resourceClaimStatuses"][0]
                                      ["resourceClaimName"])
                    self.assertEqual(claim["status"]["allocation"]["controllerName"],
                                     "controller.example.com")
                # What the node may not do, even with the node role: touch another Node.
                admin.run("create", "-f", "-", stdin='{"apiVersion":"v1","kind":"Node",'
                                                     '"metadata":{"name":"other"}}')
                p = node.run("label", "node", "other", "x=y", check=False)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn('nodes "other" is forbidden: node "edge-0" may only modify its '
                              'own Node object', p.stderr)
                node.run("label", "node", "edge-0", "x=y")
                for proc in procs:
                    self.assertIsNone(proc.poll(), "a role's process exited: " +
                                      open(os.path.join(server.data_dir, "roles.log")).read())
                # Their roles granted everything they did but shortcuts each has a way around
                # (creating DeviceClasses, which exist; listing every node's Lease to adopt its
                # own, which it then reads alone) and the write refused above.
                with open(audit_log) as f:
                    refused = sorted((e["user"]["username"], e["verb"],
                                      e["requestURI"].split("?")[0])
                                     for e in map(json.loads, f)
                                     if e["responseStatus"]["code"] == 403)
                self.assertEqual(refused, [
                    ("system:dra-driver:controller.example.com", "create",
                     "/apis/resource.k8s.io/v1/deviceclasses"),
                    ("system:node:edge-0", "create", "/apis/resource.k8s.io/v1/deviceclasses"),
                    ("system:node:edge-0", "list",
                     "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"),
                    ("system:node:edge-0", "patch", "/api/v1/nodes/other")])
            finally:
                for proc in procs:
                    proc.terminate()
                for proc in procs:
                    try:
                        proc.wait(timeout=20)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                admin.cleanup()
                node.cleanup()

    def test_secondary_scheduler_with_only_kube_schedulers_grants(self):
        """As beside kube-scheduler on a real cluster (docs/security.md, On a real cluster):
        `allot scheduler` with its own schedulerName, the Reservation plugin and
        DRAControlPlaneController off, and a role granting only what Kubernetes'
        system:kube-scheduler grants for the kinds it uses, schedules its pods (one with a
        device claim) beside the embedded default scheduler, and is refused nothing."""
        server = harness.Server(store="memory", extra=["--sim-nodes", "2",
                                                       "--sim-gpus-per-node", "1"])
        audit_log = os.path.join(server.data_dir, "audit.log")
        server.extra += ["--audit-log-path", audit_log]
        with server:
            admin = harness.Kubectl(server)
            rules = [
                (["create", "patch", "update"], [""], ["events"]),
                (["get", "list", "watch"], [""], ["nodes", "namespaces", "pods"]),
                (["delete"], [""], ["pods"]),
                (["create"], [""], ["pods/binding", "bindings"]),
                (["patch", "update"], [""], ["pods/status"]),
                (["get", "list", "watch"], ["policy"], ["poddisruptionbudgets"]),
                (["get", "list", "watch"], ["resource.k8s.io"],
                 ["resourceclaims", "deviceclasses", "resourceslices"]),
                (["update"], ["resource.k8s.io"], ["resourceclaims", "resourceclaims/status"]),
            ]
            admin.run("create", "-f", "-", stdin=json.dumps({
                "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "upstream-kube-scheduler"},
                "rules": [{"verbs": v, "apiGroups": g, "resources": r} for v, g, r in rules]}))
            admin.run("create", "clusterrolebinding", "secondary-scheduler",
                      "--clusterrole=upstream-kube-scheduler", "--user=secondary-scheduler")
            kubeconfig = server.issue_kubeconfig("secondary-scheduler")
            config = os.path.join(server.data_dir, "secondary.yaml")
            with open(config, "w") as f:
                f.write("apiVersion: kubescheduler.config.k8s.io/v1\n"
                        "kind: KubeSchedulerConfiguration\n"
                        "profiles:\n- schedulerName: allot-secondary\n  plugins:\n"
                        "    multiPoint:\n      disabled:\n      - name: Reservation\n")
            sched_log = os.path.join(server.data_dir, "secondary.log")
            log = open(sched_log, "w")
            self.addCleanup(log.close)
            sched = subprocess.Popen(
                [harness.ALLOT, "scheduler", "--kubeconfig", kubeconfig, "--config", config,
                 "--leader-elect=false", "--feature-gates", "DRAControlPlaneController=false"],
                stdout=log, stderr=log)
            try:
                admin.run("create", "-f", "-", stdin=json.dumps({
                    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": "gpu", "namespace": "default"},
                    "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                        "deviceClassName": "gpu.example.com"}}]}}}))
                for name, claim in (("mine", None), ("mine-gpu", "gpu")):
                    spec = {"schedulerName": "allot-secondary",
                            "containers": [{"name": "c", "image": "busybox"}]}
                    if claim:
                        spec["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
                        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
                    admin.run("create", "-f", "-", stdin=json.dumps({
                        "apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": name, "namespace": "default"}, "spec": spec}))
                admin.run("run", "theirs", "--image", "busybox", "--restart", "Never")
                for name in ("mine", "mine-gpu", "theirs"):
                    try:
                        self.wait(name + " Running", lambda n=name: admin.get("pod", n).get(
                            "status", {}).get("phase") == "Running", timeout=60)
                    except AssertionError as e:
                        with open(sched_log) as f, open(audit_log) as a:
                            refused = {x["requestURI"] for x in map(json.loads, a)
                                       if x["responseStatus"]["code"] == 403}
                            raise AssertionError("%s\nscheduler log:\n%s\nrefused: %s" %
                                                 (e, f.read(), sorted(refused)))
                gpu = admin.get("resourceclaim", "gpu")
                self.assertEqual(gpu["status"]["reservedFor"][0]["name"], "mine-gpu")
                with open(audit_log) as f:
                    events = [e for e in map(json.loads, f)
                              if e["user"]["username"] == "secondary-scheduler"]
                # Its pods were bound by it, and it asked for nothing its role lacks.
                binds = sorted(e["objectRef"]["name"] for e in events
                               if e.get("objectRef", {}).get("subresource") == "binding")
                self.assertEqual(binds, ["mine", "mine-gpu"])
                self.assertEqual([e["requestURI"] for e in events
                                  if e["responseStatus"]["code"] == 403], [])
            finally:
                sched.terminate()
                sched.wait(timeout=20)
                admin.cleanup()

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
