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
catalog=""
trap 'rm -rf "$tmp" ${catalog:+"$catalog"}' EXIT
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

# Record ids and a filter's values come from the catalog (`kvcat complete`), as bash hands
# the line over: COMP_LINE and COMP_POINT as typed, COMP_WORDS split at = as bash splits it.
# expect_line "LINE" WORD... -- "EXPECTED COMPLETIONS..." (exact, in order)
expect_line() {
    local line=$1 words=()
    shift
    while [[ $1 != -- ]]; do words+=("$1"); shift; done
    shift
    COMP_LINE="kvcat $line"
    COMP_POINT=${#COMP_LINE}
    COMP_WORDS=("$kvcat" "${words[@]}")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _kvcat
    local got="${COMPREPLY[*]}"
    unset COMP_LINE COMP_POINT
    if [[ $got != "$*" ]]; then
        echo "FAIL: kvcat $line<TAB> gave [$got], expected [$*]" >&2
        failures=$((failures + 1))
    fi
}
catalog=$(mktemp -d)
cp -r "$source_dir/records" "$catalog/records"
(
    cd "$catalog"
    "$kvcat" -q build >/dev/null 2>&1 || { echo "FAIL: kvcat build of the shipped records" >&2; exit 1; }
    COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
    # What the catalog holds, asked the way the script asks it: the expected lists are the
    # catalog's own, so a new record changes both sides.
    dtypes=$("$kvcat" sql --format tsv "SELECT DISTINCT kv_cache_dtype FROM kv_rows ORDER BY 1" | tail -n +2 |
        tr '\n' ' ')
    [[ $dtypes == *fp8* && $dtypes == *bf16* ]] || { echo "FAIL: no fp8 and bf16 rows: [$dtypes]" >&2; exit 1; }
    expect_line "query kv_cache_dtype=" query kv_cache_dtype = "" -- ${dtypes% }
    expect_line "query kv_cache_dtype=bf" query kv_cache_dtype = bf -- $(compgen -W "$dtypes" -- bf)
    expect_line "query kv_cache_dtype=fp8,bf" query kv_cache_dtype = fp8,bf -- $(compgen -P fp8, -W "$dtypes" -- bf)
    expect_line "query kv_cache_dtype!=bf" query 'kv_cache_dtype!' = bf -- $(compgen -W "$dtypes" -- bf)
    # A record id column offers its ids without the folder, as filters take them.
    expect_line "query accelerator=nvidia-rtx-40" query accelerator = nvidia-rtx-40 -- nvidia-rtx-4090
    expect_line "query accelerator=accelerators/nvidia-rtx-40" query accelerator = accelerators/nvidia-rtx-40 -- \
        accelerators/nvidia-rtx-4090
    # With = not a word break, the whole word is replaced.
    COMP_WORDBREAKS=$' \t\n'
    expect_line "query kv_cache_dtype=bf" query kv_cache_dtype=bf -- $(compgen -P kv_cache_dtype= -W "$dtypes" -- bf)
    COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
    # Record ids for explain, fit and curve, from the catalog.
    expect explain vllm-qwen35-3 -- vllm-qwen35-35b-hybrid-fp8kv-256k vllm-qwen35-397b-a17b-4x-rtxpro6000-carve-nvfp4-fp8-yarn
    expect explain models/qwen3.5-2 -- models/qwen3.5-27b
    expect fit --model qwen3.5-2 -- qwen3.5-27b
    expect fit --model qwen3.5-27b --accelerator nvidia-rtx-30 -- nvidia-rtx-3090 nvidia-rtx-3090-ti
    expect fit --model qwen3.5-27b --accelerator nvidia-rtx-40 -- nvidia-rtx-4090
    expect curve --model llama-3.1-8 -- llama-3.1-8b
    expect curve --model llama-3.1-8b --accelerator nvidia-rtx-3090,nvidia-h1 -- \
        nvidia-rtx-3090,nvidia-h100-pcie nvidia-rtx-3090,nvidia-h100-sxm
    all=$("$kvcat" complete ids records | wc -l)
    files=$(find records/models records/accelerators records/kv-efficiency -name '*.yaml' | wc -l)
    [[ $all == "$files" ]] || { echo "FAIL: complete ids records gave $all ids for $files files" >&2; failures=$((failures + 1)); }
    # Without a catalog the ids come from the record files.
    mv kvcat.db elsewhere.db
    expect fit --model qwen3.5-2 -- qwen3.5-27b
    expect fit --db elsewhere.db --model qwen3.5-2 -- qwen3.5-27b
    expect_line "query --db elsewhere.db kv_cache_dtype=bf" query --db elsewhere.db kv_cache_dtype = bf -- \
        $(compgen -W "$dtypes" -- bf)
    exit $failures
) || failures=$((failures + $?))

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
