#include "engines/vllm/vllm_allocation.h"

#include <cctype>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <map>

#include <fmt/format.h>

#include "model/curve.h"
#include "model/kv_math.h"

namespace kvcat {

namespace {

std::int64_t cdiv(std::int64_t a, std::int64_t b) {
    return (a + b - 1) / b;
}

/// One KV cache spec (vLLM's KVCacheSpec) and the layers that have it.
struct Spec {
    enum class Kind { full, sliding, chunked, mla, indexer, mamba } kind = Kind::full;
    std::int64_t layers = 0;
    std::int64_t token_bytes = 0;  ///< attention: bytes per token per layer on one card
    std::int64_t state_bytes = 0;  ///< Mamba: one request's state per layer, unpadded
    std::int64_t padded = 0;       ///< Mamba: the page after padding to the attention page
    std::int64_t window = 0;
    std::int64_t block_size = 16;

    bool attention() const { return kind != Kind::mamba; }
    std::int64_t page() const { return attention() ? checked_mul(block_size, token_bytes) : padded; }
};

std::string_view kind_name(Spec::Kind k) {
    switch (k) {
        case Spec::Kind::full:
            return "full attention";
        case Spec::Kind::sliding:
            return "sliding window";
        case Spec::Kind::chunked:
            return "chunked local attention";
        case Spec::Kind::mla:
            return "MLA";
        case Spec::Kind::indexer:
            return "indexer";
        case Spec::Kind::mamba:
            return "Mamba state";
    }
    return "";
}

std::int64_t heads_per_card(std::int64_t heads, std::int64_t tp) {
    if (heads % tp == 0) return heads / tp;
    if (tp % heads == 0) return 1;
    throw EngineError(fmt::format("{} KV heads do not spread over {} cards", heads, tp));
}

/// vLLM's dtype for the cache: plain element types only.
std::int64_t cache_bytes(const CacheDtype& d) {
    if (d.block_values != 1) {
        throw EngineError(
            fmt::format("vLLM keeps no '{}' cache: its cache dtypes are auto (the model dtype), "
                        "bfloat16, float16 and fp8 kinds",
                        d.name));
    }
    return d.block_bytes;
}

bool sparse_mla_fp8(const Model& m, const CacheDtype& d) {
    // DeepseekV32ForCausalLM.verify_and_update_config: an fp8 (or auto) cache becomes fp8_ds_mla.
    return m.indexer && m.mla && std::string_view(d.name).starts_with("fp8");
}

constexpr std::int64_t kFp8DsMlaTokenBytes = 656;  // kv_cache_interface.py, MLAAttentionSpec

std::string conv_dtype_of(const Model& m, const EngineSettings& s) {
    if (s.mamba_cache_dtype != "auto") return s.mamba_cache_dtype;
    if (m.linear && !m.linear->conv_state_dtype.empty()) return m.linear->conv_state_dtype;
    return s.model_dtype;
}

std::string ssm_dtype_of(const Model& m, const EngineSettings& s, const std::string& conv) {
    if (s.mamba_ssm_cache_dtype != "auto") return s.mamba_ssm_cache_dtype;
    // The model record's state_dtype is what the config states for the recurrent state, the value
    // vLLM takes for an auto mamba_ssm_cache_dtype where the model's config hook reads it.
    if (m.linear && !m.linear->state_dtype.empty()) return m.linear->state_dtype;
    return conv;
}

std::int64_t dtype_bytes_or_throw(const std::string& name, const char* what) {
    auto b = torch_dtype_bytes(name);
    if (!b) throw EngineError(fmt::format("unknown {} '{}'", what, name));
    return *b;
}

struct Layout {
    std::vector<Spec> specs;
    bool hybrid_manager = true;
    std::string why;
    std::int64_t block_size = 16;
    std::int64_t attn_token_bytes = 0;  ///< one layer of the model's full attention, per card
    std::int64_t mamba_state_bytes = 0;
    std::int64_t conv_bytes = 2, ssm_bytes = 2;
    std::string conv_dtype, ssm_dtype;
};

Layout layout(const Model& m, const CacheDtype& dtype, const EngineSettings& s) {
    Layout l;
    std::int64_t tp = std::max<std::int64_t>(1, s.gpus);
    std::int64_t b = cache_bytes(dtype);
    l.hybrid_manager = vllm_hybrid_manager(m, s, &l.why);
    l.block_size = s.block_size.value_or(16);
    // vLLM takes neither as zero or less; every page and request below divides by them.
    if (l.block_size < 1) {
        throw EngineError(
            fmt::format("a block size of {} tokens: vLLM's --block-size is a whole number above zero", l.block_size));
    }
    if (s.max_num_batched_tokens < 1) {
        throw EngineError(fmt::format("max_num_batched_tokens of {}: vLLM takes a whole number above zero",
                                      s.max_num_batched_tokens));
    }
    using Kind = Spec::Kind;
    for (const auto& set : engine_layers(m)) {
        Spec sp;
        sp.layers = set.layers;
        switch (set.role) {
            case LayerSet::Role::full:
            case LayerSet::Role::sliding:
            case LayerSet::Role::chunked: {
                std::int64_t heads = heads_per_card(set.kv_heads, tp);
                sp.token_bytes = checked_mul(checked_mul(2, heads), checked_mul(set.head_dim, b));
                sp.kind = set.role == LayerSet::Role::full      ? Kind::full
                          : set.role == LayerSet::Role::sliding ? Kind::sliding
                                                                : Kind::chunked;
                sp.window = set.window;
                if (sp.kind == Kind::full && l.attn_token_bytes == 0) l.attn_token_bytes = sp.token_bytes;
                break;
            }
            case LayerSet::Role::mla:
                // One latent per token, not split over the cards.
                sp.kind = Kind::mla;
                sp.token_bytes = sparse_mla_fp8(m, dtype) ? kFp8DsMlaTokenBytes : checked_mul(set.head_dim, b);
                break;
            case LayerSet::Role::state: {
                sp.kind = Kind::mamba;
                l.conv_dtype = conv_dtype_of(m, s);
                l.ssm_dtype = ssm_dtype_of(m, s, l.conv_dtype);
                l.conv_bytes = dtype_bytes_or_throw(l.conv_dtype, "mamba cache dtype");
                l.ssm_bytes = dtype_bytes_or_throw(l.ssm_dtype, "mamba SSM cache dtype");
                StateElements e = fixed_state_elements(m, tp);
                Rational per_layer =
                    (e.conv * Rational(l.conv_bytes) + e.recurrent * Rational(l.ssm_bytes)) / Rational(set.layers);
                if (!per_layer.is_integer()) throw EngineError("the state does not split evenly over the cards");
                sp.state_bytes = per_layer.num();
                l.mamba_state_bytes = checked_mul(sp.state_bytes, set.layers);
                break;
            }
        }
        l.specs.push_back(sp);
        if (set.role == LayerSet::Role::mla && m.indexer) {
            Spec ix;
            ix.kind = Kind::indexer;
            ix.layers = set.layers;
            ix.token_bytes = indexer_bytes_per_token_layer(*m.indexer);
            l.specs.push_back(ix);
        }
    }
    bool has_mamba = std::any_of(l.specs.begin(), l.specs.end(), [](const Spec& x) { return !x.attention(); });
    if (has_mamba) {
        if (!l.hybrid_manager) {
            throw EngineError(
                "vLLM cannot switch the hybrid manager off for a model with Mamba or linear-attention "
                "layers (unify_hybrid_kv_cache_specs fails)");
        }
        if (l.attn_token_bytes == 0) {
            for (const auto& x : l.specs) {
                if (x.attention()) l.attn_token_bytes = x.token_bytes;
            }
        }
        // HybridAttentionMambaModelConfig: raise the attention block size until a page holds one
        // layer's state, then pad the state's page to the attention page.
        std::int64_t state_page = 0;
        for (const auto& x : l.specs) {
            if (!x.attention()) state_page = x.state_bytes;
        }
        if (l.attn_token_bytes > 0) {
            std::int64_t raised = 16 * cdiv(state_page, 16 * l.attn_token_bytes);
            if (!s.block_size || *s.block_size < raised) l.block_size = raised;
        }
        for (auto& x : l.specs) {
            if (!x.attention()) x.padded = checked_mul(l.block_size, l.attn_token_bytes);
        }
    }
    for (auto& x : l.specs) x.block_size = x.attention() ? l.block_size : 0;
    if (!l.hybrid_manager) {
        // unify_hybrid_kv_cache_specs: sliding and chunked layers become full attention layers.
        for (auto& x : l.specs) {
            if (x.kind == Kind::sliding || x.kind == Kind::chunked) {
                // The window stays on the spec for the kernel, but the manager counts it as full.
                x.kind = Kind::full;
                x.window = 0;
            }
        }
    }
    // Layers whose specs are equal are one type (a spec merges with its equals).
    std::vector<Spec> merged;
    for (const auto& x : l.specs) {
        auto same = std::find_if(merged.begin(), merged.end(), [&](const Spec& y) {
            return y.kind == x.kind && y.token_bytes == x.token_bytes && y.window == x.window &&
                   y.state_bytes == x.state_bytes;
        });
        if (same != merged.end()) {
            same->layers = checked_add(same->layers, x.layers);
        } else {
            merged.push_back(x);
        }
    }
    l.specs = merged;
    return l;
}

std::int64_t max_memory(const Spec& x, std::int64_t max_model_len, std::int64_t batched, std::int64_t state_blocks) {
    switch (x.kind) {
        case Spec::Kind::full:
        case Spec::Kind::mla:
        case Spec::Kind::indexer:
            return checked_mul(cdiv(max_model_len, x.block_size), x.page());
        case Spec::Kind::sliding:
            return checked_mul(cdiv(std::min(x.window - 1 + batched, max_model_len), x.block_size) + 1, x.page());
        case Spec::Kind::chunked:
            return checked_mul(cdiv(std::min(x.window + batched, max_model_len), x.block_size), x.page());
        case Spec::Kind::mamba:
            return checked_mul(state_blocks, x.page());
    }
    return 0;
}

std::int64_t max_model_len_of(const Model& m, const EngineSettings& s) {
    if (s.max_model_len) return *s.max_model_len;
    if (!m.native_context) throw EngineError("give --max-model-len: the model record has no native_context");
    return *m.native_context;
}

/// The pages of each Mamba layer one request takes: MambaSpec.max_memory_usage_bytes
/// (vllm/v1/kv_cache_interface.py at 001cabc1be16a59a70d720ed61a13b678c060a18) charges
/// `2 + num_speculative_blocks` pages with mamba_cache_mode "align", the mode a hybrid model
/// runs in with prefix caching on, and `1 + num_speculative_blocks` without it. kvcat takes
/// align from 0.24 on (the release whose logs it reproduces) and holds no speculative blocks.
std::int64_t state_blocks_of(const EngineSettings& s) {
    bool newer = !s.version.empty() && !vllm_version_before(s.version, "0.24");
    return newer && s.prefix_caching != EngineSwitch::off ? 2 : 1;
}

/// Which version prints "GPU KV cache size" as num_blocks // groups x block_size.
bool prints_blocks_per_group(const EngineSettings& s) {
    return !s.version.empty() && vllm_version_before(s.version, "0.20");
}

}  // namespace

bool vllm_version_before(std::string_view version, std::string_view than) {
    if (version.empty()) return false;
    if (version.starts_with("v")) version.remove_prefix(1);
    if (than.starts_with("v")) than.remove_prefix(1);
    auto next = [](std::string_view& v) {
        std::int64_t n = 0;
        auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc()) n = 0;
        std::size_t used = static_cast<std::size_t>(ptr - v.data());
        v.remove_prefix(used);
        if (!v.empty() && v.front() == '.') v.remove_prefix(1);
        return n;
    };
    for (int i = 0; i < 4; ++i) {
        std::int64_t a = next(version), b = next(than);
        if (a != b) return a < b;
    }
    return false;
}

