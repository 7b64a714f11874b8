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
// byte. Each engine's memory model is exported the same way, as the coefficients of the
// engine's own arithmetic (engines/llamacpp/llamacpp_allocation.h llamacpp_coefficients, engines/vllm/vllm_allocation.h
// vllm_pool_rule, engines/sglang/sglang_allocation.h sglang_cell_bytes): integers and fractions that the page pads,
// rounds and divides in the order the engine file does, so any context and batch the reader
// types gets `kvcat fit --engine`'s figure.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "load/records.h"
#include "output/report.h"

namespace kvcat {

/// Card counts the planner offers (tensor parallel over this many cards).
inline constexpr std::int64_t kPlannerCardCounts[] = {1, 2, 4, 8};

/// {"reserve": "1073741824", "card_counts": [1, 2, 4, 8], "engines": [{"id", "name", "how", "cards", ...}],
///  "weight_formats": [{"name", "bits_per_weight"}], "dtypes": [{"name", "bytes_per_element"}],
///  "models": [{"id", "name", "native_context", "active_share", "weights": {format: bytes},
///              "active_weights": {format: bytes},
///              "terms": {"textbook": {dtype: {cards: {"growing", "sliding", "window", "fixed"} or
///                                                    {"error"}}}},
///              "engines": {"llama.cpp": {dtype: {"base_per_cell", "swa_per_cell", "swa_window",
///                                               "state_per_sequence"} or {"error"}},
///                          "vllm": {dtype: {cards: {"block_size", "divisor", "state",
///                                                   "terms": [[kind, page, layers, weight, window]]} or {"error"}}},
///                          "sglang": {dtype: {cards: {"cell"} or {"error"}}}}}],
///  "accelerators": [{"id", "name", "memory", "bandwidth"}],
///  "sources": {record id: {"name", "url"}},
///  "quality": [{"model", "kv_cache_dtype", ...}],
///  "speeds": predict/speed_answer.h speed_model_json, from which the page predicts the speed at
///            any choice as `kvcat predict` does}
/// Every byte figure is a string holding an exact integer or fraction.
nlohmann::json planner_content(const ReportInput& input, const std::vector<const Record*>& models,
                               const std::vector<const Record*>& accelerators);

}  // namespace kvcat
