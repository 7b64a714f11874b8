#!/usr/bin/env bash
# tools/new-rule writes a rule file that compiles without a warning and fixtures the lint
# reads as clean, and refuses a bad or taken id.
# Usage: new_rule_test.sh KVCAT_BINARY SOURCE_DIR BINARY_DIR CXX
set -euo pipefail
kvcat=$1
source_dir=$2
binary_dir=$3
cxx=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

mkdir -p "$tmp/cmake"
cp "$source_dir/cmake/rule_files.cmake" "$tmp/cmake/"
"$source_dir/tools/new-rule" --root "$tmp" sample-rule-check >/dev/null
rule="$tmp/src/check/rules/sample_rule_check.cc"
# Its one registration line, in name order among the others.
listed=$(sed -n '/^set(KVCAT_RULE_SOURCES/,/^)/p' "$tmp/cmake/rule_files.cmake" | grep 'src/check/rules/' | sed 's/^ *//')
grep -qx 'src/check/rules/sample_rule_check.cc' <<<"$listed" || fail "cmake/rule_files.cmake does not list the new file"
[[ $listed == "$(sort <<<"$listed")" ]] || fail "cmake/rule_files.cmake is out of name order: $listed"
before=$(sed -n '/^set(KVCAT_RULE_SOURCES/,/^)/p' "$source_dir/cmake/rule_files.cmake" | grep -c 'src/check/rules/')
[[ $(wc -l <<<"$listed") -eq $((before + 1)) ]] ||
    fail "the list did not gain exactly one line"
[[ -f $rule ]] || fail "no $rule"
grep -q 'RuleInfo{"sample-rule-check", Severity::error' "$rule" || fail "the descriptor does not name the id"
grep -q 'KVCAT_RULES(sample_rule_check)' "$rule" || fail "the file does not register under its name"
grep -q 'void sample_rule_check(const Record& r' "$rule" || fail "the check is not named after the id"
# It compiles as the project compiles its rules, warnings as errors.
cp "$rule" "$tmp/check.cc"
if ! "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Werror \
    -I "$source_dir/src" -I "$binary_dir/generated" "$tmp/check.cc" 2>"$tmp/cxx.log"; then
    fail "the scaffolded rule does not compile:"
    cat "$tmp/cxx.log" >&2
fi
for side in pass fail; do
    dir="$tmp/tests/fixtures/sample-rule-check/$side"
    for kind in models accelerators kv-efficiency; do
        ls "$dir/$kind"/*.yaml >/dev/null 2>&1 || fail "$side/ has no $kind record"
    done
    out=$(cd "$tmp" && env -u GITHUB_ACTIONS "$kvcat" lint --strict "tests/fixtures/sample-rule-check/$side" 2>&1) ||
        fail "$side/ does not lint clean: $out"
done
expected="$tmp/tests/fixtures/sample-rule-check/fail/expected.txt"
[[ -f $expected ]] || fail "no fail/expected.txt"
# Until the author writes the findings, expected.txt lists none, so the fixture test fails.
grep -qv '^#' "$expected" && fail "expected.txt holds a finding before the rule has one"

"$source_dir/tools/new-rule" --root "$tmp" sample-rule-check >/dev/null 2>&1 && fail "an existing rule was overwritten"
"$source_dir/tools/new-rule" --root "$tmp" Bad_Id >/dev/null 2>&1 && fail "a malformed id was taken"

if ((failures > 0)); then
    echo "$failures new-rule check(s) failed" >&2
    exit 1
fi
echo "new-rule: all checks passed"
