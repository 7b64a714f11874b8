#!/usr/bin/env bash
# What a person sees on an 80x24 terminal: every `$ kvcat` command of README.md, `kvcat --help`,
# `kvcat fit --help` and `kvcat explain` run inside a tmux window of that size, and the screen
# (with its scrollback) read back as tmux drew it. No line may run past the window: a line
# wider than the window is cut mid-word by the terminal itself, which is what the capture with
# -J (wrapped lines joined) against the one without shows. A command that names --columns or
# --sort must show each of those columns; the headline query must keep kv_bytes_per_token.
#
# The README's commands run block by block as a reader types them: each indented block in a
# fresh copy of the records, its commands in order (an import, then the lint of what it wrote),
# with the benchmark file the README's import reads (run.json) beside them.
#
# Usage: terminal_screen_test.sh KVCAT SOURCE_DIR
set -euo pipefail
kvcat=$1
source_dir=$2
command -v tmux >/dev/null || { echo "terminal_screen_test: tmux not found (tools/deps installs it); skipped"; exit 77; }
command -v python3 >/dev/null || { echo "terminal_screen_test: python3 not found (tools/deps installs it); skipped"; exit 77; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "terminal_screen_test: FAIL: $*" >&2; exit 1; }

# A folder as a reader's: the shipped records, the catalog built, the README's input file.
fresh_folder() {
    local dir=$1
    mkdir -p "$dir"
    cp -r "$source_dir/records" "$dir/records"
    cp "$source_dir/tests/fixtures/import-bench/depths.jsonl" "$dir/run.json"
    (cd "$dir" && "$kvcat" -q build) || fail "kvcat build failed in $dir"
}

# Runs a command line in a fresh 80x24 window in folder $1; leaves the screen and its
# scrollback as drawn in $3.drawn and with the terminal's wraps joined in $3.joined.
# (Each call names its own tmux server and stops it, so no window of an earlier run is read.)
run_in_window() {
    local dir=$1 line=$2 out=$3
    local socket="kvcat-screen-$$-$(basename "$out")" done_file="$out.done" end="kvcat-screen-end-$$"
    # The command's output, then an end line: tmux draws what the terminal receives in order, and
    # on a loaded machine it may still be drawing when the command has exited, so the screen is
    # read only once the end line is on it (a capture taken at the exit lost a table's last line).
    tmux -L "$socket" -f /dev/null new-session -d -x 80 -y 24 -s screen \
        "cd '$dir' && env -u COLUMNS -u NO_COLOR TERM=xterm $line; echo '$end'; touch '$done_file'; sleep 60"
    tmux -L "$socket" set-option -t screen history-limit 50000 >/dev/null
    for _ in $(seq 1 900); do [ -e "$done_file" ] && break; sleep 0.1; done
    [ -e "$done_file" ] || fail "'$line' did not finish"
    for _ in $(seq 1 300); do
        tmux -L "$socket" capture-pane -p -S - -t screen | grep -qx "$end" && break
        sleep 0.1
    done
    [ "$(tmux -L "$socket" display -p -t screen '#{window_width}x#{window_height}')" = 80x24 ] || fail "the window is not 80x24"
    tmux -L "$socket" capture-pane -p -S - -t screen >"$out.drawn"
    tmux -L "$socket" capture-pane -p -J -S - -t screen >"$out.joined"
    tmux -L "$socket" kill-server 2>/dev/null || true
    grep -qx "$end" "$out.drawn" || fail "'$line': the terminal had not drawn its output 30 s after it finished"
    # The end line and the blank rows under it are tmux's, not the command's.
    for f in "$out.drawn" "$out.joined"; do
        sed -i "/^$end\$/,\$d" "$f"
    done
}

