// What query and sql share: make sure a fresh catalog exists before reading it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "table.h"

namespace kvcat::cmd {

/// Builds the catalog when it is missing or older than a record. Returns an exit code:
/// 0 when the catalog is ready, 1 when the records have errors, 2 on failure.
int ensure_fresh_catalog(const std::string& db, const std::string& records);

/// Runs `read` on the catalog and, at the same time, checks that the catalog is fresh (the
/// check is a stat of every record file; the read does not wait for it). The answer is
/// returned only once the check says the catalog was fresh; when it was not, the catalog is
/// rebuilt and `read` runs again. On failure returns nothing and sets `code`.
std::optional<Table> read_fresh_catalog(const std::string& db, const std::string& records,
                                        const std::function<Table()>& read, int& code);

/// Lints then builds, incrementally unless `full`; prints findings to stderr. Returns an exit code.
int lint_and_build(const std::string& db, const std::vector<std::string>& paths, bool print_warnings,
                   bool full = false);

}  // namespace kvcat::cmd
