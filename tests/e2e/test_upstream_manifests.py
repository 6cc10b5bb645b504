"""The manifests Allot's users already have (../shared/upstream-manifests: dra-example-driver's
examples, the Kubernetes DRA docs and tutorial, the e2e test driver, scheduler_perf templates,
Koordinator's manual, the PriorityClass and PDB docs), applied with the real kubectl as their
authors say to, each directory on a fresh server. Every file must be accepted, or refused, as
EXPECT.tsv says.

The directory conventions are SOURCES.md's: files in name order; `_pre.sh` / `_post.sh` run
before / after them with `kc` as kubectl; `_apply_flags` adds flags to every apply; a file with
generateName is created (`kubectl create`), as its upstream harness does; `_templates/` holds Go
templates, never applied.

Beyond acceptance, what EXPECT.tsv says of each file is checked once its directory is applied:
its pods run (Running or Succeeded), stay pending (unbound), do not run, or are scheduled (bound);
its Reservations become Available; the pods it names are evicted. Files it does not list are
`run` when they hold pods. The servers have three simulated nodes with eight gpu.example.com GPUs
each (dra-example-driver's kind cluster has the same), so pods whose claims those GPUs satisfy
start."""
import os
import subprocess
import time
import unittest

import yaml

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
    "adapted/k8s-scheduler-perf-dra/03-two-devices-partitionable-split/"
    "2b-resourceslice-partitionable-devices.yaml":
        "counter sets in another slice of the pool, 1.35's shape (issue 44)",
}


def read(path):
    with open(path) as f:
        return f.read()


