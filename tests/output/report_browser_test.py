#!/usr/bin/env python3
"""kvcat report, opened in a real browser: Debian's headless Chromium, driven over the
DevTools protocol on a pipe (no port is opened, nothing but the page file is loaded).

The report of the shipped catalog is written into a scratch copy of the records and
opened from disk. The test fails on any console error or warning, uncaught exception,
browser log error (a Content-Security-Policy refusal is one), request other than the page
itself, or failed load; then checks, against the catalog read with Python's sqlite3:
  - every chart drew every mark: one symbol, rule or label per data row, one line per
    series, and no coordinate is NaN;
  - the KV memory chart has a curve per model per cache dtype of the catalog and a line per
    accelerator; the decode chart a point per row with a measured speed;
  - the table holds every row, each id links to its record file (which exists), the
    filter hides what does not match and shows what does, and a header click sorts;
  - each chart's CSV has a header and a line per data row, and a CSV link saves it;
  - a tooltip names the record and its source;
and keeps a full-page screenshot (report.png) in the artifacts folder. Then a model name and
a source name written to break out of the page are drawn as text, with no error or request,
in a catalog that also holds a quality result, whose chart is drawn and counted as well.

Usage: report_browser_test.py --kvcat BINARY --source REPO --artifacts DIR
"""

import argparse
import base64
import fcntl
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time


class Failure(Exception):
    pass


