"""End to end with the real kubectl (/usr/bin/kubectl, v1.32) against `allot serve`."""
import json
import os
import queue
import threading
import time
import unittest

import harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALL_KINDS = os.path.join(ROOT, "examples", "all-kinds.yaml")


class KubectlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = harness.Server().start()
        cls.k = harness.Kubectl(cls.server)
        cls.k.run("apply", "-f", ALL_KINDS)

    @classmethod
    def tearDownClass(cls):
        cls.k.cleanup()
        cls.server.cleanup()

    def test_apply_created_every_kind(self):
        for kind, name, ns in [("namespace", "demo", None), ("node", "node-a", None),
                               ("deviceclass", "gpu.example.com", None),
                               ("resourceslice", "node-a-gpu.example.com", None),
                               ("resourceclaimtemplate", "one-gpu", "demo"),
                               ("resourceclaim", "shared-gpu", "demo"), ("pod", "trainer", "demo"),
                               ("event", "trainer.demo-event", "demo"),
                               ("lease", "node-a", "kube-node-lease"),
                               ("podschedulingcontext", "trainer", "demo"),
                               ("reservation", "reserve-trainer", None)]:
            args = ["get", kind, name, "-o", "json"] + (["-n", ns] if ns else [])
            obj = json.loads(self.k.run(*args).stdout)
            self.assertEqual(obj["metadata"]["name"], name)
            self.assertTrue(obj["metadata"]["uid"])
            self.assertTrue(obj["metadata"]["resourceVersion"])

    def test_typed_clients_get_protobuf(self):
        """kubectl's typed clients ask for protobuf first; Go's decoder reads what Allot sends."""
        p = self.k.run("create", "namespace", "proto-team", "-v=8")
        self.assertIn("namespace/proto-team created", p.stdout)
        answers = [line for line in p.stderr.splitlines()
                   if "round_trippers" in line and "Content-Type:" in line]
        self.assertTrue(any("application/vnd.kubernetes.protobuf" in line for line in answers),
                        p.stderr[-3000:])
        p = self.k.run("create", "priorityclass", "proto-high", "--value=1000")
        self.assertIn("priorityclass.scheduling.k8s.io/proto-high created", p.stdout)
        obj = json.loads(self.k.run("get", "namespace", "proto-team", "-o", "json").stdout)
        self.assertEqual(obj["status"]["phase"], "Active")
        self.k.run("delete", "namespace", "proto-team", "--wait=false")
        self.k.run("delete", "priorityclass", "proto-high")

    def test_explain_describes_kinds_and_fields(self):
        """kubectl explain reads the descriptions from the OpenAPI documents."""
        out = self.k.run("explain", "pod.spec.nodeName").stdout
        self.assertIn("FIELD: nodeName <string>", out)
        self.assertNotIn("<no description>", out)
        self.assertIn("scheduler", out)
        out = self.k.run("explain", "resourceclaims.spec.devices.requests",
                         "--api-version=resource.k8s.io/v1").stdout
        self.assertNotIn("<no description>", out)
        self.assertIn("exactly", out)
        out = self.k.run("explain", "reservations.spec", "--recursive").stdout
        self.assertIn("allocateOnce", out)
        out = self.k.run("explain", "deviceclass").stdout
        self.assertNotIn("<no description>", out)

    def test_apply_again_is_unchanged_then_configured(self):
        out = self.k.run("apply", "-f", ALL_KINDS).stdout
        self.assertIn("pod/trainer unchanged", out)
        self.assertIn("resourceclaim.resource.k8s.io/shared-gpu unchanged", out)
        with open(ALL_KINDS) as f:
            changed = f.read().replace("team: ml", "team: research")
        out = self.k.run("apply", "-f", "-", stdin=changed).stdout
        self.assertIn("namespace/demo configured", out)
        ns = json.loads(self.k.run("get", "ns", "demo", "-o", "json").stdout)
        self.assertEqual(ns["metadata"]["labels"]["team"], "research")

    def test_get_table_columns(self):
        out = self.k.run("get", "pods", "-n", "demo").stdout
        header = out.splitlines()[0].split()
        self.assertEqual(header, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
        self.assertIn("trainer", out)
        self.assertIn("Pending", out)
        out = self.k.run("get", "resourceslices").stdout
        self.assertEqual(out.splitlines()[0].split(), ["NAME", "NODE", "DRIVER", "POOL", "AGE"])
        self.assertIn("gpu.example.com", out)
        out = self.k.run("get", "resourceclaims", "-n", "demo").stdout
        self.assertEqual(out.splitlines()[0].split(), ["NAME", "STATE", "AGE"])
        # The in-process scheduler may already have allocated it for the trainer pod.
        self.assertRegex(out, r"shared-gpu\s+(pending|allocated,reserved)\s")

    def test_get_yaml_keeps_dra_fields(self):
        out = self.k.run("get", "resourceslice", "node-a-gpu.example.com", "-o", "yaml").stdout
        for needle in ["bindsToNode: true", "example.com/is-attached", "example.com/attach-failed",
                       "resourceSliceCount: 1", "value: 80Gi"]:
            self.assertIn(needle, out)

    def test_short_names_and_api_resources(self):
        self.k.run("get", "po", "-n", "demo")
        self.k.run("get", "no")
        out = self.k.run("api-resources").stdout
        for name in ["pods", "nodes", "resourceclaims", "resourceslices", "deviceclasses",
                     "resourceclaimtemplates", "podschedulingcontexts", "reservations", "leases",
                     "events", "namespaces"]:
            self.assertRegex(out, r"(?m)^%s\s" % name)

    def test_label_and_patch(self):
        self.k.run("label", "pod", "trainer", "-n", "demo", "stage=one")
        self.k.run("patch", "pod", "trainer", "-n", "demo", "-p",
                   '{"metadata":{"annotations":{"note":"patched"}}}')
        self.k.run("patch", "resourceclaim", "shared-gpu", "-n", "demo", "--type=merge", "-p",
                   '{"metadata":{"labels":{"claim":"yes"}}}')
        pod = json.loads(self.k.run("get", "pod", "trainer", "-n", "demo", "-o", "json").stdout)
        self.assertEqual(pod["metadata"]["labels"]["stage"], "one")
        self.assertEqual(pod["metadata"]["annotations"]["note"], "patched")
        claim = json.loads(self.k.run("get", "resourceclaim", "shared-gpu", "-n", "demo",
                                      "-o", "json").stdout)
        self.assertEqual(claim["metadata"]["labels"]["claim"], "yes")

    def test_status_subresource_patch(self):
        self.k.run("patch", "reservation", "reserve-trainer", "--subresource=status",
                   "--type=merge", "-p", '{"status":{"phase":"Available","nodeName":"node-a"}}')
        rsv = json.loads(self.k.run("get", "reservation", "reserve-trainer", "-o", "json").stdout)
        self.assertEqual(rsv["status"]["phase"], "Available")
        self.assertEqual(rsv["status"]["nodeName"], "node-a")

    def test_describe(self):
        out = self.k.run("describe", "pod", "trainer", "-n", "demo").stdout
        self.assertIn("Name:", out)
        self.assertIn("trainer", out)
        self.assertIn("Events:", out)
        out = self.k.run("describe", "resourceclaim", "shared-gpu", "-n", "demo").stdout
        self.assertIn("gpu.example.com", out)

    def test_get_watch_sees_a_later_change(self):
        self.k.run("apply", "-f", "-", stdin=(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: watched\n  namespace: demo\n"
            "spec:\n  containers:\n  - name: c\n    image: busybox\n"))
        proc = self.k.popen("get", "pods", "-n", "demo", "-w", "-o", "name")
        lines = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(l.strip()) for l in proc.stdout],
                                  daemon=True)
        reader.start()
        try:
            seen = []
            deadline = time.time() + 30
            changed = False
            while time.time() < deadline and seen.count("pod/watched") < 3:
                try:
                    seen.append(lines.get(timeout=0.5))
                except queue.Empty:
                    continue
                if not changed and "pod/watched" in seen:
                    self.k.run("label", "pod", "watched", "-n", "demo", "seen=yes")
                    self.k.run("delete", "pod", "watched", "-n", "demo")
                    changed = True
            # the initial list, the label change, and the deletion
            self.assertGreaterEqual(seen.count("pod/watched"), 3, seen)
        finally:
            proc.kill()
            proc.wait()

    def test_delete_waits_until_gone(self):
        self.k.run("apply", "-f", "-", stdin=(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: doomed\n  namespace: demo\n"
            "spec:\n  containers:\n  - name: c\n    image: busybox\n"))
        out = self.k.run("delete", "pod", "doomed", "-n", "demo").stdout
        self.assertIn('pod "doomed" deleted', out)
        p = self.k.run("get", "pod", "doomed", "-n", "demo", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('pods "doomed" not found', p.stderr)

    def test_errors_are_kubernetes_statuses(self):
        p = self.k.run("get", "pod", "nope", "-n", "demo", check=False)
        self.assertIn('Error from server (NotFound): pods "nope" not found', p.stderr)
        bad = ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: bad\n"
               "spec:\n  driver: gpu.example.com\n  nodeName: node-a\n  pool:\n    name: p\n"
               "    generation: 0\n    resourceSliceCount: 1\n  devices:\n  - name: d\n"
               "    bindingConditions: [a, b, c, d, e]\n    bindingFailureConditions: [f]\n")
        p = self.k.run("apply", "-f", "-", stdin=bad, check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("spec.devices[0].bindingConditions: Too many: 5: must have at most 4 items",
                      p.stderr)
        unknown = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: strict\n  namespace: demo\n"
                   "spec:\n  bogusField: 1\n  containers:\n  - name: c\n    image: busybox\n")
        p = self.k.run("apply", "-f", "-", stdin=unknown, check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('unknown field "spec.bogusField"', p.stderr)


if __name__ == "__main__":
    harness.main()
