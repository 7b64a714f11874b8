// An allocation record recomputed: each figure the engine printed beside the one kvcat's
// engine model gives for the model record and the settings the log shows.
//
// check_allocation() reads an allocation record's settings (cells, streams, types, block size,
// memory, ...) and asks the engine's rules (engines/engine_rules.h) for
// every figure the engine printed: llama.cpp's K, V, R and S in MiB, vLLM's tokens and maximum
// concurrency within what the printed GiB's rounding allows, SGLang's GB. The engine-allocation
// rule turns the figures that do not hold into findings; `kvcat explain` shows all of them,
// term by term; the catalog keeps the headline figure of each record beside the printed one.
// The same answer for all three, so what the lint judged is what a reader is shown.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engines/engine_memory.h"
#include "load/records.h"

namespace kvcat {

/// One printed figure beside kvcat's.
struct AllocationFigure {
    std::string key;       ///< where it stands in the record: "kv_cache.k_mib"
    std::string printed;   ///< as the record holds it: "1024.00"
    std::string computed;  ///< kvcat's figure: "1024.00", or "93,712 to 93,888" where rounding leaves a range
    std::string unit;      ///< "MiB", "tokens", "x", "GB"
    std::string why;       ///< how kvcat reached it, as a finding says it: "llama.cpp allocates N bytes (...)"
    bool holds = true;
};

/// Something kvcat could not recompute: a type it has no size for, a shape it does not model.
struct AllocationProblem {
    std::string key;       ///< where it stands in the record
    std::string stated;    ///< what the record says there
    std::string expected;  ///< what kvcat would need
    std::string why;
};

/// One part the engine allocated (llama.cpp's base or SWA cache, its recurrent state, vLLM's or
/// SGLang's pool), as the record gives it and as kvcat recomputes it.
struct AllocationPartCheck {
    std::string key;   ///< "kv_cache", "swa_cache", "recurrent", "vllm", "sglang"
    std::string what;  ///< "base cache", "SWA cache", "recurrent state", "pool"
    std::vector<std::pair<std::string, std::string>> printed;   ///< the figures, as the record holds them
    std::vector<std::pair<std::string, std::string>> settings;  ///< read from the log beside them
    std::vector<std::string> terms;                             ///< kvcat's arithmetic, term by term
    std::vector<AllocationFigure> figures;                      ///< the printed figures, in record order
    std::optional<Rational> bytes;  ///< what kvcat allocates for the part (llama.cpp's caches and state, SGLang's pool)
    /// The lint rule that reports the part's figures: "" for engine-allocation (the engine's
    /// allocator against the model), or another rule's id (engine-profile: a log line's own sums).
    std::string rule;
};

/// A figure of the record that kvcat has no rule or no input to judge ("kv_cache": "the line
/// printed no types, so its bytes are not recomputed"). The lint says each as a not-judged note.
struct NotJudged {
    std::string key;  ///< the record's key the figure is under
    std::string why;
    std::string text() const { return key + ": " + why; }
};

struct AllocationCheck {
    Engine engine = Engine::llamacpp;
    std::vector<AllocationPartCheck> parts;
    std::vector<AllocationProblem> problems;
    /// The engine model's answer for the same settings, for the textbook figures and the named
    /// differences; unset when the record gives too little to ask it.
    std::optional<EngineAnswer> answer;
    /// The record's figures that kvcat did not judge: the key they are under, and why.
    std::vector<NotJudged> not_judged;
};

/// Recomputes every printed figure of `record` (an allocation record) for `model`.
AllocationCheck check_allocation(const Record& record, const Model& model);

/// What a table of allocation records shows for one: the settings a reader compares them by,
/// and the headline figure (llama.cpp's sizes in MiB, base + SWA + recurrent; vLLM's tokens;
/// SGLang's K + V, or KV, GB) as printed and as kvcat recomputes it, in the same shape.
struct AllocationSummary {
    std::string kv_cache_dtype;           ///< the catalog's name: K's ggml type, or kv_cache_dtype with auto read
    std::string v_cache_dtype;            ///< V's type when it differs from K's
    std::optional<std::int64_t> context;  ///< llama.cpp's cells per stream, vLLM's max_model_len
    std::optional<std::int64_t> seqs;     ///< llama.cpp's n_seq_max
    std::optional<std::int64_t> tokens;   ///< cells x streams, vLLM's GPU KV cache size, SGLang's #tokens
    std::optional<std::int64_t> tensor_parallel;  ///< vLLM and SGLang
    std::string printed;                          ///< "102.00 + 3.19 MiB", "93,872 tokens"
    std::string computed;                         ///< empty when some printed figure was not recomputed
};
AllocationSummary summarise_allocation(const Record& record, const AllocationCheck& check);

/// The printed figure of `check` at `key` ("kv_cache.size_mib"), or nullptr.
const AllocationFigure* find_figure(const AllocationCheck& check, std::string_view key);

/// The headline of a summary as an engine gathers it: each printed figure with kvcat's beside it.
struct AllocationHeadline {
    std::vector<std::string> printed;
    std::vector<std::string> computed;  ///< "" where a printed figure was not recomputed
    std::string unit;                   ///< "MiB", "tokens", "GB"
    /// The part's printed figure `name`, with kvcat's figure at the same key when there is one.
    void add(const AllocationCheck& check, const AllocationPartCheck& part, std::string_view name);
};

}  // namespace kvcat
