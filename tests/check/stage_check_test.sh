#!/usr/bin/env bash
# tools/check-stages fails on a scratch tree whose model/ stage includes a later stage's
# header and whose output/ stage includes a header by its bare name, naming file and line of
# each, and passes the same tree once both are mended.
set -euo pipefail
source_dir=$1
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
echo "ok"
