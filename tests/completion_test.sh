#!/usr/bin/env bash
# Checks tools/completion/kvcat.bash against the built kvcat: completes as bash would (no
# bash-completion package needed), including the rule ids it asks the binary for.
# Usage: completion_test.sh KVCAT_BINARY SOURCE_DIR
set -euo pipefail
kvcat=$1
source_dir=$2
# shellcheck source=/dev/null
source "$source_dir/tools/completion/kvcat.bash"

failures=0
# expect "WORDS..." -- "EXPECTED COMPLETIONS..." (exact, in order)
expect() {
    local words=() arg
    while [[ $1 != -- ]]; do words+=("$1"); shift; done
    shift
    COMP_WORDS=("$kvcat" "${words[@]}")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _kvcat
    local got="${COMPREPLY[*]}"
    if [[ $got != "$*" ]]; then
        echo "FAIL: kvcat ${words[*]}<TAB> gave [$got], expected [$*]" >&2
        failures=$((failures + 1))
    fi
}

expect li -- lint
expect co -- columns
expect -q qu -- query
expect --vers -- --version
expect lint --for -- --format
expect lint --format "" -- text github json sarif markdown ids
expect lint --color a -- auto always
expect lint --rule kv-b -- kv-basis-model kv-basis-product
expect lint --rule kv-basis-product,pros -- kv-basis-product,prose-arithmetic
expect lint --st -- --strict
expect query --format nd -- ndjson
expect query --sort kv_bytes_p -- kv_bytes_per_token
expect query --columns id,kv_cache -- id,kv_cache_dtype
expect query attention_v -- attention_variant
expect report attention_v -- attention_variant
expect curve --form -- --format
expect sql --format mark -- markdown
expect columns --format c -- csv
# Nested subcommands, and the options of the nested one.
if "$kvcat" new --help 2>/dev/null | grep -q '^Subcommands:'; then
    nested=$("$kvcat" new --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' | tr '\n' ' ')
    expect new "" -- ${nested% }
    first=${nested%% *}
    option=$("$kvcat" new "$first" --help | sed -n 's/^  \(--[a-z][a-z-]*\).*/\1/p' | head -1)
    expect new "$first" "${option:0:4}" -- $(compgen -W "$("$kvcat" new "$first" --help |
        sed -n 's/^  \(-[^ ]*\).*/\1/p' | tr ',' '\n' | sed -n 's/^\(--*[a-zA-Z][a-zA-Z-]*\).*/\1/p')" -- "${option:0:4}")
fi

# Every subcommand kvcat --help lists is offered.
subs=$(COMP_WORDS=("$kvcat" ""); COMP_CWORD=1; _kvcat; echo "${COMPREPLY[*]}")
for s in lint build query sql columns explain fit curve report; do
    [[ " $subs " == *" $s "* ]] || { echo "FAIL: subcommand $s not offered: [$subs]" >&2; failures=$((failures + 1)); }
done

# --rule offers every rule id of the binary's registry, in its order, and they are the ids
# SARIF describes: the script holds no list of its own to fall behind.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/records"
listed=$("$kvcat" lint --list-rules --format ids | tr '\n' ' ')
sarif_rules=$(cd "$tmp" && env -u GITHUB_ACTIONS "$kvcat" -q lint --format sarif records |
    sed -n 's/^ *"id": "\(.*\)",$/\1/p' | tr '\n' ' ')
if [[ -z ${listed// /} || "$listed" != "$sarif_rules" ]]; then
    echo "FAIL: --list-rules --format ids and SARIF's rules differ" >&2
    echo "  ids:   $listed" >&2
    echo "  sarif: $sarif_rules" >&2
    failures=$((failures + 1))
fi
expect lint --rule "" -- ${listed% }
expect lint --rule kv-b -- $(compgen -W "$listed" -- kv-b)
if grep -q -- kv-basis-product "$source_dir/tools/completion/kvcat.bash"; then
    echo "FAIL: tools/completion/kvcat.bash lists rule ids itself" >&2
    failures=$((failures + 1))
fi

# The binary a checkout builds completes too, as the README runs it, not only kvcat on PATH.
for word in kvcat build/release/kvcat ./build/release/kvcat; do
    if ! complete -p "$word" 2>/dev/null | grep -q -- "-F _kvcat"; then
        echo "FAIL: no completion registered for $word" >&2
        failures=$((failures + 1))
    fi
done

if ((failures > 0)); then
    echo "$failures completion check(s) failed" >&2
    exit 1
fi
echo "completion: all checks passed"