class Browser:
    """Chromium with --remote-debugging-pipe: commands on its fd 3, answers on its fd 4,
    each message JSON ending in a NUL byte."""

    def __init__(self, chromium, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def wire():
            # Move both ends above the low numbers first, so dup2 cannot overwrite one.
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--hide-scrollbars", "--mute-audio", "--window-size=1280,900",
                # No name resolves: a request for anything off the disk fails, and is seen.
                "--host-resolver-rules=MAP * ~NOTFOUND", "about:blank"]
        self.log = open(os.path.join(profile, "chromium.log"), "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                     preexec_fn=wire, pass_fds=(3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.buffer = bytearray()
        self.events = []

    def _read_message(self, deadline):
        # A message can be megabytes (the report's content): the buffer grows in place, and only
        # what arrived since the last look is searched for the NUL that ends it.
        end = self.buffer.find(b"\0")
        while end < 0:
            if time.time() > deadline:
                raise Failure("Chromium did not answer in time")
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise Failure("Chromium closed its pipe (see chromium.log in the profile)")
            searched = len(self.buffer)
            self.buffer += chunk
            end = self.buffer.find(b"\0", searched)
        message = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise Failure("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class Page:
    def __init__(self, browser):
        self.browser = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.send(domain + ".enable")

    def send(self, method, params=None, timeout=60):
        return self.browser.send(method, params, self.session, timeout)

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise Failure("evaluating %s: %s" % (expression[:80], result["exceptionDetails"]))
        return result["result"].get("value")

    def problems(self, page_url):
        """Console errors and warnings, exceptions, log errors, and any request but the page."""
        found = []
        for e in self.browser.events:
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                found.append("console %s: %s" % (p["type"], text))
            elif method == "Runtime.exceptionThrown":
                found.append("uncaught: %s" % p["exceptionDetails"].get("exception", {}).get("description",
                                                                                            p["exceptionDetails"]))
            elif method == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                found.append("browser log %s: %s %s" % (p["entry"]["level"], p["entry"]["text"],
                                                        p["entry"].get("url", "")))
            elif (method == "Network.requestWillBeSent" and p["request"]["url"] != page_url and
                  not p["request"]["url"].startswith("blob:file://")):  # a CSV the page made itself
                found.append("request: %s" % p["request"]["url"][:200])
            elif method == "Network.loadingFailed":
                found.append("failed load: %s" % p.get("errorText"))
        return found


# Counts the drawn items of each named mark: Vega's SVG renderer gives a mark's group the
# class "<name>_marks", one child element per item (a line mark: one per series, in groups).
COUNT_MARKS = r"""
(() => {
  const out = {};
  for (const chart of window.kvcatReport.content.charts) {
    const section = document.getElementById(chart.id);
    const marks = {};
    for (const name of Object.keys(chart.marks)) {
      let n = 0;
      for (const g of section.querySelectorAll('svg g.' + name + '_marks')) n += g.children.length;
      marks[name] = n;
    }
    const svg = section.querySelector('svg');
    out[chart.id] = { marks, nan: svg ? svg.outerHTML.includes('NaN') : true, svg: !!svg };
  }
  return out;
})()
"""


def wait_for_tooltip(page, seconds=5):
    """The text of Vega's tooltip once it shows (it follows the pointer after a short delay)."""
    deadline = time.time() + seconds
    while True:
        tip = page.evaluate("(() => { const t = document.getElementById('vg-tooltip-element');"
                            " return t && t.classList.contains('visible') ? t.textContent : ''; })()")
        if tip or time.time() > deadline:
            return tip
        time.sleep(0.1)


def check(condition, message, failures):
    if not condition:
        failures.append(message)


def chosen_signals(page):
    """The planner's current choice as the charts' signals name it."""
    choice = page.evaluate("(() => { const c = window.kvcatReport.planner.current().choice;"
                           " return { chosen_model: c.model, chosen_accelerator: c.accelerator, chosen_kv: c.kv }; })()")
    return choice


def check_marks(page, content, failures):
    """Every chart drew every mark, item for item, and no coordinate is NaN. A mark that follows
    the planner ("where": field -> signal) draws only the rows of the current choice."""
    page.evaluate("window.kvcatReport.settled().then(() => true)")  # the charts caught up with the choice
    drawn = page.evaluate(COUNT_MARKS)
    signals = chosen_signals(page)
    for chart in content["charts"]:
        got = drawn[chart["id"]]
        check(got["svg"], "%s: no SVG drawn" % chart["id"], failures)
        check(not got["nan"], "%s: a coordinate is NaN" % chart["id"], failures)
        for name, how in chart["marks"].items():
            rows = [r for r in chart["datasets"][how["dataset"]]
                    if all(r.get(field) == signals[signal] for field, signal in how.get("where", {}).items())]
            # A line per series, in each panel of a faceted chart.
            if how["per"] == "mark":  # one item for the whole dataset, such as a band
                expected = 1 if rows else 0
            else:
                expected = len(rows) if how["per"] == "row" else len({(r["series"], r.get("panel")) for r in rows})
            check(expected > 0, "%s/%s: no data to draw for %r" % (chart["id"], name, signals), failures)
            check(got["marks"][name] == expected, "%s/%s: drew %d items for %d %ss" % (
                chart["id"], name, got["marks"][name], expected, how["per"]), failures)


def catalog_facts(db):
    con = sqlite3.connect(db)
    one = lambda sql: con.execute(sql).fetchone()[0]
    facts = {
        "models": one("SELECT count(*) FROM models"),
        "accelerators": one("SELECT count(*) FROM accelerators"),
        "dtypes": one("SELECT count(DISTINCT kv_cache_dtype) FROM kv_efficiency"),
        "rows": one("SELECT count(*) FROM kv_rows"),
        "measured": one("SELECT count(*) FROM kv_rows WHERE measured_tps_at_ctx IS NOT NULL"),
        "ids": [r[0] for r in con.execute("SELECT id FROM kv_rows ORDER BY id")],
        "contexts": [r[0] for r in con.execute("SELECT context_length FROM kv_rows")],
    }
    con.close()
    return facts


def run(args):
    chromium = shutil.which("chromium")
    if not chromium:
        raise Failure("Debian's chromium is not installed: run ./tools/deps chromium (./tools/test does)")
    failures = []
    work = tempfile.mkdtemp(prefix="kvcat-report-test-")
    browser = None
    try:
        shutil.copytree(os.path.join(args.source, "records"), os.path.join(work, "records"))
        built = subprocess.run([args.kvcat, "report", "--out", "site/report.html"], cwd=work,
                               capture_output=True, text=True)
        if built.returncode != 0:
            raise Failure("kvcat report failed (%d): %s" % (built.returncode, built.stderr))
        page_path = os.path.join(work, "site", "report.html")
        facts = catalog_facts(os.path.join(work, "kvcat.db"))
        page_url = "file://" + page_path

        profile = os.path.join(work, "profile")
        os.mkdir(profile)
        browser = Browser(chromium, profile)
        page = Page(browser)
        page.send("Page.navigate", {"url": page_url})
        state = None
        deadline = time.time() + 90
        while time.time() < deadline:
            state = page.evaluate("document.body ? document.body.dataset.state || null : null")
            if state in ("drawn", "failed"):
                break
            time.sleep(0.2)
        check(state == "drawn", "the page did not finish drawing (state %r)" % state, failures)
        time.sleep(0.5)  # let late console messages arrive

        # Every chart drew every mark, item for item.
        content = page.evaluate("window.kvcatReport.content")
        check_marks(page, content, failures)
        for chart in content["charts"]:
            # Each chart's CSV: a header, then a line per row.
            for name, rows in chart["datasets"].items():
                text = page.evaluate("window.kvcatReport.csv(window.kvcatReport.content.charts.find("
                                     "c => c.id === %s).datasets[%s])" % (json.dumps(chart["id"]), json.dumps(name)))
                lines = text.rstrip("\r\n").split("\r\n")
                check(lines[0].split(",") == list(rows[0].keys()), "%s/%s: CSV header %r" % (
                    chart["id"], name, lines[0]), failures)
                check(len(lines) == len(rows) + 1, "%s/%s: CSV has %d lines for %d rows" % (
                    chart["id"], name, len(lines), len(rows)), failures)

        # A CSV link downloads the chart's rows, made in the page (a blob: address).
        downloads = os.path.join(work, "downloads")
        os.mkdir(downloads)
        browser.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads,
                                                     "eventsEnabled": True})
        page.evaluate("document.querySelector('#kv-memory a.csv').click()")
        saved = os.path.join(downloads, "kv-memory-kv.csv")
        deadline = time.time() + 20
        while time.time() < deadline and not any(e.get("method") == "Browser.downloadProgress" and
                                                  e["params"].get("state") == "completed" for e in browser.events):
            browser.send("Browser.getVersion")  # reads the events that arrived meanwhile
            time.sleep(0.1)
        expected_csv = page.evaluate("window.kvcatReport.csv(window.kvcatReport.content.charts[0].datasets.kv)")
        got_csv = open(saved, newline="").read() if os.path.exists(saved) else None
        check(got_csv == expected_csv and expected_csv.count("\r\n") == len(content["charts"][0]["datasets"]["kv"]) + 1,
              "the kv-memory CSV link saved %r" % (got_csv[:200] if got_csv else got_csv), failures)

        # The charts against the catalog itself.
        charts = {c["id"]: c for c in content["charts"]}
        kv = charts["kv-memory"]["datasets"]
        check(len({r["series"] for r in kv["kv"]}) == facts["models"] * facts["dtypes"],
              "kv-memory: %d curves for %d models x %d dtypes" % (len({r["series"] for r in kv["kv"]}),
                                                                   facts["models"], facts["dtypes"]), failures)
        check(len(kv["memory"]) == facts["accelerators"], "kv-memory: %d memory lines for %d accelerators" % (
            len(kv["memory"]), facts["accelerators"]), failures)
        if facts["measured"]:
            check("decode" in charts and len(charts["decode"]["datasets"]["measured"]) == facts["measured"],
                  "decode: not one point per row with a measured speed (%d)" % facts["measured"], failures)

        # The table: every row, links to files that exist, filter and sort.
        table = page.evaluate("""(() => Array.from(document.querySelectorAll('#rows-table tbody tr')).map(tr => ({
            id: tr.cells[0].textContent, href: tr.cells[0].querySelector('a')?.getAttribute('href') || null,
            hidden: tr.hidden })))()""")
        check(sorted(r["id"] for r in table) == facts["ids"], "table ids %r, catalog %r" % (
            [r["id"] for r in table], facts["ids"]), failures)
        for r in table:
            target = os.path.normpath(os.path.join(os.path.dirname(page_path), r["href"] or ""))
            check(r["href"] and os.path.isfile(target), "row %s links to %r, not a file" % (r["id"], r["href"]),
                  failures)

        def filtered(text):
            return page.evaluate("""(() => { const f = document.getElementById('row-filter');
                f.value = %s; f.dispatchEvent(new Event('input'));
                return { shown: Array.from(document.querySelectorAll('#rows-table tbody tr'))
                                   .filter(tr => !tr.hidden).map(tr => tr.cells[0].textContent),
                         count: document.getElementById('row-count').textContent }; })()""" % json.dumps(text))

        one = facts["ids"][0]
        word = one.split("/")[-1]
        got = filtered(word.upper())
        expected = [i for i in facts["ids"] if word in i]
        check(sorted(got["shown"]) == expected, "filter %r shows %r, expected %r" % (word, got["shown"], expected),
              failures)
        check(got["count"] == "%d of %d rows" % (len(expected), facts["rows"]), "filter count %r" % got["count"],
              failures)
        got = filtered("no-such-row-anywhere")
        check(got["shown"] == [] and got["count"].startswith("0 of"), "a filter matching nothing shows %r" % got,
              failures)
        got = filtered("")
        check(len(got["shown"]) == facts["rows"], "clearing the filter shows %d rows" % len(got["shown"]), failures)

        sorted_contexts = page.evaluate("""(() => { const th = Array.from(document.querySelectorAll('#rows-table th'))
                .find(h => h.textContent === 'context_length');
            const col = th.cellIndex; const read = () => Array.from(document.querySelectorAll('#rows-table tbody tr'))
                .map(tr => Number(tr.cells[col].textContent));
            th.click(); const up = read(); th.click(); return [up, read()]; })()""")
        check(sorted_contexts[0] == sorted(facts["contexts"]) and
              sorted_contexts[1] == sorted(facts["contexts"], reverse=True),
              "sorting by context_length gave %r" % sorted_contexts, failures)

        # A tooltip names the record: hover over the first drawn point of the KV chart.
        box = page.evaluate("""(() => { const p = document.querySelector('#kv-memory g.kv_points_marks > path');
            p.scrollIntoView({block: 'center'}); const r = p.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()""")
        for kind in ("mouseMoved",):
            page.send("Input.dispatchMouseEvent", {"type": kind, "x": box["x"], "y": box["y"]})
        tip = wait_for_tooltip(page)
        # Points overlap where curves meet, so the one under the pointer is any row of the chart.
        named = [r for r in charts["kv-memory"]["datasets"]["kv"]
                 if r["record"] in tip and r["source"] in tip and r["model_name"] in tip]
        check(tip and named, "the tooltip %r names no record of the chart with its source" % tip[:300], failures)
        page.evaluate("window.scrollTo(0, 0)")

        failures.extend(planner_checks(page, args, work, page_url))
        failures.extend(prediction_checks(page, args, work))
        failures.extend(newcomer_checks(page, content))

        # Full-page screenshot (down to 8,000 px), kept as the test's artifact: the window is made
        # that tall and its view taken. captureBeyondViewport would paint the same pixels again
        # beyond a 900 px window, and took 16 to 30 s of the test's CPU for it on a 2-core machine.
        metrics = page.send("Page.getLayoutMetrics")
        height = int(min(metrics["cssContentSize"]["height"], 8000))
        page.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False})
        shot = page.send("Page.captureScreenshot", {"format": "png"})
        os.makedirs(args.artifacts, exist_ok=True)
        with open(os.path.join(args.artifacts, "report.png"), "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        shutil.copy(page_path, os.path.join(args.artifacts, "report.html"))

        failures.extend(page.problems(page_url))
    finally:
        if browser:
            browser.close()
        shutil.rmtree(work, ignore_errors=True)
    return failures


# What a first-time reader tripped on: the quality panels had their dtype axis only at the
# foot of the grid and colours shared by models; the planner wrote "9/2 bits" and
# 133.47814333534475 tokens/s and said nothing was estimated beside its assumptions; the table
# showed record_id beside the id that starts with it.
QUALITY_AXES = """(() => {
  const svg = document.querySelector('#quality svg');
  if (!svg) return null;
  const axes = Array.from(svg.querySelectorAll('[aria-label^="X-axis"]'));
  return { axes: axes.length,
           labelled: axes.filter((a) => a.querySelectorAll('.role-axis-label text, g.role-axis-label text').length > 0).length };
})()"""

PLANNER_TEXT = """(() => {
  return { weights: Array.from(document.querySelectorAll('#planner select option')).map((o) => o.textContent),
           text: document.getElementById('planner').innerText,
           header: Array.from(document.querySelectorAll('#rows-table th')).map((th) => th.textContent) };
})()"""


def newcomer_checks(page, content):
    failures = []
    quality = next((c for c in content["charts"] if c["id"] == "quality"), None)
    if quality:
        points = quality["datasets"]["quality"]
        panels = {p["panel"] for p in points}
        got = page.evaluate(QUALITY_AXES)
        check(got and got["axes"] == len(panels) and got["labelled"] == len(panels),
              "quality: %r x axes with labels for %d panels" % (got, len(panels)), failures)
        colour_of = {}
        for p in points:
            colour_of.setdefault(p["model_label"], set()).add(p["colour"])
        check(all(len(c) == 1 for c in colour_of.values()), "quality: a model drawn in several colours", failures)
        models_of = {}
        for label, colours in colour_of.items():
            for c in colours:
                models_of.setdefault(c, set()).add(label)
        if len(colour_of) <= 20:
            shared = {c: m for c, m in models_of.items() if len(m) > 1}
            check(not shared, "quality: colours shared by models: %r" % shared, failures)
        # A K-only quantisation is drawn at K/V, not at K's dtype alone.
        check(any("/" in p["kv_cache_dtype"] for p in points), "quality: no point drawn at a K/V pair", failures)
    got = page.evaluate(PLANNER_TEXT)
    fractions = [t for t in got["weights"] if re.search(r"\d+/\d+ (bits|B)\)", t)]
    check(not fractions, "planner: options written as fractions: %r" % fractions[:3], failures)
    long_speeds = re.findall(r"\d+\.\d{5,} tokens/s", got["text"])
    check(not long_speeds, "planner: speeds with their float noise: %r" % long_speeds[:3], failures)
    check("nothing is estimated" not in got["text"], "planner: says nothing is estimated beside its assumptions",
          failures)
    check("record_id" not in got["header"] and "id" in got["header"], "the rows table shows %r" % got["header"],
          failures)
    check("record_id" in content["table"]["columns"], "the table's data lost record_id (the CSV keeps it)", failures)
    return failures


# Choices the planner is driven through, each checked against `kvcat fit --format json`: a
# hybrid on one consumer card, a sliding-window model at batch 2, a GQA model split over two
# cards, an MLA model over eight, weights given as bytes, and one that does not fit at all;
# then each engine at contexts off any grid: llama.cpp's padded cells and streams, vLLM's blocks
# (a Mamba hybrid with its raised block size, tensor parallel, a sliding-window model in the
# memory vLLM printed, a card the weights fill) and SGLang's pool (by kvcat's default memory and
# by --mem-fraction-static, tensor parallel over eight).
CHOICES = [
    {"model": "models/qwen3.5-27b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "textbook",
     "weights": "Q4_K", "kv": "q8_0", "context": 65536, "batch": 1},
    {"model": "models/gemma-3-27b", "accelerator": "accelerators/nvidia-rtx-3090", "gpus": 1, "engine": "textbook",
     "weights": "Q4_K", "kv": "f16", "context": 32768, "batch": 2},
    {"model": "models/llama-3.1-70b", "accelerator": "accelerators/nvidia-a100-80gb-sxm", "gpus": 2,
     "engine": "textbook", "weights": "bf16", "kv": "fp8", "context": 131072, "batch": 4},
    {"model": "models/deepseek-v3", "accelerator": "accelerators/nvidia-h200", "gpus": 8, "engine": "textbook",
     "weights": "fp8", "kv": "bf16", "context": 163840, "batch": 2},
    {"model": "models/qwen3-next-80b-a3b", "accelerator": "accelerators/nvidia-h100-sxm", "gpus": 1,
     "engine": "textbook", "weights": 45000000000, "kv": "q8_0", "context": 262144, "batch": 3},
    {"model": "models/llama-3.1-70b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "textbook",
     "weights": "bf16", "kv": "bf16", "context": 8192, "batch": 1},
    {"model": "models/qwen3.5-27b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "llama.cpp",
     "weights": "Q4_K", "kv": "q8_0", "context": 65536, "batch": 1},
    {"model": "models/gemma-3-27b", "accelerator": "accelerators/nvidia-rtx-3090", "gpus": 1, "engine": "llama.cpp",
     "weights": "Q4_K", "kv": "f16", "context": 100000, "batch": 3},
    # llama.cpp's cache past what the card holds: the page and kvcat fit both say it does not fit.
    {"model": "models/qwen3-32b", "accelerator": "accelerators/nvidia-rtx-3090", "gpus": 1, "engine": "llama.cpp",
     "weights": "Q4_K", "kv": "f16", "context": 32768, "batch": 1},
    {"model": "models/qwen3.5-27b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "vllm",
     "weights": "Q4_K", "kv": "fp8", "context": 50000, "batch": 2},
    # Over two cards with room for a pool: NCCL's memory outside torch is a term of the budget.
    {"model": "models/qwen3-32b", "accelerator": "accelerators/nvidia-a100-80gb-sxm", "gpus": 2, "engine": "vllm",
     "weights": "bf16", "kv": "bf16", "context": 32768, "batch": 4},
    {"model": "models/gemma-3-27b", "accelerator": "accelerators/nvidia-h100-sxm", "gpus": 1, "engine": "vllm",
     "weights": "bf16", "kv": "bf16", "context": 40000, "batch": 3, "kvgib": "20.5"},
    {"model": "models/llama-3.1-70b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "vllm",
     "weights": "bf16", "kv": "fp8", "context": 8192, "batch": 1},
    {"model": "models/llama-3.1-8b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "sglang",
     "weights": "bf16", "kv": "bf16", "context": 30000, "batch": 2},
    {"model": "models/deepseek-v3", "accelerator": "accelerators/nvidia-h200", "gpus": 8, "engine": "sglang",
     "weights": "fp8", "kv": "fp8", "context": 163840, "batch": 2, "memfrac": "0.88"},
    # llama.cpp's mixes: the bytes llama-quantize writes for a model whose record lists its tensors
    # (a dense model, and an 8-expert one with llama.cpp), and a lower bound for one whose does not.
    {"model": "models/qwen3-32b", "accelerator": "accelerators/nvidia-rtx-3090", "gpus": 1, "engine": "textbook",
     "weights": "Q4_K_M", "kv": "f16", "context": 16384, "batch": 1},
    {"model": "models/qwen3-32b", "accelerator": "accelerators/nvidia-rtx-3090", "gpus": 1, "engine": "llama.cpp",
     "weights": "Q4_K_M", "kv": "q8_0", "context": 32768, "batch": 1},
    {"model": "models/mixtral-8x7b", "accelerator": "accelerators/nvidia-h100-sxm", "gpus": 1, "engine": "llama.cpp",
     "weights": "Q5_K_M", "kv": "f16", "context": 32768, "batch": 2},
    {"model": "models/gemma-3-27b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "textbook",
     "weights": "Q4_K_M", "kv": "q8_0", "context": 32768, "batch": 1},
    # Qwen3-Next with llama.cpp: its Q4_K_M and its compute buffer from its own graph (qwen3next).
    {"model": "models/qwen3-next-80b-a3b", "accelerator": "accelerators/nvidia-h100-sxm", "gpus": 1,
     "engine": "llama.cpp", "weights": "Q4_K_M", "kv": "f16", "context": 65536, "batch": 2},
    # DeepSeek-R1's latent attention (deepseek2): its Q4_K_M as llama-quantize writes it, over 8 cards.
    {"model": "models/deepseek-r1", "accelerator": "accelerators/nvidia-h200", "gpus": 8, "engine": "textbook",
     "weights": "Q4_K_M", "kv": "f16", "context": 65536, "batch": 1},
    # On the edge: the held memory the 13 starts span would turn this verdict, and both say so.
    {"model": "models/qwen3-32b", "accelerator": "accelerators/nvidia-rtx-3090", "gpus": 1, "engine": "llama.cpp",
     "weights": "Q4_K_M", "kv": "f16", "context": 15616, "batch": 1},
    # gpt-oss in llama-quantize's MXFP4_MOE (MXFP4 experts, Q8_0 elsewhere), a mix with no single
    # base type: its bytes come from the plan only.
    {"model": "models/gpt-oss-20b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "llama.cpp",
     "weights": "MXFP4_MOE", "kv": "f16", "context": 65536, "batch": 2},
    # A mixture of experts in bf16: the fused experts' workspace beside the sampler; and a
    # float32 checkpoint, whose sampler and rotary table are in float32.
    {"model": "models/qwen3-30b-a3b", "accelerator": "accelerators/nvidia-h100-sxm", "gpus": 1, "engine": "vllm",
     "weights": "bf16", "kv": "bf16", "context": 32768, "batch": 4},
    {"model": "models/llama-3.1-8b", "accelerator": "accelerators/nvidia-h100-sxm", "gpus": 1, "engine": "vllm",
     "weights": "f32", "kv": "bf16", "context": 16384, "batch": 8},
    # vLLM refuses this fp8 checkpoint over eight cards with every expert's width split (the refusal
    # choice below); with --enable-expert-parallel the experts are divided whole and it loads.
    {"model": "models/qwen3-235b-a22b", "accelerator": "accelerators/nvidia-h100-sxm", "gpus": 8, "engine": "vllm",
     "weights": "fp8_block", "kv": "fp8", "context": 32768, "batch": 4, "ep": "on"},
]
KEYS = ["model", "accelerator", "gpus", "engine", "weights", "kv", "context", "batch", "kvgib", "memfrac", "ep"]
# The fragments a fresh page is opened at, one for each field a fragment alone restores: weights
# as bytes, vLLM in a given memory and SGLang by its memory fraction (over eight cards). Every
# other choice is restored by the same reading of the address; the narrow run opens five more
# fragments in a page already drawn. Each fresh page is a full draw, about 5 s of a core here.
OPENED = [4, 11, 14, -1]


# Five choices whose predicted speed the page must give as `kvcat predict` does, one per basis it
# reaches: a measured curve (interpolated, and beyond its last context at another batch), the same
# model and card in other weights, the same model on another card, and an engine's median share.
PREDICTED = [
    {"model": "models/qwen3-coder-30b-a3b", "accelerator": "accelerators/nvidia-dgx-spark", "gpus": 1,
     "engine": "llama.cpp", "weights": "Q8_0", "kv": "f16", "context": 20000, "batch": 1},
    {"model": "models/qwen3.5-27b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "llama.cpp",
     "weights": "Q4_K", "kv": "q4_0", "context": 100000, "batch": 1},
    {"model": "models/qwen3.5-27b", "accelerator": "accelerators/nvidia-rtx-3090", "gpus": 1, "engine": "llama.cpp",
     "weights": "Q4_K", "kv": "q8_0", "context": 48000, "batch": 1},
    {"model": "models/llama-3.1-8b", "accelerator": "accelerators/nvidia-rtx-4090", "gpus": 1, "engine": "sglang",
     "weights": "bf16", "kv": "bf16", "context": 30000, "batch": 2},
    {"model": "models/gemma-3-27b", "accelerator": "accelerators/nvidia-h100-sxm", "gpus": 1, "engine": "vllm",
     "weights": "bf16", "kv": "bf16", "context": 40000, "batch": 1},
    # Several cards: the ceiling counts every card's bandwidth and the model's whole KV.
    {"model": "models/qwen3.5-397b-a17b", "accelerator": "accelerators/nvidia-rtx-pro-6000-blackwell-server", "gpus": 4,
     "engine": "vllm", "weights": "fp8", "kv": "fp8", "context": 65536, "batch": 1},
]


def expected_prediction(args, work, choice):
    """`kvcat predict --format json` for a planner choice."""
    command = ["predict", "--model", choice["model"], "--accelerator", choice["accelerator"], "--engine",
               choice["engine"], "--weight-quant", choice["weights"], "--kv-dtype", choice["kv"], "--context",
               str(choice["context"]), "--concurrency", str(choice["batch"]), "--gpus", str(choice["gpus"]),
               "--format", "json"]
    done = subprocess.run([args.kvcat] + command, cwd=work, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise Failure("kvcat %s failed (%d): %s" % (" ".join(command), done.returncode, done.stderr))
    return json.loads(done.stdout)


def prediction_checks(page, args, work):
    """The page's predicted decode speed, its interval and its basis are kvcat predict's."""
    failures = []
    bases = set()
    for choice in PREDICTED:
        label = fragment_of(choice)
        got = drive(page, choice)["predicted"]
        want = expected_prediction(args, work, choice)
        bases.add(want["basis"])
        check(want["decode_tps"] is not None, "%s: kvcat predict has no decode speed" % label, failures)
        if want["decode_tps"] is None:
            continue
        for key, name in (("decode", "decode_tps"), ("low", "decode_tps_low"), ("high", "decode_tps_high")):
            check(got[key] is not None and abs(float(got[key]) - want[name]) <= 0.011,
                  "%s: the page's predicted %s is %r, kvcat predict's %r" % (label, key, got[key], want[name]), failures)
        check(got["basis"] == want["basis"], "%s: the page's basis %r, kvcat predict's %r" % (
            label, got["basis"], want["basis"]), failures)
        if want["prefill_tps"] is not None:
            check(got["prefill"] is not None and abs(float(got["prefill"]) - want["prefill_tps"]) <= 0.011,
                  "%s: the page's predicted prefill %r, kvcat predict's %r" % (label, got["prefill"],
                                                                                 want["prefill_tps"]), failures)
    check(len(bases) >= 4, "the six choices reach only the bases %r" % sorted(bases), failures)
    return failures


def fragment_of(choice):
    return "#" + "&".join("%s=%s" % (k, choice[k]) for k in KEYS if k in choice)


def run_fit(args, work, command):
    done = subprocess.run([args.kvcat, "fit"] + command + ["--format", "json"], cwd=work, capture_output=True,
                          text=True)
    if done.returncode not in (0, 1):
        raise Failure("kvcat fit %s failed (%d): %s" % (" ".join(command), done.returncode, done.stderr))
    return json.loads(done.stdout)


FIT_ANSWERS = {}


def expected_fit(args, work, choice):
    """expected_fit_once, asked of kvcat once per choice: a fragment's fresh page and the narrow
    page ask again for choices the planner was driven through, and every folder the test makes
    holds the same copy of records/ (each sanitized kvcat run takes CI about a second)."""
    key = json.dumps(choice, sort_keys=True)
    if key not in FIT_ANSWERS:
        FIT_ANSWERS[key] = expected_fit_once(args, work, choice)
    return dict(FIT_ANSWERS[key])


def expected_fit_once(args, work, choice):
    """What `kvcat fit --format json` answers for the choice: the largest context, the KV bytes at
    the context and whether it fits there; with an engine, the engine's own figures in their place
    (llama.cpp: its allocation at -c context x batch -np batch; vLLM: batch x one request of
    --max-model-len context, and whether its pool's maximum concurrency reaches the batch; SGLang:
    its pool for context x batch tokens, and whether they are within the pool it sizes from memory)."""
    from fractions import Fraction
    context, batch, engine = choice["context"], choice["batch"], choice["engine"]
    command = ["--model", choice["model"], "--accelerator", choice["accelerator"], "--gpus", str(choice["gpus"]),
               "--kv-dtype", choice["kv"], "--batch", str(batch), "--contexts", str(context)]
    if isinstance(choice["weights"], int):
        command += ["--weight-bytes", str(choice["weights"])]
    else:
        command += ["--weight-quant", choice["weights"]]
    engine_args = {
        "textbook": [],
        "llama.cpp": ["--engine", "llama.cpp", "--ctx-size", str(context * batch), "--parallel", str(batch)],
        "vllm": ["--engine", "vllm", "--max-model-len", str(context)] +
                (["--available-kv-gib", choice["kvgib"]] if "kvgib" in choice else []) +
                (["--enable-expert-parallel"] if choice.get("ep") == "on" else []),
        "sglang": ["--engine", "sglang", "--ctx-size", str(context * batch)],
    }[engine]
    fit = run_fit(args, work, command + engine_args)
    exact = lambda v: Fraction(v) if isinstance(v, int) else Fraction(v["exact"])
    kv = exact(fit["kv_bytes_per_token"]) * context
    if fit["sliding_window"] > 0:
        kv += exact(fit["sliding_kv_bytes_per_token"]) * min(context, fit["sliding_window"])
    fits = fit["at_contexts"][0]["fits"]
    want = {"max": "none" if fit["max_context"] is None else str(fit["max_context"]), "engine": engine}
    if engine == "llama.cpp":
        # The engine's allocation in place of the textbook cache and state, beside the same weights and reserve.
        kv = Fraction(fit["engine_kv_bytes"])
        # The weights on the card (llama.cpp keeps its input layer on the host), its runtime, the
        # cache and state, and the memory its --fit keeps free beside them.
        # The runtime is llama.cpp's compute buffer and what the card holds before it starts (or the
        # reserve, for a model whose record gives no compute buffer).
        runtime = fit["runtime_bytes"] if "runtime_bytes" in fit else exact(fit["reserve_bytes"])
        held = (exact(fit["weight_bytes"]) - fit.get("weights_off_card_bytes", 0) + runtime + kv +
                fit["engine_state_bytes"] + fit["fit_target_bytes"])
        fits = held <= exact(fit["memory_bytes"])
        if fit["fits"] != fits:  # kvcat fit's own verdict is the same sum
            raise Failure("%s: kvcat fit says fits=%r, its figures sum to %r" % (choice, fit["fits"], fits))
        want["tokens"] = str(fit["engine_tokens"])
        want["edge"] = fit.get("engine_held_edge")
        # The largest context llama.cpp starts with: kvcat plan's max_context for the same row.
        done = subprocess.run([args.kvcat, "plan", "--model", choice["model"], "--accelerator", choice["accelerator"],
                               "--engine", "llama.cpp", "--weights", choice["weights"], "--kv-dtypes", choice["kv"],
                               "--slots", str(batch), "--format", "json"], cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            raise Failure("kvcat plan for %s failed (%d): %s" % (choice, done.returncode, done.stderr))
        rows = json.loads(done.stdout)
        if len(rows) != 1:
            raise Failure("kvcat plan for %s gave %d rows, not one" % (choice, len(rows)))
        want["engine_max"] = str(rows[0]["max_context"])
    elif engine == "vllm":
        kv = Fraction(fit["engine_kv_bytes"] * batch)
        concurrency = fit["engine"].get("max_concurrency")
        # A refusal with a pool (more sequences than a hybrid's Mamba blocks) is no start either.
        fits = concurrency is not None and concurrency >= batch and "engine_refusal" not in fit
        want["tokens"] = "none" if fit["engine_tokens"] is None else str(fit["engine_tokens"])
        want["concurrency"] = concurrency
    elif engine == "sglang":
        kv = Fraction(fit["engine_kv_bytes"])
        pool = run_fit(args, work, command + ["--engine", "sglang"] +
                       (["--mem-fraction-static", choice["memfrac"]] if "memfrac" in choice else []))
        tokens = pool.get("engine_tokens")
        fits = tokens is not None and context * batch <= tokens
        want["tokens"] = "none" if tokens is None else str(tokens)
    want.update({"kv": kv, "fits": "yes" if fits else "no"})
    return want


READ_ANSWER = """(() => { const v = (n) => { const e = document.querySelector('[data-kvcat="' + n + '"]');
    return e ? e.dataset.value : null; };
  const p = (id) => document.getElementById('pick-' + id).value;
  return { max: v('max-context'), kv: v('kv-bytes'), fits: v('fits'), ceiling: v('ceiling-tps'),
           predicted: { decode: v('predicted-decode'), low: v('predicted-decode-low'), high: v('predicted-decode-high'),
                        basis: v('predicted-decode-basis'), prefill: v('predicted-prefill') },
           tokens: v('engine-tokens'), concurrency: v('engine-concurrency'), edge: v('held-edge'), engineMax: v('engine-max-context'),
           shown: document.querySelector('[data-kvcat="max-context"]').textContent, hash: location.hash,
           picks: { model: p('model'), accelerator: p('accelerator'), gpus: p('gpus'), engine: p('engine'),
                    weights: p('weights'), bytes: p('weight-bytes'), kv: p('kv'), context: p('context'),
                    batch: p('batch'), kvgib: p('kv-gib'), memfrac: p('mem-fraction'), ep: p('expert-parallel') } }; })()"""


def choose_option(page, picker, value):
    """Choose in a select as a person does: focus it, pick the option; the page hears 'change'."""
    ok = page.evaluate("""(() => { const s = document.getElementById(%s); s.focus();
        if (!Array.from(s.options).some((o) => o.value === %s)) return false;
        s.value = %s; s.dispatchEvent(new Event('input', { bubbles: true }));
        s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()""" % (
        json.dumps("pick-" + picker), json.dumps(value), json.dumps(value)))
    if not ok:
        raise Failure("the %s picker offers no %r" % (picker, value))


def type_into(page, picker, text):
    """Type into a field: focus it, select what is there, and type the new text over it."""
    page.evaluate("(() => { const e = document.getElementById(%s); e.focus(); e.select(); })()" %
                  json.dumps("pick-" + picker))
    page.send("Input.insertText", {"text": text})


def clear_field(page, picker):
    page.evaluate("""(() => { const e = document.getElementById(%s); e.focus(); e.value = '';
        e.dispatchEvent(new Event('input', { bubbles: true })); })()""" % json.dumps("pick-" + picker))


def drive(page, choice):
    for picker in ("model", "accelerator", "gpus", "engine", "kv"):
        choose_option(page, picker, str(choice[picker]))
    # Read only where it is offered (vLLM, a mixture of experts, several cards); off unless the choice says on.
    choose_option(page, "expert-parallel", choice.get("ep", "off"))
    # The engine's memory, shown with its engine: typed when the choice gives it, else left blank.
    for key, picker, engine in (("kvgib", "kv-gib", "vllm"), ("memfrac", "mem-fraction", "sglang")):
        if choice["engine"] != engine:
            continue
        if key in choice:
            type_into(page, picker, choice[key])
        else:
            clear_field(page, picker)
    if isinstance(choice["weights"], int):
        choose_option(page, "weights", "bytes")
        type_into(page, "weight-bytes", str(choice["weights"]))
    else:
        choose_option(page, "weights", choice["weights"])
    type_into(page, "context", str(choice["context"]))
    type_into(page, "batch", str(choice["batch"]))
    return page.evaluate(READ_ANSWER)


def compare_answer(label, got, want, failures):
    from fractions import Fraction
    check(got["max"] == want["max"], "%s: the page's largest context is %r, kvcat fit's %r" % (
        label, got["max"], want["max"]), failures)
    page_kv = Fraction(got["kv"]) if got["kv"] else None
    if page_kv is not None and want["engine"] != "textbook":
        page_kv = Fraction(-((-page_kv.numerator) // page_kv.denominator))  # engine_kv_bytes is whole bytes, rounded up
    check(page_kv is not None and page_kv == want["kv"], "%s: the page's KV bytes are %r, kvcat fit's %s" % (
        label, got["kv"], want["kv"]), failures)
    check(got["fits"] == want["fits"], "%s: the page says fits=%r, kvcat fit %r" % (label, got["fits"], want["fits"]),
          failures)
    if "tokens" in want:
        check(got["tokens"] == want["tokens"], "%s: the page's engine tokens are %r, kvcat fit's %r" % (
            label, got["tokens"], want["tokens"]), failures)
    if "engine_max" in want:
        check(got["engineMax"] == want["engine_max"], "%s: the page's largest context llama.cpp starts with is %r, "
              "kvcat plan's %r" % (label, got["engineMax"], want["engine_max"]), failures)
    if "edge" in want:
        check(got["edge"] == want["edge"], "%s: the page's edge is %r, kvcat fit's %r" % (label, got["edge"], want["edge"]),
              failures)
    if want.get("concurrency") is not None:
        check(got["concurrency"] is not None and float(got["concurrency"]) == want["concurrency"],
              "%s: the page's maximum concurrency is %r, kvcat fit's %r" % (label, got["concurrency"],
                                                                           want["concurrency"]), failures)


def planner_checks(page, args, work, page_url):
    """The planner, driven through each choice: its answer is kvcat fit's, the address carries the
    choice, the keyboard moves a picker, and a fragment opens the same view in a fresh page."""
    failures = []
    answers = []
    verdicts = set()
    for choice in CHOICES:
        label = fragment_of(choice)
        got = drive(page, choice)
        want = expected_fit(args, work, choice)
        compare_answer(label, got, want, failures)
        check(got["hash"] == label, "the address after choosing is %r, not %r" % (got["hash"], label), failures)
        check(got["ceiling"] not in (None, ""), "%s: no decode ceiling shown" % label, failures)
        verdicts.add((got["fits"], got["max"] == "none"))
        answers.append((choice, got))
    check(any(got["edge"] for _, got in answers), "no choice is on the edge: the edge sentence is never compared",
          failures)
    check(len(verdicts) >= 2, "every choice got the same verdict %r: the checks cannot tell a fit from a refusal" %
          verdicts, failures)
    # A choice the planner refuses (a hybrid under SGLang, whose Mamba pool only kvcat fit holds)
    # says why and points to fit, and shows each figure on a line of its own, as a reader reads it.
    refused = dict(CHOICES[0], engine="sglang")
    drive(page, refused)
    lines = page.evaluate("Array.from(document.querySelectorAll('.answer p')).map((p) => p.textContent)")
    check(any("Mamba pool" in l and "kvcat fit --engine sglang" in l for l in lines),
          "the SGLang hybrid's refusal does not name the Mamba pool and fit: %r" % lines, failures)
    check("Largest context: none" in lines and "Fits at this context: no" in lines,
          "the refusal's figures do not read as lines of their own: %r" % lines, failures)
    # A split vLLM refuses to load (Qwen3-235B-A22B's fp8 experts, 192 wide over eight cards) is a
    # verdict, not a choice kvcat cannot work out: the page says it does not fit, in the words kvcat
    # fit exits 1 with.
    unloadable = dict(CHOICES[0], model="models/qwen3-235b-a22b", accelerator="accelerators/nvidia-h100-sxm", gpus=8,
                      engine="vllm", weights="fp8_block", kv="fp8", context=32768, batch=1)
    drive(page, unloadable)
    lines = page.evaluate("Array.from(document.querySelectorAll('.answer p')).map((p) => p.textContent)")
    words = run_fit(args, work, ["--model", unloadable["model"], "--accelerator", unloadable["accelerator"], "--gpus",
                                 "8", "--weight-quant", "fp8_block", "--kv-dtype", "fp8", "--engine", "vllm",
                                 "--max-model-len", "32768"]).get("engine_refusal")
    check(bool(words) and any(l.startswith("Does not fit: vLLM refuses to load fp8_block") and l.endswith(words)
                              for l in lines),
          "the fp8 split vLLM refuses does not read as fit's refusal %r: %r" % (words, lines), failures)
    # MXFP4_MOE for a model whose record does not list its tensors: no lower bound to fall back
    # on, so the page says what kvcat fit exits 1 with.
    planless = dict(CHOICES[0], model="models/deepseek-v2-lite", accelerator="accelerators/nvidia-h200", gpus=1,
                    engine="llama.cpp", weights="MXFP4_MOE", kv="f16", context=32768, batch=1)
    drive(page, planless)
    lines = page.evaluate("Array.from(document.querySelectorAll('.answer p, .answer')).map((p) => p.textContent)")
    check(any("MXFP4_MOE is sized only from llama-quantize's plan" in l for l in lines),
          "MXFP4_MOE without the model's tensors does not say it needs them: %r" % lines, failures)
    # The quality table says what each result is compared with: Llama-3.1-8B's perplexities from
    # ik_llama.cpp issue 92 had no f16 run beside them, and Qwen3.5-27B's divergences were
    # measured against the f16-cache run's logits.
    baselines = {}
    for model in ("models/llama-3.1-8b", "models/qwen3.5-27b"):
        drive(page, dict(CHOICES[0], model=model))
        baselines[model] = page.evaluate(
            "Array.from(document.querySelectorAll('table.quality tr')).slice(1)"
            ".map((tr) => tr.lastElementChild.textContent)")
    check("none (a plain score)" in baselines["models/llama-3.1-8b"],
          "a plain perplexity is shown against a baseline: %r" % baselines["models/llama-3.1-8b"], failures)
    check("measured against f16" in baselines["models/qwen3.5-27b"],
          "a divergence does not say the run it is measured against: %r" % baselines["models/qwen3.5-27b"], failures)
    check(not any("null" in b or "undefined" in b for v in baselines.values() for b in v),
          "a baseline cell shows a missing value as text: %r" % baselines, failures)
    # The points measured near a choice say when their speeds were taken with speculative
    # decoding (Qwen3.5-397B's MTP runs), and name a card no one record fits as its source does.
    drive(page, dict(CHOICES[0], model="models/qwen3.5-397b-a17b",
                     accelerator="accelerators/nvidia-rtx-pro-6000-blackwell-server", engine="sglang"))
    near = page.evaluate("Array.from(document.querySelectorAll('ol.near li')).map((li) => li.textContent)")
    check(any("speculative decoding" in n for n in near),
          "no point near the Qwen3.5-397B choice says it was taken with speculative decoding: %r" % near, failures)
    check(not any(n.startswith("null") or " · null" in n for n in near), "a point near a choice names no card: %r" % near,
          failures)
    # The charts follow the choice: back on the first, every chart draws that model's marks.
    drive(page, CHOICES[0])
    check_marks(page, page.evaluate("window.kvcatReport.content"), failures)

    # The keyboard: Tab reaches the model picker; ArrowDown chooses the next model and the answer follows.
    before = page.evaluate(READ_ANSWER)
    page.evaluate("document.getElementById('pick-model').focus()")
    page.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "ArrowDown", "code": "ArrowDown",
                                         "windowsVirtualKeyCode": 40})
    page.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "ArrowDown", "code": "ArrowDown",
                                         "windowsVirtualKeyCode": 40})
    after = page.evaluate(READ_ANSWER)
    check(after["picks"]["model"] != before["picks"]["model"] and after["hash"] != before["hash"],
          "ArrowDown on the model picker did not choose another model (%r)" % after["picks"]["model"], failures)

    # A fragment opens the same choice in a page of its own.
    engines = {choice["engine"] for choice in CHOICES}
    check(engines == {"textbook", "llama.cpp", "vllm", "sglang"}, "the choices leave out an engine: %r" % engines,
          failures)
    for choice, got in (answers[i] for i in OPENED):
        fresh = Page(page.browser)
        fresh.send("Page.navigate", {"url": page_url + fragment_of(choice)})
        wait_drawn(fresh, "fragment %s" % fragment_of(choice), failures)
        opened = fresh.evaluate(READ_ANSWER)
        for picks in (opened["picks"], got["picks"]):
            if picks["weights"] != "bytes":
                picks.pop("bytes")  # the hidden bytes field keeps what was typed earlier; the choice is the format
            if picks["engine"] != "vllm":
                picks.pop("kvgib")  # so do the engines' memory fields: each is read with its engine only
            if picks["engine"] != "sglang":
                picks.pop("memfrac")
            if "ep" not in choice:
                picks.pop("ep")  # offered with vLLM, a mixture of experts and several cards only
        check(opened["picks"] == got["picks"], "the fragment %s opens pickers %r, not %r" % (
            fragment_of(choice), opened["picks"], got["picks"]), failures)
        compare_answer("opened from " + fragment_of(choice), opened, expected_fit(args, work, choice), failures)
        fresh.send("Page.close")
    return failures


def wait_drawn(page, what, failures, seconds=90):
    state, deadline = None, time.time() + seconds
    while time.time() < deadline and state not in ("drawn", "failed"):
        time.sleep(0.2)
        state = page.evaluate("document.body ? document.body.dataset.state || null : null")
    check(state == "drawn", "%s: the page did not finish drawing (state %r)" % (what, state), failures)
    return state


# Elements sticking out past the right edge of the viewport, outside any box that scrolls on its own.
OVERFLOW = r"""
(() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const scrolls = (e) => { for (let p = e.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; }
    return false; };
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 1 && !scrolls(e)) out.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
      (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : '') + ' right=' + Math.round(r.right));
  }
  return { scrollWidth: document.documentElement.scrollWidth, width, out: out.slice(0, 12),
           plots: Array.from(document.querySelectorAll('.plot svg.marks')).map((s) => Math.round(s.getBoundingClientRect().width)) };
})()
"""


# Text a picker would cut: every option of every select in the planner, measured in the select's
# own font, against the room the select leaves its text (its width less its padding and the
# arrow, which Chromium draws about 20 px wide); and every field whose text scrolls inside it.
CUT_TEXT = r"""
(() => {
  const out = [];
  const measure = document.createElement('canvas').getContext('2d');
  for (const s of document.querySelectorAll('#planner select')) {
    if (s.offsetParent === null) continue;  // hidden: offered with its engine and model only
    const style = getComputedStyle(s);
    measure.font = style.font;
    const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
    for (const o of s.options) {
      const w = measure.measureText(o.text).width;
      if (w > room) out.push(s.id + ': "' + o.text + '" needs ' + Math.ceil(w) + ' px of ' + Math.floor(room));
    }
    if (s.scrollWidth > s.clientWidth) out.push(s.id + ': scrolls ' + s.scrollWidth + ' > ' + s.clientWidth);
  }
  for (const e of document.querySelectorAll('#planner input')) {
    if (e.offsetParent === null) continue;  // hidden with its engine
    const style = getComputedStyle(e);
    measure.font = style.font;
    const room = e.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    for (const text of [e.value, e.placeholder]) {
      const w = measure.measureText(text).width;
      if (w > room) out.push(e.id + ': "' + text + '" needs ' + Math.ceil(w) + ' px of ' + Math.floor(room));
    }
  }
  return out;
})()
"""


def narrow_run(args, chromium, width=390):
    """The page on a phone's width: the planner and every chart fit, nothing scrolls sideways."""
    failures = []
    work = tempfile.mkdtemp(prefix="kvcat-report-narrow-")
    browser = None
    try:
        shutil.copytree(os.path.join(args.source, "records"), os.path.join(work, "records"))
        built = subprocess.run([args.kvcat, "report", "--out", "report.html"], cwd=work, capture_output=True, text=True)
        if built.returncode != 0:
            raise Failure("kvcat report failed (%d): %s" % (built.returncode, built.stderr))
        page_url = "file://" + os.path.join(work, "report.html")
        profile = os.path.join(work, "profile")
        os.mkdir(profile)
        browser = Browser(chromium, profile)
        page = Page(browser)
        page.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 844, "deviceScaleFactor": 1,
                                                         "mobile": True})
        # The first choice, then each engine's (their answers have more lines and fields to fit).
        for index in (0, 6, 9, 10, 13):
            choice = CHOICES[index]
            page.send("Page.navigate", {"url": page_url + fragment_of(choice)})
            if index == 0:
                wait_drawn(page, "%d px" % width, failures)
            else:
                page.evaluate("new Promise((done) => setTimeout(done, 300))")  # a fragment: the page stays
            time.sleep(0.5)
            label = "at %d px, %s" % (width, fragment_of(choice))
            got = page.evaluate(OVERFLOW)
            check(got["scrollWidth"] <= width and not got["out"],
                  "%s the page is %d px wide; sticking out: %r" % (label, got["scrollWidth"], got["out"]), failures)
            check(got["plots"] and all(w <= width for w in got["plots"]), "%s the charts are %r px wide" % (
                label, got["plots"]), failures)
            cut = page.evaluate(CUT_TEXT)
            check(not cut, "%s a picker cuts its text: %r" % (label, cut), failures)
            # An option named in the answer (--engine, --max-model-len) is never broken across lines.
            broken = page.evaluate("Array.from(document.querySelectorAll('#planner .option'))"
                                   ".filter((o) => o.getClientRects().length > 1).map((o) => o.textContent)")
            options = page.evaluate("document.querySelectorAll('#planner .option').length")
            check(not broken, "%s options broken across lines: %r" % (label, broken), failures)
            check(index == 0 or options > 0, "%s no option is marked in the answer" % label, failures)
            answer = page.evaluate(READ_ANSWER)
            compare_answer(label, answer, expected_fit(args, work, choice), failures)
        failures.extend("%d px: %s" % (width, p) for p in page.problems(page_url))
    finally:
        if browser:
            browser.close()
        shutil.rmtree(work, ignore_errors=True)
    return failures


