#include "engines/llamacpp/llamacpp_quant.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "engines/engine_memory.h"
#include "engines/engine_rules.h"
#include "support/rational.h"
#include "support/suggest.h"

namespace kvcat {

namespace {

// llama-quantize's mixes without an importance matrix, each with its default type
// (llama_ftype_get_default_type).
constexpr std::array kMixes = {
    LlamaMix{"Q4_0", "Q4_0"},       LlamaMix{"Q4_1", "Q4_1"},     LlamaMix{"Q5_0", "Q5_0"},
    LlamaMix{"Q5_1", "Q5_1"},       LlamaMix{"IQ4_NL", "IQ4_NL"}, LlamaMix{"IQ4_XS", "IQ4_XS"},
    LlamaMix{"Q2_K", "Q2_K"},       LlamaMix{"Q3_K_S", "Q3_K"},   LlamaMix{"Q3_K_M", "Q3_K"},
    LlamaMix{"Q3_K_L", "Q3_K"},     LlamaMix{"Q4_K_S", "Q4_K"},   LlamaMix{"Q4_K_M", "Q4_K"},
    LlamaMix{"Q5_K_S", "Q5_K"},     LlamaMix{"Q5_K_M", "Q5_K"},   LlamaMix{"Q6_K", "Q6_K"},
    LlamaMix{"Q8_0", "Q8_0"},       LlamaMix{"F16", "f16"},       LlamaMix{"BF16", "bf16"},
    LlamaMix{"MXFP4_MOE", "MXFP4"},
};

// MXFP4 (ggml's block of 32 four-bit floats and one shared exponent byte: 17 bytes), the
// experts' type of llama-quantize's MXFP4_MOE; not a format records size whole models in.
constexpr WeightQuant kMxfp4{"MXFP4", 32, 17};

WeightQuant type(std::string_view name) {
    if (name == kMxfp4.name) return kMxfp4;
    auto q = find_weight_quant(name);
    if (!q) throw std::logic_error("a llama-quantize type is missing from the weight-format table");
    return *q;
}

bool is(const WeightQuant& t, std::string_view name) {
    return t.name == name;
}

/// use_more_bits: the first and last eighth of the layers, and every third one between.
bool use_more_bits(int i, int n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

enum class Category { output, token_embd, attn_v, attn_k, attn_q, attn_output, ffn_up, ffn_gate, ffn_down, other };

/// tensor_get_category. A fused attn_qkv (Qwen3.5's linear layers) is one of the attn_v kind
/// (category_is_attn_v): it takes attn_v's rules and counts among its tensors.
Category category_of(const std::string& name) {
    auto has = [&](std::string_view part) { return name.find(part) != std::string::npos; };
    if (name == "output.weight") return Category::output;
    if (name == "token_embd.weight") return Category::token_embd;
    if (has("attn_qkv.weight")) return Category::attn_v;
    if (has("attn_v.weight")) return Category::attn_v;
    if (has("attn_k.weight")) return Category::attn_k;
    if (has("attn_q.weight")) return Category::attn_q;
    if (has("attn_output.weight")) return Category::attn_output;
    if (has("ffn_up")) return Category::ffn_up;
    if (has("ffn_gate")) return Category::ffn_gate;
    if (has("ffn_down")) return Category::ffn_down;
    return Category::other;
}

/// tensor_allows_quantization for this model's tensors: 2-D and 3-D ".weight" tensors but the
/// norms and the expert router.
bool quantised(const GgufTensorShape& t) {
    const std::string& n = t.name;
    bool weight = n.size() >= 6 && n.compare(n.size() - 6, 6, "weight") == 0;
    return t.dims >= 2 && weight && n.find("_norm.weight") == std::string::npos &&
           n.find("ffn_gate_inp.weight") == std::string::npos;
}

/// What one model's plan depends on besides the tensor itself.
struct State {
    std::string_view mix;
    std::string arch;
    int n_layer = 0;
    std::int64_t n_gqa = 1;
    std::int64_t n_expert = 0;
    bool is_70b = false;   ///< llama.cpp's LLM_TYPE_70B: 80 layers, llama with GQA or qwen2
    bool tied = true;      ///< no output.weight among the tensors
    bool imatrix = false;  ///< qs.has_imatrix
    int n_attention_wv = 0;
    int i_attention_wv = 0;
    int i_ffn_down = 0;
};

/// layer_info: the counter for a dense model, the tensor's own block for one with experts.
int layer_of(const std::string& name, int counter, const State& s) {
    return s.n_expert <= 1 ? counter : gguf_block_of(name);
}

/// llama_tensor_get_type_impl, for the mixes of kMixes (no IQ1/IQ2/IQ3 branch is reachable).
WeightQuant raised(State& s, WeightQuant t, const GgufTensorShape& tensor, Category c) {
    const std::string_view m = s.mix;
    const bool eight = s.n_expert == 8;
    if (m == "MXFP4_MOE") {
        // The output (and tied embeddings) and every 2-D tensor to Q8_0, the experts to MXFP4.
        bool output = c == Category::output || (s.tied && c == Category::token_embd);
        return !output && tensor.ne[2] > 1 ? t : type("Q8_0");
    }
    if (c == Category::output || (s.tied && c == Category::token_embd)) {
        if (tensor.ne[0] % t.block_weights != 0) return type("Q8_0");
        if (!is(t, "Q8_0")) return type("Q6_K");
        return t;
    }
    if (c == Category::token_embd) return t;
    if (c == Category::attn_v) {
        if (m == "Q2_K")
            t = type(s.n_gqa >= 4 ? "Q4_K" : "Q3_K");
        else if ((m == "IQ4_NL" || m == "IQ4_XS") && s.n_gqa >= 4)
            t = type("Q5_K");
        else if (m == "Q3_K_M")
            t = type(s.i_attention_wv < 2 ? "Q5_K" : "Q4_K");
        else if (m == "Q3_K_L")
            t = type("Q5_K");
        else if ((m == "Q4_K_M" || m == "Q5_K_M") && use_more_bits(s.i_attention_wv, s.n_attention_wv))
            t = type("Q6_K");
        else if (m == "Q4_K_S" && s.i_attention_wv < 4)
            t = type("Q5_K");
        if (s.is_70b && (is(t, "Q3_K") || is(t, "Q4_K"))) t = type("Q5_K");
        if (eight) t = type("Q8_0");
        ++s.i_attention_wv;
        return t;
    }
    if (c == Category::attn_k) return eight ? type("Q8_0") : t;
    if (c == Category::ffn_down) {
        const int i = layer_of(tensor.name, s.i_ffn_down, s), n = s.n_layer;
        ++s.i_ffn_down;
        if (m == "Q2_K") return type("Q3_K");
        if (m == "Q3_K_M") return type(i < n / 16 ? "Q5_K" : "Q4_K");  // not falcon: Q4_K past the first sixteenth
        if (m == "Q3_K_L") return type("Q5_K");
        if (m == "Q4_K_M") return use_more_bits(i, n) ? type("Q6_K") : t;
        if (m == "IQ4_NL" || m == "IQ4_XS") return i < n / 8 && !s.imatrix ? type("Q5_K") : t;
        if (m == "Q5_K_M") return use_more_bits(i, n) ? type("Q6_K") : t;
        if (m == "Q4_K_S") return i < n / 8 ? type("Q5_K") : t;
        // With an importance matrix the first eighth of ffn_down is kept from going wrong.
        if ((m == "Q4_0" || m == "Q5_0") && s.imatrix && i < n / 8) return type(m == "Q4_0" ? "Q4_1" : "Q5_1");
        return t;
    }
    if (c == Category::attn_output) {
        if (eight) {
            bool listed = m == "Q2_K" || m == "Q3_K_S" || m == "Q3_K_M" || m == "IQ4_NL" || m == "Q4_K_S" ||
                          m == "Q4_K_M" || m == "IQ4_XS";
            return listed ? type("Q5_K") : t;
        }
        if (m == "Q2_K") return type("Q3_K");
        if (m == "Q3_K_M") return type("Q4_K");
        if (m == "Q3_K_L") return type("Q5_K");
        return t;
    }
    return t;  // attn_q, ffn_gate, ffn_up: only IQ3 mixes raise them
}

/// tensor_type_fallback: a row that does not divide into the type's blocks.
WeightQuant fallback(WeightQuant t, std::int64_t ncols) {
    if (ncols % t.block_weights == 0) return t;
    WeightQuant r = t;
    if (is(t, "IQ4_XS"))
        r = type("IQ4_NL");
    else if (is(t, "Q2_K") || is(t, "Q3_K"))
        r = type("Q4_0");
    else if (is(t, "Q4_K"))
        r = type("Q5_0");
    else if (is(t, "Q5_K"))
        r = type("Q5_1");
    else if (is(t, "Q6_K"))
        r = type("Q8_0");
    if (ncols % r.block_weights != 0) r = type("f16");
    return r;
}

std::int64_t row_bytes(const WeightQuant& t, std::int64_t ncols) {
    return checked_mul(ncols / t.block_weights, static_cast<std::int64_t>(t.block_bytes));
}

}  // namespace

std::span<const LlamaMix> llama_mixes() {
    return kMixes;
}

std::optional<LlamaMix> find_llama_mix(std::string_view name) {
    for (const auto& m : kMixes) {
        if (equal_ignoring_case(m.name, name)) return m;
    }
    return std::nullopt;
}

std::optional<LlamaMix> llama_mix_of_file_type(std::string_view printed) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 19> kNames = {{
        {"Q4_0", "Q4_0"},
        {"Q4_1", "Q4_1"},
        {"Q5_0", "Q5_0"},
        {"Q5_1", "Q5_1"},
        {"IQ4_NL - 4.5 bpw", "IQ4_NL"},
        {"IQ4_XS - 4.25 bpw", "IQ4_XS"},
        {"Q2_K - Medium", "Q2_K"},
        {"Q3_K - Small", "Q3_K_S"},
        {"Q3_K - Medium", "Q3_K_M"},
        {"Q3_K - Large", "Q3_K_L"},
        {"Q4_K - Small", "Q4_K_S"},
        {"Q4_K - Medium", "Q4_K_M"},
        {"Q5_K - Small", "Q5_K_S"},
        {"Q5_K - Medium", "Q5_K_M"},
        {"Q6_K", "Q6_K"},
        {"Q8_0", "Q8_0"},
        {"F16", "F16"},
        {"BF16", "BF16"},
        {"MXFP4 MoE", "MXFP4_MOE"},
    }};
    for (const auto& [file_type, mix] : kNames) {
        if (printed == file_type) return find_llama_mix(mix);
    }
    return std::nullopt;
}

std::string ggml_type_name(const WeightQuant& t) {
    std::string n(t.name);
    if (n.rfind("IQ", 0) == 0 || n == kMxfp4.name) {
        for (char& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (!n.empty() && n[0] == 'Q') {
        n[0] = 'q';
    }
    return n;
}

std::map<std::string, int> QuantPlan::tensors_per_type() const {
    std::map<std::string, int> out;
    for (const auto& t : types) ++out[ggml_type_name(t.type)];
    return out;
}

QuantPlan llamacpp_quant_plan(const Model& model, const LlamaMix& mix, bool imatrix) {
    QuantPlan plan{mix, imatrix, llamacpp_tensors(model), {}, 0};
    const TensorWidths& w = *model.tensors;
    State s;
    s.mix = mix.name;
    s.imatrix = imatrix;
    s.arch = w.llama_arch;
    s.n_layer = static_cast<int>(*model.num_layers);
    const std::int64_t kv_heads = gguf_head_count_kv(model);
    s.n_gqa = *model.attention_heads / kv_heads;
    s.n_expert = w.experts;
    // src/models/llama.cpp and qwen2.cpp: 80 layers make LLM_TYPE_70B (llama: unless every head
    // has its own KV head, the 65B).
    s.is_70b = s.n_layer == 80 && ((s.arch == "llama" && *model.attention_heads != kv_heads) || s.arch == "qwen2");
    bool layer0_attention = false;
    for (const auto& t : plan.tensors) {
        if (category_of(t.name) == Category::attn_v) ++s.n_attention_wv;
        if (t.name == "output.weight") s.tied = false;
        if (t.name == "blk.0.attn_k.weight") layer0_attention = true;
    }
    // n_gqa() is layer 0's: 0 where the per-layer head_count_kv gives a state layer none.
    if (gguf_kv_heads_per_layer(s.arch) && !layer0_attention) s.n_gqa = 0;
    const WeightQuant base = type(mix.base);
    const bool block_type = base.block_weights > 1;
    const WeightQuant f32 = type("f32");
    plan.types.reserve(plan.tensors.size());
    for (const auto& t : plan.tensors) {
        WeightQuant chosen = f32;
        if (!t.f32_in_file && quantised(t)) {
            chosen = base;
            if (block_type) chosen = fallback(raised(s, base, t, category_of(t.name)), t.ne[0]);
        }
        std::int64_t bytes = checked_mul(t.rows(), row_bytes(chosen, t.ne[0]));
        plan.types.push_back(QuantTensor{&t, chosen, bytes});
        plan.bytes = checked_add(plan.bytes, bytes);
    }
    return plan;
}

namespace {

bool input_layer_tensor(std::string_view name) {
    for (std::string_view prefix : {"token_embd.", "position_embd.", "token_types.", "per_layer_token_embd."}) {
        if (name.starts_with(prefix)) return true;
    }
    return false;
}

std::vector<NamedTensorBytes> named_bytes(const QuantPlan& plan) {
    std::vector<NamedTensorBytes> out;
    out.reserve(plan.types.size());
    for (const QuantTensor& t : plan.types) out.push_back({t.tensor->name, t.bytes, ggml_type_name(t.type)});
    return out;
}

/// A tensor's name and bytes without a copy of either: the byte sums run in every lint of a
/// llama.cpp start, where copying each name showed among the allocations.
struct TensorRef {
    std::string_view name;
    std::int64_t bytes = 0;
};

std::vector<TensorRef> refs_of(const QuantPlan& plan) {
    std::vector<TensorRef> out;
    out.reserve(plan.types.size());
    for (const QuantTensor& t : plan.types) out.push_back({t.tensor->name, t.bytes});
    return out;
}

std::vector<TensorRef> refs_of(const std::vector<NamedTensorBytes>& tensors) {
    std::vector<TensorRef> out;
    out.reserve(tensors.size());
    for (const NamedTensorBytes& t : tensors) out.push_back({t.name, t.bytes});
    return out;
}

template <class Tensor>
bool has_output(const std::vector<Tensor>& tensors) {
    return std::any_of(tensors.begin(), tensors.end(), [](const Tensor& t) { return t.name == "output.weight"; });
}

std::int64_t input_layer_bytes(const std::vector<TensorRef>& tensors) {
    std::int64_t host = 0;
    for (const TensorRef& t : tensors) {
        if (input_layer_tensor(t.name)) host = checked_add(host, t.bytes);
    }
    return host;
}

/// The copy of token_embd a file without output.weight loads to the card as its output.
std::int64_t tied_copy_bytes(const std::vector<TensorRef>& tensors) {
    if (has_output(tensors)) return 0;
    for (const TensorRef& t : tensors) {
        if (t.name == "token_embd.weight") return t.bytes;
    }
    return 0;
}

std::int64_t off_card_bytes(const std::vector<TensorRef>& tensors) {
    return input_layer_bytes(tensors) - tied_copy_bytes(tensors);
}

}  // namespace

std::int64_t llamacpp_host_bytes(const QuantPlan& plan) {
    return input_layer_bytes(refs_of(plan));
}

std::int64_t llamacpp_card_bytes(const QuantPlan& plan) {
    auto tensors = refs_of(plan);
    return checked_add(plan.bytes - input_layer_bytes(tensors), tied_copy_bytes(tensors));
}

std::string llamacpp_host_bytes_how(const QuantPlan& plan) {
    return llamacpp_off_card_how(named_bytes(plan));
}

std::int64_t llamacpp_off_card_bytes(const std::vector<NamedTensorBytes>& tensors) {
    return off_card_bytes(refs_of(tensors));
}

std::int64_t llamacpp_off_card_bytes(const QuantPlan& plan) {
    return off_card_bytes(refs_of(plan));
}

std::string llamacpp_off_card_how(const std::vector<NamedTensorBytes>& tensors) {
    std::string names;
    for (const NamedTensorBytes& t : tensors) {
        if (!input_layer_tensor(t.name)) continue;
        names += fmt::format("{}{}{}", names.empty() ? "" : ", ", t.name, t.type.empty() ? "" : " (" + t.type + ")");
    }
    if (names.empty()) return "no input-layer tensor";
    return fmt::format("{}: llama.cpp loads the input layer to the CPU{} (src/llama-model.cpp at 80fb11ac)", names,
                       has_output(tensors) ? "" : ", and a copy of token_embd to the card as its tied output");
}

std::optional<QuantPlan> named_quant_plan(const Model& model, std::string_view weights, std::string_view engine,
                                          bool imatrix) {
    auto mix = find_llama_mix(weights);
    if (!mix || !has_tensor_inventory(model)) return std::nullopt;
    // llama.cpp and what runs its files (ollama, LM Studio); ik_llama.cpp quantises by rules of
    // its own.
    bool llamacpp = !engine.empty() && parse_engine(engine) == Engine::llamacpp;
    if (!engine.empty() && !llamacpp) return std::nullopt;
    bool float_mix = mix->name == "F16" || mix->name == "BF16";
    if (float_mix && !llamacpp) return std::nullopt;
    return llamacpp_quant_plan(model, *mix, imatrix);
}

std::string quant_plan_how(const QuantPlan& plan) {
    std::string per_type;
    for (const auto& [name, n] : plan.tensors_per_type()) {
        per_type += fmt::format("{}{} {}", per_type.empty() ? "" : ", ", n, name);
    }
    return fmt::format("llama-quantize's {}{} of the model's {} tensors: {} (llama.cpp 80fb11ac, src/llama-quant.cpp)",
                       plan.mix.name, plan.imatrix ? " with an importance matrix" : "", plan.tensors.size(), per_type);
}

}  // namespace kvcat
