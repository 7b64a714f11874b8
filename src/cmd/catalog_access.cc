// ensure_fresh_catalog, read_fresh_catalog and lint_and_build: what build, query, sql and
// report share to lint the records into a catalog and to answer from a fresh one.
#include "cmd/catalog_access.h"

#include <chrono>
#include <exception>
#include <filesystem>
#include <functional>
#include <future>
#include <iostream>

#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "catalog/build_plan.h"
#include "catalog/catalog_file.h"
#include "catalog/catalog_writer.h"
#include "check/lint.h"
#include "cmd/run_command.h"
#include "load/data_dirs.h"

namespace kvcat::cmd {

namespace {

/// "checked 5,120 of 100,000 rows" on stderr, only on a terminal and only once a build has
/// taken a second; nothing at all when stderr is a file or a pipe.
class Progress {
  public:
    Progress() : start_(std::chrono::steady_clock::now()), terminal_(::isatty(STDERR_FILENO) == 1) {}
    ~Progress() {
        if (shown_) std::cerr << "\r\033[K" << std::flush;
    }
    void operator()(std::size_t done, std::size_t total) {
        if (!terminal_ || std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) return;
        shown_ = true;
        std::cerr << fmt::format("\rkvcat: checked {} of {} rows", group_thousands(static_cast<std::int64_t>(done)),
                                 group_thousands(static_cast<std::int64_t>(total)))
                  << std::flush;
    }

