// Everything kvcat asks of an engine, in one value per engine: how it allocates, the lines it
// prints, how a plan's verdict asks it and judges its answer, how an allocation record of its
// lines is checked and summarised, and which of a parsed log's figures a record holds.
//
// Each engine's folder ends in one EngineRules (`<id>_rules`, in `<id>/<id>_rules.cc`) that fills
// every field; engines/engine_list.h registers it with one line. Code outside an engine's folder
// asks through rules_of() and never names an engine's lines or formats, so a new engine is its
// folder, its line in the list and its tests. The registry test
// (tests/engines/engine_rules_test.cc) holds every engine to answering every question.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engines/allocation_check.h"
#include "engines/engine_budget.h"
#include "engines/engine_log.h"
#include "engines/engine_memory.h"
#include "engines/engine_verdict.h"
#include "engines/log_reading.h"
#include "model/physics.h"

namespace kvcat {

/// How an engine comes to the size of its cache.
enum class EngineSizing {
    at_start,     ///< it allocates the whole cache and state for the context it is given (llama.cpp)
    from_memory,  ///< it sizes a pool from the memory it is left after the weights (vLLM, SGLang)
};

/// What an engine that sizes from memory does when the weights leave none: `fit` answers as it
/// does.
enum class EngineWithoutMemory {
    sized_by_context,  ///< the question does not arise: its size comes from the context
    refuses,           ///< it is asked anyway and refuses to start, in its own words (vLLM)
    holds_nothing,     ///< it holds no token, so there is no allocation to show (SGLang)
};

struct EngineRules {
    Engine engine;
    std::string_view name;          ///< as --engine and the report spell it: "llama.cpp", "vllm"
    std::string_view catalog_name;  ///< the vocabulary's name for it (vocab/vocabulary.cc): "vLLM"
    /// The engine whose log lines a log of this one is read as (ik_llama.cpp's as llama.cpp's).
    Engine log_family;
    EngineSizing sizing;
    EngineWithoutMemory without_memory;
    bool ctx_size_sizes;              ///< fit's --ctx-size is the size it allocates (vLLM's is --max-model-len)
    bool one_card_only;               ///< plans are made on one card only: kvcat does not model its spread over cards
    std::string_view plan_kv_dtypes;  ///< the cache dtypes a plan tries when none are given
    std::string_view verdict_rule;    ///< how a plan's verdict is decided, in a clause

    /// What it allocates (the one entry point: engine_allocation()).
    EngineAnswer (*allocate)(const Model& model, const CacheDtype& dtype, const EngineSettings& settings);
    /// The start-up lines it prints for an allocation, as it prints them.
    std::vector<std::string> (*log_lines)(const EngineAnswer& answer, const Model& model);
    /// The weights it loads on each of the settings' cards for a format named by --weight-quant, where it
    /// holds a rule for the model and the format (vLLM's layers as its model files build them);
    /// nullopt elsewhere, and for the llama.cpp family, whose files' bytes are llama-quantize's plan
    /// (engines/llamacpp/llamacpp_quant.h). Throws EngineRefusal, in its words, for a split it
    /// refuses to load.
    std::optional<EngineWeights> (*loaded_weights)(const Model& model, std::string_view format,
                                                   const EngineSettings& settings);
    /// Its defaults that depend on the fit's card (vLLM's max_num_seqs, what the card holds beside
    /// llama.cpp's buffers); nothing for most.
    void (*card_defaults)(EngineSettings& settings, const FitTerms& terms);
    /// The memory it sizes its pool from on the fit's card (engines/engine_budget.h): what fit
    /// and plan hand it when it sizes from memory, or what llama.cpp's largest -c must fit in.
    EngineBudget (*budget)(const EngineSettings& settings, const FitTerms& terms);
    /// The settings a plan's verdict asks it with, for `slots` requests of `context` tokens.
    void (*ask)(EngineSettings& settings, const FitTerms& terms, std::int64_t context, std::int64_t slots);
    /// Its verdict on its answer to those settings.
    EngineVerdict (*judge)(const EngineAnswer& answer, const FitTerms& terms, std::int64_t context, std::int64_t slots);
    /// When its answer counts a fitted figure of what the card holds before it starts, the held memory
    /// that would turn a verdict leaving `spare` bytes free, if the figure's spread reaches it
    /// (engine_held_edge); nullopt for an engine that counts none (no_held_edge).
    std::optional<std::string> (*held_edge)(const EngineAnswer& answer, const Rational& spare);
    /// Every printed figure of an allocation record of its lines, recomputed.
    void (*check_record)(const Record& record, const Model& model, AllocationCheck& out);
    /// A record's settings and headline figure, for a table of allocation records.
    void (*summarise)(const Record& record, const AllocationCheck& check, AllocationSummary& out,
                      AllocationHeadline& headline);
    /// The figures a parsed log of its family gives, under the record keys import-log writes.
    void (*logged_figures)(const ParsedLog& log, std::vector<LoggedFigure>& out);
    /// A reader of its lines (engines/log_reading.h) for an engine a log is filed under
    /// (log_family is itself); nullptr for one whose lines are read as another's.
    std::unique_ptr<LogReader> (*log_reader)(LogText kind);
    /// Its part of an allocation record written from a log of its lines.
    void (*record_block)(const ParsedLog& log, std::string& text);
    /// The lines its reader reads, for import-log's help; "" for one read as another's.
    std::string_view log_formats;
};

/// The rules of `engine`.
const EngineRules& rules_of(Engine engine);
/// Every engine's rules, in the order of engines/engine_list.h.
std::span<const EngineRules* const> all_engine_rules();

/// "llama.cpp" (also "llamacpp", "llama-server", and an application built on it such as
/// "ollama" or "lm-studio"), ik_llama.cpp's names, "vllm", "sglang": the catalog's vocabulary
/// (vocab/vocabulary.cc) read for the engine kvcat has rules for. nullopt for an engine it has none for.
std::optional<Engine> parse_engine(std::string_view text);
/// "ik_llama.cpp", "ik-llama.cpp", "ik_llama": the llama.cpp fork with a cache of its own.
bool names_ik_llama(std::string_view text);
std::string_view name_of(Engine e);
/// The engine whose start-up lines the log reader (engine_log.h) files a log of `e` under.
Engine log_family(Engine e);

/// What `engine` allocates for `model` with its cache at `dtype` and `settings`: the one entry
/// point for fit, curve, the report and the engine-allocation rule. Throws EngineError, or
/// PhysicsError / OverflowError from the figures underneath.
EngineAnswer engine_allocation(const Model& model, const CacheDtype& dtype, Engine engine,
                               const EngineSettings& settings);

/// The start-up lines the engine prints for this allocation, as it prints them: llama.cpp's
/// "llama_kv_cache: size = ..." (one per cache) and "llama_memory_recurrent: size = ...",
/// ik_llama.cpp's "KV self size", vLLM's "GPU KV cache size" and "Maximum concurrency" (with a
/// pool), SGLang's "KV Cache is allocated". Each engine's folder writes its own.
std::vector<std::string> engine_log_lines(const EngineAnswer& answer, const Model& model);

/// Fills what nothing asks of an engine (an unused hook): the card changes none of its defaults.
void no_card_defaults(EngineSettings& settings, const FitTerms& terms);
/// For an engine with no rule of its own for the weights it loads: nullopt.
std::optional<EngineWeights> no_loaded_weights(const Model& model, std::string_view format,
                                               const EngineSettings& settings);
/// For an engine whose answer counts no fitted held memory: no edge.
std::optional<std::string> no_held_edge(const EngineAnswer& answer, const Rational& spare);

}  // namespace kvcat
