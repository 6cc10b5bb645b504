"""RBAC privilege-escalation prevention and impersonation with the real kubectl, as a user who
may write some RBAC objects tries to grant itself more: every path is refused with
kube-apiserver's 403 (or, for a binding to a role that does not exist, its 404), and the grants
that make each allowed (`escalate`, `bind`, holding the permissions, `impersonate`) do."""
import http.client
import json
import os
import ssl
import subprocess
import tempfile

import harness

NOT_HELD = ('is attempting to grant RBAC permissions not currently held:')
ALL = '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}'
ALL_URLS = '{NonResourceURLs:["*"], Verbs:["*"]}'


def manifest(kind, name, namespace=None, **fields):
    obj = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
           "metadata": {"name": name}}
    if namespace:
        obj["metadata"]["namespace"] = namespace
    obj.update(fields)
    return json.dumps(obj)


class RbacEscalationTest(harness.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = harness.Server(store="memory", extra=["--no-scheduler"])
        cls.audit_log = os.path.join(cls.server.data_dir, "audit.log")
        cls.server.extra += ["--audit-log-path", cls.audit_log]
        cls.server.start()
        cls.admin = harness.Kubectl(cls.server)
        cls.users = {}

    @classmethod
    def tearDownClass(cls):
        for k in cls.users.values():
            k.cleanup()
        cls.admin.cleanup()
        cls.server.stop()

    def user(self, name):
        """kubectl as `name` (a client certificate; group system:authenticated only)."""
        if name not in self.users:
            self.users[name] = harness.Kubectl(self.server, self.server.issue_kubeconfig(name))
        return self.users[name]

    def grant(self, user, name, *rule_args, namespace=None):
        """Gives `user` a role made by `kubectl create [cluster]role NAME RULE_ARGS`."""
        if namespace:
            self.admin.run("create", "role", name, *rule_args, "-n", namespace)
            self.admin.run("create", "rolebinding", name, "--role=" + name, "--user=" + user,
                           "-n", namespace)
        else:
            self.admin.run("create", "clusterrole", name, *rule_args)
            self.admin.run("create", "clusterrolebinding", name, "--clusterrole=" + name,
                           "--user=" + user)

    def refused(self, p, message):
        """kubectl failed with the server's 403 `message` (kubectl's own words around it differ
        by command: "Error from server (Forbidden): ...", "error: failed to create ...")."""
        self.assertNotEqual(p.returncode, 0, p.stdout)
        self.assertIn(message, p.stderr)
        self.assertTrue("Forbidden" in p.stderr or "failed to create" in p.stderr, p.stderr)

    def test_bindings_in_both_scopes(self):
        m = self.user("mallory")
        self.grant("mallory", "binder", "--verb=create,get", "--resource=rolebindings",
                   namespace="default")
        # The issue's report: a RoleBinding to cluster-admin for oneself.
        p = m.run("create", "rolebinding", "esc", "--clusterrole=cluster-admin",
                  "--user=mallory", "-n", "default", check=False)
        self.refused(p, 'rolebindings.rbac.authorization.k8s.io "esc" is forbidden: user '
                        '"mallory" (groups=["system:authenticated"]) ' + NOT_HELD + "\n" + ALL +
                        "\n" + ALL_URLS)
        p = m.run("auth", "can-i", "list", "pods", check=False)
        self.assertEqual((p.returncode, p.stdout.strip()), (1, "no"))
        # To a Role of the namespace, the same.
        self.admin.run("create", "role", "claim-reader", "--verb=get", "--resource=resourceclaims",
                       "-n", "default")
        p = m.run("create", "rolebinding", "esc2", "--role=claim-reader", "--user=mallory",
                  check=False)
        self.refused(p, 'rolebindings.rbac.authorization.k8s.io "esc2" is forbidden: user '
                        '"mallory" (groups=["system:authenticated"]) ' + NOT_HELD + "\n" +
                     '{APIGroups:["resource.k8s.io"], Resources:["resourceclaims"], Verbs:["get"]}')
        # A ClusterRoleBinding, by who may create them.
        self.grant("mallory", "crb-maker", "--verb=create", "--resource=clusterrolebindings")
        p = m.run("create", "clusterrolebinding", "esc3", "--clusterrole=cluster-admin",
                  "--user=mallory", check=False)
        self.refused(p, 'clusterrolebindings.rbac.authorization.k8s.io "esc3" is forbidden: '
                        'user "mallory" (groups=["system:authenticated"]) ' + NOT_HELD)
        # A binding to a role that does not exist yet: kube-apiserver's 404 for the role.
        p = m.run("create", "clusterrolebinding", "early", "--clusterrole=not-yet",
                  "--user=mallory", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('clusterroles.rbac.authorization.k8s.io "not-yet" not found', p.stderr)
        # What mallory holds she may share: get rolebindings in default.
        self.admin.run("create", "role", "binding-reader", "--verb=get",
                       "--resource=rolebindings", "-n", "default")
        m.run("create", "rolebinding", "share", "--role=binding-reader", "--user=bob")

    def test_bind_verb(self):
        b = self.user("binder")
        self.grant("binder", "bind-admin-in-default", "--verb=create", "--resource=rolebindings",
                   namespace="default")
        self.admin.run("create", "-f", "-", stdin=manifest(
            "Role", "bind-cluster-admin", "default",
            rules=[{"verbs": ["bind"], "apiGroups": ["rbac.authorization.k8s.io"],
                    "resources": ["clusterroles"], "resourceNames": ["cluster-admin"]}]))
        self.admin.run("create", "rolebinding", "binder-binds", "--role=bind-cluster-admin",
                       "--user=binder", "-n", "default")
        b.run("create", "rolebinding", "delegated", "--clusterrole=cluster-admin",
              "--user=carol", "-n", "default")
        # Only that role: another is judged by what binder holds.
        self.admin.run("create", "clusterrole", "node-reader", "--verb=get", "--resource=nodes")
        p = b.run("create", "rolebinding", "other", "--clusterrole=node-reader", "--user=carol",
                  check=False)
        self.refused(p, 'rolebindings.rbac.authorization.k8s.io "other" is forbidden')
        # bind on a role that does not exist yet lets the binding be made before the role.
        self.grant("binder", "bind-future", "--verb=bind,create", "--resource=clusterroles",
                   "--resource-name=future")
        self.admin.run("create", "clusterrole", "crb-maker-2", "--verb=create",
                       "--resource=clusterrolebindings")
        self.admin.run("create", "clusterrolebinding", "crb-maker-2",
                       "--clusterrole=crb-maker-2", "--user=binder")
        b.run("create", "clusterrolebinding", "future", "--clusterrole=future", "--user=carol")

    def test_roles_wildcards_names_and_updates(self):
        r = self.user("roller")
        self.grant("roller", "role-maker", "--verb=create,get,update,patch",
                   "--resource=roles", namespace="default")
        self.admin.run("create", "-f", "-", stdin=manifest(
            "Role", "roller-holds", "default",
            rules=[{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]},
                   {"verbs": ["get"], "apiGroups": ["resource.k8s.io"],
                    "resources": ["resourceclaims"], "resourceNames": ["app-config"]}]))
        self.admin.run("create", "rolebinding", "roller-holds", "--role=roller-holds",
                       "--user=roller", "-n", "default")
        # Wildcard verbs and resources.
        p = r.run("create", "-f", "-", check=False, stdin=manifest(
            "Role", "wide", "default",
            rules=[{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]))
        self.refused(p, 'roles.rbac.authorization.k8s.io "wide" is forbidden: user "roller" '
                        '(groups=["system:authenticated"]) ' + NOT_HELD + "\n" + ALL)
        p = r.run("create", "role", "all-verbs", "--verb=*", "--resource=pods", check=False)
        self.refused(p, 'roles.rbac.authorization.k8s.io "all-verbs" is forbidden')
        # resourceNames: the one claim roller may read, and no other.
        r.run("create", "role", "one-claim", "--verb=get", "--resource=resourceclaims",
              "--resource-name=app-config")
        p = r.run("create", "role", "every-claim", "--verb=get", "--resource=resourceclaims",
                  check=False)
        self.refused(p, 'roles.rbac.authorization.k8s.io "every-claim" is forbidden: user '
                        '"roller" (groups=["system:authenticated"]) ' + NOT_HELD + "\n" +
                     '{APIGroups:["resource.k8s.io"], Resources:["resourceclaims"], Verbs:["get"]}')
        # Subresources are permissions of their own.
        p = r.run("create", "role", "pod-logs", "--verb=get", "--resource=pods/log",
                  check=False)
        self.refused(p, 'roles.rbac.authorization.k8s.io "pod-logs" is forbidden')
        # An update that widens an existing role: patch and apply are both refused.
        r.run("create", "role", "reader", "--verb=get", "--resource=pods")
        p = r.run("patch", "role", "reader", "--type=json", "-p",
                  '[{"op":"add","path":"/rules/0/verbs/-","value":"delete"}]', check=False)
        self.refused(p, 'roles.rbac.authorization.k8s.io "reader" is forbidden: user "roller" '
                        '(groups=["system:authenticated"]) ' + NOT_HELD + "\n" +
                     '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}')
        # (kubectl-create owns the rules: without --force-conflicts the apply is a conflict
        # before it is judged, as against kube-apiserver.)
        p = r.run("apply", "--server-side", "--force-conflicts", "-f", "-", check=False,
                  stdin=manifest(
            "Role", "reader", "default",
            rules=[{"verbs": ["get", "watch"], "apiGroups": [""], "resources": ["pods"]}]))
        self.refused(p, 'roles.rbac.authorization.k8s.io "reader" is forbidden')
        self.assertEqual(self.admin.get("role", "reader")["rules"][0]["verbs"], ["get"])
        # Narrowing is allowed.
        r.run("patch", "role", "reader", "--type=json", "-p",
              '[{"op":"add","path":"/rules/0/resourceNames","value":["web-0"]}]')
        # The escalate verb allows any rules, in its namespace.
        self.grant("roller", "escalator", "--verb=escalate", "--resource=roles",
                   namespace="default")
        r.run("create", "-f", "-", stdin=manifest(
            "Role", "wide", "default",
            rules=[{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]))
        self.admin.run("create", "role", "role-maker", "--verb=create", "--resource=roles",
                       "-n", "kube-public")
        self.admin.run("create", "rolebinding", "role-maker", "--role=role-maker",
                       "--user=roller", "-n", "kube-public")
        p = r.run("create", "role", "wide", "--verb=*", "--resource=pods", "-n", "kube-public",
                  check=False)
        self.refused(p, 'roles.rbac.authorization.k8s.io "wide" is forbidden')

    def test_cluster_roles_urls_and_aggregation(self):
        c = self.user("clusterer")
        self.grant("clusterer", "cluster-role-maker", "--verb=create,get,update",
                   "--resource=clusterroles")
        p = c.run("create", "-f", "-", check=False, stdin=manifest(
            "ClusterRole", "esc", rules=[{"verbs": ["*"], "apiGroups": ["*"],
                                          "resources": ["*"]}]))
        self.refused(p, 'clusterroles.rbac.authorization.k8s.io "esc" is forbidden')
        p = c.run("create", "clusterrole", "metrics", "--verb=get",
                  "--non-resource-url=/metrics", check=False)
        self.refused(p, 'clusterroles.rbac.authorization.k8s.io "metrics" is forbidden: user '
                        '"clusterer" (groups=["system:authenticated"]) ' + NOT_HELD + "\n" +
                     '{NonResourceURLs:["/metrics"], Verbs:["get"]}')
        # /healthz every authenticated user holds (system:discovery): that may be granted.
        c.run("create", "clusterrole", "health", "--verb=get", "--non-resource-url=/healthz")
        # An aggregationRule may gather anything: it needs everything.
        p = c.run("create", "clusterrole", "gatherer",
                  "--aggregation-rule=example.com/aggregate-to-gatherer=true", check=False)
        self.refused(p, 'clusterroles.rbac.authorization.k8s.io "gatherer" is forbidden: must '
                        'have cluster-admin privileges to use the aggregationRule')
        # The admin's aggregated role gathers what its selector matches (the
        # clusterrole-aggregation controller), and binding it needs those rules.
        self.admin.run("create", "clusterrole", "gatherer",
                       "--aggregation-rule=example.com/aggregate-to-gatherer=true")
        self.admin.run("create", "clusterrole", "claims-everywhere", "--verb=get,list",
                       "--resource=resourceclaims")
        self.admin.run("label", "clusterrole", "claims-everywhere",
                       "example.com/aggregate-to-gatherer=true")
        self.wait("gatherer aggregates claims-everywhere", lambda: (
            self.admin.get("clusterrole", "gatherer").get("rules") ==
            [{"verbs": ["get", "list"], "apiGroups": ["resource.k8s.io"],
              "resources": ["resourceclaims"]}]),
            timeout=30)
        self.grant("clusterer", "crb-maker-3", "--verb=create",
                   "--resource=clusterrolebindings")
        p = c.run("create", "clusterrolebinding", "gather", "--clusterrole=gatherer",
                  "--user=clusterer", check=False)
        self.refused(p, 'clusterrolebindings.rbac.authorization.k8s.io "gather" is forbidden: '
                        'user "clusterer" (groups=["system:authenticated"]) ' + NOT_HELD + "\n" +
                     '{APIGroups:["resource.k8s.io"], Resources:["resourceclaims"], Verbs:["get" "list"]}')
        # A role labelled to join someone else's aggregated role: only with rules one holds.
        p = c.run("create", "-f", "-", check=False, stdin=json.dumps({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "sneak",
                         "labels": {"example.com/aggregate-to-gatherer": "true"}},
            "rules": [{"verbs": ["*"], "apiGroups": [""], "resources": ["nodes"]}]}))
        self.refused(p, 'clusterroles.rbac.authorization.k8s.io "sneak" is forbidden')

    def test_impersonation(self):
        admin, imp = self.admin, self.user("impersonator")
        imp.run("api-resources", check=False)  # discovery, cached, as the impersonator
        # Without the verb the headers are refused, not ignored.
        p = imp.run("get", "pods", "--as=jane", check=False)
        self.refused(p, 'pods is forbidden: User "impersonator" cannot impersonate-on:user-info:'
                        'list resource "pods" in API group "" in the namespace "default"')
        p = imp.run("auth", "whoami", "--as=jane", check=False)
        self.assertNotEqual(p.returncode, 0)  # (kubectl's words for a 403 from the review)
        self.assertIn("you do not have permission to call it", p.stderr)
        # The admin asking can-i as jane gets jane's answer, not its own.
        p = admin.run("auth", "can-i", "list", "pods", "--as=jane", check=False)
        self.assertEqual((p.returncode, p.stdout.strip()), (1, "no"))
        self.assertEqual(admin.run("auth", "can-i", "list", "pods").stdout.strip(), "yes")
        admin.run("create", "role", "jane-reads-pods", "--verb=list", "--resource=pods")
        admin.run("create", "rolebinding", "jane-reads-pods", "--role=jane-reads-pods",
                  "--user=jane")
        self.assertEqual(admin.run("auth", "can-i", "list", "pods", "--as=jane").stdout.strip(),
                         "yes")
        self.assertEqual(admin.run("auth", "can-i", "delete", "pods", "--as=jane",
                                   check=False).stdout.strip(), "no")
        # The impersonate verb on users jane: acting as jane, with jane's rights.
        self.grant("impersonator", "impersonate-jane", "--verb=impersonate",
                   "--resource=users", "--resource-name=jane")
        out = imp.run("auth", "whoami", "--as=jane", "-o", "json").stdout
        self.assertEqual(json.loads(out)["status"]["userInfo"],
                         {"username": "jane", "groups": ["system:authenticated"]})
        imp.run("get", "pods", "--as=jane")
        p = imp.run("delete", "pod", "x", "--as=jane", check=False)
        self.refused(p, 'pods "x" is forbidden: User "jane" cannot delete resource "pods"')
        p = imp.run("get", "pods", "--as=bob", check=False)
        self.refused(p, "pods is forbidden")
        # A group needs impersonate on groups; system:masters is never had for the asking.
        p = imp.run("get", "nodes", "--as=jane", "--as-group=system:masters", check=False)
        self.refused(p, "nodes is forbidden")
        self.grant("impersonator", "impersonate-devs", "--verb=impersonate",
                   "--resource=groups", "--resource-name=devs")
        out = imp.run("auth", "whoami", "--as=jane", "--as-group=devs", "-o", "json").stdout
        self.assertEqual(json.loads(out)["status"]["userInfo"]["groups"],
                         ["devs", "system:authenticated"])
        # The audit log names both: who asked, and whom it acted as.
        with open(self.audit_log) as f:
            events = [json.loads(line) for line in f]
        acted = [e for e in events if e["user"]["username"] == "impersonator"
                 and e.get("impersonatedUser", {}).get("username") == "jane"]
        self.assertTrue(acted, "no audit event with both identities")
        self.assertTrue(all(e["impersonatedUser"]["groups"] for e in acted))

    def test_other_paths_to_more_rights(self):
        """What docs/security.md lists beyond RBAC objects: certificates come only from whoever
        holds the CA key; the dashboard's page holds no data and its other paths need
        credentials; an empty POST evicts nothing."""
        # `allot kubeconfig` signs with <data-dir>/pki/ca.key: without it, nothing is issued.
        empty = tempfile.mkdtemp(prefix="allot-no-ca-")
        p = subprocess.run([harness.ALLOT, "kubeconfig", "--data-dir", empty, "--user", "x",
                            "--group", "system:masters", "--server", self.server.url, "--out",
                            os.path.join(empty, "x.kubeconfig")],
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(p.returncode, 0)
        self.assertFalse(os.path.exists(os.path.join(empty, "x.kubeconfig")))
        ca = os.path.join(self.server.data_dir, "pki", "ca.crt")
        ctx = ssl.create_default_context(cafile=ca)

        def anonymous(method, path, body=None):
            conn = http.client.HTTPSConnection("127.0.0.1", self.server.port, context=ctx,
                                               timeout=30)
            conn.request(method, path, body=body,
                         headers={"Content-Type": "application/json"} if body else {})
            resp = conn.getresponse()
            data = resp.read().decode()
            conn.close()
            return resp.status, data
        status, page = anonymous("GET", "/ui")
        self.assertEqual(status, 200)
        self.assertNotIn("kube-system", page)  # a static page: data comes from API calls
        self.assertEqual(anonymous("GET", "/ui/../api/v1/namespaces")[0], 401)
        self.assertEqual(anonymous("GET", "/api/v1/namespaces")[0], 401)
        # An eviction must name its pod (a cross-site form POST carries no Eviction).
        self.admin.run("run", "victim", "--image=busybox", "--restart=Never")
        admin_conn = self.server.http_connection()
        admin_conn.request("POST", "/api/v1/namespaces/default/pods/victim/eviction", body="",
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        resp = admin_conn.getresponse()
        body = resp.read().decode()
        admin_conn.close()
        self.assertIn(resp.status, (400, 415), body)
        self.assertEqual(self.admin.get("pod", "victim")["metadata"]["name"], "victim")


if __name__ == "__main__":
    harness.main()
