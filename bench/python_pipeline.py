#!/usr/bin/env python3
"""The straightforward pipeline kvcat is measured against.

Usage: python_pipeline.py RECORDS_DIR DB

What a careful script would do with PyYAML's C loader and the standard sqlite3 module:
load every record, check required keys and their types, that the id matches the path
and references resolve, recompute the basis product exactly and compare it with
kv_bytes_per_token and the dtype's bytes per element, then insert everything in one
transaction. It does not check prose, positions, physics or duplicate keys, so it does
less than kvcat; it is a floor for a Python tool, not a rival.
"""
import os
import sqlite3
import sys
from fractions import Fraction

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
BYTES = {"f32": 4, "fp32": 4, "f16": 2, "fp16": 2, "bf16": 2, "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1,
         "q8_0": Fraction(34, 32), "q5_1": Fraction(24, 32), "q5_0": Fraction(22, 32),
         "q4_1": Fraction(20, 32), "q4_0": Fraction(18, 32), "iq4_nl": Fraction(18, 32)}
REQUIRED = {
    "models": {"id": str, "name": str, "num_layers": int, "attention_variant": str, "native_context": int},
    "accelerators": {"id": str, "name": str, "memory_gb": (int, float), "memory_bandwidth_gb_s": (int, float)},
    "kv-efficiency": {"id": str, "model": str, "engine": str, "kv_cache_dtype": str, "context_length": int,
                      "kv_bytes_per_token": (int, str), "kv_bytes_basis": dict, "methodology": str},
}


def main():
    root, db_path = sys.argv[1], sys.argv[2]
    records = {"models": [], "accelerators": [], "kv-efficiency": []}
    errors = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            if not name.endswith(".yaml"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            kind = rel.split(os.sep)[0]
            with open(path, "rb") as f:
                doc = yaml.load(f, Loader=LOADER)
            for key, want in REQUIRED.get(kind, {}).items():
                if not isinstance(doc.get(key), want):
                    errors += 1
            if doc.get("id") != rel[:-5].replace(os.sep, "/"):
                errors += 1
            records[kind].append(doc)
    models = {m["id"]: m for m in records["models"]}
    accelerators = {a["id"] for a in records["accelerators"]}
    for row in records["kv-efficiency"]:
        if row["model"] not in models or (row.get("accelerator") and row["accelerator"] not in accelerators):
            errors += 1
        b = row["kv_bytes_basis"]
        bpe = Fraction(str(b["bytes_per_element"]))
        per_layer = b["latent_dim"] if "latent_dim" in b else b["kv_heads"] * b["head_dim"]
        if b["layers"] * per_layer * b["kv_factor"] * bpe != Fraction(str(row["kv_bytes_per_token"])):
            errors += 1
        if BYTES.get(row["kv_cache_dtype"]) != bpe:
            errors += 1
    if os.path.exists(db_path):
        os.remove(db_path)
    db = sqlite3.connect(db_path)
    db.execute("CREATE TABLE models (id TEXT PRIMARY KEY, name TEXT, num_layers INTEGER, attention_variant TEXT)")
    db.execute("CREATE TABLE accelerators (id TEXT PRIMARY KEY, name TEXT, memory_gb REAL, bandwidth REAL)")
    db.execute("CREATE TABLE kv_rows (id TEXT PRIMARY KEY, model TEXT, accelerator TEXT, engine TEXT, "
               "kv_cache_dtype TEXT, attention_variant TEXT, context_length INTEGER, kv_bytes_per_token INTEGER, "
               "measured_tps_at_ctx REAL, methodology TEXT, notes TEXT)")
    with db:
        db.executemany("INSERT INTO models VALUES (?, ?, ?, ?)",
                       [(m["id"], m["name"], m["num_layers"], m["attention_variant"]) for m in records["models"]])
        db.executemany("INSERT INTO accelerators VALUES (?, ?, ?, ?)",
                       [(a["id"], a["name"], a["memory_gb"], a["memory_bandwidth_gb_s"]) for a in records["accelerators"]])
        db.executemany("INSERT INTO kv_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [(r["id"], r["model"], r.get("accelerator"), r["engine"], r["kv_cache_dtype"],
                         r["attention_variant"], r["context_length"], int(Fraction(str(r["kv_bytes_per_token"]))),
                         r.get("measured_tps_at_ctx"), r["methodology"], r.get("notes")) for r in records["kv-efficiency"]])
        db.execute("CREATE INDEX kv_rows_variant ON kv_rows(attention_variant)")
        db.execute("CREATE INDEX kv_rows_context ON kv_rows(context_length)")
    db.close()
    print(f"{sum(len(v) for v in records.values())} records, {errors} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