checked=0
# check NAME DIR LINE: runs LINE in DIR and fails if a line ran past the window; prints the screen.
check() {
    local name=$1 dir=$2 line=$3 out="$scratch/screen-$1"
    run_in_window "$dir" "$line" "$out"
    [ -n "$(tr -d '[:space:]' <"$out.drawn")" ] || fail "$name: the screen is empty ($line)"
    if ! cmp -s "$out.drawn" "$out.joined"; then
        diff "$out.joined" "$out.drawn" >&2 || true
        fail "$name: a line ran past 80 columns and the terminal cut it (above: joined, then as drawn): $line"
    fi
    # Every column asked for by name is on the screen.
    local asked
    for asked in $(printf '%s\n' "$line" | sed -n 's/.*--\(columns\|sort\)[ =]\([^ ]*\).*/\2/p' | tr ',' ' '); do
        asked=${asked#-}
        grep -q -- "$asked" "$out.drawn" || fail "$name: the column '$asked' asked for is not on the screen: $line"
    done
    checked=$((checked + 1))
    cat "$out.drawn"
}

# The README's commands, by block: "BLOCK" between blocks, then one command per line, the
# backslash continuations joined and a trailing `# exit N: ...` comment dropped.
python3 - "$source_dir/README.md" >"$scratch/readme-commands" <<'PY'
import sys
in_block = continues = False
for raw in open(sys.argv[1], encoding="utf-8"):
    line = raw.rstrip("\n")
    if line and not line.startswith("    "):
        in_block = continues = False
        continue
    if not line:
        continue
    body = line.strip()
    if continues:
        command += " " + body.rstrip("\\").strip()
        continues = body.endswith("\\")
        if not continues:
            print(command)
        continue
    if not body.startswith("$ kvcat"):
        continue
    if not in_block:
        print("BLOCK")
    in_block = True
    command = body[2:].split("  # exit")[0]
    continues = command.endswith("\\")
    command = command.rstrip("\\").strip()
    if not continues:
        print(command)
PY
readme_count=$(grep -vc '^BLOCK$' "$scratch/readme-commands" || true)
[ "$readme_count" -ge 10 ] || fail "found only $readme_count commands in README.md; the parser is wrong"

block=0
n=0
while IFS= read -r command; do
    if [ "$command" = BLOCK ]; then
        block=$((block + 1))
        fresh_folder "$scratch/block-$block"
        continue
    fi
    n=$((n + 1))
    check "readme-$n" "$scratch/block-$block" "'$kvcat'${command#kvcat}" >/dev/null
done <"$scratch/readme-commands"

fresh_folder "$scratch/plain"
query=$(check query "$scratch/plain" "'$kvcat' query attention_variant=hybrid 'context_length>64k'")
header=$(printf '%s\n' "$query" | grep -m1 '^id ') || fail "query: no table header on the screen:
$query"
[[ $header == *kv_bytes_per_token* ]] || fail "query: the header lacks kv_bytes_per_token: $header"
printf '%s\n' "$query" | grep -q 'rows)' || fail "query: no row count on the screen"
# The model, the card, the count and speculation place each row: their columns, or a line saying
# what the rows hold.
for placed in model card gpus speculative; do
    [[ $header == *" $placed "* ]] || printf '%s\n' "$query" | grep -q "^$placed: " ||
        fail "query: neither a $placed column nor a line of its values on the screen"
done

explain=$(check explain "$scratch/plain" "'$kvcat' explain vllm-qwen35-35b-hybrid-fp8kv-256k")
printf '%s\n' "$explain" | grep -q 'Structured basis' || fail "explain: no 'Structured basis' on the screen:
$explain"
for help in "query --help" "--help" "fit --help" "curve --help" "lint --help"; do
    shown=$(check "help-${help%% *}" "$scratch/plain" "'$kvcat' $help")
    # One clean-clone run read a help screen without its examples although the end line was drawn;
    # the screen is read once more in a new window before the test says so, with what it read.
    if ! printf '%s\n' "$shown" | grep -q 'Examples:'; then
        echo "terminal_screen_test: kvcat $help: no examples on the first screen read (below); reading it again" >&2
        printf '%s\n' "$shown" >&2
        again=$(check "help-again-${help%% *}" "$scratch/plain" "'$kvcat' $help")
        printf '%s\n' "$again" | grep -q 'Examples:' || fail "kvcat $help: no examples on the screen, twice; the second:
$again"
    fi
done
echo "terminal_screen_test: $readme_count README commands, the headline query, explain and five --help screens fit 80x24"
