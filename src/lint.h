// The lint: record files in, findings out.
//
// lint_paths() finds the record files under the given paths, loads each one (a bad
// file is findings, never an exception), then runs every rule over the whole set so
// cross-record checks see every model and accelerator. A file named on the command
// line is checked against the complete catalog it belongs to, but only its own
// findings are reported.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "diagnostic.h"
#include "records.h"

namespace kvcat {

/// All records of one run, indexed by id.
class RecordSet {
public:
    explicit RecordSet(std::vector<Record> records);
    const std::vector<Record>& records() const { return records_; }
    /// The first record with this id, or nullptr.
    const Record* find(const std::string& id) const;
    /// Ids of every record of one kind, for did-you-mean.
    std::vector<std::string_view> ids_of(RecordKind kind) const;

private:
    std::vector<Record> records_;
    std::map<std::string, std::size_t, std::less<>> by_id_;
};

/// A rule: records in, findings out; no I/O, no printing.
using Rule = void (*)(const RecordSet& set, std::vector<Diagnostic>& out);

/// Every rule, in the order they run.
std::vector<Rule> all_rule_functions();

struct LintResult {
    RecordSet records{{}};
    std::vector<Diagnostic> diagnostics;  ///< reported findings, sorted
    std::vector<Diagnostic> ignored;      ///< findings silenced by lint_ignore, with reasons
    std::vector<std::string> skipped;     ///< files that are not records (said in verbose output)
    std::vector<std::string> files;       ///< record files checked
};

/// Where a record path's id starts: the folder that holds models/, accelerators/, kv-efficiency/.
std::filesystem::path records_root_for(const std::filesystem::path& path);

/// Lints files and folders. Throws std::runtime_error only when a named path does not exist.
LintResult lint_paths(const std::vector<std::filesystem::path>& paths);

/// Runs the rules over records already in memory (tests, and the claim checker).
LintResult lint_records(std::vector<Record> records, std::vector<Diagnostic> load_findings);

}  // namespace kvcat
