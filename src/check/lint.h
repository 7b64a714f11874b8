// The lint: record files in, findings out.
//
// lint_paths() finds the record files under the given paths and checks them in two
// stages. Models and accelerators (few) are loaded first and kept: every row is judged
// against them. kv-efficiency rows (many) are then loaded and checked on every core,
// each handed to an optional sink (the catalog writer) and, unless asked to keep them,
// dropped, so memory stays flat however large the catalog grows. A bad file is
// findings, never an exception. A file named on the command line is checked against
// the complete catalog it belongs to, but only its own findings are reported.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "load/record_set.h"
#include "load/records.h"
#include "load/records_walk.h"
#include "support/diagnostic.h"

namespace kvcat {

/// Receives records as they are checked: the catalog writer is one.
class RecordSink {
  public:
    virtual ~RecordSink() = default;
    /// Once, with the models and accelerators, before any row.
    virtual void begin(const RecordSet& refs) = 0;
    /// Each kv-efficiency row after its checks, from any worker thread.
    virtual void row(const Record& record, const RecordSet& refs) = 0;
};

/// What an earlier run found in a kv-efficiency file that has not changed since.
struct UnchangedFile {
    std::string id;
    Position id_pos;
    std::vector<Diagnostic> findings;  ///< its warnings (a catalog holds no file with errors)
    std::vector<Diagnostic> ignored;
};

struct LintOptions {
    unsigned threads = 0;  ///< 0: one per core
    /// A walk of the one folder lint_paths is given, taken just before (an incremental
    /// build's plan walks it to compare stamps): used instead of walking it again, and
    /// emptied. Ignored unless it is a walk of that very folder.
    RecordTree* walked = nullptr;
    RecordSink* sink = nullptr;
    bool keep_rows = true;  ///< keep every row in LintResult::records (explain, fit, tests)
    /// When set, only the records whose files it returns are judged (their reading findings and
    /// every rule's); every other record is read and kept, and nothing is said of it. Called once,
    /// with the models, accelerators and other references as read, before any is judged; rows are
    /// never judged. For a command that answers from a few named records and the rows' figures
    /// (fit, plan, curve, predict): the rules over every row are most of a lint's time, and none
    /// of their findings would be shown.
    std::function<std::set<std::string>(const RecordSet& references)> judge_only;
    /// For an incremental build: the prior result of a row file that need not be read again.
    std::function<const UnchangedFile*(const std::string& file)> unchanged;
    /// Called now and then from one worker: rows done, rows in all.
    std::function<void(std::size_t, std::size_t)> progress;
    /// When set, the lint stops soon after this time: every worker looks at it before each
    /// file, and lint_paths then throws LintStopped (the sink has had only part of the rows).
    std::optional<std::chrono::steady_clock::time_point> deadline;
};

/// Thrown by lint_paths when its deadline passed before every file was checked.
class LintStopped : public std::runtime_error {
  public:
    LintStopped() : std::runtime_error("the lint was stopped at its deadline") {}
};

struct LintResult {
    RecordSet records{{}};
    std::vector<Diagnostic> diagnostics;  ///< reported findings, sorted
    std::vector<Diagnostic> ignored;      ///< findings silenced by lint_ignore, with reasons
    /// What the lint did not judge, as not-judged notes: shown and counted, never a fault, so
    /// kept apart from `diagnostics`, which hold what the records may have wrong.
    std::vector<Diagnostic> notes;
    std::vector<std::string> skipped;  ///< files that are not records (said in verbose output)
    /// Links to folders inside the root: not walked, since what they lead to is walked where
    /// it is (said in verbose output). A link to a folder outside the root is a finding.
    std::vector<std::string> linked_folders;
    std::vector<std::string> files;  ///< record files checked
    std::size_t rows_read = 0;       ///< kv-efficiency files read and checked
    std::size_t rows_unchanged = 0;  ///< kv-efficiency files taken from an earlier run
};

/// Lints files and folders. Throws std::runtime_error only when a named path does not exist.
LintResult lint_paths(const std::vector<std::filesystem::path>& paths, const LintOptions& options = {});

/// Options for a command that shows no finding (plan, predict, the predicted columns): every
/// record read, none judged.
LintOptions judging_none();

/// A claim as lint_ignore names it and as it is compared: runs of white space as one space,
/// ends trimmed.
std::string squeezed_claim(std::string_view text);
/// The index of the acknowledgement among `ignores` naming this finding's rule and its whole
/// claim, with a reason; nullopt when none does (or the finding carries no claim).
std::optional<std::size_t> claim_acknowledgement(const std::vector<LintIgnore>& ignores, const Diagnostic& d);

/// Runs the rules over records already in memory (tests, and the claim checker).
LintResult lint_records(std::vector<Record> records, std::vector<Diagnostic> load_findings);

}  // namespace kvcat
