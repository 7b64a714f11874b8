#include "cmd/engine_options.h"

#include <fmt/format.h>

#include "cmd/common_options.h"
#include "engines/engine_rules.h"
#include "engines/vllm/vllm_allocation.h"

namespace kvcat::cmd {

void add_vllm_memory_options(CLI::App& sub, EngineOptions& o) {
    const char* group = "Engine (with --engine)";
    sub.add_option("--gpu-memory-utilization", o.gpu_memory_utilization,
                   "vLLM --gpu-memory-utilization: its share of the card for the weights, activations and pool "
                   "(its default when not set: 0.92 from 0.20.0, 0.9 before)")
        ->group(group);
    sub.add_flag("--enable-expert-parallel", o.expert_parallel,
                 "vLLM --enable-expert-parallel: a mixture of experts' experts divided among the cards, each whole, "
                 "rather than every expert's width divided")
        ->group(group);
    sub.add_flag("--enforce-eager", o.enforce_eager,
                 "vLLM --enforce-eager: no CUDA graphs, so from 0.20.0 no estimate of them is taken off the pool")
        ->group(group);
    sub.add_option("--flashinfer-sampler", o.flashinfer_sampler,
                   "vLLM's VLLM_USE_FLASHINFER_SAMPLER, on or off (before 0.11.1 on whenever FlashInfer is "
                   "installed, as in vLLM's image); unset, off before 0.20.2 and on from it, vLLM's defaults")
        ->check(CLI::IsMember({"on", "off"}))
        ->group(group);
}

std::string engine_fit_flags(const EngineOptions& o) {
    if (o.engine.empty()) return "";
    std::string flags = " --engine " + o.engine;
    if (!o.engine_version.empty()) flags += " --engine-version " + o.engine_version;
    if (o.max_num_seqs) flags += fmt::format(" --max-num-seqs {}", *o.max_num_seqs);
    if (!o.gpu_memory_utilization.empty()) flags += " --gpu-memory-utilization " + o.gpu_memory_utilization;
    if (o.expert_parallel) flags += " --enable-expert-parallel";
    if (o.enforce_eager) flags += " --enforce-eager";
    if (!o.flashinfer_sampler.empty()) flags += " --flashinfer-sampler " + o.flashinfer_sampler;
    return flags;
}

void add_engine_options(CLI::App& sub, EngineOptions& o) {
    const char* group = "Engine (with --engine)";
    sub.add_option("--engine", o.engine,
                   "Also show what this engine allocates: llama.cpp, ik_llama.cpp, vllm or sglang")
        ->group(group);
    sub.add_option("--engine-version", o.engine_version,
                   "The engine's build or release (b6713, 0.10.1.1) where a rule changed with it")
        ->group(group);
    sub.add_option("--ctx-size", o.ctx_size, "llama.cpp -c, or SGLang's pool in tokens: the allocation at this size")
        ->transform(token_count(true))
        ->group(group);
    sub.add_option("--parallel", o.parallel, "llama.cpp -np: sequences held at once")
        ->check(CLI::PositiveNumber)
        ->capture_default_str()
        ->group(group);
    sub.add_flag("--kv-unified", o.kv_unified, "llama.cpp --kv-unified: one cache stream for every sequence")
        ->group(group);
    sub.add_option("--ubatch", o.ubatch, "llama.cpp -ub")
        ->transform(token_count())
        ->capture_default_str()
        ->group(group);
    sub.add_flag("--swa-full", o.swa_full, "llama.cpp --swa-full: sliding layers get the full-size cache")
        ->group(group);
    sub.add_option("--v-dtype", o.v_dtype, "llama.cpp -ctv when V's type differs from K's (--kv-dtype)")
        ->transform(lower_case())
        ->group(group);
    sub.add_option("--mla", o.mla, "ik_llama.cpp -mla: 1, 2 or 3, how an MLA model's latent is kept")
        ->check(CLI::Range(0, 3))
        ->capture_default_str()
        ->group(group);
    sub.add_option("--flash-attn", o.flash_attn,
                   "llama.cpp and ik_llama.cpp -fa: on or off (off refuses a quantized V cache; ik_llama.cpp's padding "
                   "and MLA layout follow it)")
        ->check(CLI::IsMember({"on", "off"}))
        ->capture_default_str()
        ->group(group);
    sub.add_option("--fit-target", o.fit_target,
                   "llama.cpp --fit-target, MiB: what its --fit keeps free on the card beside the start (0 for -fit "
                   "off or a build from before --fit)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str()
        ->group(group);
    sub.add_option("--block-size", o.block_size, "vLLM --block-size (16 when not set)")
        ->check(CLI::PositiveNumber)
        ->group(group);
    sub.add_option("--max-num-batched-tokens", o.max_num_batched_tokens,
                   "vLLM --max-num-batched-tokens (vLLM's default for the card when not set: 8192 on a card of 70 GiB "
                   "or more that is no A100, 2048 on any other)")
        ->transform(token_count())
        ->group(group);
    sub.add_option("--max-model-len", o.max_model_len, "vLLM --max-model-len (the model's native context when not set)")
        ->transform(token_count())
        ->group(group);
    sub.add_option("--max-num-seqs", o.max_num_seqs,
                   "vLLM --max-num-seqs (its default by card when not set: 1024 on 70 GiB or more but an A100, else "
                   "256); a hybrid needs a block of its pool for each")
        ->check(CLI::PositiveNumber)
        ->group(group);
    sub.add_option("--mamba-ssm-cache-dtype,--mamba-ssm-dtype", o.mamba_ssm_cache_dtype,
                   "vLLM --mamba-ssm-cache-dtype, SGLang --mamba-ssm-dtype: auto, float32, bfloat16, float16")
        ->capture_default_str()
        ->group(group);
    sub.add_option("--mamba-cache-dtype", o.mamba_cache_dtype, "vLLM --mamba-cache-dtype (the conv state)")
        ->capture_default_str()
        ->group(group);
    sub.add_option("--hybrid-manager", o.hybrid_manager, "vLLM's hybrid KV-cache manager: auto, on or off")
        ->check(CLI::IsMember({"auto", "on", "off"}))
        ->capture_default_str()
        ->group(group);
    sub.add_option("--prefix-caching", o.prefix_caching,
                   "vLLM --enable-prefix-caching: auto (on), on or off; from 0.24 a Mamba layer keeps two "
                   "state pages per request with it")
        ->check(CLI::IsMember({"auto", "on", "off"}))
        ->capture_default_str()
        ->group(group);
    add_vllm_memory_options(sub, o);
    sub.add_option("--mem-fraction-static", o.mem_fraction_static,
                   "SGLang --mem-fraction-static: the card's share for weights and the pool")
        ->group(group);
    sub.add_option("--available-kv-gib", o.available_kv_gib,
                   fmt::format("The memory the engine has for its cache, GiB (vLLM prints it as '{}')",
                               kVllmAvailableMemoryWords))
        ->group(group);
    sub.add_option("--page-size", o.page_size, "SGLang --page-size")
        ->check(CLI::PositiveNumber)
        ->capture_default_str()
        ->group(group);
    sub.add_option("--swa-full-tokens-ratio", o.swa_full_tokens_ratio,
                   "SGLang --swa-full-tokens-ratio: the SWA pool's tokens over the full pool's, for sliding layers")
        ->capture_default_str()
        ->group(group);
    sub.add_option("--max-mamba-cache-size", o.max_mamba_cache_size,
                   "SGLang --max-mamba-cache-size: requests whose state a hybrid's Mamba pool keeps")
        ->check(CLI::PositiveNumber)
        ->group(group);
    sub.add_option("--mamba-full-memory-ratio", o.mamba_full_memory_ratio,
                   "SGLang --mamba-full-memory-ratio: a hybrid's Mamba pool memory over its KV pool's")
        ->capture_default_str()
        ->group(group);
}

namespace {

/// A share of the card given as `text` (above 0, at most 1) into `out`; "" leaves it unset. False,
/// with `error` set to `wrong`, for anything else.
bool read_share(const std::string& text, std::optional<Rational>& out, const char* wrong, std::string* error) {
    if (text.empty()) return true;
    auto f = Rational::parse(text);
    if (!f || !(*f > Rational(0)) || *f > Rational(1)) {
        *error = wrong;
        return false;
    }
    out = *f;
    return true;
}

}  // namespace

std::optional<std::pair<Engine, EngineSettings>> engine_settings(const EngineOptions& o, std::string* error) {
    error->clear();
    if (o.engine.empty()) return std::nullopt;
    auto engine = parse_engine(o.engine);
    if (!engine) {
        *error = fmt::format("unknown engine '{}'; known: llama.cpp, ik_llama.cpp, vllm, sglang", o.engine);
        return std::nullopt;
    }
    EngineSettings s;
    s.ik_mla = o.mla;
    s.flash_attn = o.flash_attn == "on";
    s.version = o.engine_version;
    if (o.ctx_size) s.context = *o.ctx_size;
    s.parallel = o.parallel;
    s.kv_unified = o.kv_unified;
    s.ubatch = o.ubatch;
    s.fit_target_mib = o.fit_target;
    s.swa_full = o.swa_full;
    if (!o.v_dtype.empty()) s.v_dtype = o.v_dtype;
    s.block_size = o.block_size;
    if (o.max_num_batched_tokens) {
        s.max_num_batched_tokens = *o.max_num_batched_tokens;
        s.max_num_batched_tokens_given = true;
    }
    s.max_model_len = o.max_model_len;
    s.max_num_seqs = o.max_num_seqs;
    s.mamba_ssm_cache_dtype = o.mamba_ssm_cache_dtype;
    s.mamba_cache_dtype = o.mamba_cache_dtype;
    s.hybrid_manager = parse_engine_switch(o.hybrid_manager).value_or(EngineSwitch::automatic);
    s.prefix_caching = parse_engine_switch(o.prefix_caching).value_or(EngineSwitch::automatic);
    s.expert_parallel = o.expert_parallel;
    s.enforce_eager = o.enforce_eager;
    if (!o.flashinfer_sampler.empty()) s.flashinfer_sampler = o.flashinfer_sampler == "on";
    s.page_size = o.page_size;
    auto ratio = Rational::parse(o.swa_full_tokens_ratio);
    // SGLang reads the ratio as a float; a decimal of up to 15 digits is the float's own.
    constexpr std::int64_t kExact = std::int64_t{1} << 53;
    if (!ratio || !(*ratio > Rational(0)) || ratio->num() >= kExact || ratio->den() >= kExact) {
        *error = "--swa-full-tokens-ratio must be a number greater than zero, such as 0.8";
        return std::nullopt;
    }
    s.swa_full_tokens_ratio = *ratio;
    s.mamba_slots = o.max_mamba_cache_size;
    auto mamba_ratio = Rational::parse(o.mamba_full_memory_ratio);
    if (!mamba_ratio || !(*mamba_ratio > Rational(0))) {
        *error = "--mamba-full-memory-ratio must be a number greater than zero, such as 0.9";
        return std::nullopt;
    }
    s.mamba_full_memory_ratio = *mamba_ratio;
    for (const std::string* dtype : {&o.mamba_ssm_cache_dtype, &o.mamba_cache_dtype}) {
        if (*dtype != "auto" && !torch_dtype_bytes(*dtype)) {
            *error = fmt::format("'{}' is no state dtype; give auto, float32, bfloat16 or float16", *dtype);
            return std::nullopt;
        }
    }
    if (!read_share(o.gpu_memory_utilization, s.gpu_memory_utilization,
                    "--gpu-memory-utilization must be a fraction above 0 and at most 1, such as 0.9", error) ||
        !read_share(o.mem_fraction_static, s.mem_fraction_static,
                    "--mem-fraction-static must be a fraction between 0 and 1, such as 0.88", error)) {
        return std::nullopt;
    }
    if (!o.available_kv_gib.empty()) {
        auto gib = Rational::parse(o.available_kv_gib);
        if (!gib || !(*gib > Rational(0))) {
            *error = "--available-kv-gib must be a number of GiB greater than zero, such as 10.12";
            return std::nullopt;
        }
        s.available_bytes = *gib * Rational(1LL << 30);
    }
    return std::pair{*engine, s};
}

}  // namespace kvcat::cmd
