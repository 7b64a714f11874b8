// What query and sql share: make sure a fresh catalog exists before reading it.
#pragma once

#include <string>
#include <vector>

namespace kvcat::cmd {

/// Builds the catalog when it is missing or older than a record. Returns an exit code:
/// 0 when the catalog is ready, 1 when the records have errors, 2 on failure.
int ensure_fresh_catalog(const std::string& db, const std::string& records);

/// Lints then builds, incrementally unless `full`; prints findings to stderr. Returns an exit code.
int lint_and_build(const std::string& db, const std::vector<std::string>& paths, bool print_warnings,
                   bool full = false);

}  // namespace kvcat::cmd