  private:
    std::chrono::steady_clock::time_point start_;
    bool terminal_;
    bool shown_ = false;
};

/// True when `db` holds a catalog this kvcat can answer from.
bool readable_catalog(const std::string& db) {
    std::error_code ec;
    if (!std::filesystem::exists(db, ec)) return false;
    int version = 0;
    std::string why;
    return is_kvcat_catalog(db, &version, &why) && version == kCatalogSchemaVersion;
}

/// Says on stderr that `db` answers as it was last built, and why: the files whose errors
/// kept it behind, each with its first finding.
void say_behind(const std::string& db, const std::string& records, const BuildOutcome& outcome, bool strict) {
    const char* then = strict ? "--strict makes this a failure" : "answering from it as it was last built";
    if (outcome.no_records) {
        spdlog::warn("{} holds no record file; {} is kept as it was last built, {}", records, db, then);
        return;
    }
    std::vector<std::pair<const Diagnostic*, std::size_t>> first_of_file;  // the first finding, and how many
    for (const auto& d : outcome.errors) {
        if (!first_of_file.empty() && first_of_file.back().first->pos.file == d.pos.file) {
            ++first_of_file.back().second;
        } else {
            first_of_file.emplace_back(&d, 1);
        }
    }
    spdlog::warn("{} is behind the records: {} file{} {} errors, so it was not rebuilt; {}", db, first_of_file.size(),
                 first_of_file.size() == 1 ? "" : "s", first_of_file.size() == 1 ? "has" : "have", then);
    for (const auto& [d, count] : first_of_file) {
        std::string more = count > 1 ? fmt::format(" (and {} more in this file)", count - 1) : "";
        spdlog::warn("  {}{}", format_text(*d), more);
    }
}

/// The writer started while the plan was made, when the build is the incremental one it was
/// started for; null otherwise (none was started, or the plan fell back to a full build, in
/// which case the copy is dropped, and so is any error it met: the full build meets its own).
std::unique_ptr<CatalogWriter> take_early_writer(std::future<std::unique_ptr<CatalogWriter>>& early, bool incremental) {
    if (!early.valid()) return nullptr;
    if (incremental) return early.get();  // its error, if any, is the build's
    try {
        early.get();  // removes its temporary file
    } catch (const std::exception& e) {
        spdlog::debug("the copy of the previous catalog, not needed after all, failed: {}", e.what());
    }
    return nullptr;
}

/// A catalog found damaged while it was read: built again from every record, then read.
std::optional<Table> rebuild_damaged(const std::string& db, const std::string& records, const std::string& damage,
                                     const std::function<Table()>& read, int& code, const CommandDeadline* deadline) {
    std::error_code ec;
    if (!std::filesystem::is_directory(records, ec)) {
        spdlog::error("{}; there is no {} folder to build it again from", damage, records);
        code = ExitCode::failure;
        return std::nullopt;
    }
    spdlog::warn("{}; building it again from every record", damage);
    BuildOutcome outcome;
    code = lint_and_build(db, {records}, false, true, &outcome, deadline);
    if (code != ExitCode::ok) {
        for (const auto& d : outcome.errors) std::cerr << format_text(d) << '\n';
        spdlog::error("{} could not be built again ({}); no answer from a damaged catalog", db,
                      !outcome.write_failure.empty() ? outcome.write_failure : "the records have errors");
        return std::nullopt;
    }
    return read();
}

}  // namespace

int lint_and_build(const std::string& db, const std::vector<std::string>& path_texts, bool print_warnings, bool full,
                   BuildOutcome* outcome, const CommandDeadline* deadline) {
    std::vector<std::filesystem::path> paths(path_texts.begin(), path_texts.end());
    std::error_code ec;
    BuildPlan plan;
    // The new catalog starts as a copy of the previous one: made on another thread while the
    // plan compares every file with the catalog's list, as both take about as long.
    std::future<std::unique_ptr<CatalogWriter>> early_writer;
    auto start_writer = [&] {
        early_writer = std::async(std::launch::async, [&db] {
            return std::make_unique<CatalogWriter>(db, std::optional<std::filesystem::path>(db));
        });
    };
    try {
        if (full) {
            plan.reason = "a full build was asked for";
        } else if (paths.size() == 1 && std::filesystem::is_directory(paths[0], ec)) {
            plan = plan_build(db, records_root_for(paths[0]), start_writer);
        } else {
            plan.reason = "files were named one by one";
        }
    } catch (const std::exception& e) {
        plan = BuildPlan{};
        plan.reason = fmt::format("the previous catalog could not be read ({})", e.what());
    }
    if (plan.up_to_date) {
        spdlog::info("{} is up to date", db);
        return ExitCode::ok;
    }
    if (!plan.notice.empty()) {
        if (plan.damaged) {
            spdlog::warn("{}", plan.notice);
        } else {
            spdlog::info("{}", plan.notice);
        }
    }
    spdlog::debug("{} build: {}", plan.incremental ? "incremental" : "full", plan.reason);
    try {
        std::unique_ptr<CatalogWriter> made = take_early_writer(early_writer, plan.incremental);
        if (!made) {
            made = std::make_unique<CatalogWriter>(
                db, plan.incremental ? std::optional<std::filesystem::path>(db) : std::nullopt);
        }
        CatalogWriter& writer = *made;
        Progress progress;
        LintOptions options;
        options.sink = &writer;
        options.keep_rows = false;
        options.progress = std::ref(progress);
        if (deadline) options.deadline = deadline->at;
        if (plan.incremental) {
            writer.copy_unchanged(plan);  // before the first row comes in
            options.walked = &plan.tree;
            options.unchanged = [&plan](const std::string& file) { return plan.unchanged.find(file); };
        }
        LintResult result = lint_paths(paths, options);
        bool errors = has_errors(result.diagnostics);
        for (const auto& d : result.diagnostics) {
            if (outcome && d.severity == Severity::error) {
                outcome->errors.push_back(d);
            } else if (d.severity == Severity::error || print_warnings) {
                std::cerr << format_text(d) << '\n';
            }
        }
        if (errors) {
            if (!outcome) spdlog::error("the records have errors; {} was not written", db);
            return ExitCode::findings;  // the writer removes its temporary file
        }
        if (result.files.empty() && catalog_record_files(db) > 0) {
            // An empty or emptied folder never replaces a catalog that holds records.
            if (outcome) {
                outcome->no_records = true;
            } else {
                spdlog::error("{} holds no record file; {}, built from {} record files, is kept as it was",
                              path_texts[0], db, catalog_record_files(db));
            }
            return ExitCode::failure;
        }
        if (deadline && std::chrono::steady_clock::now() > deadline->at) throw LintStopped();
        writer.set_findings(result.diagnostics, result.ignored);
        if (paths.size() == 1) writer.set_built_from(records_root_for(paths[0]));
        writer.set_meta("kvcat_version", KVCAT_VERSION);
        BuildStats stats = writer.commit();
        if (outcome) outcome->written = true;
        spdlog::info("wrote {}: {} model{}, {} accelerator{}, {} kv-efficiency row{} ({} read, {} unchanged){}", db,
                     stats.models, stats.models == 1 ? "" : "s", stats.accelerators, stats.accelerators == 1 ? "" : "s",
                     stats.rows, stats.rows == 1 ? "" : "s", result.rows_read, stats.rows_copied,
                     stats.allocations == 0 ? std::string()
                                            : fmt::format(" and {} allocation record{}", stats.allocations,
                                                          stats.allocations == 1 ? "" : "s"));
    } catch (const LintStopped&) {
        // The writer has removed its temporary file; the catalog at `db`, if any, is untouched.
        spdlog::error("the command ran past its time limit of {} ms (--timeout) while building {}; {}",
                      deadline ? deadline->limit_ms : 0, db,
                      readable_catalog(db) ? "the previous catalog is unchanged" : "nothing was written");
        return ExitCode::failure;
    } catch (const std::exception& e) {
        if (outcome) {
            outcome->write_failure = e.what();
        } else {
            spdlog::error("cannot write {}: {}; the previous catalog is unchanged", db, e.what());
        }
        return ExitCode::failure;
    }
    return ExitCode::ok;
}

int ensure_fresh_catalog(const std::string& db, const std::string& records, bool strict, const Freshness* known,
                         const CommandDeadline* deadline) {
    Freshness freshness = known ? *known : catalog_freshness(db, records);
    switch (freshness.state) {
        case Freshness::State::fresh:
            return ExitCode::ok;
        case Freshness::State::other_root:
            // A checkout copied or moved elsewhere keeps the catalog of the old place.
            spdlog::error(
                "{}; it is never rebuilt from other records by a query. To rebuild it from {} (as after copying "
                "or moving a checkout), run `kvcat build{}`; or query it with --records {}, or give {} a catalog "
                "of its own with --db FILE",
                freshness.why, records, db == "kvcat.db" ? std::string() : " --db " + db, freshness.built_from,
                records);
            return ExitCode::failure;
        case Freshness::State::missing:
        case Freshness::State::stale:
            break;
    }
    std::error_code ec;
    if (!std::filesystem::is_directory(records, ec)) {
        if (std::filesystem::exists(db, ec)) {
            // As with an emptied folder: the catalog is behind its records, which --strict fails.
            if (strict) {
                spdlog::error(
                    "{}; no {} folder to rebuild it from, so {} is behind its records; --strict makes this "
                    "a failure",
                    freshness.why, records, db);
                return ExitCode::findings;
            }
            spdlog::warn("{}; no {} folder to rebuild it from, so it is used as it is", freshness.why, records);
            return ExitCode::ok;
        }
        spdlog::error("{} does not exist and there is no {} folder to build it from: {}", db, records,
                      no_records_advice(records));
        return ExitCode::failure;
    }
    spdlog::info("building the catalog: {}", freshness.why);
    BuildOutcome outcome;
    int code = lint_and_build(db, {records}, false, false, &outcome, deadline);
    if (code == ExitCode::ok) return code;
    if ((!outcome.errors.empty() || outcome.no_records) && readable_catalog(db)) {
        say_behind(db, records, outcome, strict);
        return strict ? ExitCode::findings : ExitCode::ok;
    }
    if (!outcome.write_failure.empty()) {
        // A catalog that cannot be replaced (a read-only folder or file, a link, a full disk)
        // still answers, as it was last built, when it is whole.
        if (readable_catalog(db) && !catalog_damage(db)) {
            spdlog::warn("cannot rebuild {}: {}; {}", db, outcome.write_failure,
                         strict ? "--strict makes this a failure"
                                : "answering from it as it was last built, which may be behind the records");
            return strict ? ExitCode::findings : ExitCode::ok;
        }
        spdlog::error("cannot write {}: {}; the previous catalog is unchanged", db, outcome.write_failure);
        return code;
    }
    for (const auto& d : outcome.errors) std::cerr << format_text(d) << '\n';
    if (!outcome.errors.empty()) spdlog::error("the records have errors; {} was not written", db);
    return code;
}

std::optional<Table> read_fresh_catalog(const std::string& db, const std::string& records,
                                        const std::function<Table()>& read, int& code, bool strict,
                                        const CommandDeadline* deadline) {
    std::error_code ec;
    if (!std::filesystem::exists(db, ec)) {
        code = ensure_fresh_catalog(db, records, strict, nullptr, deadline);
        if (code != ExitCode::ok) return std::nullopt;
        return read();
    }
    auto check = std::async(std::launch::async, [&] { return catalog_freshness(db, records); });
    std::optional<Table> early;
    std::exception_ptr early_error;
    try {
        early = read();
    } catch (...) {
        early_error = std::current_exception();
    }
    // A foreign or unreadable catalog: this error, thrown here, comes before the read's.
    Freshness freshness = check.get();
    if (freshness.state == Freshness::State::fresh) {
        if (early_error) {
            try {
                std::rethrow_exception(early_error);
            } catch (const CatalogDamaged& e) {
                return rebuild_damaged(db, records, e.what(), read, code, deadline);
            }
        }
        code = ExitCode::ok;
        return early;
    }
    // Not fresh: what was read is dropped unseen; build (or keep), then read the catalog.
    code = ensure_fresh_catalog(db, records, strict, &freshness, deadline);
    if (code != ExitCode::ok) return std::nullopt;
    return read();
}

}  // namespace kvcat::cmd
