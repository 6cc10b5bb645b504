"""End to end with kubectl: DRA with structured parameters against
`allot serve --sim-nodes N --sim-gpus-per-node K` (node-local driver gpu.example.com publishing
ResourceSlices, the resourceclaim controller, the scheduler's DynamicResources plugin, simulated
kubelets that prepare claims)."""

import harness

TEMPLATE = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
  namespace: default
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: "device.capacity['gpu.example.com'].memory.compareTo(quantity('4Gi')) >= 0"
"""


def pod(name, claim_template=None, claim=None):
    src = ("resourceClaimTemplateName: %s" % claim_template if claim_template
           else "resourceClaimName: %s" % claim)
    return ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: default\n"
            "  labels:\n    app: dra\nspec:\n  resourceClaims:\n  - name: gpu\n    %s\n"
            "  containers:\n  - name: c\n    image: busybox\n    resources:\n      claims:\n"
            "      - name: gpu\n" % (name, src))


class DraTest(harness.TestCase):
    def phases(self, k):
        pods = k.get("pods", "-l", "app=dra")["items"]
        return {p["metadata"]["name"]: p["status"].get("phase") for p in pods}

    def scheduled_message(self, k, name):
        p = k.get("pod", name)
        for c in p["status"].get("conditions", []):
            if c["type"] == "PodScheduled" and c["status"] == "False":
                return c.get("message")
        return None

    def test_claims_from_templates_on_simulated_gpus(self):
        with harness.Server(extra=["--sim-nodes", "4", "--sim-gpus-per-node", "2"]) as server:
            k = harness.Kubectl(server)
            try:
                # The node-local driver publishes one slice per node, 2 devices each.
                slices = self.wait("4 slices", lambda: (
                    lambda s: s if len(s) == 4 else None)(k.get("resourceslices")["items"]))
                self.assertEqual(sum(len(s["spec"]["devices"]) for s in slices), 8)
                self.assertEqual(k.get("deviceclass", "gpu.example.com")["metadata"]["name"],
                                 "gpu.example.com")
                out = k.run("get", "resourceslices").stdout
                self.assertIn("DRIVER", out)
                self.assertIn("gpu.example.com", out)

                k.run("apply", "-f", "-", stdin=TEMPLATE)
                k.run("apply", "-f", "-",
                      stdin="---\n".join(pod("gpu-%d" % i, "one-gpu") for i in range(8)))
                self.wait("8 pods Running", lambda: list(self.phases(k).values()).count(
                    "Running") == 8)
                claims = k.get("resourceclaims")["items"]
                self.assertEqual(len(claims), 8)
                devices = set()
                for c in claims:
                    self.assertTrue(c["metadata"]["name"].startswith("gpu-"))
                    self.assertIn("resource.kubernetes.io/delete-protection",
                                  c["metadata"]["finalizers"])
                    results = c["status"]["allocation"]["devices"]["results"]
                    self.assertEqual(len(results), 1)
                    devices.add((results[0]["pool"], results[0]["device"]))
                    self.assertEqual(len(c["status"]["reservedFor"]), 1)
                self.assertEqual(len(devices), 8, "a device was allocated twice")
                table = k.run("get", "resourceclaims").stdout
                self.assertIn("allocated,reserved", table)

                # A ninth pod cannot get a GPU and says why.
                k.run("apply", "-f", "-", stdin=pod("gpu-8", "one-gpu"))
                msg = self.wait("FailedScheduling", lambda: self.scheduled_message(k, "gpu-8"))
                self.assertEqual(msg, "0/4 nodes are available: 4 cannot allocate all claims. still not schedulable, preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.")

                # Deleting a pod releases its claim; the waiting pod runs.
                k.run("delete", "pod", "gpu-0", "--wait=true", timeout=120)
                self.wait("gpu-8 Running", lambda: self.phases(k).get("gpu-8") == "Running")
                # The generated claim went with its pod.
                self.wait("claim of gpu-0 deleted", lambda: not any(
                    c["metadata"]["name"].startswith("gpu-0-")
                    for c in k.get("resourceclaims")["items"]))
            finally:
                k.cleanup()

    def test_selector_errors_are_rejected_and_explained(self):
        with harness.Server(extra=["--sim-nodes", "1", "--sim-gpus-per-node", "1"]) as server:
            k = harness.Kubectl(server)
            try:
                bad = ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: bad\n"
                       "spec:\n  selectors:\n  - cel:\n      expression: device.driver == \n")
                p = k.run("apply", "-f", "-", stdin=bad, check=False)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn("spec.selectors[0].cel.expression", p.stderr)
                self.assertIn("compilation failed", p.stderr)

                # A claim no device matches: pending, with the DRA reason.
                claim = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n"
                         "  name: big\n  namespace: default\nspec:\n  devices:\n    requests:\n"
                         "    - name: gpu\n      exactly:\n        deviceClassName: gpu.example.com\n"
                         "        selectors:\n        - cel:\n            expression: "
                         "\"device.capacity['gpu.example.com'].memory.compareTo(quantity('1Ti')) >= 0\"\n")
                k.run("apply", "-f", "-", stdin=claim)
                k.run("apply", "-f", "-", stdin=pod("wants-big", claim="big"))
                msg = self.wait("FailedScheduling", lambda: self.scheduled_message(k, "wants-big"))
                self.assertEqual(msg, "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
                self.assertEqual(self.phases(k)["wants-big"], "Pending")
            finally:
                k.cleanup()


if __name__ == "__main__":
    harness.main()
