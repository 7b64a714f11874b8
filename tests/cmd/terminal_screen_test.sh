#!/usr/bin/env bash
# What a person sees on an 80x24 terminal: the headline query and `kvcat explain` run inside a
# tmux window of that size, and the screen read back as tmux drew it. The table must keep the
# bytes-per-token column, and no line may run past the window: a line wider than the window
# is cut mid-word by the terminal itself, which is what the capture with -J (wrapped lines
# joined) against the one without shows.
#
# Usage: terminal_screen_test.sh KVCAT SOURCE_DIR
set -euo pipefail
kvcat=$1
source_dir=$2
command -v tmux >/dev/null || { echo "terminal_screen_test: tmux not found (tools/deps installs it); skipped"; exit 77; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "terminal_screen_test: FAIL: $*" >&2; exit 1; }
cp -r "$source_dir/records" "$scratch/records"
(cd "$scratch" && "$kvcat" -q build) || fail "kvcat build failed"

# Runs a command line in a fresh 80x24 window; prints the screen and its scrollback, as drawn
# ($1 = "joined" joins the lines the terminal wrapped).
# (Called in command substitutions, which are subshells: each call names its own tmux server
# and stops it, so no window of an earlier run is ever read.)
screen() {
    local how=$1 line=$2 name=$3
    local socket="kvcat-screen-$$-$name-$how" done_file="$scratch/done-$name-$how"
    tmux -L "$socket" -f /dev/null new-session -d -x 80 -y 24 -s screen \
        "cd '$scratch' && env -u COLUMNS -u NO_COLOR TERM=xterm $line; touch '$done_file'; sleep 60"
    for _ in $(seq 1 100); do [ -e "$done_file" ] && break; sleep 0.1; done
    [ -e "$done_file" ] || fail "'$line' did not finish"
    [ "$(tmux -L "$socket" display -p -t screen '#{window_width}x#{window_height}')" = 80x24 ] || fail "the window is not 80x24"
    if [ "$how" = joined ]; then
        tmux -L "$socket" capture-pane -p -J -S - -t screen
    else
        tmux -L "$socket" capture-pane -p -S - -t screen
    fi
    tmux -L "$socket" kill-server 2>/dev/null || true
}

check() {
    local name=$1 line=$2 drawn joined
    drawn=$(screen drawn "$line" "$name")
    joined=$(screen joined "$line" "$name")
    printf '%s\n' "$drawn" >"$scratch/$name.screen"
    [ -n "$(printf '%s' "$drawn" | tr -d '[:space:]')" ] || fail "$name: the screen is empty"
    if [ "$drawn" != "$joined" ]; then
        diff <(printf '%s\n' "$joined") <(printf '%s\n' "$drawn") >&2 || true
        fail "$name: a line ran past 80 columns and the terminal cut it (above: joined, then as drawn)"
    fi
    echo "$drawn"
}

query=$(check query "'$kvcat' query attention_variant=hybrid 'context_length>64k'")
header=$(printf '%s\n' "$query" | grep -m1 '^id ') || fail "query: no table header on the screen:
$query"
[[ $header == *kv_bytes_per_token* ]] || fail "query: the header lacks kv_bytes_per_token: $header"
printf '%s\n' "$query" | grep -q 'rows)' || fail "query: no row count on the screen"

explain=$(check explain "'$kvcat' explain vllm-qwen35-35b-hybrid-fp8kv-256k")
printf '%s\n' "$explain" | grep -q 'Structured basis' || fail "explain: no 'Structured basis' on the screen:
$explain"
help=$(check help "'$kvcat' query --help")
printf '%s\n' "$help" | grep -q 'Examples:' || fail "query --help: no examples on the screen"
echo "terminal_screen_test: the headline query, explain and query --help fit 80x24"
