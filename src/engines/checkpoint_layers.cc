#include "engines/checkpoint_layers.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "support/suggest.h"

namespace kvcat {

namespace {

/// fp8 checkpoints' block, weight_block_size [128, 128] in Qwen's and DeepSeek's configs.
constexpr std::int64_t kBlock = 128;

/// One linear layer's weight on a rank, `copies` of them (layers, times the experts a rank holds),
/// with what vLLM checks an fp8 block against (validate_fp8_block_shape): the output partitions
/// that must be whole blocks and, for a row-parallel layer split over ranks, the input's width.
struct Linear {
    std::int64_t out = 0;
    std::int64_t in = 0;
    Rational copies = 1;
    std::vector<std::int64_t> whole_out;  ///< partitions that must divide by the block
    std::int64_t whole_in = 0;            ///< 0: not checked
    bool experts = false;                 ///< FusedMoE's w13 or w2, checked in vLLM's words for them
};

struct RankShape {
    std::vector<Linear> linears;  ///< quantized in an fp8 checkpoint
    Rational plain = 0;           ///< elements kept in the model's dtype: embeddings, head, norms, biases, router
};

std::int64_t blocks(std::int64_t n) {
    return (n + kBlock - 1) / kBlock;
}

/// vLLM's divide(): an AssertionError when the ranks do not divide a width.
std::int64_t divide(std::int64_t n, std::int64_t by) {
    if (n % by != 0) throw EngineRefusal(fmt::format("AssertionError: {} is not divisible by {}", n, by));
    return n / by;
}

/// The ValueErrors vLLM raises loading an fp8 checkpoint whose split the block does not divide
/// (validate_fp8_block_shape for a linear layer, Fp8MoEMethod.create_weights for the experts).
void check_fp8_split(const RankShape& s) {
    auto refuse = [](std::string_view what, std::int64_t size, char side) {
        throw EngineRefusal(fmt::format("ValueError: {} = {} is not divisible by weight quantization block_{} = {}.",
                                        what, size, side, kBlock));
    };
    for (const auto& l : s.linears) {
        for (std::int64_t part : l.whole_out) {
            if (part % kBlock != 0) {
                refuse(l.experts ? "The output_size of gate's and up's weight" : "Weight output_partition_size", part,
                       'n');
            }
        }
        if (l.whole_in % kBlock != 0) {
            refuse(l.experts ? "The input_size of down's weight" : "Weight input_size_per_partition", l.whole_in, 'k');
        }
    }
}

/// One rank's widths as vLLM's layers split them.
struct RankWidths {
    std::int64_t q = 0, k = 0;  ///< the rank's query and key (or value) widths
    std::int64_t vocab = 0;     ///< the padded vocabulary's rows on the rank
    std::int64_t ffn = 0;       ///< a dense layer's feed-forward width on the rank
    std::int64_t experts = 0;   ///< the experts on the rank
    std::int64_t expert_width = 0;
};

RankWidths rank_widths(const Model& model, std::int64_t tp, bool expert_parallel) {
    const TensorWidths& w = *model.tensors;
    const std::int64_t head = *model.head_dim, kv = *model.kv_heads;
    if (*model.attention_heads % tp != 0) {
        throw EngineRefusal(fmt::format(
            "ValueError: Total number of attention heads ({}) must be divisible by tensor parallel size ({}).",
            *model.attention_heads, tp));
    }
    // QKVParallelLinear: with as many ranks as K and V heads or more, each rank keeps one (a replica).
    std::int64_t kv_heads = 1;
    if (tp >= kv) {
        divide(tp, kv);
    } else {
        kv_heads = divide(kv, tp);
    }
    RankWidths r;
    r.q = *model.attention_heads / tp * head;
    r.k = kv_heads * head;
    r.vocab = divide((w.vocab_size + 63) / 64 * 64, tp);
    if (w.experts > 0) {
        r.experts = expert_parallel ? divide(w.experts, tp) : w.experts;
        r.expert_width = expert_parallel ? w.expert_ffn_size : divide(w.expert_ffn_size, tp);
    } else {
        r.ffn = divide(w.ffn_size, tp);
    }
    return r;
}

/// The elements one rank holds, by kind.
RankShape rank_shape(const Model& model, std::int64_t tp, bool expert_parallel) {
    const TensorWidths& w = *model.tensors;
    const std::int64_t layers = *model.num_layers, hidden = w.hidden_size, head = *model.head_dim;
    const RankWidths r = rank_widths(model, tp, expert_parallel);
    const bool split = tp > 1;
    RankShape s;
    const Rational l(layers);
    s.plain = Rational(r.vocab) * Rational(hidden) * Rational(w.tied_embeddings ? 1 : 2);
    s.plain += (Rational(2) * l + Rational(1)) * Rational(hidden);  // the two norms a layer, the last one
    if (w.llama_arch == "qwen3" || w.llama_arch == "qwen3moe") s.plain += Rational(2) * l * Rational(head);
    const std::int64_t q = r.q, k = r.k;
    if (w.llama_arch == "qwen2") s.plain += l * Rational(q + 2 * k);
    // On one card the merged q, k and v are checked but the last; split over cards, all three
    // (QKVParallelLinear's output_size is a rank's widths x the cards, K and V replicas included,
    // so validate_fp8_block_shape always finds it split by the cards).
    std::vector<std::int64_t> qkv_parts = {q, k};
    if (split) qkv_parts.push_back(k);
    s.linears.push_back({q + 2 * k, hidden, l, qkv_parts, 0});
    s.linears.push_back({hidden, q, l, {}, split ? q : 0});
    if (w.experts > 0) {
        s.plain += l * Rational(w.experts) * Rational(hidden);  // the router, on every rank
        // Fp8MoEMethod's checks: w13's width always, w2's input over several ranks.
        s.linears.push_back({2 * r.expert_width, hidden, l * Rational(r.experts), {r.expert_width}, 0, true});
        s.linears.push_back({hidden, r.expert_width, l * Rational(r.experts), {}, split ? r.expert_width : 0, true});
    } else {
        s.linears.push_back({2 * r.ffn, hidden, l, {r.ffn}, 0});
        s.linears.push_back({hidden, r.ffn, l, {}, split ? r.ffn : 0});
    }
    return s;
}

/// The checkpoint formats kvcat builds vLLM's layers for: a float one (every parameter in it) or
/// fp8 (the linear layers), scaled per tensor or channel or per 128 x 128 block.
struct Format {
    std::string_view name;
    std::int64_t bytes;  ///< a parameter of the float formats
    bool fp8 = false;
    bool block = false;
};
constexpr std::array<Format, 8> kFormats = {{{"bf16", 2},
                                             {"fp16", 2},
                                             {"f16", 2},
                                             {"f32", 4},
                                             {"fp32", 4},
                                             {"fp8", 1, true},
                                             {"fp8_e4m3", 1, true},
                                             {"fp8_block", 1, true, true}}};

bool read_architecture(const Model& model) {
    static constexpr std::array<std::string_view, 4> kRead = {"llama", "qwen2", "qwen3", "qwen3moe"};
    if (!model.tensors || !model.num_layers || !model.attention_heads || !model.kv_heads || !model.head_dim)
        return false;
    const TensorWidths& w = *model.tensors;
    if (std::find(kRead.begin(), kRead.end(), w.llama_arch) == kRead.end()) return false;
    // Counts and widths past any real model's are no model's file kvcat read, and keep every product
    // of two of them (a rank's q width, a merged layer's rows) inside 64 bits; the products taken
    // with the layer count are Rational's, which refuses an overflow.
    constexpr std::int64_t kMostHeads = std::int64_t{1} << 20, kMostWidth = std::int64_t{1} << 40;
    auto within = [](std::int64_t v, std::int64_t most) { return v >= 1 && v <= most; };
    if (!within(*model.num_layers, kMostHeads) || !within(*model.attention_heads, kMostHeads) ||
        !within(*model.kv_heads, kMostHeads) || !within(*model.head_dim, kMostHeads))
        return false;
    if (!within(w.hidden_size, kMostWidth) || !within(w.vocab_size, kMostWidth)) return false;
    // A shared expert (qwen35moe) or a dense width beside the experts is no layer kvcat read.
    if (w.shared_expert_ffn_size > 0 || (w.experts > 0) == (w.ffn_size > 0)) return false;
    if (w.experts > 0) return w.experts <= kMostHeads && within(w.expert_ffn_size, kMostWidth);
    return within(w.ffn_size, kMostWidth);
}

/// The format's entry by its name, in any case; nullptr for a format kvcat builds no layers for.
const Format* find_format(std::string_view format) {
    auto known = std::find_if(kFormats.begin(), kFormats.end(),
                              [&](const Format& f) { return equal_ignoring_case(f.name, format); });
    return known == kFormats.end() ? nullptr : &*known;
}

/// The format's entry when kvcat builds the engine's layers for it, on `gpus` cards, for this
/// model's architecture; nullptr otherwise.
const Format* known_format(const Model& model, std::string_view format, std::int64_t gpus) {
    if (gpus < 1 || !read_architecture(model)) return nullptr;
    return find_format(format);
}

}  // namespace

std::optional<std::string_view> checkpoint_float_dtype(std::string_view format) {
    const Format* known = find_format(format);
    if (!known || known->fp8) return std::nullopt;
    if (known->bytes == 4) return "float32";
    return equal_ignoring_case(known->name, "bf16") ? "bfloat16" : "float16";
}

std::optional<EngineWeights> checkpoint_layers(const Model& model, std::string_view format, std::int64_t gpus,
                                               bool expert_parallel, std::string_view engine) {
    const Format* known = known_format(model, format, gpus);
    if (!known) return std::nullopt;
    const bool fp8 = known->fp8, block = known->block;
    RankShape s = rank_shape(model, gpus, expert_parallel);
    if (block) check_fp8_split(s);
    Rational linear = 0, scales = 0;
    for (const auto& l : s.linears) {
        linear += l.copies * Rational(l.out) * Rational(l.in);
        scales += l.copies * Rational(blocks(l.out)) * Rational(blocks(l.in));
    }
    EngineWeights out;
    // What a card keeps whole beside its share: the norms, the router, and a K and V head of its
    // own when there are fewer of them than cards.
    std::string whole;
    if (gpus > 1) {
        whole = fmt::format(", with what each card keeps whole (the norms{}{}{})",
                            model.tensors->experts > 0 ? ", the router" : "",
                            gpus > *model.kv_heads ? ", a K and a V head" : "",
                            expert_parallel && model.tensors->experts > 0
                                ? fmt::format("; {} of the {} experts a card, each whole: --enable-expert-parallel",
                                              model.tensors->experts / gpus, model.tensors->experts)
                                : "");
    }
    if (!fp8) {
        out.bytes = (linear + s.plain) * Rational(known->bytes);
        out.how = fmt::format("derived: {}'s layers as its model files build them, {} bytes a parameter{}", engine,
                              known->bytes, whole);
        return out;
    }
    out.bytes = linear + (block ? scales * Rational(4) : Rational(0)) + s.plain * Rational(2);
    out.how = fmt::format(
        "derived: {}'s layers for an fp8 checkpoint, the linear ones in fp8{}, the embeddings, head, norms and "
        "router in bf16{}",
        engine,
        block ? " with a float32 scale a 128 x 128 block" : " (their scales, a tensor's or a channel's, not counted)",
        whole);
    return out;
}

std::optional<std::vector<std::int64_t>> checkpoint_allocations(const Model& model, std::string_view format,
                                                                std::int64_t gpus, bool expert_parallel,
                                                                std::int64_t rotary_bytes, std::int64_t layer_scalars) {
    const Format* known = known_format(model, format, gpus);
    if (!known || known->fp8) return std::nullopt;
    const TensorWidths& w = *model.tensors;
    const RankWidths r = rank_widths(model, gpus, expert_parallel);
    const std::int64_t hidden = w.hidden_size, head = *model.head_dim;
    const bool qwen3 = w.llama_arch == "qwen3" || w.llama_arch == "qwen3moe";
    std::vector<std::int64_t> out;
    // Rational refuses a product past 64 bits (OverflowError); every width here is bounded above.
    auto add = [&](std::int64_t rows, std::int64_t columns) {
        out.push_back((Rational(rows) * Rational(columns) * Rational(known->bytes)).floor());
    };
    add(r.vocab, hidden);  // embed_tokens
    for (std::int64_t layer = 0; layer < *model.num_layers; ++layer) {
        add(r.q + 2 * r.k, hidden);                          // qkv_proj
        if (w.llama_arch == "qwen2") add(r.q + 2 * r.k, 1);  // its bias
        add(hidden, r.q);                                    // o_proj
        if (layer == 0 && rotary_bytes > 0) out.push_back(rotary_bytes);
        for (std::int64_t i = 0; i < layer_scalars; ++i) out.push_back(4);  // the attention layer's float32s
        if (qwen3) {
            add(head, 1);  // q_norm
            add(head, 1);  // k_norm
        }
        if (w.experts > 0) {
            // Mixtral's block makes its router before the experts, Qwen3's after them.
            if (!qwen3) add(w.experts, hidden);
            add(r.experts * 2 * r.expert_width, hidden);  // w13
            add(r.experts * hidden, r.expert_width);      // w2
            if (qwen3) add(w.experts, hidden);
        } else {
            add(2 * r.ffn, hidden);  // gate_up_proj
            add(hidden, r.ffn);      // down_proj
        }
        add(hidden, 1);  // input_layernorm
        add(hidden, 1);  // post_attention_layernorm
    }
    add(hidden, 1);                                // the last norm
    if (!w.tied_embeddings) add(r.vocab, hidden);  // lm_head
    return out;
}

}  // namespace kvcat
