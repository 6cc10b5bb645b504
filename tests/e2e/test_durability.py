"""Crash durability: writes acknowledged before a kill -9 survive the restart."""
import http.client
import json
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


if __name__ == "__main__":
    harness.main()
