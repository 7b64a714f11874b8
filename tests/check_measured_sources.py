#!/usr/bin/env python3
"""Checks that every kv-efficiency record holding a measured value names a source with an address.

A record holds a measured value when any measured_* field is a number, at the top level or
in any point of its measurements list, or when it has a quality entry. Such a record must
list at least one source with a non-empty `url`, so that a reader can open the page, file
or thread the figure was read from.

Usage: check_measured_sources.py RECORDS_DIR [UNADDRESSED_LIST]
UNADDRESSED_LIST names, one a line as `id<TAB>why`, the records known to cite a source that
has no address anyone can open; each must say why, and an entry whose record does name an
address (or no longer exists) fails, so the list cannot go stale.
Prints each record that fails as `file: message`, then `N checked, M failed`.
Exit status: 0 when every record passes, 1 when any fails, 2 on bad arguments or when
PyYAML (Debian: python3-yaml) is missing.
"""

import sys
from pathlib import Path

MEASURED_KEYS = (
    "measured_tps_at_ctx",
    "measured_total_tps_at_ctx",
    "measured_prefill_tps_at_ctx",
    "measured_ttft_ms_at_ctx",
)


def has_number(mapping):
    if not isinstance(mapping, dict):
        return False
    return any(isinstance(mapping.get(k), (int, float)) and not isinstance(mapping.get(k), bool)
               for k in MEASURED_KEYS)


def holds_measurement(record):
    if has_number(record):
        return True
    points = record.get("measurements")
    if isinstance(points, list) and any(has_number(p) for p in points):
        return True
    quality = record.get("quality")
    return isinstance(quality, list) and len(quality) > 0


def has_address(record):
    sources = record.get("sources")
    if not isinstance(sources, list):
        return False
    return any(isinstance(s, dict) and isinstance(s.get("url"), str) and s["url"].strip()
               for s in sources)


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        import yaml
    except ImportError:
        print("check_measured_sources: PyYAML is missing (Debian: python3-yaml)", file=sys.stderr)
        return 2
    root = Path(argv[1]) / "kv-efficiency"
    if not root.is_dir():
        print(f"check_measured_sources: no kv-efficiency folder under {argv[1]}", file=sys.stderr)
        return 2
    unaddressed = {}
    if len(argv) == 3:
        for number, line in enumerate(Path(argv[2]).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            record_id, _, why = line.partition("\t")
            if not why.strip():
                print(f"{argv[2]}:{number}: '{record_id}' is listed without saying why")
                return 1
            unaddressed[record_id.strip()] = why.strip()
    checked = failed = 0
    seen = set()
    for path in sorted(root.rglob("*.yaml")):
        checked += 1
        try:
            record = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
            print(f"{path}: cannot be read: {err}")
            failed += 1
            continue
        if not isinstance(record, dict):
            print(f"{path}: not a mapping")
            failed += 1
            continue
        record_id = record.get("id")
        if record_id in unaddressed:
            seen.add(record_id)
            if has_address(record):
                print(f"{path}: listed as unaddressed, but a source has a url: remove it from the list")
                failed += 1
            continue
        if holds_measurement(record) and not has_address(record):
            print(f"{path}: holds a measured value or quality entry, but no source has a url")
            failed += 1
    for record_id in sorted(set(unaddressed) - seen):
        print(f"{argv[2]}: '{record_id}' is listed, but no such record exists")
        failed += 1
    print(f"{checked} checked, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
