"""End to end: PodDisruptionBudgets with kubectl and python3-kubernetes on `allot serve
--sim-nodes 2`. The disruption controller fills in the budget's status; the eviction subresource
spends it and then refuses with 429; `kubectl drain` is held back by the budget and goes through
once the budget is gone."""
import json

import harness
from kubernetes import client
from kubernetes.client.rest import ApiException

PODS = [json.dumps({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-%d" % i, "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "nginx",
                             "resources": {"requests": {"cpu": "100m"}}}]},
}) for i in range(3)]


class DisruptionTest(harness.TestCase):
    def test_budget_eviction_and_drain(self):
        with harness.Server(store="memory", extra=["--sim-nodes", "2"]) as server:
            k = harness.Kubectl(server)
            cfg = server.client_configuration()
            core = client.CoreV1Api(client.ApiClient(cfg))
            try:
                self.wait("the nodes", lambda: len(k.get("nodes")["items"]) == 2)
                for pod in PODS:
                    k.run("apply", "-f", "-", stdin=pod)
                self.wait("three ready pods", lambda: sum(
                    1 for p in k.get("pods", "-l", "app=web")["items"]
                    if any(c["type"] == "Ready" and c["status"] == "True"
                           for c in p.get("status", {}).get("conditions", []))) == 3)

                k.run("create", "pdb", "web", "--selector=app=web", "--min-available=2")
                self.wait("one disruption allowed", lambda: k.get("pdb", "web").get(
                    "status", {}).get("disruptionsAllowed") == 1)
                status = k.get("pdb", "web")["status"]
                self.assertEqual((status["expectedPods"], status["currentHealthy"],
                                  status["desiredHealthy"]), (3, 3, 2))
                self.assertIn("1", k.run("get", "pdb", "web").stdout.splitlines()[1].split())

                def evict(name):
                    core.create_namespaced_pod_eviction(name, "default", client.V1Eviction(
                        metadata=client.V1ObjectMeta(name=name, namespace="default")))

                evict("web-0")  # spends the one disruption
                with self.assertRaises(ApiException) as refused:
                    evict("web-1")
                self.assertEqual(refused.exception.status, 429)
                body = json.loads(refused.exception.body)
                self.assertEqual(body["message"],
                                 "Cannot evict pod as it would violate the pod's disruption "
                                 "budget.")
                self.assertEqual(body["details"]["causes"][0]["reason"], "DisruptionBudget")
                self.wait("web-0 gone", lambda: "pod/web-0" not in k.run(
                    "get", "pods", "-o", "name").stdout)
                self.wait("the budget counts two", lambda: k.get("pdb", "web")["status"].get(
                    "expectedPods") == 2)
                self.assertEqual(k.get("pdb", "web")["status"]["disruptionsAllowed"], 0)

                # kubectl drain evicts, meets the budget and gives up at its timeout.
                node = k.get("pod", "web-1")["spec"]["nodeName"]
                held = k.run("drain", node, "--force", "--timeout=3s", check=False)
                self.assertNotEqual(held.returncode, 0)
                self.assertIn("Cannot evict pod as it would violate the pod's disruption budget",
                              held.stderr)
                self.assertIn("pod/web-1", k.run("get", "pods", "-o", "name").stdout)

                k.run("delete", "pdb", "web")
                drained = k.run("drain", node, "--force", "--timeout=30s")
                self.assertIn("drained", drained.stdout)
                self.assertTrue(k.get("node", node)["spec"].get("unschedulable"))
                self.wait("web-1 gone", lambda: "pod/web-1" not in k.run(
                    "get", "pods", "-o", "name").stdout)
            finally:
                k.cleanup()


if __name__ == "__main__":
    harness.main()