bool vllm_hybrid_manager(const Model& m, const EngineSettings& s, std::string* why) {
    auto say = [&](std::string text) {
        if (why) *why = std::move(text);
    };
    if (s.hybrid_manager == EngineSwitch::on) {
        say("on: --hybrid-manager on");
        return true;
    }
    if (s.hybrid_manager == EngineSwitch::off) {
        say("off: --hybrid-manager off (as --disable-hybrid-kv-cache-manager, a KV connector or EAGLE with chunked "
            "attention switch it off)");
        return false;
    }
    bool chunked = m.sliding && m.sliding->kind == WindowKind::chunked;
    if (chunked && !s.version.empty() && !vllm_version_before(s.version, "0.10.1") &&
        vllm_version_before(s.version, "0.12")) {
        say(
            fmt::format("off: vLLM {} switches it off for chunked local attention unless "
                        "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 (default 0 from vllm-project/vllm pull "
                        "21761)",
                        s.version));
        return false;
    }
    if (chunked) {
        say("on: VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE defaults to 1 since vllm-project/vllm pull "
            "29627 (the first release with it is not pinned here; releases from 0.10.1 before it switch the manager "
            "off: give --hybrid-manager off for them)");
        return true;
    }
    say("on: vLLM's default");
    return true;
}

namespace {

VllmPoolRule::Kind rule_kind(Spec::Kind k) {
    switch (k) {
        case Spec::Kind::full:
        case Spec::Kind::mla:
        case Spec::Kind::indexer:
            return VllmPoolRule::Kind::full;
        case Spec::Kind::sliding:
            return VllmPoolRule::Kind::sliding;
        case Spec::Kind::chunked:
            return VllmPoolRule::Kind::chunked;
        case Spec::Kind::mamba:
            return VllmPoolRule::Kind::state;
    }
    return VllmPoolRule::Kind::full;
}

}  // namespace

