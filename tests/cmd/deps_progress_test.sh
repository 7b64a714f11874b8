#!/usr/bin/env bash
# tools/deps on a machine that lacks a package: it says how many it installs and that this takes
# time, lets apt-get's line a package through as the progress, and fails by name when a
# package did not install. apt-get, dpkg-query and id are stand-ins on PATH: nothing is
# installed and no root is needed.
#
# Usage: deps_progress_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "deps_progress_test: FAIL: $*" >&2; exit 1; }

bin="$scratch/bin"
mkdir -p "$bin"
# dpkg-query: a package is installed once the stand-in apt-get has "installed" it.
cat >"$bin/dpkg-query" <<'SH'
#!/usr/bin/env bash
name=${@: -1}
case $name in
    kvcat-missing-*) if [ -e "$STATE/$name" ]; then printf 'install ok installed'; else printf 'unknown ok not-installed'; fi ;;
    *) printf 'install ok installed' ;;
esac
SH
cat >"$bin/apt-get" <<'SH'
#!/usr/bin/env bash
[ "$1" = update ] && exit 0
for p in "$@"; do
    case $p in
        kvcat-missing-*) echo "Get:1 http://deb.debian.org/debian bookworm/main amd64 $p 1.0 [10 kB]"
                         echo "Reading database ... noise"
                         echo "Unpacking $p (1.0) ..."
                         echo "Setting up $p (1.0) ..."
                         [ "$p" = "$FAIL_ONE" ] || touch "$STATE/$p" ;;
    esac
done
SH
printf '#!/bin/sh\necho 0\n' >"$bin/id"
chmod +x "$bin"/*
mkdir -p "$scratch/state"

out=$(PATH="$bin:$PATH" STATE="$scratch/state" FAIL_ONE= "$source_dir/tools/deps" kvcat-missing-a kvcat-missing-b 2>&1) ||
    fail "tools/deps failed: $out"
grep -q "installing 2 Debian packages" <<<"$out" || fail "no count of what it installs: $out"
grep -q "can take several minutes" <<<"$out" || fail "no word that it takes time: $out"
grep -q "^Setting up kvcat-missing-b" <<<"$out" || fail "apt-get's progress lines were hidden: $out"
grep -q "Reading database" <<<"$out" && fail "apt-get's noise was shown: $out"

rm -f "$scratch/state"/*
if out=$(PATH="$bin:$PATH" STATE="$scratch/state" FAIL_ONE=kvcat-missing-b "$source_dir/tools/deps" kvcat-missing-a \
    kvcat-missing-b 2>&1); then
    fail "a package that did not install passed: $out"
fi
grep -q "kvcat-missing-b did not install" <<<"$out" || fail "the failure does not name the package: $out"

# Nothing missing: nothing said.
out=$(PATH="$bin:$PATH" STATE="$scratch/state" "$source_dir/tools/deps" 2>&1) || fail "tools/deps failed with nothing missing"
[ -z "$out" ] || fail "with nothing missing it said: $out"
echo "deps_progress_test: tools/deps counts, shows apt-get's progress and names a package that failed"
