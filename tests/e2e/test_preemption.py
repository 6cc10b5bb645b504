"""End to end with kubectl: examples/preemption/ on `allot serve --sim-nodes 1
--sim-gpus-per-node 1`. A high-priority GPU pod preempts the low-priority pod holding the only
GPU and runs; priorities come from PriorityClasses; an unknown class is refused."""
import os

import harness

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "preemption")


class PreemptionTest(harness.TestCase):
    def test_gpu_pod_preempts_and_runs(self):
        with harness.Server(store="memory",
                            extra=["--sim-nodes", "1", "--sim-gpus-per-node", "1"]) as server:
            k = harness.Kubectl(server)
            try:
                self.wait("the node", lambda: len(k.get("nodes")["items"]) == 1)
                k.run("apply", "-f", os.path.join(EXAMPLES, "00-priority-classes.yaml"))
                out = k.run("get", "priorityclasses").stdout
                for name in ("batch", "online", "system-node-critical"):
                    self.assertIn(name, out)
                k.run("apply", "-f", os.path.join(EXAMPLES, "01-training.yaml"))
                self.wait("training Running", lambda: k.get("pod", "training").get(
                    "status", {}).get("phase") == "Running", timeout=30)
                self.assertEqual(k.get("pod", "training")["spec"]["priority"], 100)

                k.run("apply", "-f", os.path.join(EXAMPLES, "02-inference.yaml"))
                self.wait("inference Running", lambda: k.get("pod", "inference").get(
                    "status", {}).get("phase") == "Running", timeout=30)
                inference = k.get("pod", "inference")
                self.assertEqual(inference["spec"]["priority"], 10000)
                self.assertEqual(inference["spec"]["preemptionPolicy"], "PreemptLowerPriority")
                self.assertEqual(inference["status"].get("nominatedNodeName"), "allot-node-0")
                self.wait("training gone", lambda: "training" not in k.run(
                    "get", "pods", "-o", "name").stdout)
                events = k.run("get", "events", "--field-selector",
                               "involvedObject.name=training,reason=Preempted").stdout
                self.assertIn("on node allot-node-0", events)
                desc = k.run("describe", "pod", "inference").stdout
                self.assertIn("Priority:", desc)
                self.assertIn("10000", desc)
                self.assertIn("online", desc)
                self.assertIn("NominatedNodeName:", desc)

                # An unknown class is refused by priority admission.
                bad = k.run("run", "x", "--image=x", "--overrides",
                            '{"spec":{"priorityClassName":"nope"}}', check=False)
                self.assertNotEqual(bad.returncode, 0)
                self.assertIn("no PriorityClass with name nope was found", bad.stderr)
            finally:
                k.cleanup()


if __name__ == "__main__":
    harness.main()
