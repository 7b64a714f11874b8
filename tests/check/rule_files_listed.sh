#!/usr/bin/env bash
# Every file of src/check/rules/ is one line of cmake/rule_files.cmake, the list CMake builds the
# rules from, and every line names a file: a rule file left out would never run.
# Usage: rule_files_listed.sh SOURCE_DIR
set -euo pipefail
cd "$1"
listed=$(sed -n '/^set(KVCAT_RULE_SOURCES/,/^)/p' cmake/rule_files.cmake | grep 'src/check/rules/' | sed 's/^ *//' | sort)
present=$(ls src/check/rules/*.cc | sort)
if [[ $listed != "$present" ]]; then
    echo "cmake/rule_files.cmake and src/check/rules/*.cc differ (< listed, > present):" >&2
    diff <(echo "$listed") <(echo "$present") >&2 || true
    exit 1
fi
echo "rule_files_listed: $(wc -l <<<"$present") rule files, all listed"
