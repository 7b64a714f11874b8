// engine-allocation: an allocation record's printed figures are what the engine's allocator
// gives for the model record and the settings the log shows.
//
// The engine models (src/engine_llamacpp, src/engine_vllm, src/engine_sglang; their rules and
// sources in docs/engines.md) recompute each figure:
//  - llama.cpp: K, V, R and S (and each size) in MiB, to the two decimals the engine prints,
//    rounded as it rounds them (single precision, then printf's %.2f);
//  - vLLM: the "GPU KV cache size" tokens must lie within what the printed "Available KV cache
//    memory" allows once its rounding to 0.01 GiB is undone, give or take one block, and the
//    printed maximum concurrency within the same range;
//  - SGLang: K and V (or an MLA pool's KV) in GB of 2^30 bytes to two decimals, for the
//    printed #tokens.
// A figure the engine did not print is not judged; a shape kvcat does not model (EngineError)
// is a finding that says so, so a record never passes unchecked in silence.
#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "dtype.h"
#include "engine_llamacpp.h"
#include "engine_sglang.h"
#include "engine_vllm.h"
#include "rules/rules.h"

namespace kvcat::rules {

namespace {

const YamlNode* at(const Record& r, const std::string& key) {
    const YamlNode* n = r.node(key);
    return n && n->is_scalar() && n->value != "null" ? n : nullptr;
}

std::optional<std::int64_t> integer(const Record& r, const std::string& key) {
    return as_integer(r.node(key));
}

std::string text(const Record& r, const std::string& key) {
    const YamlNode* n = at(r, key);
    return n ? n->value : "";
}

void finding(const Record& r, const std::string& key, const std::string& stated, const std::string& computed,
             const std::string& what, std::vector<Diagnostic>& out) {
    Diagnostic d = diag::finding("engine-allocation", r.where(key),
                                 fmt::format("{} is {}, but {}: {}", key, stated, what, computed));
    d.stated = stated;
    d.computed = computed;
    out.push_back(std::move(d));
}

/// Printed and computed decimals are the same number ("8192.00" and "8192.0" alike).
bool same_decimal(const std::string& printed, const std::string& computed) {
    auto a = Rational::parse(printed), b = Rational::parse(computed);
    return a && b && *a == *b;
}

void judge_mib(const Record& r, const std::string& key, const Rational& bytes, const std::string& how,
               std::vector<Diagnostic>& out) {
    std::string printed = text(r, key);
    if (printed.empty()) return;
    std::string right = llamacpp_mib_text(bytes);
    if (!same_decimal(printed, right)) {
        finding(r, key, printed, right,
                fmt::format("llama.cpp allocates {} bytes ({})", group_thousands(bytes.floor()), how), out);
    }
}

std::optional<CacheDtype> ggml_type(const std::string& name) {
    return find_cache_dtype(name);
}

void llama_cache(const Record& r, const Model& m, const std::string& key, std::vector<Diagnostic>& out) {
    if (!r.node(key)) return;
    auto cells = integer(r, key + ".cells");
    if (!cells) return;  // schema-missing-key
    std::int64_t streams = integer(r, key + ".streams").value_or(1);
    std::string scope_text = text(r, key + ".scope");
    LlamaCacheScope scope = scope_text == "base"  ? LlamaCacheScope::base
                            : scope_text == "swa" ? LlamaCacheScope::swa
                                                  : LlamaCacheScope::all;
    std::string k_name = text(r, key + ".k_type");
    if (k_name.empty()) return;  // the line printed no types: nothing to recompute the bytes with
    auto k = ggml_type(k_name);
    std::string v_name = text(r, key + ".v_type");
    auto v = v_name.empty() ? k : ggml_type(v_name);
    if (!k || !v) {
        finding(r, key + (k ? ".v_type" : ".k_type"), k ? v_name : k_name, "a ggml type kvcat knows",
                "the type is not one kvcat has a size for", out);
        return;
    }
    bool mla_latent = text(r, key + ".mla_latent") == "true";
    std::string v_printed = text(r, key + ".v_mib");
    bool v_cache = !mla_latent && !v_printed.empty() && !same_decimal(v_printed, "0");
    try {
        LlamaCacheBytes b = llamacpp_cache_bytes(m, scope, *k, *v, *cells, streams, v_cache);
        std::string how =
            fmt::format("{} layers x {} cells x {} stream{}", b.layers, *cells, streams, streams == 1 ? "" : "s");
        judge_mib(r, key + ".k_mib", b.k, how, out);
        if (!mla_latent) judge_mib(r, key + ".v_mib", b.v, how, out);
        judge_mib(r, key + ".size_mib", b.k + b.v, how, out);
    } catch (const EngineError& e) {
        finding(r, key, scope_text, "a shape kvcat models", e.what(), out);
    }
}

void llama_recurrent(const Record& r, const Model& m, std::vector<Diagnostic>& out) {
    if (!r.node("recurrent")) return;
    auto cells = integer(r, "recurrent.cells");
    if (!cells || text(r, "recurrent.r_type").empty()) return;
    LlamaStateBytes s = llamacpp_state_bytes(m, *cells);
    std::string how = fmt::format("{} state layers x {} cell{}, f32", s.layers, *cells, *cells == 1 ? "" : "s");
    judge_mib(r, "recurrent.r_mib", s.r, how, out);
    judge_mib(r, "recurrent.s_mib", s.s, how, out);
    judge_mib(r, "recurrent.size_mib", s.r + s.s, how, out);
}

std::optional<CacheDtype> torch_cache_dtype(const std::string& kv, const std::string& model_dtype) {
    std::string name = kv.empty() || kv == "auto" ? (model_dtype.empty() ? "bfloat16" : model_dtype) : kv;
    if (name == "bfloat16") name = "bf16";
    if (name == "float16" || name == "half") name = "f16";
    if (name == "float32") name = "f32";
    return find_cache_dtype(name);
}

std::string two(double x) {
    return fmt::format("{:.2f}", x);
}

void vllm(const Record& r, const Model& m, std::vector<Diagnostic>& out) {
    auto tokens = integer(r, "vllm.tokens");
    auto gib = Rational::parse(text(r, "vllm.available_kv_gib"));
    if (!tokens || !gib) return;  // without the memory, the tokens cannot be recomputed
    auto dtype = torch_cache_dtype(text(r, "vllm.kv_cache_dtype"), text(r, "vllm.model_dtype"));
    if (!dtype) {
        finding(r, "vllm.kv_cache_dtype", text(r, "vllm.kv_cache_dtype"), "a cache dtype kvcat knows",
                "kvcat has no size for it", out);
        return;
    }
    EngineSettings s;
    s.version = text(r, "engine_version");
    s.gpus = integer(r, "vllm.tensor_parallel").value_or(1);
    s.block_size = integer(r, "vllm.block_size");
    s.max_model_len = integer(r, "vllm.max_model_len");
    if (auto b = integer(r, "vllm.max_num_batched_tokens")) s.max_num_batched_tokens = *b;
    // The printed GiB is rounded to two decimals: the memory lay within half a hundredth of it.
    Rational half(1, 200);
    Rational unit(1LL << 30);
    try {
        VllmPool lo = vllm_pool(m, *dtype, s, ((*gib - half) * unit).floor());
        VllmPool hi = vllm_pool(m, *dtype, s, ((*gib + half) * unit).floor());
        std::int64_t block = lo.block_size;
        if (*tokens < lo.tokens - block || *tokens > hi.tokens + block) {
            finding(r, "vllm.tokens", group_thousands(*tokens),
                    fmt::format("{} to {}", group_thousands(lo.tokens), group_thousands(hi.tokens)),
                    fmt::format("{} to {} GiB hold, in blocks of {}", two(gib->to_double() - 0.005),
                                two(gib->to_double() + 0.005), block),
                    out);
        }
        std::string printed = text(r, "vllm.concurrency");
        // Before 0.20 the printed tokens are the blocks of one group times the block size
        // (num_blocks // groups), and the concurrency is all the blocks over the blocks one
        // request of max_model_len takes (get_max_concurrency_for_kv_cache_config), printed
        // with two decimals. From the printed tokens the blocks are known to within the
        // groups' remainder, so the concurrency is one figure or a few.
        bool from_tokens = !s.version.empty() && vllm_version_before(s.version, "0.20") && lo.groups == hi.groups &&
                           lo.per_request_blocks == hi.per_request_blocks && lo.per_request_blocks > 0 &&
                           *tokens % block == 0 && s.max_model_len.has_value();
        if (!printed.empty() && from_tokens) {
            std::int64_t per_group = *tokens / block;
            std::vector<std::string> allowed;
            for (std::int64_t extra = 0; extra < lo.groups; ++extra) {
                std::string c = two(static_cast<double>(per_group * lo.groups + extra) /
                                    static_cast<double>(lo.per_request_blocks));
                if (allowed.empty() || allowed.back() != c) allowed.push_back(c);
            }
            if (std::find(allowed.begin(), allowed.end(), printed) == allowed.end()) {
                finding(r, "vllm.concurrency", printed,
                        allowed.size() == 1 ? allowed.front() : allowed.front() + " to " + allowed.back(),
                        fmt::format("the printed {} tokens are {} blocks of {}{}, and one request of {} tokens takes "
                                    "{} blocks; their quotient is",
                                    group_thousands(*tokens), group_thousands(per_group), block,
                                    lo.groups == 1 ? "" : fmt::format(" in each of {} groups", lo.groups),
                                    group_thousands(*s.max_model_len), group_thousands(lo.per_request_blocks)),
                        out);
            }
        } else if (!printed.empty()) {
            auto c = Rational::parse(printed);
            auto c_lo = Rational::parse(two(lo.max_concurrency)), c_hi = Rational::parse(two(hi.max_concurrency));
            if (c && c_lo && c_hi && (*c < *c_lo || *c > *c_hi)) {
                finding(r, "vllm.concurrency", printed,
                        fmt::format("{} to {}", two(lo.max_concurrency), two(hi.max_concurrency)),
                        "the pool in the printed memory gives a maximum concurrency of", out);
            }
        }
    } catch (const EngineError& e) {
        finding(r, "vllm", "this pool", "a shape kvcat models", e.what(), out);
    }
}

void sglang(const Record& r, const Model& m, std::vector<Diagnostic>& out) {
    auto tokens = integer(r, "sglang.tokens");
    if (!tokens) return;
    auto dtype = torch_cache_dtype(text(r, "sglang.kv_cache_dtype"), "");
    if (!dtype) return;
    try {
        SglangPoolBytes b = sglang_pool_bytes(m, *dtype, *tokens, integer(r, "sglang.page_size").value_or(1),
                                              integer(r, "sglang.tensor_parallel").value_or(1));
        auto judge = [&](const std::string& key, const Rational& bytes) {
            std::string printed = text(r, key);
            if (printed.empty()) return;
            std::string right = python_gib_text(bytes);
            if (!same_decimal(printed, right)) {
                finding(r, key, printed, right,
                        fmt::format("SGLang's pool of {} tokens and its padding page is {} bytes",
                                    group_thousands(*tokens), group_thousands(bytes.floor())),
                        out);
            }
        };
        judge("sglang.k_gb", b.k);
        judge("sglang.v_gb", b.v);
        judge("sglang.kv_gb", b.k + b.v);
    } catch (const EngineError& e) {
        finding(r, "sglang", "this pool", "a shape kvcat models", e.what(), out);
    }
}

/// engine-allocation: every printed figure of an allocation record recomputes.
void engine_allocation(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out) {
    if (r.kind != RecordKind::allocation || !r.root) return;
    std::string model_id = text(r, "model");
    const Record* model = model_id.empty() ? nullptr : refs.find(model_id);
    if (!model || !model->model) {
        if (!model_id.empty()) {
            finding(r, "model", model_id, "a model record", "no model record has this id, so no figure can be checked",
                    out);
        }
        return;
    }
    const Model& m = *model->model;
    auto engine = parse_engine(text(r, "engine"));
    if (!engine) return;  // schema-enum
    switch (*engine) {
        case Engine::llamacpp:
            llama_cache(r, m, "kv_cache", out);
            llama_cache(r, m, "swa_cache", out);
            llama_recurrent(r, m, out);
            break;
        case Engine::vllm:
            vllm(r, m, out);
            break;
        case Engine::sglang:
            sglang(r, m, out);
            break;
    }
}

}  // namespace

KVCAT_RULES(engine_allocation) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"engine-allocation", Severity::error,
                 "an allocation record's printed figure is not what the engine's allocator gives for the model "
                 "record and the settings the log shows (llama.cpp MiB of K, V, R and S; vLLM tokens within the "
                 "printed memory's rounding and one block; SGLang GB); the right figure is given",
                 RuleStage::record, engine_allocation},
    };
    return kRules;
}

}  // namespace kvcat::rules
