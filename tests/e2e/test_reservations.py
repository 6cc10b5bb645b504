"""End to end with kubectl: the walkthrough of docs/reservations.md against
`allot serve --demo --sim-gpus-per-node 2`. Applies examples/reservations/ as a newcomer would:
the reservation holds 24 CPUs and both node-local GPUs of allot-node-0, another team's pod
cannot take a GPU there, the nightly job's pods land in it with the reserved GPUs, `kubectl get`
/ `describe` say where it is, what it holds and who uses it, and deleting it gives the GPUs
back."""
import json
import os

import harness

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "reservations")
ALLOCATED = "scheduling.koordinator.sh/reservation-allocated"


class ReservationsTest(harness.TestCase):
    def pod(self, k, name):
        return k.get("pod", name)

    def scheduled_message(self, k, name):
        return harness.scheduled_message(self.pod(k, name))

    def test_the_walkthrough(self):
        with harness.Server(store="memory",
                            extra=["--demo", "--sim-gpus-per-node", "2"]) as server:
            k = harness.Kubectl(server)
            try:
                self.wait("the demo nodes", lambda: len(k.get("nodes")["items"]) == 3)
                k.run("apply", "-f", os.path.join(EXAMPLES, "00-gpu-templates.yaml"))
                k.run("apply", "-f", os.path.join(EXAMPLES, "01-reservation.yaml"))
                self.wait("the reservation Available", lambda: k.get(
                    "reservation", "nightly-job").get("status", {}).get("phase") == "Available")
                r = k.get("reservation", "nightly-job")
                self.assertEqual(r["status"]["nodeName"], "allot-node-0")
                self.assertEqual(r["status"]["allocatable"]["cpu"], "24")
                out = k.run("get", "reservations").stdout
                self.assertIn("nightly-job", out)
                self.assertIn("Available", out)
                self.assertIn("allot-node-0", out)
                # The GPUs it holds: its claim, allocated and reserved for the reservation.
                self.assertEqual(len(r["status"]["allocatedDevices"]), 2)
                reserved = {d["device"] for d in r["status"]["allocatedDevices"]}
                claim_name = r["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
                claim = k.get("resourceclaim", claim_name)
                self.assertEqual(claim["status"]["reservedFor"][0]["resource"], "reservations")
                self.assertEqual(claim["status"]["reservedFor"][0]["name"], "nightly-job")
                wide = k.run("get", "reservations", "-o", "wide").stdout
                self.assertIn("DEVICES", wide)
                for d in reserved:
                    self.assertIn("allot-node-0/" + d, wide)

                # Another team: 8 CPUs are free on allot-node-0, but both GPUs are reserved.
                k.run("apply", "-f", os.path.join(EXAMPLES, "02-other-team.yaml"))
                self.wait("team-b's reason", lambda: "cannot allocate all claims" in
                          self.scheduled_message(k, "team-b-build"), timeout=30)
                self.assertFalse(self.pod(k, "team-b-build")["spec"].get("nodeName"))

                # The job's pods land in the reservation.
                k.run("apply", "-f", os.path.join(EXAMPLES, "03-nightly-job.yaml"))
                for name in ("nightly-0", "nightly-1"):
                    self.wait(name + " Running", lambda n=name: self.pod(k, n).get(
                        "status", {}).get("phase") == "Running", timeout=60)
                    p = self.pod(k, name)
                    self.assertEqual(p["spec"]["nodeName"], "allot-node-0")
                    self.assertEqual(json.loads(p["metadata"]["annotations"][ALLOCATED])["name"],
                                     "nightly-job")
                    pod_claim = k.get("resourceclaim",
                                      p["status"]["resourceClaimStatuses"][0]["resourceClaimName"])
                    got = {d["device"] for d in pod_claim["status"]["allocation"]["devices"][
                        "results"]}
                    self.assertTrue(got <= reserved, got)
                self.wait("both owners listed", lambda: len(k.get(
                    "reservation", "nightly-job")["status"].get("currentOwners", [])) == 2)
                described = k.run("describe", "reservation", "nightly-job").stdout
                for part in ("Current Owners", "nightly-0", "nightly-1", "allot-node-0",
                             "Allocated Devices", claim_name,
                             "Scheduled", "Successfully assigned nightly-job to allot-node-0"):
                    self.assertIn(part, described)
                self.assertFalse(self.pod(k, "team-b-build")["spec"].get("nodeName"))

                # The reservation goes: what it still held (nothing beyond its owners here) is
                # released, and the owners keep running.
                k.run("delete", "reservation", "nightly-job")
                self.wait("the owners' annotations cleaned", lambda: all(
                    ALLOCATED not in self.pod(k, n)["metadata"].get("annotations", {})
                    for n in ("nightly-0", "nightly-1")))
                # Its claim is released and deleted; the owners keep their GPUs. When one of
                # them finishes, team-b gets its GPU.
                self.wait("the reservation's claim deleted", lambda: k.run(
                    "get", "resourceclaim", claim_name, check=False).returncode != 0)
                k.run("delete", "pod", "nightly-0", "--wait=false")
                self.wait("team-b-build Running", lambda: self.pod(k, "team-b-build").get(
                    "status", {}).get("phase") == "Running", timeout=60)
            finally:
                k.cleanup()


if __name__ == "__main__":
    harness.main()
