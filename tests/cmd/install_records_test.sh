#!/usr/bin/env bash
# cmake/install_records.cmake, the install step of the shipped records: in a git checkout only
# the record files git tracks are installed (a record written but not added stays out of a
# .deb), keeping their folders; outside one, every record file; a folder with none is an error.
#
# And the package preset, which tools/package builds: it leaves the test suite out, so that
# cpack does not compile it first.
#
# Usage: install_records_test.sh CMAKE SOURCE_DIR
set -euo pipefail
cmake=$1
source_dir=$2
command -v git >/dev/null || { echo "install_records_test: git not found; skipped"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "install_records_test: FAIL: $*" >&2; exit 1; }
script="$source_dir/cmake/install_records.cmake"

repo="$scratch/repo"
mkdir -p "$repo/records/models" "$repo/records/kv-efficiency"
echo "id: models/a" >"$repo/records/models/a.yaml"
echo "id: kv-efficiency/b" >"$repo/records/kv-efficiency/b.yaml"
echo "notes" >"$repo/records/README.md"
git -C "$repo" init -q
git -C "$repo" add records
echo "id: kv-efficiency/draft" >"$repo/records/kv-efficiency/draft.yaml"  # written, never added

listing() { (cd "$1" && find . -type f | sort | tr '\n' ' '); }

"$cmake" -D "KVCAT_SOURCE_DIR=$repo" -D "KVCAT_RECORDS_DESTINATION=$scratch/tracked" -P "$script" >"$scratch/log" ||
    { cat "$scratch/log" >&2; fail "the script failed in a checkout"; }
got=$(listing "$scratch/tracked")
[ "$got" = "./kv-efficiency/b.yaml ./models/a.yaml " ] || fail "in a checkout it installed: $got"
grep -q "Installed 2 record files tracked by git" "$scratch/log" || fail "no count in: $(cat "$scratch/log")"

rm -rf "$repo/.git"
"$cmake" -D "KVCAT_SOURCE_DIR=$repo" -D "KVCAT_RECORDS_DESTINATION=$scratch/all" -P "$script" >"$scratch/log" ||
    fail "the script failed outside a checkout"
got=$(listing "$scratch/all")
[ "$got" = "./kv-efficiency/b.yaml ./kv-efficiency/draft.yaml ./models/a.yaml " ] || fail "outside a checkout: $got"

mkdir -p "$scratch/empty/records"
if "$cmake" -D "KVCAT_SOURCE_DIR=$scratch/empty" -D "KVCAT_RECORDS_DESTINATION=$scratch/none" -P "$script" \
    >"$scratch/log" 2>&1; then
    fail "a folder with no record installed without an error"
fi
grep -q "no record file" "$scratch/log" || fail "the error does not say why: $(cat "$scratch/log")"

# The package preset: configured as the preset says, the build has no test target.
python3 - "$source_dir/CMakePresets.json" >"$scratch/preset-args" <<'PY'
import json, sys
presets = {p["name"]: p for p in json.load(open(sys.argv[1]))["configurePresets"]}
p = presets["package"]
variables, generator = {}, None
while p:
    for k, v in p.get("cacheVariables", {}).items():
        variables.setdefault(k, v)
    generator = generator or p.get("generator")
    p = presets.get(p.get("inherits"))
print("-G%s" % generator)
for k, v in variables.items():
    print("-D%s=%s" % (k, v))
PY
grep -qx -- "-DKVCAT_BUILD_TESTS=OFF" "$scratch/preset-args" || fail "the package preset builds the tests"
mapfile -t args <"$scratch/preset-args"
"$cmake" -S "$source_dir" -B "$scratch/package-build" "${args[@]}" >"$scratch/configure.log" 2>&1 ||
    { cat "$scratch/configure.log" >&2; fail "the package preset does not configure"; }
# Every output the build can make, one a line: Ninja's "kvcat: <its link rule>" (its help target
# leaves out a program named as its target), or make's help, "... kvcat".
if [ -f "$scratch/package-build/build.ninja" ]; then
    ninja -C "$scratch/package-build" -t targets all >"$scratch/targets"
else
    "$cmake" --build "$scratch/package-build" --target help >"$scratch/targets"
fi
grep -q "kvcat_tests" "$scratch/targets" && fail "the package build has the test target"
grep -qE "^(kvcat: .+|\.\.\. kvcat)$" "$scratch/targets" ||
    fail "the package build has no kvcat target: $(head -40 "$scratch/targets")"
grep -q -- "--preset package" "$source_dir/tools/package" || fail "tools/package does not build with the package preset"
# What kvcat writes into a checkout by default is never committed by accident.
if git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    for written in kvcat-report.html kvcat.db; do
        git -C "$source_dir" check-ignore -q "$written" || fail "$written, which kvcat writes by default, is not ignored"
    done
fi
echo "install_records_test: tracked records only in a checkout, every one outside, the package preset without tests"
