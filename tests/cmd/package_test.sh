#!/usr/bin/env bash
# Builds the .deb from the current build tree (no rebuild), unpacks it into a scratch root
# with dpkg -x (no root needed) and runs the installed kvcat from there.
#
# cpack's own install step runs the build tree's "preinstall" target, which rebuilds
# whatever changed; inside ctest that is slow and races other edits. So this installs the
# tree as built (cmake --install), then has cpack package that directory with the project's
# CPack configuration (name, version, dependencies, description).
#
# Usage: package_test.sh BUILD_DIR SOURCE_DIR CMAKE CPACK
set -euo pipefail
build_dir=$1
source_dir=$2
cmake=$3
cpack=$4

for tool in dpkg-deb dpkg; do
    command -v "$tool" >/dev/null || { echo "package_test: $tool not found; skipped"; exit 77; }
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "package_test: FAIL: $*" >&2; exit 1; }

DESTDIR="$scratch/stage" "$cmake" --install "$build_dir" --prefix /usr --strip >"$scratch/install.log"
(cd "$scratch" && "$cpack" --config "$build_dir/CPackConfig.cmake" -B "$scratch/out" \
    -D CPACK_INSTALL_CMAKE_PROJECTS= -D "CPACK_INSTALLED_DIRECTORIES=$scratch/stage;/") >"$scratch/cpack.log" 2>&1 ||
    { cat "$scratch/cpack.log" >&2; fail "cpack failed"; }

