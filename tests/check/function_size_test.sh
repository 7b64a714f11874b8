#!/usr/bin/env bash
# tools/function-size reads the sources as text: it must find the functions clang-tidy's
# readability-function-size finds and count their lines as it does (closing brace's line less
# the opening brace's), through the constructs that could fool a text reader.
# Usage: function_size_test.sh SOURCE_DIR
set -euo pipefail
tool="$1/tools/function-size"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

body() {  # N lines of statements
    for ((i = 0; i < $1; i++)); do echo "    x += $i;"; done
}
{
    echo '#include <string>'
    echo 'namespace a {'
    echo 'namespace {'
    echo 'const char* kText = R"(a { brace } in a raw string )";'
    echo 'constexpr int kTable[] = {1, 2, {3}};'
    echo 'int exactly_limit(int x) {  // 200 lines: the closing brace 200 below this one'
    body 198
    echo '    return x;'
    echo '}'
    echo '}  // namespace'
    echo 'struct S {'
    echo '    S(int v) : v_(v), w_{v} {'
    body 200
    echo '    }'
    echo '    int v_;'
    echo '    int w_{0};'
    echo '    int inline_over(int x) const noexcept {'
    echo '        auto f = [&](int y) { return y + 1; };  // a lambda counts in its function'
    echo '        /* a comment with a } brace */'
    echo "        char c = '}';"
    body 200
    echo '        return f(x) + c;'
    echo '    }'
    echo '};'
    echo 'auto trailing(int x) -> int {'
    body 3
    echo '    return x;'
    echo '}'
    echo '}  // namespace a'
} >"$work/sample.cc"

status=0
out=$("$tool" --limit 200 "$work/sample.cc" 2>&1) || status=$?
# A file outside the checkout is named by its absolute path.
expected="functions over 200 lines:
$work/sample.cc:209 S: 201 lines
$work/sample.cc:413 inline_over: 205 lines"
if [[ $status -ne 1 || $out != "$expected" ]]; then
    echo "tools/function-size on the sample: exit $status, printed:" >&2
    echo "$out" >&2
    echo "expected exit 1 and:" >&2
    echo "$expected" >&2
    exit 1
fi
# The 200-line function passes at the limit and is named one line below it.
out=$("$tool" --limit 199 "$work/sample.cc" 2>&1 || true)
grep -q "sample.cc:6 exactly_limit: 200 lines" <<<"$out" || { echo "exactly_limit not measured at 200: $out" >&2; exit 1; }
# An unbalanced file is not measured, and says so.
printf 'int f() {\n' >"$work/broken.cc"
status=0
out=$("$tool" "$work/broken.cc" 2>&1) || status=$?
[[ $status -eq 2 && $out == *"never closed"* ]] || { echo "broken file: exit $status, $out" >&2; exit 1; }
# The tree itself: none over 200.
"$tool"
echo "function_size: the sample's two long functions found and counted, the tree passes"
