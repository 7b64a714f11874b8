// A kv-efficiency record skeleton, for `kvcat new kv-efficiency`.
//
// Everything the catalog can compute is filled in: the basis factors from the model
// record (kvcat::model_basis), bytes_per_element from the dtype table written as its
// block fraction (34/32 for q8_0, never 1.0625), their product as kv_bytes_per_token,
// a statement that find_claims() recognises and that agrees with the basis, the
// model's attention_variant, and null for every measurement. What only a person can
// say is left out on purpose: methodology, notes and sources are absent (a comment
// in their place says what to write), so `kvcat lint` fails on exactly those three
// [schema-missing-key] findings until the author writes them, and never passes on a
// placeholder. A context above the model's native one adds an empty
// `context_extension:` line, which keeps the lint's [context-above-native] warning
// until it is filled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/lint.h"
#include "load/records.h"
#include "support/rational.h"

namespace kvcat {

struct SkeletonOptions {
    std::string model;                       ///< models/NAME (or NAME)
    std::string engine;                      ///< llama.cpp, vLLM, ...
    std::string kv_dtype;                    ///< a name from cache_dtypes()
    std::int64_t context = 0;                ///< tokens
    std::optional<std::string> accelerator;  ///< accelerators/NAME (or NAME); null when absent
    /// Why no accelerator record applies, written as unstated.accelerator when `accelerator` is
    /// absent (import-bench: what the file says of the card).
    std::optional<std::string> unstated_accelerator;
    /// The card as the file names it, written as accelerator_named when `accelerator` is absent.
    std::optional<std::string> accelerator_named;
    /// The cards the run used as the file shows them (gpus), or why the file gives no count
    /// (unstated.gpus); neither for a record with no measured point.
    std::optional<std::int64_t> gpus;
    std::optional<std::string> unstated_gpus;
    std::optional<std::string> weight_quant;  ///< null when absent
    std::optional<std::string> id;            ///< kv-efficiency/NAME (or NAME); default: default_kv_id()
    /// When non-empty, the record is a curve: one `measurements:` item per point, each with its
    /// context and whatever was measured there (`context` is then ignored). A single context
    /// of 0 is a curve of one point, since the single-point form needs a context above 0.
    std::vector<MeasurementPoint> points;
    std::optional<std::string> engine_version;           ///< null when absent
    std::optional<std::int64_t> weight_bytes;            ///< the weights' real size, when known
    std::optional<std::string> methodology;              ///< drafted by an importer; else left for the author
    std::optional<std::string> provenance;               ///< measured, third-party-measured, ...
    std::string written_by = "kvcat new kv-efficiency";  ///< the command named in the header comment
    /// The V cache's type when it differs from K's (`kv_dtype`): the basis then carries their mean.
    std::optional<std::string> v_dtype;
};

struct Skeleton {
    std::string id;
    std::string text;  ///< the record, YAML
    std::optional<Rational> kv_bytes_per_token;
    std::vector<std::string> to_fill;   ///< the keys the author must write, in file order
    std::vector<std::string> problems;  ///< empty on success
    bool ok() const { return problems.empty(); }
    std::string message() const;
};

/// Writes the skeleton for one model, dtype and context, checked against the records in
/// `catalog` (as lint_paths() loaded them). Pure: no I/O. Never throws for bad input.
Skeleton make_kv_skeleton(const LintResult& catalog, const SkeletonOptions& options);

/// kv-efficiency/<engine>-<model NAME>-<dtype>-<context tag>, lower case, file-safe.
std::string default_kv_id(std::string_view engine, std::string_view model_id, std::string_view accelerator_id,
                          std::string_view weight_quant, std::string_view dtype, std::int64_t tokens);

/// "65536", "64k", "1M" (powers of two, as query reads them) to tokens; nullopt unless a
/// whole number greater than zero.
std::optional<std::int64_t> parse_context(std::string_view text);

}  // namespace kvcat
