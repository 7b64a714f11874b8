#!/usr/bin/env python3
"""The report page's llama.cpp graph (src/output/report_graph.js) against kvcat fit's.

For every model the page builds a graph for, at contexts and batches off any grid, node runs the
page's own script over the widths the page carries and its compute buffer must be the
`compute_buffer_bytes` of `kvcat fit --engine llama.cpp` for the same choice, to the byte. The
browser test checks five choices end to end; this checks every graph the page can build.

usage: report_graph_test.py --kvcat BIN --source DIR
"""
import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# (context a sequence, sequences, cache type): one slot, several, contexts that pad, a quantized
# cache (its Hadamard rotations) and an f32 one (flash attention's f16 copies of it).
CHOICES = [(4096, 1, "f16"), (20000, 1, "f16"), (8192, 4, "f16"), (40000, 2, "f16"), (16384, 2, "q8_0"),
           (4096, 2, "f32")]

NODE = r"""
const fs = require('fs');
const vm = require('vm');
const [script, cases] = process.argv.slice(2);
const context = {};
vm.createContext(context);
vm.runInContext(fs.readFileSync(script, 'utf8') + '\nthis.kvcatLlamaGraph = kvcatLlamaGraph;', context);
const out = JSON.parse(fs.readFileSync(cases, 'utf8')).map((c) => {
  const r = context.kvcatLlamaGraph(c.spec, c.setting);
  return r === null ? null : String(r.bytes);
});
process.stdout.write(JSON.stringify(out));
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kvcat", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    src = Path(a.source)
    records = src / "records"
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        subprocess.run([a.kvcat, "report", "--records", str(records), "--out", str(page)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = page.read_text()
        m = re.search(r'<script type="application/json" id="report-content">(.*?)</script>', text, re.S)
        content = json.loads(m.group(1).replace("<\\/", "</"))
        cases, expected, labels = [], [], []
        for model in content["planner"]["models"]:
            for ctx, batch, dtype in CHOICES:
                terms = model.get("engines", {}).get("llama.cpp", {}).get(dtype, {})
                compute = terms.get("compute") if isinstance(terms, dict) else None
                spec = compute.get("graph") if compute else None
                if not spec:
                    continue
                run = subprocess.run(
                    [a.kvcat, "fit", "--records", str(records), "--model", model["id"], "--accelerator",
                     "nvidia-b200", "--weight-bytes", "1000000000", "--kv-dtype", dtype, "--engine", "llama.cpp",
                     "--ctx-size", str(ctx * batch), "--parallel", str(batch), "--format", "json"],
                    capture_output=True, text=True)
                fit = json.loads(run.stdout)
                tokens = fit["engine_tokens"]
                parts = fit.get("engine", {}).get("parts", [])
                cells = next((p["cells"] for p in parts if p["part"] == "base cache"), tokens // batch)
                swa_cells = next((p["cells"] for p in parts if p["part"] == "SWA cache"), 0)
                cases.append({"spec": spec, "setting": {
                    "tokens": min(512, tokens), "seqs": batch, "unified": batch == 1, "cells": cells,
                    "swaCells": swa_cells,
                    "outputs": batch, "flashAttn": True, "cacheK": dtype, "cacheV": dtype}})
                expected.append(fit.get("compute_buffer_bytes"))
                labels.append(f"{model['id']} -c {ctx * batch} -np {batch} -ctk {dtype} -ctv {dtype}")
        cases_file = Path(tmp) / "cases.json"
        cases_file.write_text(json.dumps(cases))
        runner = Path(tmp) / "run.js"
        runner.write_text(NODE)
        node = subprocess.run(["node", str(runner), str(src / "src/output/report_graph.js"), str(cases_file)],
                              capture_output=True, text=True)
        if node.returncode != 0:
            print("report_graph_test: node failed:\n" + node.stderr)
            return 1
        got = json.loads(node.stdout)
    wrong = [f"{label}: the page {g}, kvcat fit {e}" for label, g, e in zip(labels, got, expected)
             if g is None or e is None or int(g) != int(e)]
    models = len({label.split(" ")[0] for label in labels})
    print(f"report_graph_test: {len(labels) - len(wrong)} of {len(labels)} compute buffers of {models} models "
          f"equal to kvcat fit's")
    for w in wrong:
        print("  " + w)
    return 1 if wrong or not labels else 0


if __name__ == "__main__":
    sys.exit(main())