VllmPoolRule vllm_pool_rule(const Model& m, const CacheDtype& dtype, const EngineSettings& s) {
    Layout l = layout(m, dtype, s);
    VllmPoolRule r;
    r.block_size = l.block_size;
    r.hybrid_manager = l.hybrid_manager;
    r.max_num_batched_tokens = s.max_num_batched_tokens;
    r.state_blocks = state_blocks_of(s);
    if (l.specs.empty()) return r;
    auto term = [](const Spec& x, std::int64_t weight) {
        return VllmPoolRule::Term{rule_kind(x.kind), x.page(), x.layers, weight, x.window};
    };
    bool all_full_family = std::all_of(l.specs.begin(), l.specs.end(), [](const Spec& x) {
        return x.kind == Spec::Kind::full || x.kind == Spec::Kind::mla || x.kind == Spec::Kind::indexer;
    });
    if (l.specs.size() == 1 || all_full_family) {
        // One group: every layer the same spec (get_num_blocks with num_layers), or the same type
        // with different page sizes (UniformTypeKVCacheSpecs: available // the sum of the pages).
        r.groups = 1;
        for (const auto& x : l.specs) {
            r.group_size = checked_add(r.group_size, x.layers);
            r.divisor = checked_add(r.divisor, checked_mul(x.page(), x.layers));
            r.terms.push_back(term(x, x.layers));
        }
        return r;
    }
    std::int64_t page = l.specs.front().page();
    for (const auto& x : l.specs) {
        if (x.page() != page) {
            throw EngineError(
                fmt::format("the layer types' pages differ ({} and {} bytes): kvcat does not model "
                            "vLLM's page unification for this model",
                            page, x.page()));
        }
    }
    std::int64_t smallest = l.specs.front().layers, largest = smallest;
    for (const auto& x : l.specs) {
        smallest = std::min(smallest, x.layers);
        largest = std::max(largest, x.layers);
    }
    // _get_kv_cache_groups_uniform_page_size: group size is the smallest type's layer count,
    // or the largest when that is under 1.5 x the smallest. A request takes its blocks in each
    // group of its type, and a block of the pool is one page in each layer of a group.
    r.group_size = 2 * largest < 3 * smallest ? largest : smallest;
    for (const auto& x : l.specs) {
        std::int64_t groups = cdiv(x.layers, r.group_size);
        r.groups = checked_add(r.groups, groups);
        r.terms.push_back(term(x, checked_mul(r.group_size, groups)));
    }
    r.divisor = checked_mul(page, r.group_size);
    return r;
}

