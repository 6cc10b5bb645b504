"""The first commands of any Kubernetes tutorial, with the real kubectl: ConfigMaps, Secrets,
ServiceAccounts, Services, volumes, storage classes, StatefulSets and ReplicaSets, and the
DeviceTaintRules of DRA 1.37 — created, listed with kubectl's columns, and refused with
kube-apiserver's messages when invalid."""
import base64
import json
import unittest

import harness

STORAGE = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: disk-1}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/disks/1}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-1]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 1Gi}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres:17}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: gpu-0-maintenance}
spec:
  deviceSelector: {driver: gpu.example.com, device: gpu-0}
  taint: {key: example.com/maintenance, value: fans, effect: NoSchedule}
"""


class CoreKindsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = harness.Server().start()
        cls.k = harness.Kubectl(cls.server)

    @classmethod
    def tearDownClass(cls):
        cls.k.cleanup()
        cls.server.cleanup()

    def header(self, *args):
        return self.k.run("get", *args).stdout.splitlines()[0].split()

    def test_configmaps_secrets_and_service_accounts(self):
        self.k.run("create", "configmap", "settings", "--from-literal=mode=fast",
                   "--from-literal=level=3")
        self.assertEqual(self.header("configmaps"), ["NAME", "DATA", "AGE"])
        self.assertEqual(self.k.get("cm", "settings")["data"], {"level": "3", "mode": "fast"})
        self.k.run("create", "secret", "generic", "db-password",
                   "--from-literal=password=s3cr3t-e2e-value")
        secret = self.k.get("secret", "db-password")
        self.assertEqual(secret["type"], "Opaque")
        self.assertEqual(base64.b64decode(secret["data"]["password"]), b"s3cr3t-e2e-value")
        self.assertNotIn("generation", secret["metadata"])
        self.assertEqual(self.header("secrets"), ["NAME", "TYPE", "DATA", "AGE"])
        described = self.k.run("describe", "secret", "db-password").stdout
        self.assertIn("password:  16 bytes", described)
        self.k.run("create", "serviceaccount", "builder")
        self.assertEqual(self.k.get("sa", "builder")["metadata"]["name"], "builder")
        # stringData is merged into data and never stored.
        p = self.k.run("apply", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "token",
                                                             "namespace": "default"},
            "stringData": {"token": "abc"}}))
        self.assertIn("secret/token created", p.stdout)
        token = self.k.get("secret", "token")
        self.assertEqual(token["data"], {"token": base64.b64encode(b"abc").decode()})
        self.assertNotIn("stringData", token)
        with open(self.server.log_path) as f:
            self.assertNotIn("s3cr3t-e2e-value", f.read())

    def test_services_get_addresses_and_ports(self):
        self.k.run("create", "service", "clusterip", "api", "--tcp=80:8080")
        self.k.run("create", "service", "nodeport", "edge", "--tcp=443:8443")
        api = self.k.get("svc", "api")
        self.assertTrue(api["spec"]["clusterIP"].startswith("10."), api["spec"])
        self.assertEqual(api["spec"]["clusterIPs"], [api["spec"]["clusterIP"]])
        self.assertEqual(api["spec"]["ipFamilies"], ["IPv4"])
        edge = self.k.get("svc", "edge")
        self.assertNotEqual(edge["spec"]["clusterIP"], api["spec"]["clusterIP"])
        node_port = edge["spec"]["ports"][0]["nodePort"]
        self.assertTrue(30000 <= node_port <= 32767, edge["spec"])
        out = self.k.run("get", "svc", "edge").stdout
        self.assertEqual(out.splitlines()[0].split(),
                         ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"])
        self.assertIn("443:%d/TCP" % node_port, out)
        taken = self.k.run("create", "service", "clusterip", "copy", "--tcp=80",
                           "--clusterip=" + api["spec"]["clusterIP"], check=False)
        self.assertNotEqual(taken.returncode, 0)
        self.assertIn("provided IP is already allocated", taken.stderr)

    def test_storage_and_workload_kinds(self):
        out = self.k.run("apply", "-f", "-", stdin=STORAGE).stdout
        for created in ["storageclass.storage.k8s.io/local created",
                        "persistentvolume/disk-1 created", "persistentvolumeclaim/data created",
                        "statefulset.apps/db created", "replicaset.apps/web created",
                        "devicetaintrule.resource.k8s.io/gpu-0-maintenance created"]:
            self.assertIn(created, out)
        self.assertEqual(self.header("pv"),
                         ["NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS",
                          "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"])
        pv = self.k.get("pv", "disk-1")
        self.assertEqual(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain")
        self.assertEqual(pv["spec"]["local"], {"path": "/mnt/disks/1"})
        self.assertEqual(pv["status"]["phase"], "Pending")
        sts = self.k.get("statefulset", "db")
        self.assertEqual(sts["spec"]["podManagementPolicy"], "OrderedReady")
        self.assertEqual(sts["metadata"]["generation"], 1)
        self.assertEqual(self.header("rs"), ["NAME", "DESIRED", "CURRENT", "READY", "AGE"])
        self.assertEqual(self.header("sc"), ["NAME", "PROVISIONER", "RECLAIMPOLICY",
                                             "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"])
        self.assertEqual(self.header("devicetaintrules"),
                         ["NAME", "KEY", "VALUE", "EFFECT", "TIMEADDED", "AGE"])
        # The StatefulSet's service name is immutable; its replica count is not.
        self.k.run("patch", "statefulset", "db", "-p", '{"spec":{"replicas":3}}')
        p = self.k.run("patch", "statefulset", "db", "-p", '{"spec":{"serviceName":"x"}}',
                       check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("updates to statefulset spec for fields other than", p.stderr)

    def test_invalid_objects_get_field_paths(self):
        bad = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": "bad", "namespace": "default"},
               "spec": {"selector": {"matchLabels": {"app": "a"}},
                        "template": {"metadata": {"labels": {"app": "b"}},
                                     "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
        p = self.k.run("apply", "-f", "-", stdin=json.dumps(bad), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('The ReplicaSet "bad" is invalid: spec.template.metadata.labels: '
                      'Invalid value: {"app":"b"}: `selector` does not match '
                      'template `labels`', p.stderr)
        claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": "bad", "namespace": "default"}, "spec": {}}
        p = self.k.run("apply", "-f", "-", stdin=json.dumps(claim), check=False)
        self.assertIn("spec.accessModes: Required value: at least 1 access mode is required",
                      p.stderr)
        self.assertIn("spec.resources[storage]: Required value", p.stderr)
        secret = {"apiVersion": "v1", "kind": "Secret",
                  "metadata": {"name": "bad", "namespace": "default"},
                  "data": {"key": "not base64!"}}
        p = self.k.run("create", "-f", "-", "--validate=false", stdin=json.dumps(secret),
                       check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("illegal base64 data", p.stderr)

    def test_a_kind_the_server_lacks_is_no_match(self):
        # kubectl looks a kind missing from OpenAPI v3 up in /openapi/v2, then in discovery:
        # as against kube-apiserver, the answer is "no matches for kind", not a 404.
        for doc in ({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
                    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}}):
            p = self.k.run("apply", "-f", "-", stdin=json.dumps(doc), check=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn('no matches for kind "%s" in version "%s"' % (doc["kind"],
                          doc["apiVersion"]), p.stderr)
            self.assertIn("ensure CRDs are installed first", p.stderr)


if __name__ == "__main__":
    harness.main()
