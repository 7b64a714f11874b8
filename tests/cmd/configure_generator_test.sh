#!/usr/bin/env bash
# tools/configure: a build folder that make configured is cleared, said so on stderr, and then
# configured for Ninja; a folder Ninja configured keeps its cache (and its compiled objects);
# every preset asks for Ninja. The project configured is a scratch one without a compiler, so
# no make is needed.
#
# Usage: configure_generator_test.sh SOURCE_DIR CMAKE
set -euo pipefail
source_dir=$1
cmake=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "configure_generator_test: FAIL: $*" >&2; exit 1; }

mkdir -p "$scratch/project" "$scratch/build/CMakeFiles/kept"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(scratch NONE)\n' >"$scratch/project/CMakeLists.txt"
# What an earlier make configure leaves: a cache naming its generator, and CMakeFiles/.
printf 'CMAKE_GENERATOR:INTERNAL=Unix Makefiles\nCMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$scratch/project" \
    >"$scratch/build/CMakeCache.txt"
PATH="$(dirname "$cmake"):$PATH" "$source_dir/tools/configure" "$scratch/build" -S "$scratch/project" \
    -B "$scratch/build" -G Ninja >"$scratch/out" 2>"$scratch/err" ||
    fail "the configure after make's failed: $(cat "$scratch/err")"
grep -q "was configured for 'Unix Makefiles'; clearing its cache for Ninja" "$scratch/err" ||
    fail "nothing said of the cleared cache: $(cat "$scratch/err")"
grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$scratch/build/CMakeCache.txt" || fail "the folder is not Ninja's now"
[ ! -e "$scratch/build/CMakeFiles/kept" ] || fail "make's CMakeFiles/ outlived the switch"

# Ninja's own folder, configured again: nothing cleared, nothing said.
touch "$scratch/build/CMakeFiles/mark"
PATH="$(dirname "$cmake"):$PATH" "$source_dir/tools/configure" "$scratch/build" -S "$scratch/project" \
    -B "$scratch/build" -G Ninja >"$scratch/out" 2>"$scratch/err" || fail "the second configure failed"
[ -e "$scratch/build/CMakeFiles/mark" ] || fail "a folder Ninja configured was cleared"
[ ! -s "$scratch/err" ] || fail "the second configure said: $(cat "$scratch/err")"

# Every preset inherits Ninja.
python3 - "$source_dir/CMakePresets.json" <<'PY' || fail "a preset does not build with Ninja"
import json, sys
presets = {p["name"]: p for p in json.load(open(sys.argv[1]))["configurePresets"]}
for name, p in presets.items():
    generator = None
    while p and generator is None:
        generator = p.get("generator")
        p = presets.get(p.get("inherits"))
    if generator != "Ninja":
        sys.exit("preset %s: generator %r" % (name, generator))
PY
echo "configure_generator_test: make's folder cleared and said so, Ninja's kept, every preset Ninja"