std::int64_t vllm_request_blocks(const VllmPoolRule& r, const VllmPoolRule::Term& t, std::int64_t max_model_len) {
    switch (t.kind) {
        case VllmPoolRule::Kind::full:
            return cdiv(max_model_len, r.block_size);
        case VllmPoolRule::Kind::sliding:
            return cdiv(std::min(t.window - 1 + r.max_num_batched_tokens, max_model_len), r.block_size) + 1;
        case VllmPoolRule::Kind::chunked:
            return cdiv(std::min(t.window + r.max_num_batched_tokens, max_model_len), r.block_size);
        case VllmPoolRule::Kind::state:
            return r.state_blocks;
    }
    return 0;
}

VllmPool vllm_pool(const Model& m, const CacheDtype& dtype, const EngineSettings& s, std::int64_t available) {
    VllmPoolRule r = vllm_pool_rule(m, dtype, s);
    std::int64_t mml = max_model_len_of(m, s);
    VllmPool p;
    p.block_size = r.block_size;
    p.hybrid_manager = r.hybrid_manager;
    if (r.terms.empty()) return p;
    p.groups = r.groups;
    p.group_size = r.group_size;
    p.num_blocks = available / r.divisor;
    std::int64_t need = 0;  // bytes of the pool one request of max_model_len takes, over every group
    for (const auto& t : r.terms)
        need = checked_add(need, checked_mul(t.weight, checked_mul(t.page, vllm_request_blocks(r, t, mml))));
    p.per_request_blocks = cdiv(need, r.divisor);
    p.max_concurrency = static_cast<double>(p.num_blocks) / static_cast<double>(p.per_request_blocks);
    if (prints_blocks_per_group(s)) {
        p.tokens = checked_mul(p.num_blocks / p.groups, r.block_size);
    } else {
        p.tokens = static_cast<std::int64_t>(p.max_concurrency * static_cast<double>(mml));
    }
    return p;
}

