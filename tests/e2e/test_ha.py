"""Several `allot serve --store etcd` replicas on one three-member etcd cluster (docs/ha.md).

Replicas share one CA (pki/ca.crt and ca.key copied before the second starts), so the admin
kubeconfig of either works on both. Covered here, with the real kubectl and etcdctl:
- what is written through one replica is served by the other and is where etcdctl looks;
- one embedded scheduler acts among the replicas (the kube-system/allot-scheduler Lease), and
  another replica's takes over when its holder dies;
- a watch broken by its replica's kill -9 resumes on another replica from its last
  resourceVersion without a gap;
- kill -9 of a replica, and of one etcd member of three, under write load: every acknowledged
  write is there, and writers that fail over go on.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

import harness

POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": None, "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "busybox"}]},
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EtcdCluster:
    """n members of Debian's etcd on loopback ports in a temp dir; kill -9 and restart."""

    def __init__(self, n):
        self.dir = tempfile.mkdtemp(prefix="allot-etcd-")
        self.names = ["m%d" % i for i in range(n)]
        self.client_ports = [free_port() for _ in range(n)]
        self.peer_ports = [free_port() for _ in range(n)]
        self.procs = [None] * n
        self.logs = []

    @property
    def endpoints(self):
        return ",".join("http://127.0.0.1:%d" % p for p in self.client_ports)

    def start_member(self, i):
        initial = ",".join("%s=http://127.0.0.1:%d" % (n, p)
                           for n, p in zip(self.names, self.peer_ports))
        client = "http://127.0.0.1:%d" % self.client_ports[i]
        peer = "http://127.0.0.1:%d" % self.peer_ports[i]
        log = open(os.path.join(self.dir, self.names[i] + ".log"), "ab")
        self.logs.append(log)
        self.procs[i] = subprocess.Popen(
            ["etcd", "--name", self.names[i],
             "--data-dir", os.path.join(self.dir, self.names[i]),
             "--listen-client-urls", client, "--advertise-client-urls", client,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", initial, "--initial-cluster-state", "new",
             "--initial-cluster-token", "allot-e2e"],
            stdout=log, stderr=log)

    def start(self):
        for i in range(len(self.names)):
            self.start_member(i)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.etcdctl("endpoint", "health", check=False).returncode == 0:
                return self
            time.sleep(0.3)
        raise RuntimeError("etcd did not become healthy")

    def etcdctl(self, *args, check=True):
        env = dict(os.environ, ETCDCTL_API="3")
        return subprocess.run(["etcdctl", "--endpoints", self.endpoints] + list(args),
                              capture_output=True, text=True, env=env, check=check, timeout=60)

    def kill9(self, i):
        self.procs[i].send_signal(signal.SIGKILL)
        self.procs[i].wait()

    def cleanup(self):
        for p in self.procs:
            if p and p.poll() is None:
                p.kill()
                p.wait()
        for log in self.logs:
            log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Replica(harness.Server):
    """`allot serve --store etcd` on a data directory of its own; `ca_from` shares a CA."""

    def __init__(self, etcd, ca_from=None, extra=()):
        data_dir = tempfile.mkdtemp(prefix="allot-replica-")
        if ca_from:
            os.makedirs(os.path.join(data_dir, "pki"), mode=0o700)
            for f in ("ca.crt", "ca.key"):
                shutil.copy2(os.path.join(ca_from.data_dir, "pki", f),
                             os.path.join(data_dir, "pki", f))
        super().__init__(data_dir=data_dir, store="etcd",
                         extra=["--etcd-servers", etcd.endpoints] + list(extra))
        self.owns_dir = True

    def request(self, method, path, body=None, timeout=10):
        conn = self.http_connection(timeout=timeout)
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None,
                         headers={"Content-Type": "application/json"})
            res = conn.getresponse()
            data = res.read()
            try:
                return res.status, json.loads(data or b"{}")
            except ValueError:
                return res.status, data.decode()
        finally:
            conn.close()

    def create_pod(self, name):
        pod = json.loads(json.dumps(POD))
        pod["metadata"]["name"] = name
        return self.request("POST", "/api/v1/namespaces/default/pods", pod)

    def pod_names(self):
        status, body = self.request("GET", "/api/v1/namespaces/default/pods")
        assert status == 200, body
        return {p["metadata"]["name"] for p in body["items"]}


