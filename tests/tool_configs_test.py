#!/usr/bin/env python3
"""Checks the files that plug kvcat into other tools: .pre-commit-hooks.yaml (by doing what
pre-commit would do with it: select the changed files with `files`, run `entry` with them
on PATH) and tools/github-workflow-example.yml (it parses, installs tools/deps, and runs
the lint with --format github).

Usage: tool_configs_test.py KVCAT_BINARY SOURCE_DIR
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import yaml

failures = []


def check(ok, why):
    if not ok:
        failures.append(why)
        print(f"FAIL: {why}", file=sys.stderr)


def run_hook(hook, cwd, files, binary_dir):
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    env["PATH"] = binary_dir + os.pathsep + env.get("PATH", "")
    args = shlex.split(hook["entry"]) + list(hook.get("args", [])) + files
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)


def main():
    binary, source = sys.argv[1], sys.argv[2]
    with open(os.path.join(source, ".pre-commit-hooks.yaml"), encoding="utf-8") as f:
        hooks = yaml.safe_load(f)
    check(isinstance(hooks, list) and len(hooks) == 1, "one hook in .pre-commit-hooks.yaml")
    hook = hooks[0]
    for key, want in {"id": "kvcat-lint", "language": "system", "entry": "kvcat lint", "pass_filenames": True}.items():
        check(hook.get(key) == want, f"hook {key} is {hook.get(key)!r}, expected {want!r}")
    pattern = re.compile(hook["files"])

    # pre-commit matches `files` against paths relative to the repository root.
    records = []
    for root, _, names in os.walk(os.path.join(source, "records")):
        for name in names:
            records.append(os.path.relpath(os.path.join(root, name), source).replace(os.sep, "/"))
    yaml_records = sorted(r for r in records if r.endswith(".yaml"))
    check(yaml_records and all(pattern.search(r) for r in yaml_records), "files matches every shipped record")
    for other in ["schema/model.schema.json", "records/README.md", "tests/fixtures/x/records/models/a.yaml",
                  "src/load/records.cc"]:
        check(not pattern.search(other), f"files must not match {other}")

    with tempfile.TemporaryDirectory() as scratch:
        shutil.copytree(os.path.join(source, "records"), os.path.join(scratch, "records"))
        binary_dir = os.path.join(scratch, "bin")
        os.mkdir(binary_dir)
        os.symlink(os.path.abspath(binary), os.path.join(binary_dir, "kvcat"))
        clean = run_hook(hook, scratch, yaml_records, binary_dir)
        check(clean.returncode == 0 and clean.stdout == "",
              f"hook on the shipped records: exit {clean.returncode}\n{clean.stdout}{clean.stderr}")

        target = "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml"
        path = os.path.join(scratch, target)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace("kv_bytes_per_token: 65536", "kv_bytes_per_token: 16384", 1))
        broken = run_hook(hook, scratch, [target], binary_dir)
        check(broken.returncode == 1, f"hook on a broken record exits {broken.returncode}, expected 1")
        check(f"{target}:13:21: error: [kv-basis-product]" in broken.stdout,
              f"hook output names the finding:\n{broken.stdout}")

    with open(os.path.join(source, "tools/github-workflow-example.yml"), encoding="utf-8") as f:
        workflow = yaml.safe_load(f)
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    runs = "\n".join(s.get("run", "") for s in steps)
    check("./tools/deps" in runs, "the workflow installs tools/deps")
    check(re.search(r"kvcat lint --format github", runs) is not None, "the workflow runs kvcat lint --format github")
    check(any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps),
          "the workflow uploads SARIF")
    check(re.search(r"kvcat report --out site/index\.html", runs) is not None, "the workflow writes kvcat report")
    check(any(s.get("uses", "").startswith("actions/upload-artifact") and s["with"]["path"] == "site/index.html"
              for s in steps), "the workflow keeps the report as an artifact")
    check(any(s.get("uses", "").startswith("actions/deploy-pages") for s in steps),
          "the workflow publishes the report to GitHub Pages")

    if failures:
        sys.exit(1)
    print("tool configs: all checks passed")


if __name__ == "__main__":
    main()
