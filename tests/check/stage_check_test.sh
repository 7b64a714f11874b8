#!/usr/bin/env bash
# tools/check-stages fails on a scratch tree whose model/ stage includes a later stage's
# header and whose output/ stage includes a header by its bare name, naming file and line of
# each, and passes the same tree once both are mended. Then, with --objects and a C++ compiler,
# it fails on a build whose support/ object calls a function a check/ object defines (through a
# declaration, so every include is in order), naming both files, and passes once the call is gone;
# and names the call again when the objects are a unity build's runs of a folder each.
set -euo pipefail
source_dir=$1
cxx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$tmp/docs" "$tmp/src/model" "$tmp/src/catalog" "$tmp/src/output"
cp "$source_dir/docs/architecture.md" "$tmp/docs/"
printf '#pragma once\n' >"$tmp/src/catalog/catalog.h"
printf '#pragma once\n' >"$tmp/src/model/kv_math.h"
printf '#include "model/kv_math.h"\n\n#include "catalog/catalog.h"\n' >"$tmp/src/model/kv_math.cc"
printf '#include "kv_math.h"\n#include "catalog_sql.h"\n' >"$tmp/src/output/render.cc"

set +e
out=$("$source_dir/tools/check-stages" "$tmp" 2>/dev/null)
status=$?
set -e
[[ $status -eq 1 ]] || fail "exit $status, expected 1; output: $out"
grep -q '^src/model/kv_math.cc:3: #include "catalog/catalog.h": catalog/ comes after model/' <<<"$out" ||
    fail "the include down the list was not named: $out"
grep -q '^src/output/render.cc:1: #include "kv_math.h" names no file under src/' <<<"$out" ||
    fail "the bare include was not named: $out"
[[ $(wc -l <<<"$out") -eq 2 ]] || fail "expected two findings (a generated header is allowed): $out"

printf '#include "model/kv_math.h"\n' >"$tmp/src/model/kv_math.cc"
printf '#include "model/kv_math.h"\n#include "catalog/catalog.h"\n' >"$tmp/src/output/render.cc"
"$source_dir/tools/check-stages" "$tmp" >/dev/null 2>&1 || fail "the mended tree does not pass"

# The link check: objects laid out as CMake lays them out.
mkdir -p "$tmp/src/support" "$tmp/src/check" "$tmp/build/CMakeFiles/lib.dir/src/support" \
    "$tmp/build/CMakeFiles/lib.dir/src/check"
printf 'namespace kvcat { int registered(int); int make(int x) { return registered(x) + 1; } }\n' \
    >"$tmp/src/support/diagnostic.cc"
printf 'namespace kvcat { int registered(int x) { return x * 2; } }\n' >"$tmp/src/check/registry.cc"
compile() { "$cxx" -c "$tmp/src/$1.cc" -o "$tmp/build/CMakeFiles/lib.dir/src/$1.cc.o"; }
compile support/diagnostic
compile check/registry
set +e
out=$("$source_dir/tools/check-stages" "$tmp" --objects "$tmp/build" 2>/dev/null)
status=$?
set -e
[[ $status -eq 1 ]] || fail "link check: exit $status, expected 1; output: $out"
grep -q '^src/support/diagnostic.cc: uses kvcat::registered(int), defined in src/check/registry.cc: check/ comes after support/' <<<"$out" ||
    fail "the call up the list was not named: $out"
[[ $(wc -l <<<"$out") -eq 1 ]] || fail "expected one finding (check/ may call support/): $out"

printf 'namespace kvcat { int make(int x) { return x + 1; } }\n' >"$tmp/src/support/diagnostic.cc"
printf 'namespace kvcat { int make(int); int registered(int x) { return make(x) * 2; } }\n' >"$tmp/src/check/registry.cc"
compile support/diagnostic
compile check/registry
"$source_dir/tools/check-stages" "$tmp" --objects "$tmp/build" >/dev/null 2>&1 ||
    fail "the mended build does not pass"
# The same call up the list, with the objects a unity build writes: one run of a folder's files
# (CMakeLists.txt, kvcat_unity_by_folder), named for the folder and read as its stage.
mkdir -p "$tmp/unity/CMakeFiles/lib.dir/Unity"
printf 'namespace kvcat { int registered(int); int make(int x) { return registered(x) + 1; } }\n' \
    >"$tmp/src/support/diagnostic.cc"
printf 'namespace kvcat { int registered(int x) { return x * 2; } }\n' >"$tmp/src/check/registry.cc"
"$cxx" -c "$tmp/src/support/diagnostic.cc" -o "$tmp/unity/CMakeFiles/lib.dir/Unity/unity_support_0_cxx.cxx.o"
"$cxx" -c "$tmp/src/check/registry.cc" -o "$tmp/unity/CMakeFiles/lib.dir/Unity/unity_check_rules_1_cxx.cxx.o"
set +e
out=$("$source_dir/tools/check-stages" "$tmp" --objects "$tmp/unity" 2>/dev/null)
status=$?
set -e
[[ $status -eq 1 ]] || fail "unity link check: exit $status, expected 1; output: $out"
grep -q '^src/support/(the unity run unity_support_0_cxx.cxx.o): uses kvcat::registered(int), defined in src/check/(the unity run unity_check_rules_1_cxx.cxx.o): check/ comes after support/' <<<"$out" ||
    fail "the unity run's call up the list was not named: $out"

set +e
"$source_dir/tools/check-stages" "$tmp" --objects "$tmp/nothing" >/dev/null 2>&1
status=$?
set -e
[[ $status -ne 0 ]] || fail "a folder with no object passed the link check"
echo "ok"