class Writer(threading.Thread):
    """Creates pods w-<tag>-<i> through the first replica that answers, moving to the next one
    when a replica fails; records every acknowledged (201) name."""

    def __init__(self, replicas, tag):
        super().__init__(daemon=True)
        self.replicas, self.tag = replicas, tag
        self.acked, self.failures, self.stop = [], 0, False

    def run(self):
        i, at = 0, 0
        while not self.stop:
            name = "w-%s-%d" % (self.tag, i)
            try:
                status, _ = self.replicas[at].create_pod(name)
            except OSError:
                status = None
            if status == 201:
                self.acked.append(name)
                i += 1
            elif status == 409:
                # Written before a failure cut the answer off: it is there; go on.
                i += 1
            else:
                self.failures += 1
                at = (at + 1) % len(self.replicas)
                time.sleep(0.05)


class HaTest(harness.TestCase):
    def setUp(self):
        self.etcd = EtcdCluster(3).start()
        self.a = Replica(self.etcd, extra=["--sim-nodes", "2"]).start()
        self.b = Replica(self.etcd, ca_from=self.a).start()

    def tearDown(self):
        self.a.cleanup()
        self.b.cleanup()
        self.etcd.cleanup()

    def run_through_fault(self, writers, fault, after):
        """Starts the writers, injects `fault` once each has 20 acknowledged writes, and stops
        them once each has `after` more."""
        for w in writers:
            w.start()
        self.wait("writes", lambda: all(len(w.acked) >= 20 for w in writers), timeout=60)
        fault()
        counts = [len(w.acked) for w in writers]
        self.wait("writes going on after the fault",
                  lambda: all(len(w.acked) >= c + after for w, c in zip(writers, counts)),
                  timeout=60)
        for w in writers:
            w.stop = True
            w.join(timeout=30)

    def test_replicas_serve_one_cluster(self):
        ka, kb = harness.Kubectl(self.a), harness.Kubectl(self.b)
        try:
            # One CA: B's admin kubeconfig is good on A too (and both serve certificates).
            ka.run("get", "namespaces")
            harness.Kubectl(self.a, kubeconfig=self.b.kubeconfig).run("get", "namespaces")
            kb.run("run", "p", "--image=busybox", "--restart=Never")
            pod = self.wait("p scheduled and running (listed through A)", lambda: (
                lambda p: p if p["status"].get("phase") == "Running" else None)(
                ka.get("pod", "p")))
            self.assertTrue(pod["spec"]["nodeName"].startswith("allot-node-"))
            keys = self.etcd.etcdctl("get", "--prefix", "/registry/pods/",
                                     "--keys-only").stdout
            self.assertIn("/registry/pods/default/p", keys)
            # One scheduler and one controller manager among the replicas, each holding a Lease.
            for lease in ("allot-scheduler", "allot-controller-manager"):
                held = ka.get("lease", "-n", "kube-system", lease)
                self.assertTrue(held["spec"].get("holderIdentity"), lease)
            # A consistent read on one replica right after a write through the other.
            for i in range(10):
                status, _ = self.a.create_pod("c-%d" % i)
                self.assertEqual(status, 201)
                status, got = self.b.request("GET", "/api/v1/namespaces/default/pods/c-%d" % i)
                self.assertEqual(status, 200, got)
        finally:
            ka.cleanup()
            kb.cleanup()

    def test_watch_resumes_on_another_replica_without_a_gap(self):
        status, listed = self.a.request("GET", "/api/v1/namespaces/default/pods")
        self.assertEqual(status, 200)
        rv = listed["metadata"]["resourceVersion"]
        seen, last_rv = [], [rv]

        def watch(replica, from_rv, until):
            conn = replica.http_connection(timeout=30)
            conn.request("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=%s"
                         % from_rv)
            res = conn.getresponse()
            self.assertEqual(res.status, 200)
            try:
                for line in res:
                    ev = json.loads(line)
                    self.assertNotEqual(ev["type"], "ERROR", ev)
                    if ev["type"] == "ADDED":
                        seen.append(ev["object"]["metadata"]["name"])
                    last_rv[0] = ev["object"]["metadata"]["resourceVersion"]
                    if until():
                        return
            except OSError:
                return  # the replica died under the stream
            finally:
                conn.close()

        writer = Writer([self.b], "watch")
        writer.start()
        first = threading.Thread(target=watch, args=(self.a, rv, lambda: False), daemon=True)
        first.start()
        self.wait("writes through B", lambda: len(writer.acked) >= 30, timeout=60)
        self.a.kill9()
        first.join(timeout=30)
        self.assertFalse(first.is_alive())
        self.wait("more writes", lambda: len(writer.acked) >= 60, timeout=60)
        writer.stop = True
        writer.join(timeout=30)
        acked = list(writer.acked)
        # Resume on B from the last resourceVersion seen on A.
        watch(self.b, last_rv[0], lambda: set(acked) <= set(seen))
        self.assertEqual(sorted(seen), sorted(set(seen)), "an event twice")
        self.assertEqual(set(seen), set(acked))

    def test_replica_killed_under_write_load(self):
        writers = [Writer([self.a, self.b], "a%d" % i) for i in range(2)]
        self.run_through_fault(writers, self.a.kill9, after=20)
        names = self.b.pod_names()
        for w in writers:
            missing = [n for n in w.acked if n not in names]
            self.assertEqual(missing, [], "acknowledged writes lost")
        # The scheduler moves to B once A's lease runs out (15 s): a new pod is bound.
        status, _ = self.b.create_pod("after")
        self.assertEqual(status, 201)
        self.wait("the pod bound by B's scheduler", lambda: self.b.request(
            "GET", "/api/v1/namespaces/default/pods/after")[1]["spec"].get("nodeName"),
            timeout=90)

    def test_etcd_member_killed_under_write_load(self):
        writers = [Writer([self.a], "e%d" % i) for i in range(2)]
        self.run_through_fault(writers, lambda: self.etcd.kill9(0), after=30)
        status, _ = self.a.request("GET", "/readyz")
        self.assertEqual(status, 200)
        for replica in (self.a, self.b):
            names = replica.pod_names()
            for w in writers:
                self.assertEqual([n for n in w.acked if n not in names], [],
                                 "acknowledged writes lost")


