"""The simulator's report and the live dashboard in a real headless browser (Debian's chromium,
driven by chromedriver through python3-selenium, all installed by scripts/install-deps.sh):
no console errors, the plots carry the expected series, the dashboard shows a pod placed after
kubectl created it without reloading. Screenshots go to $ALLOT_TEST_OUTPUT (default
./test-output/browser, under the build's tests directory when ctest runs it)."""
import json
import os
import subprocess
import tempfile
import time

import harness
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.environ.get("ALLOT_TEST_OUTPUT", os.path.join(os.getcwd(), "test-output", "browser"))


def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    # No network here: keep chromium from reaching out on its own.
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
              "--no-first-run", "--disable-background-networking", "--disable-component-update",
              "--disable-sync", "--disable-dev-shm-usage", "--window-size=1400,1100",
              "--ignore-certificate-errors", "--user-data-dir=" + tempfile.mkdtemp(prefix="allot-chromium-")]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


class BrowserTest(harness.TestCase):
    def setUp(self):
        os.makedirs(OUT, exist_ok=True)
        self.driver = browser()

    def tearDown(self):
        self.driver.quit()

    def console_errors(self):
        return [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def test_report_has_every_plot_with_a_series_per_variant(self):
        work = tempfile.mkdtemp(prefix="allot-sim-")
        scenario = os.path.join(ROOT, "examples", "sim", "faults.yaml")
        outputs = []
        for run in range(2):
            html = os.path.join(work, "report%d.html" % run)
            js = os.path.join(work, "report%d.json" % run)
            subprocess.run([harness.ALLOT, "sim", scenario, "--report", html, "--json", js,
                            "--quiet"], check=True, capture_output=True, timeout=300)
            outputs.append((html, js))
        # The same scenario and seed: the same numbers.
        with open(outputs[0][1]) as a, open(outputs[1][1]) as b:
            first, second = a.read(), b.read()
        self.assertEqual(first, second)
        variants = [v["name"] for v in json.loads(first)["variants"]]
        self.assertEqual(variants, ["healthy", "faults"])

        d = self.driver
        d.get("file://" + outputs[0][0])
        plots = {e.get_attribute("data-plot"): e for e in d.find_elements(By.CSS_SELECTOR, "svg.plot")}
        for plot in ["pending", "throughput", "wait-cdf", "running", "utilisation-gpu",
                     "utilisation-fabric-gpu", "attach-waiting", "attach-failures", "attach-cdf",
                     "reservations", "preemptions"]:
            self.assertIn(plot, plots)
            if plot == "reservations":
                continue  # this scenario makes none: an empty plot
            series = [p.get_attribute("data-series")
                      for p in plots[plot].find_elements(By.CSS_SELECTOR, "path.series")]
            self.assertEqual(sorted(set(series)), sorted(variants), plot)
        self.assertTrue(d.find_elements(By.CSS_SELECTOR, "svg.heatmap, svg[data-plot='heatmap']"))
        summary = d.find_element(By.CSS_SELECTOR, "table.summary").text
        self.assertIn("lost with their node", summary)
        # The plots were laid out (not zero-sized).
        self.assertGreater(plots["pending"].size["width"], 200)
        d.save_screenshot(os.path.join(OUT, "report.png"))
        self.assertEqual(self.console_errors(), [])

    def test_dashboard_follows_the_cluster_without_reloading(self):
        data = tempfile.mkdtemp(prefix="allot-e2e-")
        tokens = os.path.join(data, "tokens.csv")
        with open(tokens, "w") as f:
            f.write('dash-token,dash-admin,100,"system:masters"\n')
        with harness.Server(data_dir=data, store="memory",
                            extra=["--sim-nodes", "2", "--sim-gpus-per-node", "2",
                                   "--token-auth-file", tokens]) as server:
            k = harness.Kubectl(server)
            try:
                d = self.driver
                d.get(server.url + "/ui#token=dash-token")
                self.wait("both nodes on the dashboard",
                          lambda: len(d.find_elements(By.CSS_SELECTOR, "tr[data-node]")) == 2,
                          timeout=30)
                self.wait("their devices", lambda: len(d.find_elements(
                    By.CSS_SELECTOR, "tr[data-node] .dev[data-device]")) == 4, timeout=30)
                # The token left the address bar (it stays in the tab's sessionStorage).
                self.assertNotIn("token", d.current_url)
                d.execute_script("window.allotMarker = 42;")
                # The page re-renders from its watches: read it through scripts, not through
                # element handles that a re-render replaces.
                texts = lambda sel: d.execute_script(
                    "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent);", sel)
                node_of = lambda name: d.execute_script(
                    "const e = document.querySelector(`tr[data-node] span[data-pod='${arguments[0]}']`);"
                    "return e ? e.closest('tr').dataset.node : null;", name)

                k.run("run", "placed", "--image=registry.example/app:1")
                node = self.wait("the pod on its node's row", lambda: node_of("default/placed"),
                                 timeout=60)
                self.assertEqual(node, k.get("pod", "placed")["spec"]["nodeName"])
                self.wait("it running", lambda: any(
                    "(Running)" in t for t in texts("span[data-pod='default/placed']")), timeout=60)
                # A pod nothing can fit: pending, with the scheduler's reason.
                k.run("run", "huge", "--image=registry.example/app:1",
                      "--overrides", json.dumps({"spec": {"nodeSelector": {"no": "such"}}}))
                reason = self.wait("the pending pod's reason", lambda: [
                    t for t in texts("#pending tr[data-pod='default/huge']")
                    if "node affinity/selector" in t], timeout=60)
                self.assertIn("Unschedulable", reason[0])
                # Still the same page: it followed the watches.
                self.assertEqual(d.execute_script("return window.allotMarker;"), 42)
                # Every list and watch works for this user.
                sources = d.execute_script(
                    "return [...document.querySelectorAll('#sources span')].map(e => [e.className, e.textContent]);")
                self.assertEqual(len(sources), 6)
                self.assertEqual([t for c, t in sources if c == "bad"], [])
                d.save_screenshot(os.path.join(OUT, "dashboard.png"))
                self.assertEqual(self.console_errors(), [])
            finally:
                k.cleanup()


if __name__ == "__main__":
    harness.main()
