// The engine options fit and curve share: --engine and each engine's settings, with the
// engine's own defaults, turned into EngineSettings in one place.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "engines/engine_memory.h"

namespace kvcat::cmd {

struct EngineOptions {
    std::string engine;  ///< empty: no engine, the textbook figure only
    std::string engine_version;
    std::optional<std::int64_t> ctx_size;
    std::int64_t parallel = 1;
    bool kv_unified = false;
    std::int64_t ubatch = 512;
    bool swa_full = false;
    std::string v_dtype;
    int mla = 3;
    std::string flash_attn = "on";
    std::int64_t fit_target = 1024;  ///< llama.cpp --fit-target, MiB (0: -fit off)
    std::optional<std::int64_t> block_size;
    std::optional<std::int64_t> max_num_batched_tokens;  ///< unset: vLLM's default for the card
    std::optional<std::int64_t> max_num_seqs;
    std::optional<std::int64_t> max_model_len;
    std::string mamba_ssm_cache_dtype = "auto";
    std::string mamba_cache_dtype = "auto";
    std::string hybrid_manager = "auto";
    std::string prefix_caching = "auto";
    bool expert_parallel = false;
    bool enforce_eager = false;
    std::string flashinfer_sampler;  ///< on, off or "" (vLLM's default for the version)
    std::string gpu_memory_utilization;
    std::string mem_fraction_static;
    std::string available_kv_gib;
    std::int64_t page_size = 1;
    std::string swa_full_tokens_ratio = "0.8";
    std::optional<std::int64_t> max_mamba_cache_size;
    std::string mamba_full_memory_ratio = "0.9";
};

void add_engine_options(CLI::App& sub, EngineOptions& o);
/// vLLM's settings that change the memory its pool is sized from and the weights it loads:
/// --gpu-memory-utilization, --enable-expert-parallel and --flashinfer-sampler (plan takes them
/// beside its few engine options).
void add_vllm_memory_options(CLI::App& sub, EngineOptions& o);

/// The kvcat fit options that ask for what `o` holds, each one given: " --engine vllm
/// --engine-version 0.10.0 --enable-expert-parallel", "" without --engine. A command that answers
/// many settings at once (plan) names them in the fit command that gives one row's every term.
std::string engine_fit_flags(const EngineOptions& o);

/// The engine and its settings; nullopt with `error` set when an option is wrong, and nullopt
/// with `error` empty when no --engine was given.
std::optional<std::pair<Engine, EngineSettings>> engine_settings(const EngineOptions& o, std::string* error);

}  // namespace kvcat::cmd
