#!/usr/bin/env python3
"""Every allocation record written by import-log is what import-log writes today from the log it
names (tests/fixtures/engine-logs/), with the record's own model, id, engine and version: the
readers of each engine's lines (src/engines/<engine>/<engine>_log.cc) and the record they write
cannot drift from the records already shipped. url and notes are a person's; a figure a person
added by hand passes only when the notes name it and say so ("written by hand").

Usage: reimport_allocations.py --kvcat BIN --root SOURCE_DIR
Exit 0 when every record matches, 1 naming each record and key that does not.
"""
import argparse
import pathlib
import re
import subprocess
import sys

import yaml


def flatten(value, prefix=""):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}{k}."))
        return out
    return {prefix.rstrip("."): value}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kvcat", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    root = pathlib.Path(a.root)
    problems, checked = [], 0
    for path in sorted((root / "records" / "allocations").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        m = re.search(r"Written by `kvcat import-log` from (\S+?)\. ", text)
        if not m:
            continue
        record = yaml.safe_load(text)
        log = root / "tests" / "fixtures" / "engine-logs" / m.group(1)
        args = [a.kvcat, "import-log", str(log), "--model", record["model"], "--id", record["id"],
                "--url", "u", "--notes", "n"]
        if record["engine"] not in ("llama.cpp", "vllm", "sglang"):
            args += ["--engine", record["engine"]]
        if record.get("engine_version") is not None:
            args += ["--engine-version", str(record["engine_version"])]
        run = subprocess.run(args, capture_output=True, text=True)
        checked += 1
        if run.returncode != 0:
            problems.append(f"{path.name}: import-log failed: {run.stderr.strip()[:300]}")
            continue
        notes = str(record.get("notes", ""))
        held, written = flatten(record), flatten(yaml.safe_load(run.stdout))
        for key in sorted(set(held) | set(written)):
            if key in ("url", "notes") or held.get(key) == written.get(key):
                continue
            if key not in written and key.split(".")[-1] in notes and "by hand" in notes:
                continue  # added by a person, and the notes say so
            problems.append(f"{path.name}: {key} is {held.get(key)!r} in the record, {written.get(key)!r} from its log")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{checked} allocation records re-imported from their logs: {checked - len(set(p.split(':')[0] for p in problems))} "
          f"identical, {len(problems)} differences")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
