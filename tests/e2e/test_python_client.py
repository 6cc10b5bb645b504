"""End to end with python3-kubernetes (the Debian package): list, create and watch."""
import threading
import unittest

import harness
from kubernetes import client, watch


class PythonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = harness.Server(store="memory", extra=["--no-scheduler"]).start()
        cfg = cls.server.client_configuration()
        cls.api = client.CoreV1Api(client.ApiClient(cfg))

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def pod(self, name, app="py"):
        return client.V1Pod(metadata=client.V1ObjectMeta(name=name, labels={"app": app}),
                            spec=client.V1PodSpec(containers=[
                                client.V1Container(name="c", image="busybox")]))

    def test_list_and_watch(self):
        self.api.create_namespaced_pod("default", self.pod("py-0"))
        pods = self.api.list_namespaced_pod("default", label_selector="app=py")
        self.assertEqual([p.metadata.name for p in pods.items], ["py-0"])
        rv = pods.metadata.resource_version
        seen = []

        def watch_pods():
            w = watch.Watch()
            for ev in w.stream(self.api.list_namespaced_pod, "default", label_selector="app=py",
                               resource_version=rv, timeout_seconds=20):
                seen.append((ev["type"], ev["object"].metadata.name))
                if len(seen) == 3:
                    w.stop()

        t = threading.Thread(target=watch_pods)
        t.start()
        self.api.create_namespaced_pod("default", self.pod("py-1"))
        self.api.patch_namespaced_pod("py-1", "default", {"metadata": {"labels": {"x": "y"}}})
        self.api.delete_namespaced_pod("py-1", "default")
        t.join(30)
        self.assertEqual(seen, [("ADDED", "py-1"), ("MODIFIED", "py-1"), ("DELETED", "py-1")])

    def test_errors_raise_api_exception(self):
        with self.assertRaises(client.ApiException) as ctx:
            self.api.read_namespaced_pod("missing", "default")
        self.assertEqual(ctx.exception.status, 404)
        self.api.create_namespaced_pod("default", self.pod("dup", app="dup"))
        with self.assertRaises(client.ApiException) as ctx:
            self.api.create_namespaced_pod("default", self.pod("dup", app="dup"))
        self.assertEqual(ctx.exception.status, 409)


if __name__ == "__main__":
    harness.main()
