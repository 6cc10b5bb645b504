"""End to end with kubectl: the KEP-3063 walkthrough of docs/controller.md against `allot serve
--demo` (the example control-plane driver controller.example.com with one accelerator in rack-a,
reached by allot-node-0 and allot-node-1, and one in rack-b, reached by allot-node-2). Applies
examples/controller/ as a newcomer would: two pods run, the third waits with the driver's answer
in its PodSchedulingContext, and runs once a slot is released."""
import os

import harness

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "controller")
TRAINERS = ["trainer-0", "trainer-1", "trainer-2"]


class ControllerTest(harness.TestCase):
    def pods(self, k):
        return {p["metadata"]["name"]: p for p in k.get("pods")["items"]
                if p["metadata"]["name"].startswith("trainer-")}

    def phase(self, k, name):
        return self.pods(k).get(name, {}).get("status", {}).get("phase")

    def scheduled_message(self, k, name):
        return harness.scheduled_message(self.pods(k).get(name))

    def test_the_walkthrough(self):
        with harness.Server(store="memory", extra=["--demo"]) as server:
            k = harness.Kubectl(server)
            try:
                self.wait("the driver's DeviceClass", lambda: "controller.example.com" in [
                    c["metadata"]["name"] for c in k.get("deviceclasses")["items"]])
                k.run("apply", "-f", os.path.join(EXAMPLES, "01-claim-template.yaml"),
                      "-f", os.path.join(EXAMPLES, "02-pods.yaml"))

                # Two accelerators: two pods run, on nodes of different racks.
                self.wait("two trainers Running", lambda: sum(
                    self.phase(k, n) == "Running" for n in TRAINERS) == 2, timeout=60)
                pods = self.pods(k)
                running = [n for n in TRAINERS if self.phase(k, n) == "Running"]
                waiting = [n for n in TRAINERS if n not in running][0]
                nodes = {pods[n]["spec"]["nodeName"] for n in running}
                self.assertIn("allot-node-2", nodes)  # rack-b's only node
                self.assertFalse(pods[waiting]["spec"].get("nodeName"))

                # Their claims were allocated by the driver, pinned to their nodes.
                for n in running:
                    claim = k.get("resourceclaim",
                                  pods[n]["status"]["resourceClaimStatuses"][0]["resourceClaimName"])
                    alloc = claim["status"]["allocation"]
                    self.assertEqual(alloc["controllerName"], "controller.example.com")
                    self.assertEqual(claim["status"]["reservedFor"][0]["name"], n)
                    self.assertIn("controller.example.com/deletion-protection",
                                  claim["metadata"]["finalizers"])

                # The third pod waits: the driver ruled every node out, and the pod says so.
                self.wait("the waiting pod's reason", lambda: "unsuitable" in
                          self.scheduled_message(k, waiting), timeout=30)
                ctx = k.get("podschedulingcontext", waiting)
                asked = set(ctx["spec"]["potentialNodes"]) | {ctx["spec"].get("selectedNode")}
                asked.discard(None)
                self.assertTrue(asked)
                answer = ctx["status"]["resourceClaims"][0]
                self.assertEqual(answer["name"], "acc")
                self.assertTrue(asked <= set(answer["unsuitableNodes"]), (asked, answer))
                out = k.run("get", "podschedulingcontexts").stdout
                self.assertIn("SELECTEDNODE", out)
                self.assertIn("POTENTIAL", out)
                reasons = [e["reason"] for e in k.get(
                    "events", "--field-selector", "involvedObject.name=" + waiting)["items"]]
                self.assertIn("WaitingForResourceDriver", reasons)

                # Contexts of bound pods are gone.
                names = [c["metadata"]["name"] for c in k.get("podschedulingcontexts")["items"]]
                self.assertEqual(names, [waiting])

                # A released slot goes to the waiting pod.
                gone = [n for n in running if pods[n]["spec"]["nodeName"] != "allot-node-2"][0]
                k.run("delete", "pod", gone, "--wait=false")
                self.wait(waiting + " Running", lambda: self.phase(k, waiting) == "Running",
                          timeout=60)
                self.assertIn(self.pods(k)[waiting]["spec"]["nodeName"],
                              ["allot-node-0", "allot-node-1"])
                out = k.run("describe", "pod", waiting).stdout
                self.assertIn("waiting for resource driver controller.example.com", out)
                self.assertIn("Successfully assigned", out)
            finally:
                k.cleanup()

    def test_the_example_pool_config_runs(self):
        """examples/controller/pool.yaml, every field of it, is a config the driver runs."""
        config = os.path.join(EXAMPLES, "pool.yaml")
        with harness.Server(store="memory", extra=["--controller-config", config]) as server:
            k = harness.Kubectl(server)
            self.wait("the driver's DeviceClass", lambda: "controller.example.com" in [
                c["metadata"]["name"] for c in k.get("deviceclasses")["items"]])
            selector = k.get("deviceclass", "controller.example.com")["spec"]["suitableNodes"]
            self.assertIn("accelerators.example.com/fabric", str(selector))


if __name__ == "__main__":
    harness.main()
