// What query and sql share: make sure a fresh catalog exists before reading it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "support/diagnostic.h"
#include "support/table.h"

namespace kvcat::cmd {

/// A time limit on a whole command (sql's --timeout): when it ends, and how long it was.
struct CommandDeadline {
    std::chrono::steady_clock::time_point at;
    std::int64_t limit_ms = 0;
};

/// What a build left undone, for query and sql to say why they answer from an older catalog.
struct BuildOutcome {
    bool written = false;
    std::vector<Diagnostic> errors;  ///< the lint errors that kept the catalog from being written
    bool no_records = false;         ///< the folder held no record file, and a catalog with some was kept
    std::string write_failure;       ///< why the catalog could not be written, when that kept it back
};

/// Builds the catalog when it is missing or its records changed (`known`: a freshness
/// already worked out). Never rebuilds a catalog built from another root (exit 2), and
/// when the records have errors answers from the catalog as last built, saying on stderr
/// which files kept it behind (exit 0, or 1 when `strict`). Returns an exit code: 0 when
/// the catalog can be read, 1 when the records have errors and there is no catalog (or
/// `strict`), 2 on failure. A build that `deadline` cuts short leaves the catalog as it was
/// (exit 2). Throws when the catalog cannot be read to see if it is fresh.
int ensure_fresh_catalog(const std::string& db, const std::string& records, bool strict = false,
                         const Freshness* known = nullptr, const CommandDeadline* deadline = nullptr);

/// Runs `read` on the catalog and, at the same time, checks that the catalog is fresh (the
/// check is a stat of every record file; the read does not wait for it). The answer is
/// returned only once the check says the catalog was fresh; when it was not, the catalog is
/// rebuilt (or kept, as ensure_fresh_catalog says) and `read` runs again. When there is
/// no answer returns nothing and sets `code`; throws what the check or `read` throws.
std::optional<Table> read_fresh_catalog(const std::string& db, const std::string& records,
                                        const std::function<Table()>& read, int& code, bool strict = false,
                                        const CommandDeadline* deadline = nullptr);

/// Lints then builds, incrementally unless `full`. With `outcome`, the lint's errors go
/// there rather than to stderr; without it they are printed. With `deadline`, the lint stops
/// soon after it and nothing is written (exit 2, an error naming --timeout). Returns an exit code.
int lint_and_build(const std::string& db, const std::vector<std::string>& paths, bool print_warnings, bool full = false,
                   BuildOutcome* outcome = nullptr, const CommandDeadline* deadline = nullptr);

}  // namespace kvcat::cmd