namespace {

/// What one request of `len` tokens takes over every layer: each layer's max_memory_usage_bytes,
/// summed as check_enough_kv_cache_memory sums them (vllm/v1/core/kv_cache_utils.py at
/// 001cabc1be16a59a70d720ed61a13b678c060a18, max_memory_usage_bytes over kv_cache_spec.values()).
std::int64_t request_bytes(const Layout& l, std::int64_t len, const EngineSettings& s) {
    std::int64_t total = 0;
    for (const auto& x : l.specs) {
        total =
            checked_add(total, checked_mul(max_memory(x, len, s.max_num_batched_tokens, state_blocks_of(s)), x.layers));
    }
    return total;
}

/// Python's str(round(bytes / GiB_bytes, 2)), format_gib in vllm/utils/mem_utils.py: two decimals
/// at most, trailing zeros dropped down to one ("24.0", "6.3", "3.79").
std::string format_gib(std::int64_t bytes) {
    std::string t = python_gib_text(Rational(bytes));
    if (t.size() > 3 && t.back() == '0') t.pop_back();
    return t;
}

/// vLLM's refusal when one request of max_model_len does not fit the memory left for the cache:
/// _check_enough_kv_cache_memory and estimate_max_model_len (a binary search over 1..max_model_len
/// for the longest that fits), kv_cache_utils.py at 001cabc1be16a59a70d720ed61a13b678c060a18,
/// in its words ("models's" as written there).
void check_enough_kv_cache_memory(const Layout& l, std::int64_t mml, const EngineSettings& s, std::int64_t available,
                                  EngineAnswer& a) {
    if (available <= 0) {
        a.refusal =
            "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more "
            "details.";
        return;
    }
    std::int64_t needed = request_bytes(l, mml, s);
    if (needed <= available) return;
    std::int64_t estimated = 0;
    if (request_bytes(l, 1, s) <= available) {
        std::int64_t left = 1;
        std::int64_t right = mml;
        estimated = 1;
        while (left <= right) {
            std::int64_t mid = left + (right - left) / 2;
            if (request_bytes(l, mid, s) <= available) {
                estimated = mid;
                left = mid + 1;
            } else {
                right = mid - 1;
            }
        }
    }
    a.estimated_max_context = estimated;
    std::string estimated_msg =
        estimated > 0 ? fmt::format(fmt::runtime(kVllmEstimateWords), fmt::arg("estimated", estimated)) : "";
    a.refusal = "ValueError: " +
                fmt::format(fmt::runtime(kVllmRefusalWords), fmt::arg("max_model_len", mml),
                            fmt::arg("needed_gib", format_gib(needed)),
                            fmt::arg("available_gib", format_gib(available)), fmt::arg("estimate", estimated_msg)) +
                std::string(kVllmRefusalAdvice);
}

/// A model with Mamba layers holds one block of its pool per decode sequence: more sequences
/// than blocks and vLLM will not capture its CUDA graphs (kVllmMambaBlocksWords). The check came
/// with pull 38270 (merged 2026-03-30); kvcat takes 0.19.0 as the first release with it, which
/// was not read.
void check_mamba_blocks(const Model& m, const EngineSettings& s, std::int64_t blocks, EngineAnswer& a) {
    if (!m.linear || m.linear->layers <= 0 || !s.max_num_seqs) return;
    if (!s.version.empty() && vllm_version_before(s.version, "0.19.0")) return;
    if (*s.max_num_seqs <= blocks) return;
    a.refusal = "ValueError: " + fmt::format(fmt::runtime(kVllmMambaBlocksWords),
                                             fmt::arg("max_num_seqs", *s.max_num_seqs), fmt::arg("blocks", blocks));
    if (s.max_num_seqs_default) {
        a.differences.push_back(
            {"max_num_seqs",
             fmt::format("vLLM's default --max-num-seqs on this card is {}, more than the {} blocks of this pool; "
                         "--max-num-seqs {} or fewer starts",
                         *s.max_num_seqs, blocks, blocks)});
    }
}

}  // namespace

