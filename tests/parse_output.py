#!/usr/bin/env python3
"""Parses kvcat's query output with Python's own csv and json modules, independently of
kvcat's renderer, and prints what it read as one JSON document:

    {"columns": [...], "rows": [[...], ...]}

Cells are strings for csv, tsv and markdown, and JSON values (numbers, null) for json and
ndjson. A malformed input (ragged rows, keys that differ between objects, a bad markdown
separator) exits 1 with the reason on stderr, so the C++ test that calls this fails.

Usage: parse_output.py csv|tsv|json|ndjson|markdown FILE
"""
import csv
import json
import re
import sys


def fail(why):
    print(f"parse_output.py: {why}", file=sys.stderr)
    sys.exit(1)


def rectangular(columns, rows):
    for i, row in enumerate(rows):
        if len(row) != len(columns):
            fail(f"row {i + 1} has {len(row)} fields, the header has {len(columns)}")
    return {"columns": columns, "rows": rows}


def parse_delimited(path, dialect):
    with open(path, newline="", encoding="utf-8") as f:
        records = list(csv.reader(f, **dialect))
    if not records:
        fail("no header")
    return rectangular(records[0], records[1:])


def parse_objects(objects):
    if not isinstance(objects, list):
        fail("not an array")
    if not objects:
        return {"columns": [], "rows": []}
    columns = list(objects[0].keys())
    rows = []
    for i, o in enumerate(objects):
        if not isinstance(o, dict):
            fail(f"element {i} is not an object")
        if list(o.keys()) != columns:
            fail(f"element {i} has keys {list(o.keys())}, the first has {columns}")
        rows.append([o[c] for c in columns])
    return {"columns": columns, "rows": rows}


def markdown_cells(line):
    if not (line.startswith("|") and line.endswith("|")):
        fail(f"not a table row: {line!r}")
    # Split on pipes that are not escaped as \|.
    cells = re.split(r"(?<!\\)\|", line[1:-1])
    return [c.strip().replace("\\|", "|").replace("<br>", "\n") for c in cells]


def parse_markdown(path):
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 2:
        fail("a markdown table needs a header and a separator")
    columns = markdown_cells(lines[0])
    separator = markdown_cells(lines[1])
    if len(separator) != len(columns) or not all(re.fullmatch(r":?-{3,}:?", s) for s in separator):
        fail(f"bad separator row: {lines[1]!r}")
    return rectangular(columns, [markdown_cells(line) for line in lines[2:]])


def main():
    if len(sys.argv) != 3:
        fail(__doc__.strip().splitlines()[-1])
    fmt, path = sys.argv[1], sys.argv[2]
    if fmt == "csv":
        # RFC 4180: CRLF line ends, fields with separators, quotes or line ends quoted.
        result = parse_delimited(path, {"delimiter": ",", "quotechar": '"', "strict": True})
    elif fmt == "tsv":
        result = parse_delimited(path, {"delimiter": "\t", "quoting": csv.QUOTE_NONE})
    elif fmt == "json":
        with open(path, encoding="utf-8") as f:
            result = parse_objects(json.load(f))
    elif fmt == "ndjson":
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if text and not text.endswith("\n"):
            fail("the last line does not end with a newline")
        # Split on \n only: str.splitlines() would also split inside a value at U+2028.
        result = parse_objects([json.loads(line) for line in text.split("\n")[:-1]] if text else [])
    elif fmt == "markdown":
        result = parse_markdown(path)
    else:
        fail(f"unknown format {fmt}")
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
