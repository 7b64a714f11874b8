#!/usr/bin/env bash
# The lines an engine prints at start-up (and vLLM's refusal) are written and read only under src/engines/: no other
# stage spells one of their formats (a format string, or the text a reader matches). Given a
# second argument, a scratch copy of src/ with one such line planted in output/, the check must
# name that file, so the test proves it can fail.
set -euo pipefail
source_dir=$1
formats='KV cache is needed, which is larger than|llama_kv_cache: size|llama_memory_recurrent: size|KV self size  =|GPU KV cache size: \{|KV Cache is allocated\. #tokens|Maximum concurrency for \{|Mamba Cache is allocated\.|SWAKVPool mem usage'
check() {
    grep -rnE "$formats" "$1" --include='*.cc' --include='*.h' --include='*.js' | grep -v "^$1/engines/" || true
}
found=$(check "$source_dir/src")
if [[ -n $found ]]; then
    echo "FAIL: an engine's printed line is spelled outside src/engines/:" >&2
    echo "$found" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/output" "$tmp/src/engines/vllm"
printf 'auto line = fmt::format("GPU KV cache size: {} tokens", n);\n' >"$tmp/src/engines/vllm/vllm_allocation.cc"
printf 'auto line = fmt::format("GPU KV cache size: {} tokens", n);\n' >"$tmp/src/output/render.cc"
planted=$(check "$tmp/src")
[[ $planted == "$tmp/src/output/render.cc:1:"* && $(wc -l <<<"$planted") -eq 1 ]] ||
    { echo "FAIL: the planted line was not found alone: $planted" >&2; exit 1; }
echo "ok"
