// Reading vLLM's start-up lines from a log, and writing them into an allocation record.
//
// Spellings read: "Available KV cache memory: X GiB", "GPU KV cache size: N tokens", "Maximum
// concurrency for N tokens per request: Xx" (on its own line or after the cache size), the worker's
// memory profile line ("Free memory on device ... Actual usage is ...") and "CUDA graph pool
// memory", and the settings of the engine's config line, of "non-default args" and of a launch
// command pasted above them.
#pragma once

#include <memory>
#include <string>

#include "engines/log_reading.h"

namespace kvcat {

std::unique_ptr<LogReader> vllm_log_reader(LogText kind);

/// The record's vllm block for a log of vLLM's lines.
void vllm_record_block(const ParsedLog& log, std::string& text);

/// Each figure of the memory profile line with its key under the record's `vllm:`, in the order a
/// record lists them: the one list import-log writes, allocation-log-lines compares and the
/// profile's check reads. `visit(key, value)` takes a std::string (a printed GiB, "" when absent)
/// or a std::optional<std::int64_t> (bytes).
template <typename Visit>
void for_each_profile_figure(const LoggedVllmProfile& p, Visit&& visit) {
    visit("free_on_start_gib", p.free_gib);
    visit("cuda_total_gib", p.total_gib);
    visit("requested_gib", p.requested_gib);
    visit("weights_gib", p.weights_gib);
    visit("consumed_gib", p.consumed_gib);
    visit("activation_peak_gib", p.activation_gib);
    visit("non_torch_gib", p.non_torch_gib);
    visit("cudagraph_gib", p.cudagraph_gib);
    visit("cudagraph_estimate_gib", p.estimate_gib);
    visit("kv_cache_memory_fit_bytes", p.fit_bytes);
    visit("kv_cache_memory_full_bytes", p.full_bytes);
    visit("kv_in_use_gib", p.in_use_gib);
    visit("kv_in_use_bytes", p.in_use_bytes);
}

}  // namespace kvcat
