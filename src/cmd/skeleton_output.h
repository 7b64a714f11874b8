// What `kvcat new kv-efficiency` and `kvcat import-bench` share: reading the records a
// skeleton is built on, and writing the skeleton to stdout or to a file named by its id.
#pragma once

#include <optional>
#include <string>

#include "check/lint.h"
#include "import/skeleton.h"

namespace kvcat::cmd {

/// The records under `records`, linted; nullopt (after an error message) when the folder is
/// missing or cannot be read.
std::optional<LintResult> load_records_for_skeleton(const std::string& records);

/// Builds the skeleton and prints it, or writes it to `out` (a file in a kv-efficiency/
/// folder is named by the record's id, and the id by the file when no --id is given).
/// Returns the exit code.
int emit_skeleton(const LintResult& catalog, SkeletonOptions options, const std::string& out, bool force);

}  // namespace kvcat::cmd
