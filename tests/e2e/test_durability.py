"""Crash durability: writes acknowledged before a kill -9 survive the restart; a backup taken
while serving restores into a stopped data directory."""
import http.client
import json
import os
import subprocess
import threading
import time
import unittest

import harness


def pod(name):
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": "default"},
                       "spec": {"containers": [{"name": "c", "image": "busybox"}]}})


class DurabilityTest(unittest.TestCase):
    def test_kill9_loses_no_acknowledged_write(self):
        server = harness.Server(store="sqlite", extra=["--no-scheduler"]).start()
        acked = {}  # name -> resourceVersion
        lock = threading.Lock()
        stop = threading.Event()

        def writer(w):
            conn = server.http_connection(timeout=10)
            i = 0
            while not stop.is_set():
                name = "w%d-%d" % (w, i)
                i += 1
                try:
                    conn.request("POST", "/api/v1/namespaces/default/pods", pod(name),
                                 {"Content-Type": "application/json"})
                    resp = conn.getresponse()
                    body = resp.read()
                except (OSError, http.client.HTTPException):
                    return  # the server died mid-request: this write was never acknowledged
                if resp.status == 201:
                    with lock:
                        acked[name] = int(json.loads(body)["metadata"]["resourceVersion"])

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        deadline = time.time() + 20
        while time.time() < deadline:
            with lock:
                if len(acked) >= 500:
                    break
            time.sleep(0.01)
        server.kill9()  # mid-stream: writers are still sending
        stop.set()
        for t in threads:
            t.join()
        self.assertGreaterEqual(len(acked), 500)

        restarted = harness.Server(data_dir=server.data_dir, store="sqlite", extra=["--no-scheduler"]).start()
        try:
            conn = restarted.http_connection(timeout=30)
            conn.request("GET", "/api/v1/namespaces/default/pods")
            resp = conn.getresponse()
            self.assertEqual(resp.status, 200)
            items = json.loads(resp.read())["items"]
            stored = {p["metadata"]["name"]: int(p["metadata"]["resourceVersion"]) for p in items}
            missing = [n for n in acked if n not in stored]
            self.assertEqual(missing, [], "acknowledged writes lost after kill -9")
            for n, rv in acked.items():
                self.assertEqual(stored[n], rv)
            conn.request("POST", "/api/v1/namespaces/default/pods", pod("after-restart"),
                         {"Content-Type": "application/json"})
            resp = conn.getresponse()
            self.assertEqual(resp.status, 201)
            new_rv = int(json.loads(resp.read())["metadata"]["resourceVersion"])
            self.assertGreater(new_rv, max(stored.values()))
        finally:
            restarted.cleanup()
            server.owns_dir = True
            server.cleanup()


class BackupRestoreTest(harness.TestCase):
    def test_backup_while_serving_then_restore(self):
        server = harness.Server(store="sqlite", extra=["--no-scheduler"])
        backup = os.path.join(server.data_dir, "..", os.path.basename(server.data_dir) + ".bak")
        k = None
        try:
            server.start()
            k = harness.Kubectl(server)
            k.run("create", "namespace", "team")
            k.run("run", "kept", "--image", "busybox", "--restart", "Never", "-n", "team")
            p = subprocess.run([harness.ALLOT, "backup", "--data-dir", server.data_dir,
                                "--out", backup], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("objects at resourceVersion", p.stdout)
            k.run("run", "lost", "--image", "busybox", "--restart", "Never", "-n", "team")
            before = k.get("pod", "lost", "-n", "team")["metadata"]["resourceVersion"]
            # Not while the server has the store open.
            p = subprocess.run([harness.ALLOT, "restore", "--data-dir", server.data_dir,
                                "--from", backup], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 1)
            self.assertIn("in use by another process", p.stderr)
            server.stop()
            p = subprocess.run([harness.ALLOT, "restore", "--data-dir", server.data_dir,
                                "--from", backup], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            server.start()
            names = [x["metadata"]["name"] for x in k.get("pods", "-n", "team")["items"]]
            self.assertEqual(names, ["kept"])
            # A watch from before the restore is told to list again.
            conn = server.http_connection(timeout=10)
            conn.request("GET", "/api/v1/namespaces/team/pods?watch=true&resourceVersion=" +
                         before)
            resp = conn.getresponse()
            event = json.loads(resp.readline())
            conn.close()
            self.assertEqual(event["type"], "ERROR", event)
            self.assertEqual(event["object"]["code"], 410)
        finally:
            if k:
                k.cleanup()
            server.cleanup()
            if os.path.exists(backup):
                os.unlink(backup)


if __name__ == "__main__":
    harness.main()
