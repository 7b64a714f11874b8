// The findings of the lint's record and run rules, one named factory per message, so each
// rule's wording is tested once; a finding takes its severity from the rule registry. The
// loader's findings are in src/load/load_findings.h.
#pragma once

#include <string>
#include <string_view>

#include "support/diagnostic.h"

namespace kvcat::diag {

/// A finding of `rule` at its registered severity: for a rule whose message is built in its
/// own file of src/check/rules/. Throws std::logic_error for an id the registry lacks.
Diagnostic finding(std::string_view rule, const Position& pos, std::string message);
/// The finding with its claim, which its message ends with (` [claim: "..."]`), so that a
/// record's lint_ignore can acknowledge that finding alone by naming the claim whole.
Diagnostic with_claim(Diagnostic d, std::string claim);
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
/// A quality entry whose baseline is named without a figure of that run, or a baseline figure
/// without the dtype of its run; `what` says which and how to mend it.
Diagnostic quality_baseline(const Position& pos, const std::string& stated, const std::string& what);
/// `needed` and `memory` are byte counts as written ("32,524,262,368"); the GiB beside them
/// are for reading (`needed_gib`, `memory_gib`).
Diagnostic exceeds_memory(const Position& pos, const std::string& needed, const std::string& memory,
                          const std::string& how, double needed_gib, double memory_gib);
Diagnostic id_context_tag(const Position& pos, const std::string& tag, const std::string& tag_tokens,
                          const std::string& context);

}  // namespace kvcat::diag
