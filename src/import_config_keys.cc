#include "import_config_keys.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace kvcat {

namespace {

using K = KeyUse;

constexpr std::string_view kToken = "a token id of the tokenizer";
constexpr std::string_view kTraining = "a training setting (dropout, initialisation, loss)";
constexpr std::string_view kWeights = "a weight shape or an activation: it sets the parameters, not the cache";
constexpr std::string_view kRouting = "mixture-of-experts routing: which weights run, not what is cached";
constexpr std::string_view kNumerics = "a numeric detail of the computation (norms, scaling, capping, gating)";
constexpr std::string_view kPosition = "position encoding: how positions are rotated, not how many are kept";
constexpr std::string_view kBookkeeping = "bookkeeping of the file or of transformers";
constexpr std::string_view kVision = "the vision or audio tower or its tokens, outside the text decoder";
constexpr std::string_view kMambaCompute = "a Mamba kernel or bias setting: the state's size does not depend on it";

// Sorted by name (a test checks), so a lookup is a binary search.
constexpr std::array kKeys = {
    ConfigKey{"_attn_implementation_autoset", K::ignored, kBookkeeping},
    ConfigKey{"_name_or_path", K::read, ""},
    ConfigKey{"_sliding_window_pattern", K::read, ""},
    ConfigKey{"architectures", K::read, ""},
    ConfigKey{"attention_bias", K::ignored, kWeights},
    ConfigKey{"attention_chunk_size", K::read, ""},
    ConfigKey{"attention_dropout", K::ignored, kTraining},
    ConfigKey{"attention_head_dim", K::read, ""},
    ConfigKey{"attention_layers", K::refused,
              "per-layer global/local attention in GPT-Neo's spelling, which kvcat does not read"},
    ConfigKey{"attention_types", K::refused,
              "per-layer global/local attention in GPT-Neo's spelling, which kvcat does not read"},
    ConfigKey{"attention_window", K::refused, "per-layer attention windows (Longformer), which kvcat does not model"},
    ConfigKey{"attn_layer_indices", K::read, ""},
    ConfigKey{"attn_layer_offset", K::read, ""},
    ConfigKey{"attn_layer_period", K::read, ""},
    ConfigKey{"attn_logit_softcapping", K::ignored, kNumerics},
    ConfigKey{"attn_output_gate", K::ignored, kNumerics},
    ConfigKey{"attn_scale", K::ignored, kNumerics},
    ConfigKey{"attn_temperature_tuning", K::ignored, kNumerics},
    ConfigKey{"attn_type_list", K::refused,
              "MiniMax's per-layer choice of lightning (linear) or softmax attention; kvcat has no fixed-state "
              "kind for lightning attention"},
    ConfigKey{"audio_config", K::ignored, kVision},
    ConfigKey{"auto_map", K::ignored, kBookkeeping},
    ConfigKey{"aux_loss_alpha", K::ignored, kTraining},
    ConfigKey{"block_auto_adjust_ff_dim", K::ignored, kWeights},
    ConfigKey{"block_dim", K::ignored, kWeights},
    ConfigKey{"block_ff_dim", K::ignored, kWeights},
    ConfigKey{"block_ffn_dim_multiplier", K::ignored, kWeights},
    ConfigKey{"block_multiple_of", K::ignored, kWeights},
    ConfigKey{"boi_token_index", K::ignored, kVision},
    ConfigKey{"bos_token_id", K::ignored, kToken},
    ConfigKey{"cache_implementation", K::ignored,
              "which transformers cache class to build; the layout it follows is read from the layer keys"},
    ConfigKey{"chunk_size", K::ignored, "the Mamba-2 scan's chunk during prefill: compute, not state"},
    ConfigKey{"conv_L_cache", K::read, ""},
    ConfigKey{"conv_bias", K::ignored, kWeights},
    ConfigKey{"conv_kernel", K::read, ""},
    ConfigKey{"cross_attention_layers", K::refused,
              "cross-attention layers cache the encoded image, not the text tokens; kvcat does not model them"},
    ConfigKey{"d_model", K::refused, "GPT-2's spelling of the hidden width; kvcat reads hidden_size"},
    ConfigKey{"dtype", K::ignored, "the weights' dtype; a row states its own cache dtype"},
    ConfigKey{"eoi_token_index", K::ignored, kVision},
    ConfigKey{"eos_token_id", K::ignored, kToken},
    ConfigKey{"ep_size", K::ignored, kRouting},
    ConfigKey{"expand", K::read, ""},
    ConfigKey{"expert_layer_offset", K::ignored, kRouting},
    ConfigKey{"expert_layer_period", K::ignored, kRouting},
    ConfigKey{"final_logit_softcapping", K::ignored, kNumerics},
    ConfigKey{"first_k_dense_replace", K::ignored, kRouting},
    ConfigKey{"floor_scale", K::ignored, kNumerics},
    ConfigKey{"full_attention_interval", K::read, ""},
    ConfigKey{"full_attn_idxs", K::read, ""},
    ConfigKey{"global_attn_every_n_layers", K::refused,
              "ModernBERT's global/local pattern, an encoder's, which kvcat does not read"},
    ConfigKey{"head_dim", K::read, ""},
    ConfigKey{"hidden_act", K::ignored, kWeights},
    ConfigKey{"hidden_activation", K::ignored, kWeights},
    ConfigKey{"hidden_dropout", K::ignored, kTraining},
    ConfigKey{"hidden_size", K::read, ""},
    ConfigKey{"hybrid_override_pattern", K::read, ""},
    ConfigKey{"image_token_id", K::ignored, kVision},
    ConfigKey{"image_token_index", K::ignored, kVision},
    ConfigKey{"index_head_dim", K::read, ""},
    ConfigKey{"index_n_heads", K::ignored,
              "the indexer's query heads: it caches one key per token, whatever the query heads"},
    ConfigKey{"index_topk", K::ignored, "how many cached tokens each query attends to: compute, not cache"},
    ConfigKey{"initializer_range", K::ignored, kTraining},
    ConfigKey{"interleave_moe_layer_step", K::ignored, kRouting},
    ConfigKey{"intermediate_size", K::ignored, kWeights},
    ConfigKey{"intermediate_size_mlp", K::ignored, kWeights},
    ConfigKey{"kv_channels", K::refused, "ChatGLM's spelling of the KV head width, which kvcat does not read"},
    ConfigKey{"kv_lora_rank", K::read, ""},
    ConfigKey{"layer_norm_eps", K::ignored, kNumerics},
    ConfigKey{"layer_norm_epsilon", K::ignored, kNumerics},
    ConfigKey{"layer_types", K::read, ""},
    ConfigKey{"layers_block_type", K::refused,
              "Zamba-style blocks, where attention layers share weights and caches in a way kvcat does not model"},
    ConfigKey{"linear_attn_config", K::refused,
              "a per-layer linear-attention design (Kimi Linear's KDA) that kvcat does not model"},
    ConfigKey{"linear_conv_kernel_dim", K::read, ""},
    ConfigKey{"linear_key_head_dim", K::read, ""},
    ConfigKey{"linear_num_key_heads", K::read, ""},
    ConfigKey{"linear_num_value_heads", K::read, ""},
    ConfigKey{"linear_value_head_dim", K::read, ""},
    ConfigKey{"mamba_chunk_size", K::ignored, "the Mamba-2 scan's chunk during prefill: compute, not state"},
    ConfigKey{"mamba_conv_bias", K::ignored, kMambaCompute},
    ConfigKey{"mamba_d_conv", K::read, ""},
    ConfigKey{"mamba_d_head", K::read, ""},
    ConfigKey{"mamba_d_ssm", K::read, ""},
    ConfigKey{"mamba_d_state", K::read, ""},
    ConfigKey{"mamba_dt_rank", K::ignored, "the rank of Mamba-1's step projection: a weight, not state"},
    ConfigKey{"mamba_expand", K::read, ""},
    ConfigKey{"mamba_head_dim", K::read, ""},
    ConfigKey{"mamba_hidden_act", K::ignored, kWeights},
    ConfigKey{"mamba_n_groups", K::read, ""},
    ConfigKey{"mamba_n_heads", K::read, ""},
    ConfigKey{"mamba_num_heads", K::read, ""},
    ConfigKey{"mamba_proj_bias", K::ignored, kMambaCompute},
    ConfigKey{"mamba_rms_norm", K::ignored, kNumerics},
    ConfigKey{"mamba_ssm_dtype", K::read, ""},
    ConfigKey{"max_position_embeddings", K::read, ""},
    ConfigKey{"max_window_layers", K::read, ""},
    ConfigKey{"mlp_bias", K::ignored, kWeights},
    ConfigKey{"mlp_hidden_act", K::ignored, kWeights},
    ConfigKey{"mm_tokens_per_image", K::ignored, kVision},
    ConfigKey{"model_type", K::read, ""},
    ConfigKey{"moe_intermediate_size", K::ignored, kRouting},
    ConfigKey{"moe_layer_freq", K::ignored, kRouting},
    ConfigKey{"mtp_num_hidden_layers", K::read, ""},
    ConfigKey{"multi_query_group_num", K::refused,
              "ChatGLM's spelling of the KV heads, which kvcat does not read"},
    ConfigKey{"n_ctx", K::refused, "GPT-2's spelling of the context; kvcat reads max_position_embeddings"},
    ConfigKey{"n_embd", K::refused, "GPT-2's spelling of the hidden width; kvcat reads hidden_size"},
    ConfigKey{"n_group", K::ignored, kRouting},
    ConfigKey{"n_groups", K::read, ""},
    ConfigKey{"n_head", K::refused, "GPT-2's spelling of the attention heads; kvcat reads num_attention_heads"},
    ConfigKey{"n_layer", K::refused, "GPT-2's spelling of the layers; kvcat reads num_hidden_layers"},
    ConfigKey{"n_positions", K::refused, "GPT-2's spelling of the context; kvcat reads max_position_embeddings"},
    ConfigKey{"n_routed_experts", K::ignored, kRouting},
    ConfigKey{"n_shared_experts", K::ignored, kRouting},
    ConfigKey{"no_rope_layer_interval", K::read, ""},
    ConfigKey{"no_rope_layers", K::read, ""},
    ConfigKey{"norm_eps", K::ignored, kNumerics},
    ConfigKey{"norm_topk_prob", K::ignored, kRouting},
    ConfigKey{"num_attention_heads", K::read, ""},
    ConfigKey{"num_dense_layers", K::ignored, kRouting},
    ConfigKey{"num_experts", K::ignored, kRouting},
    ConfigKey{"num_experts_per_tok", K::ignored, kRouting},
    ConfigKey{"num_hidden_layers", K::read, ""},
    ConfigKey{"num_key_value_heads", K::read, ""},
    ConfigKey{"num_kv_shared_layers", K::read, ""},
    ConfigKey{"num_local_experts", K::ignored, kRouting},
    ConfigKey{"num_logits_to_keep", K::ignored, "how many logits the forward pass returns"},
    ConfigKey{"num_nextn_predict_layers", K::read, ""},
    ConfigKey{"output_router_logits", K::ignored, kRouting},
    ConfigKey{"pad_token_id", K::ignored, kToken},
    ConfigKey{"partial_rotary_factor", K::ignored, kPosition},
    ConfigKey{"pretraining_tp", K::ignored, kTraining},
    ConfigKey{"q_lora_rank", K::ignored, "the rank of MLA's query compression: queries are not cached"},
    ConfigKey{"qk_nope_head_dim", K::ignored,
              "MLA's per-head query/key width before compression: the cache holds the latent"},
    ConfigKey{"qk_rope_head_dim", K::read, ""},
    ConfigKey{"quantization_config", K::ignored, "the weights' format; fit takes it as --weight-quant or --weight-bytes"},
    ConfigKey{"query_pre_attn_scalar", K::ignored, kNumerics},
    ConfigKey{"rescale_prenorm_residual", K::ignored, kTraining},
    ConfigKey{"residual_in_fp32", K::ignored, kNumerics},
    ConfigKey{"rms_norm_eps", K::ignored, kNumerics},
    ConfigKey{"rope_interleave", K::ignored, kPosition},
    ConfigKey{"rope_local_base_freq", K::ignored, kPosition},
    ConfigKey{"rope_parameters", K::ignored, kPosition},
    ConfigKey{"rope_scaling", K::read, ""},
    ConfigKey{"rope_theta", K::ignored, kPosition},
    ConfigKey{"routed_scaling_factor", K::ignored, kRouting},
    ConfigKey{"router_aux_loss_coef", K::ignored, kTraining},
    ConfigKey{"router_jitter_noise", K::ignored, kTraining},
    ConfigKey{"scoring_func", K::ignored, kRouting},
    ConfigKey{"seq_aux", K::ignored, kTraining},
    ConfigKey{"sliding_window", K::read, ""},
    ConfigKey{"sliding_window_pattern", K::read, ""},
    ConfigKey{"sliding_window_size", K::read, ""},
    ConfigKey{"ssm_state_size", K::read, ""},
    ConfigKey{"text_config", K::read, ""},
    ConfigKey{"tie_word_embeddings", K::ignored, kWeights},
    ConfigKey{"topk_group", K::ignored, kRouting},
    ConfigKey{"topk_method", K::ignored, kRouting},
    ConfigKey{"torch_dtype", K::ignored, "the weights' dtype; a row states its own cache dtype"},
    ConfigKey{"transformers_version", K::ignored, kBookkeeping},
    ConfigKey{"use_bias", K::ignored, kWeights},
    ConfigKey{"use_cache", K::ignored, kBookkeeping},
    ConfigKey{"use_conv_bias", K::ignored, kMambaCompute},
    ConfigKey{"use_expert_bias", K::ignored, kRouting},
    ConfigKey{"use_mamba_kernels", K::ignored, kMambaCompute},
    ConfigKey{"use_qk_norm", K::ignored, kNumerics},
    ConfigKey{"use_sliding_window", K::read, ""},
    ConfigKey{"v_head_dim", K::ignored, "MLA's per-head value width after up-projection: the cache holds the latent"},
    ConfigKey{"video_token_id", K::ignored, kVision},
    ConfigKey{"vision_config", K::ignored, kVision},
    ConfigKey{"vocab_size", K::ignored, kWeights},
};

}  // namespace

std::span<const ConfigKey> config_keys() { return kKeys; }

const ConfigKey* find_config_key(std::string_view name) {
    auto it = std::lower_bound(kKeys.begin(), kKeys.end(), name,
                               [](const ConfigKey& k, std::string_view n) { return k.name < n; });
    return it != kKeys.end() && it->name == name ? &*it : nullptr;
}

bool looks_cache_relevant(std::string_view name) {
    std::string lower;
    for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static constexpr std::array<std::string_view, 26> kWords = {
        "layer", "head",  "attn",   "attention", "kv",      "cache",    "window", "chunk",  "ssm",
        "mamba", "conv",  "state",  "share",     "index",   "linear",   "pattern", "recurren", "sparse",
        "lora",  "position", "context", "mixer", "hybrid", "retention", "delta", "n_embd"};
    for (auto w : kWords) {
        if (lower.find(w) != std::string::npos) return true;
    }
    return false;
}

}  // namespace kvcat
