"""Starts `allot serve` on a free port in a temp dir, and runs kubectl against it."""
import argparse
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ALLOT = None

# Every temporary file and folder of a test process (data dirs, kubectl homes, backups, browser
# profiles) lies in one folder that goes when the process ends, whether or not a test cleaned
# up after itself.
tempfile.tempdir = tempfile.mkdtemp(prefix="allot-e2e-run-")
atexit.register(shutil.rmtree, tempfile.tempdir, True)


def parse_args():
    """Takes --allot PATH off argv and leaves the rest to unittest."""
    global ALLOT
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--allot", default=os.environ.get("ALLOT", "build/allot"))
    args, rest = p.parse_known_args()
    ALLOT = os.path.abspath(args.allot)
    sys.argv = [sys.argv[0]] + rest


class Server:
    """One `allot serve` process. Use as a context manager."""

    def __init__(self, data_dir=None, store="sqlite", extra=()):
        self.owns_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="allot-e2e-")
        self.store = store
        self.extra = list(extra)
        self.proc = None
        self.port = None
        self.scheme = None
        self.kubeconfig = None
        self.log_path = os.path.join(self.data_dir, "serve.log")

    def start(self, timeout=30):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [ALLOT, "serve", "--listen", "127.0.0.1:0", "--data-dir", self.data_dir,
             "--store", self.store] + self.extra,
            stdout=subprocess.PIPE, stderr=self.log)
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline().decode()
            if not line:
                raise RuntimeError("allot serve exited: " + open(self.log_path).read())
            m = re.search(r"serving on (https?)://127\.0\.0\.1:(\d+)", line)
            if m:
                self.scheme, self.port = m.group(1), int(m.group(2))
                if self.scheme == "http":
                    return self
            m = re.search(r"export KUBECONFIG=(\S+)", line)
            if m and self.port:
                self.kubeconfig = m.group(1)
                return self
        raise RuntimeError("allot serve did not report its port and kubeconfig")

    @property
    def url(self):
        return "%s://127.0.0.1:%d" % (self.scheme, self.port)

    def client_configuration(self):
        """A python-kubernetes Configuration for the admin kubeconfig (TLS, client certificate)."""
        from kubernetes import client, config
        cfg = client.Configuration()
        config.load_kube_config(config_file=self.kubeconfig, client_configuration=cfg)
        return cfg

    def http_connection(self, timeout=10):
        """An http.client connection to this server as the admin (TLS with its client
        certificate from <data-dir>/pki), or plain when it serves plain HTTP."""
        import http.client
        import ssl
        if self.scheme == "http":
            return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        pki = os.path.join(self.data_dir, "pki")
        ctx = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
        ctx.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))
        return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout, context=ctx)

    def connection_flags(self):
        """The flags that point an allot command (scheduler, node-sim, drivers) at this server."""
        return ["--kubeconfig", self.kubeconfig]

    def issue_kubeconfig(self, user, groups=()):
        """A kubeconfig for `user` in `groups` with a client certificate from this server's CA
        (`allot kubeconfig`); its path."""
        path = os.path.join(self.data_dir, "%s.kubeconfig" % user.replace(":", "_"))
        cmd = [ALLOT, "kubeconfig", "--data-dir", self.data_dir, "--user", user,
               "--server", self.url, "--out", path]
        if groups:
            cmd += ["--group", ",".join(groups)]
        subprocess.run(cmd, check=True, capture_output=True, timeout=60)
        return path

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc and self.proc.stdout:
            self.proc.stdout.close()
        if getattr(self, "log", None):
            self.log.close()

    def cleanup(self):
        self.stop()
        if self.owns_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


class Kubectl:
    """Runs /usr/bin/kubectl against a server with a private kubeconfig and cache, as the admin
    or as the user of `kubeconfig` (Server.issue_kubeconfig)."""

    def __init__(self, server, kubeconfig=None):
        self.server = server
        self.user_kubeconfig = kubeconfig or server.kubeconfig
        self.home = tempfile.mkdtemp(prefix="allot-kube-")
        self.kubeconfig = os.path.join(self.home, "config")
        with open(self.kubeconfig, "w") as f:
            f.write("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")

    def env(self):
        env = dict(os.environ)
        env["KUBECONFIG"] = self.kubeconfig
        env["HOME"] = self.home
        return env

    def base(self):
        target = (["--kubeconfig", self.user_kubeconfig] if self.user_kubeconfig
                  else ["--server", self.server.url])
        return ["/usr/bin/kubectl"] + target + [
                "--cache-dir", os.path.join(self.home, "cache"), "--request-timeout", "30s"]

    def run(self, *args, stdin=None, check=True, timeout=60):
        p = subprocess.run(self.base() + list(args), input=stdin, capture_output=True,
                           text=True, env=self.env(), timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError("kubectl %s failed (%d):\nstdout: %s\nstderr: %s" %
                                 (" ".join(args), p.returncode, p.stdout, p.stderr))
        return p

    def get(self, *args):
        """`kubectl get ARGS -o json`, parsed."""
        return json.loads(self.run("get", *args, "-o", "json").stdout)

    def popen(self, *args):
        return subprocess.Popen(self.base() + list(args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env())

    def cleanup(self):
        shutil.rmtree(self.home, ignore_errors=True)


def scheduled_message(pod):
    """The message of a pod's PodScheduled condition ("" when it has none)."""
    for c in (pod or {}).get("status", {}).get("conditions", []):
        if c["type"] == "PodScheduled":
            return c.get("message", "")
    return ""


class TestCase(unittest.TestCase):
    """unittest.TestCase with a polling wait for conditions the server reaches asynchronously."""

    def wait(self, what, fn, timeout=120):
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            last = fn()
            if last:
                return last
            time.sleep(0.3)
        self.fail("timed out waiting for %s (last: %r)" % (what, last))


def main():
    parse_args()
    unittest.main(verbosity=2)