class HaSeparateRolesTest(harness.TestCase):
    """As the issue's topology: replicas with --no-scheduler --no-controllers, and `allot
    scheduler` / `allot controllers` processes, two of each, each on its own replica; one of
    each leads, and when the leading scheduler is killed the other takes over."""

    def setUp(self):
        self.etcd = EtcdCluster(3).start()
        self.a = Replica(self.etcd, extra=["--sim-nodes", "2", "--no-scheduler",
                                           "--no-controllers"]).start()
        self.b = Replica(self.etcd, ca_from=self.a,
                         extra=["--no-scheduler", "--no-controllers"]).start()
        self.procs = []
        fast = ["--leader-elect-lease-duration-seconds", "3",
                "--leader-elect-renew-deadline-seconds", "2",
                "--leader-elect-retry-period-ms", "300"]
        for role, user in (("scheduler", "system:kube-scheduler"),
                           ("controllers", "system:kube-controller-manager")):
            for replica in (self.a, self.b):
                kc = replica.issue_kubeconfig(user)
                log = open(os.path.join(replica.data_dir, role + ".log"), "ab")
                self.procs.append((role, log, subprocess.Popen(
                    [harness.ALLOT, role, "--kubeconfig", kc] + fast,
                    stdout=log, stderr=log)))

    def tearDown(self):
        for _, log, p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            log.close()
        self.a.cleanup()
        self.b.cleanup()
        self.etcd.cleanup()

    def holder(self, lease):
        status, body = self.a.request(
            "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/" + lease)
        return body.get("spec", {}).get("holderIdentity") if status == 200 else None

    def bound(self, name):
        status, body = self.b.request("GET", "/api/v1/namespaces/default/pods/" + name)
        return status == 200 and body["spec"].get("nodeName")

    def test_one_scheduler_leads_and_another_takes_over(self):
        self.wait("a scheduler leads", lambda: self.holder("allot-scheduler"), timeout=60)
        self.wait("a controller manager leads",
                  lambda: self.holder("allot-controller-manager"), timeout=60)
        self.assertEqual(self.b.create_pod("first")[0], 201)
        self.wait("first bound", lambda: self.bound("first"), timeout=60)
        leader = self.holder("allot-scheduler")
        # Kill the leading scheduler: the process whose log says it leads.
        killed = None
        for role, log, p in self.procs:
            if role != "scheduler":
                continue
            with open(log.name) as f:
                says_it_leads = (leader + " leads") in f.read()
            if says_it_leads:
                p.send_signal(signal.SIGKILL)
                p.wait()
                killed = p
        self.assertIsNotNone(killed, "no scheduler says it leads as " + leader)
        self.wait("the other scheduler leads",
                  lambda: self.holder("allot-scheduler") not in (None, leader), timeout=60)
        self.assertEqual(self.a.create_pod("second")[0], 201)
        self.wait("second bound", lambda: self.bound("second"), timeout=60)


if __name__ == "__main__":
    harness.main()