def expectations():
    """{file: (expectation, extra)} from EXPECT.tsv."""
    out = {}
    with open(os.path.join(MANIFESTS, "EXPECT.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            parts = line.rstrip("\n").split("\t") + ["", ""]
            out[parts[0]] = (parts[1], parts[2])
    return out


def objects_of(path):
    """[(kind, namespace, name)] of the objects a manifest file holds."""
    out = []
    try:
        docs = list(yaml.safe_load_all(read(path)))
    except yaml.YAMLError:
        return out
    for d in docs:
        if not isinstance(d, dict) or not isinstance(d.get("metadata"), dict):
            continue
        meta = d["metadata"]
        if meta.get("name"):
            out.append((d.get("kind"), meta.get("namespace", "default"), meta["name"]))
        elif meta.get("generateName"):  # matched by prefix: "test-dra-*"
            out.append((d.get("kind"), meta.get("namespace", "default"),
                        meta["generateName"] + "*"))
    return out


# Directories whose pods or Reservations do not yet do what EXPECT.tsv says here, and why. The
# test fails when one starts to, so that this list only shrinks to what is true.
BEHAVIOUR_GAPS = {
    "adapted/dra-example-driver/device-taint-pod-noschedule":
        "DeviceTaintRules are stored, not enforced: a NoSchedule taint does not keep pods off "
        "(issue 44)",
    "dra-example-driver/device-taint-configurable-pod-eviction-time":
        "DeviceTaintRules are stored, not enforced: no NoExecute eviction (issue 44)",
    "dra-example-driver/device-taint-pod-noexecute":
        "DeviceTaintRules are stored, not enforced: no NoExecute eviction (issue 44)",
    "dra-example-driver/device-taint-pod-toleration":
        "DeviceTaintRules are stored, not enforced (issue 44)",
    "dra-example-driver/extended-resource-request":
        "DRA extended resources (deviceclass.resource.kubernetes.io/...) are not allocated (issue 44)",
    "dra-example-driver/gpu-allow-multiple-allocations":
        "the simulated gpu.example.com devices do not set allowMultipleAllocations (the example "
        "driver's chart option)",
    "dra-example-driver/gpu-allow-multiple-allocations-partitionable":
        "the simulated gpu.example.com devices do not set allowMultipleAllocations",
    "dra-example-driver/native-resource-request":
        "the example driver's cpu.example.com profile is not simulated (no DeviceClass, no slices)",
    "dra-example-driver/net-consumable-capacity":
        "the example driver's net.example.com profile is not simulated",
    "k8s-e2e-dra-test-driver/01-pod-external":
        "nothing publishes test-driver.cdi.k8s.io's slices (the e2e test driver does upstream)",
    "k8s-e2e-dra-test-driver/02-pod-shared": "nothing publishes test-driver.cdi.k8s.io's slices",
    "k8s-e2e-dra-test-driver/03-pod-inline-multiple":
        "nothing publishes test-driver.cdi.k8s.io's slices",
    "k8s-e2e-dra-test-driver/04-pod-external-toleration":
        "nothing publishes test-driver.cdi.k8s.io's slices",
    "k8s-scheduler-perf-dra/01-basic":
        "nothing publishes test-driver.cdi.k8s.io's slices (adapted/ adds them, and passes)",
    "k8s-scheduler-perf-dra/02-two-devices":
        "nothing publishes test-driver.cdi.k8s.io's slices (adapted/ adds them, and passes)",
    "adapted/k8s-scheduler-perf-dra/03-two-devices-partitionable-split":
        "counter sets in another slice of the pool, 1.35's shape (issue 44)",
    "koordinator/01-quick-start":
        "schedulerName koord-scheduler: Allot's scheduler answers to default-scheduler (adapted/ "
        "drops the name, and passes)",
    "koordinator/03-specified-node-multiple-owners":
        "schedulerName koord-scheduler and a node named node-1",
}


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
        with harness.Server(extra=["--sim-nodes", "3", "--sim-gpus-per-node", "8"]) as server:
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
                results.append((file_rel, expect.get(file_rel, ("", ""))[0] or "accept",
                                p.returncode == 0, (p.stderr or p.stdout).strip()))
            if os.path.exists(os.path.join(path, "_post.sh")):
                self.run_script(server, os.path.join(path, "_post.sh"))
            self.behaviour_failures.extend(self.check_behaviour(k, rel, expect, results))
            k.cleanup()
        return results

    def check_behaviour(self, k, rel, expect, results):
        """What each accepted file's pods and Reservations do, against EXPECT.tsv."""
        wants = {}  # (namespace, pod) -> state; ("reservation", name) -> "Available"
        evicted = []
        for file_rel, _, ok, _ in results:
            if not ok or file_rel in KNOWN_GAPS:
                continue
            expectation, extra = expect.get(file_rel, ("", ""))
            overrides = {}
            for item in extra.split(";"):
                if "=" in item and not item.startswith("evicts="):
                    name, state = item.split("=", 1)
                    overrides[name.strip()] = state.strip()
                elif item.startswith("evicts="):
                    evicted += [e.split("/") for e in item[len("evicts="):].split(",") if e]
            for kind, ns, name in objects_of(os.path.join(MANIFESTS, file_rel)):
                if kind == "Pod":
                    state = overrides.get(name, expectation or "run")
                    if state in ("run", "pending", "notrunning", "scheduled"):
                        wants[(ns, name)] = state
                elif kind == "Reservation" and expectation == "reservation":
                    wants[("reservation", name)] = "Available"
        if not wants and not evicted:
            return []

        def observe():
            pods = {(p["metadata"]["namespace"], p["metadata"]["name"]): p
                    for p in k.get("pods", "--all-namespaces")["items"]}
            reservations = {}
            if any(ns == "reservation" for ns, _ in wants):
                reservations = {r["metadata"]["name"]: r
                                for r in k.get("reservations.scheduling.koordinator.sh")["items"]}
            return pods, reservations

        def verdicts(pods, reservations):
            bad = []
            for (ns, name), state in sorted(wants.items()):
                if ns == "reservation":
                    phase = reservations.get(name, {}).get("status", {}).get("phase")
                    # Available, or already taken by its owner (allocateOnce: Succeeded).
                    if phase not in ("Available", "Succeeded"):
                        bad.append("Reservation %s: phase %s, want Available" % (name, phase))
                    continue
                if name.endswith("*"):
                    p = next((v for (n, m), v in sorted(pods.items())
                              if n == ns and m.startswith(name[:-1])), None)
                else:
                    p = pods.get((ns, name))
                phase = p and p.get("status", {}).get("phase")
                bound = bool(p and p["spec"].get("nodeName"))
                good = {"run": phase in ("Running", "Succeeded"),
                        "scheduled": bound,
                        "pending": p is not None and not bound,
                        "notrunning": p is None or phase != "Running"}[state]
                if (ns, name) in [tuple(e) for e in evicted]:
                    good = p is None or phase in ("Failed",) or bool(
                        p["metadata"].get("deletionTimestamp"))
                if not good:
                    why = [c.get("message", "") for c in (p or {}).get("status", {}).get(
                        "conditions", []) if c.get("type") == "PodScheduled" and c.get("message")]
                    bad.append("%s/%s: phase %s, bound %s, want %s%s" % (
                        ns, name, phase, bound, state, (" (" + why[0] + ")") if why else ""))
            for ns, name in evicted:
                if (ns, name) in wants:
                    continue
                p = pods.get((ns, name))
                if p is not None and p.get("status", {}).get("phase") == "Running" and not \
                        p["metadata"].get("deletionTimestamp"):
                    bad.append("%s/%s: still running, want evicted" % (ns, name))
            return bad

        # What must happen is waited for; what must not is judged after the same settling. A
        # directory with a known gap is given less time: what it lacks would not come late.
        deadline = time.time() + (4 if rel in BEHAVIOUR_GAPS else 12)
        bad = verdicts(*observe())
        while bad and time.time() < deadline:
            time.sleep(0.5)
            bad = verdicts(*observe())
        if not bad and any(s in ("pending", "notrunning") for s in wants.values()):
            time.sleep(3)
            bad = verdicts(*observe())
        return ["%s: %s" % (rel, b) for b in bad]

    def test_each_file_is_accepted_or_refused_as_expect_tsv_says(self):
        self.behaviour_failures = []
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
        wrong = [b for b in self.behaviour_failures if b.split(":")[0] not in BEHAVIOUR_GAPS]
        self.assertEqual(wrong, [], "\n".join(wrong))
        failing = {b.split(":")[0] for b in self.behaviour_failures}
        fixed = sorted(d for d in BEHAVIOUR_GAPS if d not in failing)
        self.assertEqual(fixed, [], "these now behave as EXPECT.tsv says: remove them from "
                         "BEHAVIOUR_GAPS")


if __name__ == "__main__":
    harness.main()
