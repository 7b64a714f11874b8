// engine-kv-dtype: a row's cache type is one its engine offers. A row that says vLLM ran
// with a q8_0 cache, or llama.cpp with fp8_e4m3, describes a run that cannot have happened:
// the cache type was copied wrongly or the engine was misnamed, and either way the row's
// bytes are not what the engine stored.
//
// Each engine's list is read from its own source or documentation, written here in the
// catalog's dtype names (src/vocab/dtype.cc), and only the engines with a list are judged:
//
//  - llama.cpp, -ctk/--cache-type-k and -ctv/--cache-type-v: `kv_cache_types` in
//    common/arg.cpp of ggml-org/llama.cpp at commit 145b6280d6aa1890e22457143dad0badb3fd6820
//    (https://github.com/ggml-org/llama.cpp/blob/145b6280d6aa1890e22457143dad0badb3fd6820/common/arg.cpp):
//    f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1; anything else is refused
//    ("Unsupported cache type"). The default is f16.
//  - vLLM, --kv-cache-dtype: `CacheDType` in vllm/config/cache.py of vllm-project/vllm at
//    commit c1d86421174a87056edc90a41dc9942391509e84
//    (https://github.com/vllm-project/vllm/blob/c1d86421174a87056edc90a41dc9942391509e84/vllm/config/cache.py):
//    auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla. "auto" stores the cache
//    at the model's dtype (--dtype: float16, bfloat16 or float32), so f16, bf16 and f32 are
//    offered through it; "fp8" is vLLM's own name (fp8_e4m3 on CUDA and ROCm) and the
//    catalog keeps it as written; fp8_inc (Gaudi) and fp8_ds_mla (DeepSeek's packed MLA
//    layout) have no catalog dtype yet, so no row can name them.
//  - SGLang, --kv-cache-dtype: the server-arguments table in
//    docs/advanced_features/server_arguments.md of sgl-project/sglang at commit
//    b36e8e198b71553316b55bce53de6ecf9b3a9a47
//    (https://github.com/sgl-project/sglang/blob/b36e8e198b71553316b55bce53de6ecf9b3a9a47/docs/advanced_features/server_arguments.md):
//    auto, fp8_e5m2, fp8_e4m3, "auto" being the model's dtype (--dtype: half, float16,
//    bfloat16, float, float32), so f16, bf16 and f32 again. Later server_args.py adds
//    bf16/bfloat16 (the same as auto on a bf16 model) and fp4_e2m1 (no catalog dtype).
//    SGLang has no bare "fp8": a row says which of the two it ran.
//  - ollama, OLLAMA_KV_CACHE_TYPE: docs/faq.md of ollama/ollama at commit
//    7775059a3a294dca3062833d5161c27460b4a47e
//    (https://github.com/ollama/ollama/blob/7775059a3a294dca3062833d5161c27460b4a47e/docs/faq.md):
//    f16 (the default), q8_0, q4_0.
//
// ik_llama.cpp, TensorRT-LLM, MLX, ds4, ExLlamaV2 and LM Studio have no list here yet and are
// not judged. The catalog's synonyms are the engine's own type: fp32 is f32, fp16 is f16.
#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "support/suggest.h"
#include "vocab/dtype.h"

namespace kvcat::rules {

namespace {

/// One engine's cache types, in the catalog's dtype names, and where the list comes from.
struct EngineCacheTypes {
    std::string_view engine;  ///< as src/vocab/vocabulary.cc names it
    std::span<const std::string_view> types;
    std::string_view flag;  ///< how the engine is told the type
};

constexpr std::array<std::string_view, 11> kLlamaCpp = {"f32",  "fp32", "f16",    "fp16", "bf16", "q8_0",
                                                        "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};
constexpr std::array<std::string_view, 8> kVllm = {"f32", "fp32", "f16", "fp16", "bf16", "fp8", "fp8_e4m3", "fp8_e5m2"};
constexpr std::array<std::string_view, 7> kSglang = {"f32", "fp32", "f16", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2"};
constexpr std::array<std::string_view, 4> kOllama = {"f16", "fp16", "q8_0", "q4_0"};

constexpr std::array kEngines = {
    EngineCacheTypes{"llama.cpp", kLlamaCpp, "-ctk/-ctv"},
    EngineCacheTypes{"vLLM", kVllm, "--kv-cache-dtype; auto is the model's dtype"},
    EngineCacheTypes{"SGLang", kSglang, "--kv-cache-dtype; auto is the model's dtype"},
    EngineCacheTypes{"ollama", kOllama, "OLLAMA_KV_CACHE_TYPE"},
};

const EngineCacheTypes* cache_types_of(std::string_view engine) {
    for (const auto& e : kEngines) {
        if (e.engine == engine) return &e;
    }
    return nullptr;
}

/// The types an engine offers, without the catalog's synonyms (fp32, fp16) unless written.
std::string offered(const EngineCacheTypes& e) {
    std::string out;
    for (std::string_view t : e.types) {
        if (t == "fp32" || t == "fp16") continue;
        out += fmt::format("{}{}", out.empty() ? "" : ", ", t);
    }
    return out;
}

void judge(const Record& r, const EngineCacheTypes& e, const char* key, const std::string& dtype,
           std::vector<Diagnostic>& out) {
    if (!find_cache_dtype(dtype)) return;  // a dtype the catalog does not know is schema-enum's
    if (std::find(e.types.begin(), e.types.end(), dtype) != e.types.end()) return;
    std::vector<std::string_view> names(e.types.begin(), e.types.end());
    std::string near = closest_match(dtype, names);
    Diagnostic d =
        diag::finding("engine-kv-dtype", r.where(key),
                      fmt::format("{} {} is not a cache type {} offers{}; it offers {} ({})", key, dtype, e.engine,
                                  near.empty() ? "" : fmt::format(" (did you mean {}?)", near), offered(e), e.flag));
    d.stated = dtype;
    d.computed = offered(e);
    out.push_back(std::move(d));
}

/// engine-kv-dtype: kv_cache_dtype, and v_cache_dtype when written, are types the engine offers.
void engine_kv_dtype(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    const EngineCacheTypes* e = cache_types_of(r.kv->engine);  // a misspelt engine is engine-name's
    if (!e) return;
    if (!r.kv->kv_cache_dtype.empty()) judge(r, *e, "kv_cache_dtype", r.kv->kv_cache_dtype, out);
    if (r.kv->v_cache_dtype) judge(r, *e, "v_cache_dtype", *r.kv->v_cache_dtype, out);
}

}  // namespace

KVCAT_RULES(engine_kv_dtype) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"engine-kv-dtype", Severity::error,
                 "`kv_cache_dtype` (or `v_cache_dtype`) is not a cache type the named `engine` offers "
                 "(llama.cpp, vLLM, SGLang and ollama, from their sources; the types it offers are given)",
                 RuleStage::record, engine_kv_dtype},
    };
    return kRules;
}

}  // namespace kvcat::rules
