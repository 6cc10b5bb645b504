"""End to end: kubectl creates a burst of pods against `allot serve --sim-nodes`; the in-process
scheduler places them and the simulated kubelets run them. Also the scheduler as its own process
over HTTP."""
import json
import os
import subprocess
import time
import unittest

import harness


def pods_manifest(prefix, count, cpu="100m"):
    docs = []
    for i in range(count):
        docs.append(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s-%d\n  namespace: default\n"
            "  labels:\n    app: %s\nspec:\n  containers:\n  - name: c\n    image: busybox\n"
            "    resources:\n      requests:\n        cpu: %s\n        memory: 64Mi\n"
            % (prefix, i, prefix, cpu))
    return "---\n".join(docs)


def quantity_milli(q):
    if q.endswith("m"):
        return int(q[:-1])
    return int(float(q) * 1000)


class SchedulingTest(unittest.TestCase):
    def wait_running(self, k, selector, count, timeout=180):
        deadline = time.time() + timeout
        pods = []
        while time.time() < deadline:
            pods = json.loads(k.run("get", "pods", "-l", selector, "-o", "json").stdout)["items"]
            running = [p for p in pods if p["status"].get("phase") == "Running"]
            if len(running) == count:
                return pods
            time.sleep(0.5)
        phases = {}
        for p in pods:
            phases[p["status"].get("phase")] = phases.get(p["status"].get("phase"), 0) + 1
        self.fail("not all %d pods Running after %ds: %s" % (count, timeout, phases))

    def check_no_overcommit(self, k, pods):
        nodes = json.loads(k.run("get", "nodes", "-o", "json").stdout)["items"]
        alloc = {n["metadata"]["name"]: quantity_milli(n["status"]["allocatable"]["cpu"])
                 for n in nodes}
        used = {}
        for p in pods:
            node = p["spec"]["nodeName"]
            req = p["spec"]["containers"][0]["resources"]["requests"]["cpu"]
            used[node] = used.get(node, 0) + quantity_milli(req)
        for node, milli in used.items():
            self.assertLessEqual(milli, alloc[node], "node %s over-committed" % node)

    def test_burst_of_1000_pods_all_run(self):
        with harness.Server(extra=["--sim-nodes", "100"]) as server:
            k = harness.Kubectl(server)
            try:
                k.run("apply", "-f", "-", stdin=pods_manifest("burst", 1000), timeout=300)
                pods = self.wait_running(k, "app=burst", 1000)
                self.check_no_overcommit(k, pods)
                self.assertEqual(len({p["metadata"]["uid"] for p in pods}), 1000)
                # An infeasible pod says why, the Kubernetes way.
                k.run("apply", "-f", "-", stdin=pods_manifest("huge", 1, cpu="1000"))
                deadline = time.time() + 30
                message = ""
                while time.time() < deadline and "nodes are available" not in message:
                    pod = json.loads(k.run("get", "pod", "huge-0", "-o", "json").stdout)
                    for c in pod["status"].get("conditions", []):
                        if c["type"] == "PodScheduled" and c["status"] == "False":
                            message = c.get("message", "")
                    time.sleep(0.2)
                self.assertIn("0/100 nodes are available: 100 Insufficient cpu.", message)
                out = k.run("describe", "pod", "huge-0").stdout
                self.assertIn("FailedScheduling", out)
            finally:
                k.cleanup()

    def test_scheduler_as_its_own_process(self):
        with harness.Server(store="memory", extra=["--sim-nodes", "10", "--no-scheduler"]) as server:
            k = harness.Kubectl(server)
            sched = subprocess.Popen([harness.ALLOT, "scheduler"] + server.connection_flags(),
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            try:
                k.run("apply", "-f", "-", stdin=pods_manifest("remote", 50))
                pods = self.wait_running(k, "app=remote", 50, timeout=60)
                self.check_no_overcommit(k, pods)
            finally:
                sched.terminate()
                sched.wait(timeout=20)
                sched.stdout.close()
                k.cleanup()

    def test_leader_election_failover(self):
        with harness.Server(store="memory", extra=["--sim-nodes", "10", "--no-scheduler"]) as server:
            k = harness.Kubectl(server)
            flags = ["--leader-elect-lease-duration-seconds", "2",
                     "--leader-elect-renew-deadline-seconds", "1",
                     "--leader-elect-retry-period-ms", "200"]
            procs = {}
            try:
                for ident in ("s1", "s2"):
                    procs[ident] = subprocess.Popen(
                        [harness.ALLOT, "scheduler", "--identity", ident] + server.connection_flags()
                        + flags, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                k.run("apply", "-f", "-", stdin=pods_manifest("before", 20))
                self.wait_running(k, "app=before", 20, timeout=60)
                lease = json.loads(k.run("get", "lease", "allot-scheduler", "-n", "kube-system",
                                         "-o", "json").stdout)
                leader = lease["spec"]["holderIdentity"]
                self.assertIn(leader, procs)
                procs[leader].kill()  # the leader dies without releasing the lease
                procs[leader].wait()
                k.run("apply", "-f", "-", stdin=pods_manifest("after", 20))
                self.wait_running(k, "app=after", 20, timeout=60)
                lease = json.loads(k.run("get", "lease", "allot-scheduler", "-n", "kube-system",
                                         "-o", "json").stdout)
                self.assertNotEqual(lease["spec"]["holderIdentity"], leader)
                self.assertGreaterEqual(lease["spec"].get("leaseTransitions", 0), 1)
                # Nothing was bound twice: one Scheduled event per pod.
                events = json.loads(k.run("get", "events", "-o", "json").stdout)["items"]
                scheduled = {}
                for e in events:
                    if e["reason"] == "Scheduled":
                        name = e["involvedObject"]["name"]
                        scheduled[name] = scheduled.get(name, 0) + e.get("count", 1)
                self.assertEqual(len(scheduled), 40)
                self.assertTrue(all(c == 1 for c in scheduled.values()), scheduled)
            finally:
                for p in procs.values():
                    if p.poll() is None:
                        p.terminate()
                        p.wait(timeout=20)
                k.cleanup()


if __name__ == "__main__":
    harness.main()
