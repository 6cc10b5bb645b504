"""The manifests Allot's users already have (../shared/upstream-manifests: dra-example-driver's
examples, the Kubernetes DRA docs and tutorial, the e2e test driver, scheduler_perf templates,
Koordinator's manual, the PriorityClass and PDB docs), applied with the real kubectl as their
authors say to, each directory on a fresh server. Every file must be accepted, or refused, as
EXPECT.tsv says.

The directory conventions are SOURCES.md's: files in name order; `_pre.sh` / `_post.sh` run
before / after them with `kc` as kubectl; `_apply_flags` adds flags to every apply; a file with
generateName is created (`kubectl create`), as its upstream harness does; `_templates/` holds Go
templates, never applied.

What EXPECT.tsv asks beyond acceptance (pods running, pending, scheduled; reservations
available; evictions) is not checked here yet (issue 40's upstream-manifests test, continued)."""
import os
import subprocess
import unittest

import harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFESTS = os.path.join(os.path.dirname(ROOT), "shared", "upstream-manifests")

# Files a real 1.37 cluster accepts that Allot does not yet, and why. The test fails when one of
# them starts to pass, so that this list only ever shrinks to what is true.
KNOWN_GAPS = {
    "dra-example-driver/podgroup-resourceclaimtemplate/podgroup-resourceclaimtemplate.yaml":
        "scheduling.k8s.io/v1alpha2 PodGroup and apps/v1 Deployment (issues 42, 43)",
    "k8s-website-dra/01-dra-concepts/4-dra-example-job.yaml": "batch/v1 Job (issue 42)",
    "k8s-website-dra/10-driver-install-tutorial/6-daemonset.yaml": "apps/v1 DaemonSet",
    "k8s-priority-pdb/04-resourcequota-priorityclass/priority-class-resourcequota.yaml":
        "core/v1 ResourceQuota",
    "koordinator/03-specified-node-multiple-owners/2-app-demo.yaml":
        "apps/v1 Deployment (issue 42)",
    "adapted/koordinator/02-advanced-configurations/reservation-demo.yaml":
        "Reservation with both ttl and expires (issue 41)",
    "adapted/k8s-scheduler-perf-dra/03-two-devices-partitionable-split/"
    "2b-resourceslice-partitionable-devices.yaml":
        "counter sets in another slice of the pool, 1.35's shape (issue 44)",
}


def read(path):
    with open(path) as f:
        return f.read()


def expectations():
    out = {}
    with open(os.path.join(MANIFESTS, "EXPECT.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            out[parts[0]] = parts[1]
    return out


def directories():
    dirs = set()
    for root, subdirs, files in os.walk(MANIFESTS):
        subdirs[:] = [d for d in subdirs if d != "_templates"]
        if any(f.endswith(".yaml") for f in files):
            dirs.add(os.path.relpath(root, MANIFESTS))
    return sorted(dirs)


@unittest.skipUnless(os.path.isdir(MANIFESTS), "no ../shared/upstream-manifests next to the repo")
class UpstreamManifestsTest(unittest.TestCase):
    def run_script(self, server, path):
        k = harness.Kubectl(server)
        script = 'kc() { %s "$@"; }\n' % " ".join(k.base()) + read(path)
        p = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                           env=k.env(), timeout=60)
        k.cleanup()
        self.assertEqual(p.returncode, 0, "%s: %s" % (path, p.stderr))

    def apply_directory(self, rel, expect):
        """[(file, expectation, accepted, output)] for the directory's files."""
        path = os.path.join(MANIFESTS, rel)
        flags = []
        if os.path.exists(os.path.join(path, "_apply_flags")):
            flags = read(os.path.join(path, "_apply_flags")).split()
        results = []
        with harness.Server(extra=["--sim-nodes", "3"]) as server:
            k = harness.Kubectl(server)
            if os.path.exists(os.path.join(path, "_pre.sh")):
                self.run_script(server, os.path.join(path, "_pre.sh"))
            for name in sorted(os.listdir(path)):
                if not name.endswith(".yaml"):
                    continue
                file_rel = os.path.join(rel, name)
                text = read(os.path.join(path, name))
                verb = ["create"] if "generateName:" in text else ["apply"] + flags
                p = k.run(*verb, "-f", os.path.join(path, name), check=False)
                results.append((file_rel, expect.get(file_rel, "accept"), p.returncode == 0,
                                (p.stderr or p.stdout).strip()))
            if os.path.exists(os.path.join(path, "_post.sh")):
                self.run_script(server, os.path.join(path, "_post.sh"))
            k.cleanup()
        return results

    def test_each_file_is_accepted_or_refused_as_expect_tsv_says(self):
        expect = expectations()
        wrong, fixed, accepted = [], [], 0
        for rel in directories():
            for file_rel, expectation, ok, output in self.apply_directory(rel, expect):
                want = expectation != "reject"
                if file_rel in KNOWN_GAPS:
                    if ok == want:
                        fixed.append(file_rel)
                    continue
                if ok != want:
                    wrong.append("%s (%s): %s" % (file_rel, expectation, output[-400:]))
                else:
                    accepted += 1
        self.assertEqual(wrong, [], "\n".join(wrong))
        self.assertEqual(fixed, [], "these now behave as EXPECT.tsv says: remove them from "
                         "KNOWN_GAPS")
        self.assertGreater(accepted, 90)


if __name__ == "__main__":
    harness.main()