debs=("$scratch"/out/*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one .deb, found: ${debs[*]}"
deb=${debs[0]}

# The control fields.
[ "$(dpkg-deb -f "$deb" Package)" = kvcat ] || fail "Package is not kvcat"
version=$(dpkg-deb -f "$deb" Version)
[ -n "$version" ] || fail "no Version"
[ -n "$(dpkg-deb -f "$deb" Maintainer)" ] || fail "no Maintainer"
[ -n "$(dpkg-deb -f "$deb" Description)" ] || fail "no Description"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libyaml-cpp0.7 libsqlite3-0 libspdlog1.10 libfmt9 libcurl4; do
    [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done

# Exactly these files: the program, the shipped records, schemas, man page, completion and
# the licenses of the report's libraries; never the tests.
# The shipped records are the ones git tracks (in a checkout; every one in a tarball).
if git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    shipped=$(cd "$source_dir" && git ls-files -- 'records/*.yaml' | while read -r f; do [ -e "$f" ] && echo "$f"; done |
        sort | sed 's|^|./usr/share/kvcat/|')
else
    shipped=$(cd "$source_dir" && find records -name '*.yaml' | sort | sed 's|^|./usr/share/kvcat/|')
fi
expected="./usr/bin/kvcat
./usr/share/bash-completion/completions/kvcat
./usr/share/doc/kvcat/copyright
./usr/share/doc/kvcat/third_party/vega-embed/LICENSE
./usr/share/doc/kvcat/third_party/vega-lite/LICENSE
./usr/share/doc/kvcat/third_party/vega/LICENSE
./usr/share/kvcat/schema/accelerator.schema.json
./usr/share/kvcat/schema/catalog.sql
./usr/share/kvcat/schema/kv-efficiency.schema.json
./usr/share/kvcat/schema/model.schema.json
./usr/share/man/man1/kvcat.1
$shipped"
expected=$(printf '%s\n' "$expected" | sort)
files=$(dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -v '/$' | sort)
[ "$files" = "$expected" ] || fail "package files differ:
$files
--- expected:
$expected"

# Unpack and run from the scratch root.
root="$scratch/root"
dpkg -x "$deb" "$root"

# Debian's copyright file, in its machine-readable format, names what the binary carries.
copyright="$root/usr/share/doc/kvcat/copyright"
head -1 "$copyright" | grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/$' ||
    fail "the copyright file is not in Debian's format"
for name in "Upstream-Name: kvcat" "Interactive Data Lab" "Sebastien Rombauts" "License: BSD-3-clause" "License: Expat"; do
    grep -q "$name" "$copyright" || fail "the copyright file does not name '$name'"
done
kvcat="$root/usr/bin/kvcat"
out=$("$kvcat" --version)
[[ $out =~ ^kvcat\ [0-9.]+\ \(catalog\ schema\ [0-9]+\)$ ]] || fail "--version printed: $out"
[[ $out == "kvcat $version "* ]] || fail "--version ($out) is not the package version $version"

cp -r "$source_dir/records" "$scratch/records"
(cd "$scratch" && env -u GITHUB_ACTIONS "$kvcat" lint records) >"$scratch/lint.out" 2>"$scratch/lint.err" ||
    { cat "$scratch/lint.out" "$scratch/lint.err" >&2; fail "installed kvcat lint failed"; }
[ ! -s "$scratch/lint.out" ] || { cat "$scratch/lint.out" >&2; fail "findings on the shipped records"; }
grep -q "checked: 0 errors" "$scratch/lint.err" || { cat "$scratch/lint.err" >&2; fail "no lint summary"; }
# Into a file, not a pipe: grep -q stops reading at its first match, and under pipefail the
# writer's broken pipe would fail the line once the answer outgrows the pipe's buffer.
(cd "$scratch" && "$kvcat" -q query --format csv --columns id) >"$scratch/query.out" ||
    fail "installed kvcat query failed"
grep -q '^kv-efficiency/' "$scratch/query.out" || fail "installed kvcat query found no rows"
# The installed binary carries the report's libraries: nothing beside it is needed.
(cd "$scratch" && "$kvcat" -q report --out report.html) || fail "installed kvcat report failed"
grep -q "vegaEmbed" "$scratch/report.html" || fail "the installed kvcat's report lacks vega-embed"

# Outside a checkout the installed kvcat answers from the records it shipped with: the
# headline query from /tmp, with no records/ there, its catalog in the user's cache.
home="$scratch/home"
mkdir -p "$home"
from_tmp=$(mktemp -d /tmp/kvcat-package-test.XXXXXX)
trap 'rm -rf "$scratch" "$from_tmp"' EXIT
(cd "$from_tmp" && env -u KVCAT_RECORDS -u KVCAT_DB -u XDG_CACHE_HOME HOME="$home" \
    "$kvcat" query --format csv attention_variant=hybrid 'context_length>64k') >"$scratch/headline.out" \
    2>"$scratch/headline.err" || { cat "$scratch/headline.err" >&2; fail "the headline query from /tmp failed"; }
hybrid_rows=$(grep -c '^kv-efficiency/' "$scratch/headline.out" || true)
[ "$hybrid_rows" -ge 5 ] || { cat "$scratch/headline.out" "$scratch/headline.err" >&2; fail "the headline query found $hybrid_rows rows"; }
[ ! -e "$from_tmp/kvcat.db" ] || fail "the installed kvcat wrote kvcat.db into the folder it was run from"
[ -f "$home/.cache/kvcat/kvcat.db" ] || fail "no catalog in ~/.cache/kvcat"
# The same rows as the source tree's records give.
(cd "$scratch" && "$kvcat" query --format csv attention_variant=hybrid 'context_length>64k') >"$scratch/checkout.out" 2>/dev/null
cmp -s "$scratch/headline.out" "$scratch/checkout.out" || fail "the installed records answer otherwise than the checkout's"
# fit answers too, and KVCAT_RECORDS points elsewhere.
(cd "$from_tmp" && HOME="$home" "$kvcat" fit --model qwen3.5-27b --accelerator nvidia-rtx-3090 --weight-quant Q4_K \
    --kv-dtype bf16) >"$scratch/fit.out" 2>&1 || { cat "$scratch/fit.out" >&2; fail "installed kvcat fit failed"; }
(cd "$from_tmp" && HOME="$home" KVCAT_RECORDS=/nonexistent "$kvcat" query engine=vllm) >/dev/null 2>"$scratch/env.err" &&
    fail "KVCAT_RECORDS=/nonexistent was not used"
grep -q /nonexistent "$scratch/env.err" || { cat "$scratch/env.err" >&2; fail "the error does not name KVCAT_RECORDS' folder"; }

# The man page renders without warnings; the completion registers itself.
if command -v man >/dev/null; then
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$root/usr/share/man/man1/kvcat.1" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "man page warnings: $warnings"
fi
bash -c "source '$root/usr/share/bash-completion/completions/kvcat' && complete -p kvcat" | grep -q _kvcat ||
    fail "the completion does not register _kvcat"

echo "package_test: $(basename "$deb") installs and runs"
