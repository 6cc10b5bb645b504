"""End to end with kubectl: the demo of docs/demo.md against `allot serve --demo` (three
simulated nodes with one node-local GPU each, the fabric driver with three fabric GPUs whose
first attach fails). Applies examples/demo/ as a newcomer would and checks each step of the
story: node-local GPUs first, then fabric GPUs attached through binding conditions, one attach
failure rescheduled, and what `kubectl describe` says about it."""
import os
import re

import harness

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "demo")


class DemoTest(harness.TestCase):
    def pods(self, k):
        return {p["metadata"]["name"]: p for p in k.get("pods", "-l", "demo=allot")["items"]}

    def running(self, k, names):
        pods = self.pods(k)
        return all(pods.get(n, {}).get("status", {}).get("phase") == "Running" for n in names)

    def claim_of(self, k, pod):
        for s in self.pods(k)[pod]["status"].get("resourceClaimStatuses", []):
            return k.get("resourceclaim", s["resourceClaimName"])
        return None

    def events(self, k, pod):
        out = k.get("events", "--field-selector", "involvedObject.name=" + pod)
        return [(e["reason"], e.get("message", "")) for e in out["items"]]

    def test_the_demo_story(self):
        with harness.Server(store="memory", extra=["--demo"]) as server:
            k = harness.Kubectl(server)
            try:
                # Three node-local slices and one fabric pool.
                self.wait("4 slices", lambda: len(k.get("resourceslices")["items"]) == 4)
                fabric = [s for s in k.get("resourceslices")["items"]
                          if s["spec"]["pool"]["name"].startswith("fabric-")]
                self.assertEqual(len(fabric), 1)
                self.assertEqual(len(fabric[0]["spec"]["devices"]), 3)
                self.assertTrue(all(d.get("bindsToNode") and d.get("bindingConditions")
                                    for d in fabric[0]["spec"]["devices"]))

                # 1. Node-local GPUs first: one pod per node, no waiting.
                k.run("apply", "-f", os.path.join(EXAMPLES, "00-template.yaml"),
                      "-f", os.path.join(EXAMPLES, "01-local-pods.yaml"))
                local = ["local-0", "local-1", "local-2"]
                self.wait("local pods Running", lambda: self.running(k, local))
                nodes = {self.pods(k)[n]["spec"]["nodeName"] for n in local}
                self.assertEqual(len(nodes), 3)
                for n in local:
                    pool = self.claim_of(k, n)["status"]["allocation"]["devices"]["results"][0]["pool"]
                    self.assertFalse(pool.startswith("fabric-"), n)
                    self.assertNotIn("BindingConditionsPending", [r for r, _ in self.events(k, n)])

                # 2. Fabric GPUs: the pods wait for the attach, nominated to their node.
                k.run("apply", "-f", os.path.join(EXAMPLES, "02-fabric-pods.yaml"))
                fab = ["fabric-0", "fabric-1"]
                self.wait("a fabric pod waiting with a nominated node", lambda: any(
                    self.pods(k).get(n, {}).get("status", {}).get("nominatedNodeName")
                    and not self.pods(k)[n]["spec"].get("nodeName") for n in fab), timeout=30)
                self.wait("fabric pods Running", lambda: self.running(k, fab))

                # 3. Every fabric pod waited; exactly one attach failed and that pod was
                # rescheduled onto another fabric device.
                failed = []
                for n in fab:
                    reasons = [r for r, _ in self.events(k, n)]
                    self.assertIn("BindingConditionsPending", reasons, n)
                    self.assertIn("Scheduled", reasons, n)
                    msgs = [m for r, m in self.events(k, n) if r == "FailedScheduling"]
                    if any("kubernetes.io/attach-failed is True" in m for m in msgs):
                        failed.append(n)
                    claim = self.claim_of(k, n)
                    result = claim["status"]["allocation"]["devices"]["results"][0]
                    self.assertTrue(result["pool"].startswith("fabric-"), n)
                    self.assertEqual(result["bindingConditions"], ["kubernetes.io/is-attached"])
                    conds = [c for d in claim["status"]["devices"] for c in d["conditions"]]
                    self.assertIn(("kubernetes.io/is-attached", "True"),
                                  [(c["type"], c["status"]) for c in conds])
                    node = self.pods(k)[n]["spec"]["nodeName"]
                    terms = claim["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"]
                    self.assertEqual(terms[0]["matchFields"][0]["values"], [node])
                self.assertEqual(len(failed), 1, "exactly one attach fails in the demo")
                devices = {self.claim_of(k, n)["status"]["allocation"]["devices"]["results"][0]
                           ["device"] for n in fab}
                self.assertEqual(len(devices), 2)

                # The failed device is tainted so it is not picked again at once.
                devs = [s for s in k.get("resourceslices")["items"]
                        if s["spec"]["pool"]["name"].startswith("fabric-")][0]["spec"]["devices"]
                self.assertEqual(sum(1 for d in devs if d.get("taints")), 1)

                # 4. kubectl describe explains each step.
                out = k.run("describe", "pod", failed[0]).stdout
                self.assertIn("BindingConditionsPending", out)
                self.assertIn("binding failure condition kubernetes.io/attach-failed is True", out)
                self.assertIn("Successfully assigned", out)
                claim = self.claim_of(k, failed[0])["metadata"]["name"]
                out = k.run("describe", "resourceclaim", claim).stdout
                self.assertIn("Binding Conditions", out)
                self.assertIn("kubernetes.io/is-attached", out)
                self.assertIn("Attached", out)

                # Metrics name the outcomes (one failed attach, two successful waits).
                metrics = k.run("get", "--raw", "/metrics").stdout
                counts = {}
                for line in metrics.splitlines():
                    m = re.match(r'scheduler_dra_bindingconditions_allocations_total\{(.*)\} (\d+)',
                                 line)
                    if m:
                        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
                        self.assertEqual(labels["driver"], "gpu.example.com")
                        counts[labels["status"]] = int(m.group(2))
                self.assertEqual(counts.get("failure"), 1, counts)
                self.assertEqual(counts.get("success"), 2, counts)
            finally:
                k.cleanup()

if __name__ == "__main__":
    harness.main()