# Text a record may hold that would run or fetch something if the page spliced it into HTML.
HOSTILE = "<img src=x onerror=console.error(1)></script><script>console.error(2)</script>"


def hostile_run(args, chromium):
    """A model name and a source name written to break out of the page: the report must draw
    them as text, with no error and no request."""
    failures = []
    work = tempfile.mkdtemp(prefix="kvcat-report-hostile-")
    browser = None
    try:
        # The catalog as first shipped (tests/fixtures/seed-catalog): the edits below name its records.
        records = os.path.join(work, "records")
        shutil.copytree(os.path.join(args.source, "tests", "fixtures", "seed-catalog", "records"), records)
        for relative, old in (("models/llama-3.1-8b.yaml", "name: Llama-3.1-8B"),
                              ("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml",
                               "  - name: Hardware Corner, RTX 3090 per-card benchmark page")):
            path = os.path.join(records, relative)
            text = open(path, encoding="utf-8").read()
            if old not in text:
                raise Failure("%s no longer holds %r; update the hostile test" % (relative, old))
            new = old.split("name: ")[0] + "name: " + json.dumps("Hostile " + HOSTILE)
            open(path, "w", encoding="utf-8").write(text.replace(old, new, 1))
        # A quality result in a record, against its baseline dtype: the report draws both points.
        llamacpp = os.path.join(records, "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml")
        if "\nquality:" in open(llamacpp, encoding="utf-8").read():
            raise Failure("%s has a quality list already; update the hostile test" % llamacpp)
        with open(llamacpp, "a", encoding="utf-8") as f:
            f.write("quality:\n  - benchmark: wikitext-2\n    metric: perplexity\n    value: 6.21\n"
                    "    unit: ppl\n    higher_is_better: false\n    baseline_kv_cache_dtype: f16\n"
                    "    baseline_value: 6.2\n")
        built = subprocess.run([args.kvcat, "report", "--out", "report.html"], cwd=work, capture_output=True,
                               text=True)
        if built.returncode != 0:
            raise Failure("kvcat report of the hostile records failed (%d): %s" % (built.returncode, built.stderr))
        page_path = os.path.join(work, "report.html")
        profile = os.path.join(work, "profile")
        os.mkdir(profile)
        browser = Browser(chromium, profile)
        page = Page(browser)
        page.send("Page.navigate", {"url": "file://" + page_path})
        state, deadline = None, time.time() + 90
        while time.time() < deadline and state not in ("drawn", "failed"):
            time.sleep(0.2)
            state = page.evaluate("document.body ? document.body.dataset.state || null : null")
        check(state == "drawn", "hostile: the page did not finish drawing (state %r)" % state, failures)
        content = page.evaluate("window.kvcatReport.content")
        quality = [c for c in content["charts"] if c["id"] == "quality"]
        wikitext = sorted((p["kv_cache_dtype"], p["value"]) for p in
                          (quality[0]["datasets"]["quality"] if quality else []) if "wikitext-2" in p["series"])
        check(wikitext == [("bf16", 6.21), ("f16", 6.2)],
              "hostile: the quality result is not drawn beside its baseline: %r" % wikitext, failures)
        check_marks(page, content, failures)
        # Hover the decode point whose source is hostile, so its tooltip is drawn too.
        box = page.evaluate("""(() => { const p = document.querySelector('#decode g.decode_points_marks > path');
            p.scrollIntoView({block: 'center'}); const r = p.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()""")
        page.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box["x"], "y": box["y"]})
        tip = wait_for_tooltip(page)
        check(HOSTILE in tip, "hostile: the tooltip does not show the source as text: %r" % tip[:300], failures)
        shown = page.evaluate("""(() => ({
            legend: Array.from(document.querySelectorAll('#bytes-per-token svg text')).map(t => t.textContent),
            options: Array.from(document.querySelectorAll('#pick-model option')).map(o => o.textContent),
            images: document.querySelectorAll('img').length,
            scripts: document.querySelectorAll('script').length }))()""")
        # An axis shortens long labels with an ellipsis; the start is enough to see it is text.
        check(any(t.startswith("Hostile " + HOSTILE[:12]) for t in shown["legend"]),
              "hostile: the model name is not on the bytes-per-token axis as text: %r" % shown["legend"][:40], failures)
        check("Hostile " + HOSTILE in shown["options"],
              "hostile: the model picker does not offer the model's name as text: %r" % shown["options"], failures)
        check(shown["images"] == 0, "hostile: the page grew %d img elements" % shown["images"], failures)
        check(shown["scripts"] == 5, "hostile: the page has %d script elements, not 5" % shown["scripts"], failures)
        tip_source = page.evaluate("""window.kvcatReport.content.charts.find(c => c.id === 'decode')
            .datasets.measured[0].source""")
        check(tip_source == "Hostile " + HOSTILE, "hostile: the decode point's source is %r" % tip_source, failures)
        failures.extend("hostile: " + p for p in page.problems("file://" + page_path))
    finally:
        if browser:
            browser.close()
        shutil.rmtree(work, ignore_errors=True)
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kvcat", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--artifacts", required=True)
    args = parser.parse_args()
    args.kvcat = os.path.abspath(args.kvcat)
    try:
        failures = run(args)
        failures += hostile_run(args, shutil.which("chromium"))
        failures += narrow_run(args, shutil.which("chromium"))
    except Failure as e:
        failures = [str(e)]
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    if failures:
        return 1
    print("report_browser_test: every chart drawn, table filtered and sorted, no console error or request; "
          "screenshot in %s" % os.path.join(args.artifacts, "report.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
