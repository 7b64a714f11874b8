// Findings of the lint, as data.
//
// A Diagnostic names a stable rule id, a severity, the position of the offending
// value and a message, and carries the stated and computed figures as fields so
// that every output format is a rendering of the same list. Each rule's message is
// built by one named factory in namespace diag, so its wording is tested once.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvcat {

enum class Severity { error, warning, note };

std::string_view to_string(Severity s);

/// A place in a file; line and column are 1-based, 0 means "the whole file".
struct Position {
    std::string file;
    int line = 0;
    int column = 0;
};

struct Diagnostic {
    std::string rule;
    Severity severity = Severity::error;
    Position pos;
    std::string message;
    std::optional<std::string> stated;    ///< the figure as the record states it
    std::optional<std::string> computed;  ///< the figure kvcat computed
    /// For a finding about one point of a record: the text a lint_ignore names, whole, to
    /// acknowledge this one finding (and no other of the same rule).
    std::optional<std::string> claim;
};

/// "file:line:col: error: [rule] message", as compilers print it.
std::string format_text(const Diagnostic& d);

/// Sorts by file, line, column, then rule, so output is stable across runs.
void sort_diagnostics(std::vector<Diagnostic>& diagnostics);

bool has_errors(std::span<const Diagnostic> diagnostics);

struct Record;
class RecordSet;

/// Where a rule is judged: while a file is read (its YAML and schema), on one record against
/// the records it names, or by the run itself (across records, or about other findings).
enum class RuleStage { loader, record, run };

std::string_view to_string(RuleStage s);

/// A record rule's check: judges one record against the records it may name (`refs`) and
/// appends findings. No check does I/O, so the lint runs them on many records at a time.
using RecordCheck = void (*)(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);

/// One lint rule, as its file in src/check/rules/ declares it: everything else about the rule
/// (the lint's loop, a finding's severity, SARIF, --list-rules, completion, the README
/// table) is read from here.
struct RuleInfo {
    std::string_view id;
    Severity severity;
    std::string_view summary;  ///< one line; `code` in backticks where the README shows it so
    RuleStage stage = RuleStage::record;
    RecordCheck check = nullptr;  ///< set for record rules, and only for them
    /// True when each finding carries a claim (Diagnostic::claim): a lint_ignore then names the
    /// claim it acknowledges, and silences that finding only.
    bool names_claims = false;
};

/// Every rule of the registry (src/check/rule_registry.cc): loader rules, record rules, then the
/// run's own, each group by id, so every listing and the order record checks run in is stable.
std::span<const RuleInfo> all_rules();

/// The rule with this id, or nullptr.
const RuleInfo* find_rule_info(std::string_view id);

/// A rule's summary as plain text: its backticks dropped.
std::string plain_summary(const RuleInfo& rule);

/// Named constructors, one per finding.
namespace diag {

/// A finding of `rule` at its registered severity: for a rule whose message is built in its
/// own file of src/check/rules/. Throws std::logic_error for an id the registry lacks.
Diagnostic finding(std::string_view rule, const Position& pos, std::string message);

Diagnostic file_unreadable(const std::string& file, const std::string& why);
Diagnostic file_too_large(const std::string& file, std::size_t size, std::size_t limit);
Diagnostic file_outside_root(const std::string& file, const std::string& resolves_to, const std::string& root);
/// file-outside-root for a link to a folder: nothing under it is read.
Diagnostic folder_outside_root(const std::string& link, const std::string& resolves_to, const std::string& root);
Diagnostic file_empty(const std::string& file);
Diagnostic encoding(const Position& pos, const std::string& what);
Diagnostic yaml_syntax(const Position& pos, const std::string& what);
Diagnostic duplicate_key(const Position& pos, const std::string& key, int first_line);
Diagnostic alias(const Position& pos);
Diagnostic too_deep(const Position& pos, int limit);
Diagnostic multiple_documents(const Position& pos);
Diagnostic not_a_mapping(const Position& pos, const std::string& what);
Diagnostic missing_key(const Position& pos, const std::string& key, const std::string& expected,
                       bool nullable_required);
Diagnostic wrong_type(const Position& pos, const std::string& key, const std::string& expected,
                      const std::string& found);
Diagnostic unknown_key(const Position& pos, const std::string& key, const std::string& suggestion,
                       const std::string& kind);
Diagnostic bad_enum(const Position& pos, const std::string& key, const std::string& value, const std::string& allowed,
                    const std::string& suggestion);
Diagnostic bad_value(const Position& pos, const std::string& key, const std::string& what);
/// record-kind: `folders` lists where records live ("models/, ... or allocations/").
Diagnostic unknown_kind(const std::string& file, const std::string& folder, const std::string& folders);
Diagnostic id_path_mismatch(const Position& pos, const std::string& id, const std::string& expected);
Diagnostic duplicate_id(const Position& pos, const std::string& id, const std::string& other_file);
Diagnostic unresolved_reference(const Position& pos, const std::string& key, const std::string& id,
                                const std::string& wanted_kind, const std::string& suggestion);
Diagnostic basis_product(const Position& pos, const std::string& expression, const std::string& computed,
                         const std::string& stated);
Diagnostic basis_model(const Position& pos, const std::string& factor, const std::string& stated,
                       const std::string& expected, const std::string& model_id, const std::string& why);
/// A row states the dtype of a fixed state its model does not keep (kv-basis-model).
Diagnostic state_dtype_without_state(const Position& pos, const std::string& key, const std::string& model_id);
Diagnostic dtype_bytes(const Position& pos, const std::string& dtype, const std::string& stated,
                       const std::string& expected, const std::string& block_note);
Diagnostic variant_mismatch(const Position& pos, const std::string& stated, const std::string& model_variant,
                            const std::string& model_id);
Diagnostic context_above_native(const Position& pos, const std::string& context, const std::string& native,
                                const std::string& model_id);
Diagnostic overflow(const Position& pos, const std::string& what);
Diagnostic model_layers(const Position& pos, const std::string& what);
Diagnostic ignore_problem(const Position& pos, const std::string& what);
Diagnostic prose_arithmetic(const Position& pos, const std::string& expression, const std::string& computed,
                            const std::string& stated);
Diagnostic statement_mismatch(const Position& pos, const std::string& what, const std::string& stated,
                              const std::string& expected);
Diagnostic above_roofline(const Position& pos, const std::string& measured, const std::string& ceiling,
                          const std::string& how, const std::string& field = "measured_tps_at_ctx");
/// An engine or weight format outside the catalog's vocabulary, or spelled otherwise.
Diagnostic engine_name(const Position& pos, const std::string& written, const std::string& what,
                       const std::string& meant);
Diagnostic weight_format_name(const Position& pos, const std::string& written, const std::string& what,
                              const std::string& meant);
/// A quality entry's stated recovery_percent is not value / baseline_value x 100.
Diagnostic quality_recovery(const Position& pos, const std::string& stated, const std::string& computed,
                            const std::string& how);
/// `needed` and `memory` are byte counts as written ("32,524,262,368"); the GiB beside them
/// are for reading (`needed_gib`, `memory_gib`).
Diagnostic exceeds_memory(const Position& pos, const std::string& needed, const std::string& memory,
                          const std::string& how, double needed_gib, double memory_gib);
Diagnostic id_context_tag(const Position& pos, const std::string& tag, const std::string& tag_tokens,
                          const std::string& context);

}  // namespace diag

}  // namespace kvcat
