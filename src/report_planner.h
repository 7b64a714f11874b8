// The report's planner: the exact terms of `kvcat fit`, exported as data for the page.
//
// The page answers "this model on this card (or N of them), these weights, this KV dtype,
// this context and batch: what fits, and what ceiling does the bandwidth leave?" without
// estimating anything itself. For every model, KV dtype, card count and engine, kvcat
// works the fit out with fit_context() (physics.h), the function `kvcat fit` calls, and
// exports its per-sequence terms as exact rationals written as strings ("34/32", "4096"):
// KV bytes per token of the growing layers, of the sliding layers up to their window, the
// fixed state, and the weights of every exact weight format. The page multiplies these by
// the batch, subtracts them from the card's memory and divides, in exact integer arithmetic
// (BigInt), as fit_context does, so its answer and `kvcat fit --format json` agree to the
// byte. An engine's figures plug in as one more entry under "engines".
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "records.h"
#include "report.h"

namespace kvcat {

/// Card counts the planner offers (tensor parallel over this many cards).
inline constexpr std::int64_t kPlannerCardCounts[] = {1, 2, 4, 8};
/// Contexts and batches at which an engine's allocation is carried (one card).
inline const std::vector<std::int64_t> kPlannerEngineContexts = {4096,   8192,   16384,  32768,  65536,
                                                                 131072, 262144, 524288, 1048576};
inline const std::vector<std::int64_t> kPlannerEngineBatches = {1, 2, 4, 8};

/// {"reserve": "1073741824", "card_counts": [1, 2, 4, 8], "engines": [{"id", "name", "how"}],
///  "weight_formats": [{"name", "bits_per_weight"}], "dtypes": [{"name", "bytes_per_element"}],
///  "models": [{"id", "name", "native_context", "active_share", "weights": {format: bytes},
///              "active_weights": {format: bytes},
///              "terms": {"textbook": {dtype: {cards: {"growing", "sliding", "window", "fixed"} or
///                                                    {"error"}}}},
///              "allocations": {engine: {dtype: {"CONTEXTxBATCH": [kv bytes, state bytes]} or {"error"}}}}],
///  "accelerators": [{"id", "name", "memory", "bandwidth"}],
///  "sources": {record id: {"name", "url"}},
///  "quality": [{"model", "kv_cache_dtype", ...}]}
/// Every byte figure is a string holding an exact integer or fraction.
nlohmann::json planner_content(const ReportInput& input, const std::vector<const Record*>& models,
                               const std::vector<const Record*>& accelerators);

}  // namespace kvcat
