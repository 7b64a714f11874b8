#!/usr/bin/env python3
"""Validates record files against the JSON Schemas in schema/.

Every records/**/*.yaml file (or only the files named on the command line) is
checked against the schema of its kind, chosen by the folder it lives in:
models/ -> model.schema.json, accelerators/ -> accelerator.schema.json,
kv-efficiency/ -> kv-efficiency.schema.json.

Prints each failure as `file: message`, then `N passed, M failed`.
Exit status: 0 when every file passes, 1 when any fails, 2 when the tools it
needs (PyYAML, jsonschema with draft 2020-12) are missing or the arguments are bad.

Only the standard library, PyYAML (Debian: python3-yaml) and jsonschema
(Debian: python3-jsonschema) are used.
"""

import argparse
import datetime
import json
import sys
from pathlib import Path

KIND_SCHEMAS = {
    "models": "model.schema.json",
    "accelerators": "accelerator.schema.json",
    "kv-efficiency": "kv-efficiency.schema.json",
    "allocations": "allocation.schema.json",
}


def import_tools():
    """Imports PyYAML and jsonschema, or exits 2 naming the Debian packages to install."""
    missing = []
    try:
        import yaml  # noqa: F401
    except ImportError as e:
        missing.append(f"PyYAML ({e}); install the Debian package python3-yaml")
    try:
        import jsonschema  # noqa: F401
    except ImportError as e:
        missing.append(f"jsonschema ({e}); install the Debian package python3-jsonschema")
    if missing:
        for m in missing:
            print(f"validate_records.py: error: cannot import {m}", file=sys.stderr)
        sys.exit(2)
    import yaml
    import jsonschema
    if not hasattr(jsonschema, "Draft202012Validator"):
        print("validate_records.py: error: this jsonschema has no draft 2020-12 support (4.0 or later is needed); "
              "install the Debian package python3-jsonschema (bookworm ships 4.10)", file=sys.stderr)
        sys.exit(2)
    return yaml, jsonschema


def make_loader(yaml):
    """A SafeLoader that refuses duplicate keys, as kvcat's loader does (PyYAML keeps the last one silently)."""

    class StrictLoader(yaml.SafeLoader):
        pass

    def construct_mapping(loader, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                continue  # SafeLoader reports an unhashable key itself
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    f"found duplicate key {key!r} (first at line {seen[key] + 1})", key_node.start_mark)
            seen[key] = key_node.start_mark.line
        return loader.construct_mapping(node, deep=deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return StrictLoader


def dates_to_strings(value):
    """YAML 1.1 reads an unquoted 2026-04-22 as a date; kvcat's loader keeps it as the string it is."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: dates_to_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [dates_to_strings(v) for v in value]
    return value


def kind_folder(path, records_dir):
    """The kind folder a record lives in: the first folder under records/, or the nearest kind-named folder."""
    try:
        rel = path.resolve().relative_to(records_dir.resolve())
        return rel.parts[0] if len(rel.parts) > 1 else None
    except ValueError:
        pass
    for parent in path.resolve().parents:
        if parent.name in KIND_SCHEMAS:
            return parent.name
    return None


def error_path(error):
    parts = []
    for p in error.absolute_path:
        if isinstance(p, int):
            parts.append(f"[{p}]")
        else:
            parts.append(("." if parts else "") + str(p))
    return "".join(parts) or "(record)"


def shown(path, root):
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Validate kvcat records against schema/*.schema.json.")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the repository root, holding records/ and schema/ (default: this script's parent's parent)")
    parser.add_argument("files", nargs="*", type=Path,
                        help="record files to check (default: every records/**/*.yaml under --root)")
    args = parser.parse_args(argv)

    yaml, jsonschema = import_tools()
    loader = make_loader(yaml)
    root = args.root
    records_dir = root / "records"
    schema_dir = root / "schema"

    validators = {}
    broken_schemas = []
    for folder, schema_name in KIND_SCHEMAS.items():
        schema_path = schema_dir / schema_name
        try:
            schema = json.loads(schema_path.read_text(encoding="utf-8"))
            jsonschema.Draft202012Validator.check_schema(schema)
            validators[folder] = jsonschema.Draft202012Validator(schema)
        except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
            msg = getattr(e, "message", None) or str(e)
            broken_schemas.append(f"{shown(schema_path, root)}: not a usable JSON Schema: {msg}")

    if args.files:
        files = list(args.files)
    else:
        files = sorted(records_dir.glob("**/*.yaml"))
        if not files:
            print(f"validate_records.py: error: no record files under {records_dir}", file=sys.stderr)
            return 1

    passed = failed = 0
    for line in broken_schemas:
        print(line)
        failed += 1

    for path in files:
        name = shown(path, root)
        problems = []
        folder = kind_folder(path, records_dir)
        if folder not in KIND_SCHEMAS:
            problems.append("not under records/models/, records/accelerators/ or records/kv-efficiency/")
        elif folder not in validators:
            problems.append(f"no usable schema for {folder}/ (see schema/{KIND_SCHEMAS[folder]})")
        else:
            try:
                doc = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
            except (OSError, UnicodeDecodeError) as e:
                problems.append(f"cannot read the file: {e}")
            except yaml.YAMLError as e:
                mark = getattr(e, "problem_mark", None)
                problem = getattr(e, "problem", None)
                if mark is not None and problem:
                    problems.append(f"YAML does not parse at line {mark.line + 1}, column {mark.column + 1}: {problem}")
                else:
                    problems.append(f"YAML does not parse: {' '.join(str(e).split())}")
            else:
                if doc is None:
                    problems.append("the file holds no YAML document")
                else:
                    doc = dates_to_strings(doc)
                    errors = sorted(validators[folder].iter_errors(doc),
                                    key=lambda err: (list(map(str, err.absolute_path)), err.message))
                    for err in errors:
                        problems.append(f"{error_path(err)}: {err.message}")
        if problems:
            failed += 1
            for p in problems:
                print(f"{name}: {p}")
        else:
            passed += 1

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