bool vllm_large_card(const Rational& card_bytes, std::string_view card_name) {
    std::string name(card_name);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return !(card_bytes < Rational(70LL << 30)) && name.find("a100") == std::string::npos;
}

std::int64_t vllm_default_max_num_seqs(const Rational& card_bytes, std::string_view card_name) {
    return vllm_large_card(card_bytes, card_name) ? kVllmLargeCardMaxNumSeqs : kVllmSmallCardMaxNumSeqs;
}

void vllm_card_defaults(EngineSettings& settings, const Rational& card_bytes, std::string_view card_name) {
    bool large = vllm_large_card(card_bytes, card_name);
    if (!settings.max_num_batched_tokens_given) {
        settings.max_num_batched_tokens = large ? kVllmLargeCardMaxNumBatchedTokens : kVllmMaxNumBatchedTokens;
    }
    if (settings.max_num_seqs) return;
    settings.max_num_seqs = vllm_default_max_num_seqs(card_bytes, card_name);
    settings.max_num_seqs_default = true;
}

EngineAnswer vllm_allocation(const Model& m, const CacheDtype& dtype, const EngineSettings& s) {
    Layout l = layout(m, dtype, s);
    std::int64_t mml = max_model_len_of(m, s);
    std::int64_t tp = std::max<std::int64_t>(1, s.gpus);
    EngineAnswer a;
    a.engine = Engine::vllm;
    a.rule = s.version.empty() ? "vLLM V1, the newest rules held (kv_cache_interface.py and kv_cache_utils.py at "
                                 "001cabc1)"
                               : fmt::format("vLLM {} (V1)", s.version);
    a.hybrid_manager = l.hybrid_manager;
    a.hybrid_manager_why = l.why;
    a.block_size = l.block_size;
    a.context = mml;
    // What one request of max_model_len takes, part by part, on one card.
    Rational grows_per_token(0);
    for (const auto& x : l.specs) {
        EnginePart p;
        p.layers = x.layers;
        Rational need = Rational(max_memory(x, mml, s.max_num_batched_tokens, state_blocks_of(s))) * Rational(x.layers);
        switch (x.kind) {
            case Spec::Kind::full:
                p.kind = EnginePartKind::base_cache;
                break;
            case Spec::Kind::sliding:
            case Spec::Kind::chunked:
                p.kind = EnginePartKind::swa_cache;
                break;
            case Spec::Kind::mla:
                p.kind = EnginePartKind::mla_latent;
                break;
            case Spec::Kind::indexer:
                p.kind = EnginePartKind::indexer;
                break;
            case Spec::Kind::mamba:
                p.kind = EnginePartKind::recurrent_state;
                break;
        }
        if (x.attention()) {
            p.cells = need.num() / x.layers / x.token_bytes;
            if (x.kind == Spec::Kind::mla || x.kind == Spec::Kind::indexer) {
                p.k_bytes = need;
            } else {
                p.k_bytes = need / Rational(2);
                p.v_bytes = need / Rational(2);
            }
            p.k_type = std::string(dtype.name);
            p.v_type = std::string(dtype.name);
            p.how = fmt::format("{} {} layers x {} token slots ({} blocks of {}) x {} bytes per token per layer",
                                x.layers, kind_name(x.kind), group_thousands(p.cells), p.cells / l.block_size,
                                l.block_size, x.token_bytes);
            if (x.kind == Spec::Kind::full || x.kind == Spec::Kind::mla || x.kind == Spec::Kind::indexer) {
                grows_per_token += Rational(x.token_bytes) * Rational(x.layers);
            }
            a.kv_bytes += need;
        } else {
            // The state a request holds, unpadded; the pool pads each layer's page (a difference below).
            p.k_bytes = Rational(0);
            p.v_bytes = Rational(l.mamba_state_bytes);
            p.k_type = l.conv_dtype;
            p.v_type = l.ssm_dtype;
            p.cells = 1;
            p.how =
                fmt::format("{} layers, conv state in {}, recurrent state in {}", x.layers, l.conv_dtype, l.ssm_dtype);
            StateElements e = fixed_state_elements(m, tp);
            p.k_bytes = e.conv * Rational(l.conv_bytes);
            p.v_bytes = e.recurrent * Rational(l.ssm_bytes);
            a.state_bytes += p.bytes();
        }
        a.parts.push_back(p);
    }
    // Every figure is one card's, as vLLM plans each worker's pool; the textbook's is split evenly
    // over the cards, except an MLA latent, which every card keeps whole.
    Rational split = m.mla && m.variant == AttentionVariant::mla ? Rational(1) : Rational(tp);
    a.engine_bytes_per_token = grows_per_token;
    a.textbook_bytes_per_token = growing_kv_bytes_per_token(m, dtype) / split;
    a.textbook_kv_bytes = kv_cache_bytes(m, dtype, mml) / split;
    a.textbook_state_bytes = fixed_state_bytes(m) / Rational(tp);
    a.per_card = tp > 1;
    if (s.available_bytes) check_enough_kv_cache_memory(l, mml, s, s.available_bytes->floor(), a);
    if (s.available_bytes && !a.refusal) {
        VllmPool pool = vllm_pool(m, dtype, s, s.available_bytes->floor());
        a.tokens = pool.tokens;
        a.blocks = pool.num_blocks;
        a.max_concurrency = pool.max_concurrency;
        check_mamba_blocks(m, s, pool.num_blocks, a);
    }
    if (m.sliding && m.sliding->layers > 0 && !m.linear) {
        // The same model with the manager the other way, so that both figures are in view.
        EngineSettings other = s;
        other.hybrid_manager = l.hybrid_manager ? EngineSwitch::off : EngineSwitch::on;
        Rational per_token(0);
        for (const auto& x : layout(m, dtype, other).specs) {
            if (x.kind == Spec::Kind::full || x.kind == Spec::Kind::mla || x.kind == Spec::Kind::indexer) {
                per_token += Rational(x.token_bytes) * Rational(x.layers);
            }
        }
        a.other_manager_bytes_per_token = per_token;
        if (s.available_bytes && *s.available_bytes > Rational(0)) {
            VllmPool o = vllm_pool(m, dtype, other, s.available_bytes->floor());
            a.other_manager_tokens = o.tokens;
            a.other_manager_concurrency = o.max_concurrency;
        }
    }

    // The places the allocation leaves the textbook, named.
    bool bounded = m.sliding && m.sliding->layers > 0;
    if (bounded && !l.hybrid_manager) {
        a.differences.push_back(
            {"hybrid manager off",
             fmt::format("every {} layer is allocated as full attention: {} bytes per token where the textbook's "
                         "growing layers need {} (unify_hybrid_kv_cache_specs, kv_cache_utils.py)",
                         name_of(m.sliding->kind), a.engine_bytes_per_token.to_display(),
                         a.textbook_bytes_per_token.to_display())});
    }
    if (bounded && l.hybrid_manager) {
        a.differences.push_back(
            {"SWA reserve",
             fmt::format("each {} layer holds up to window {} {}+ max_num_batched_tokens {} tokens per request, in "
                         "whole blocks{} (kv_cache_interface.py)",
                         name_of(m.sliding->kind), group_thousands(m.sliding->window),
                         m.sliding->kind == WindowKind::sliding ? "- 1 " : "", s.max_num_batched_tokens,
                         m.sliding->kind == WindowKind::sliding ? ", plus one" : "")});
    }
    a.differences.push_back({"block rounding", fmt::format("a request takes whole blocks of {} tokens in every layer "
                                                           "group",
                                                           l.block_size)});
    bool has_state = std::any_of(l.specs.begin(), l.specs.end(), [](const Spec& x) { return !x.attention(); });
    if (has_state) {
        if (l.block_size != s.block_size.value_or(16)) {
            a.differences.push_back(
                {"block size raised",
                 fmt::format("the attention block size is raised to {} tokens so that a page holds one layer's state "
                             "(\"Setting attention block size to {} tokens\", models/config.py)",
                             l.block_size, l.block_size)});
        }
        std::int64_t state_page = l.mamba_state_bytes / m.linear->layers;
        std::int64_t padded = checked_mul(l.block_size, l.attn_token_bytes);
        if (padded > state_page) {
            a.differences.push_back(
                {"state page padded", fmt::format("each state page is padded from {} to {} bytes "
                                                  "to match the attention page",
                                                  group_thousands(state_page), group_thousands(padded))});
        }
        if (state_blocks_of(s) > 1) {
            a.differences.push_back(
                {"state pages per request",
                 fmt::format("with prefix caching vLLM {} charges each request {} state pages in every Mamba layer "
                             "(mamba_cache_mode align, MambaSpec.max_memory_usage_bytes, kv_cache_interface.py)",
                             s.version, state_blocks_of(s))});
        }
        if (a.state_bytes != a.textbook_state_bytes) {
            a.differences.push_back(
                {"state dtype",
                 fmt::format("the conv state is kept in {} and the recurrent state in {}: {} bytes per request{}, "
                             "where the model record's dtypes give {} (mamba_utils.py)",
                             l.conv_dtype, l.ssm_dtype, a.state_bytes.to_display(), tp > 1 ? " per card" : "",
                             a.textbook_state_bytes.to_display())});
        }
    }
    if (sparse_mla_fp8(m, dtype)) {
        a.differences.push_back({"fp8_ds_mla",
                                 "an fp8 cache of a sparse-MLA model is stored as fp8_ds_mla: 656 bytes "
                                 "per token per layer (512 fp8 values, 4 float32 scales, 64 bf16 rope "
                                 "values), not 576 (kv_cache_interface.py, models/config.py)"});
    }
    if (m.kv_heads && tp > *m.kv_heads) {
        a.differences.push_back(
            {"KV heads repeated", fmt::format("{} cards for {} KV heads: each card keeps one head", tp, *m.kv_heads)});
    }
    return a;
}

std::string vllm_cache_size_line(std::int64_t tokens) {
    return fmt::format("GPU KV cache size: {} tokens", group_thousands(tokens));
}

std::vector<std::string> vllm_log_lines(const EngineAnswer& a) {
    std::vector<std::string> out;
    if (!a.tokens) return out;
    out.push_back(vllm_cache_size_line(*a.tokens));
    if (a.max_concurrency) {
        std::array<char, 32> buf{};
        std::snprintf(buf.data(), buf.size(), "%.2f", *a.max_concurrency);
        out.push_back(
            fmt::format("Maximum concurrency for {} tokens per request: {}x", group_thousands(a.context), buf.data()));
    }
    return out;
}

}  // namespace kvcat
