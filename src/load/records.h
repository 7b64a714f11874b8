// Typed records, one struct per kind.
//
// A record is read from its positioned YAML tree after schema validation. Every
// field that may be missing or invalid is optional here, so a record with a schema
// error still takes part in the cross-record checks it can support, and one bad
// record never hides the findings of another. Each record keeps its tree, so any
// rule can point at the exact value it is judging.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "load/schema.h"
#include "load/yaml_loader.h"
#include "support/rational.h"
#include "vocab/design.h"

namespace kvcat {

struct Source {
    std::string name;
    std::string detail;
    std::string url;
    std::string date;
};

struct LintIgnore {
    std::string rule;
    std::string reason;
    Mark mark;
    std::string claim;  ///< prose-arithmetic only: the claim's text, as written in the record
};

/// Growing layers of one shape, for models whose KV heads or head_dim vary by layer.
struct KvGroup {
    std::int64_t layers = 0;
    std::int64_t kv_heads = 0;
    std::int64_t head_dim = 0;  ///< K's width; V's too unless v_head_dim says otherwise
    std::optional<std::int64_t> v_head_dim =
        std::nullopt;  ///< V's width when it differs from K's (MiMo-V2-Flash: 192 and 128)
    friend bool operator==(const KvGroup&, const KvGroup&) = default;
};

struct KvLayers {
    std::optional<std::int64_t> count;
    std::optional<std::int64_t> shared;     ///< layers reusing another layer's cache
    std::optional<std::int64_t> stateless;  ///< layers that keep neither a cache nor a state (MLP-only blocks)
    std::optional<std::int64_t> interval;
    std::optional<std::int64_t> first_index;
    std::vector<std::int64_t> indices;
};

struct MlaShape {
    std::int64_t kv_lora_rank = 0;
    std::int64_t qk_rope_head_dim = 0;
    /// Throws OverflowError when the sum does not fit in 64 bits.
    std::int64_t latent_dim() const { return checked_add(kv_lora_rank, qk_rope_head_dim); }
};

struct SlidingShape {
    std::int64_t window = 0;
    std::int64_t layers = 0;
    WindowKind kind = WindowKind::sliding;
    /// The bounded layers' own shape when it differs from the model's kv_heads, head_dim and
    /// v_head_dim (Gemma 4, MiMo-V2-Flash: sliding and full layers have heads of their own).
    std::optional<std::int64_t> kv_heads = std::nullopt;
    std::optional<std::int64_t> head_dim = std::nullopt;
    std::optional<std::int64_t> v_head_dim = std::nullopt;
};

/// The fixed-state layers of a hybrid. Which widths apply depends on the kind: heads for
/// Gated DeltaNet and Mamba-2, an inner width (and a state width for Mamba-1) otherwise.
struct LinearShape {
    StateKind kind = StateKind::gated_deltanet;
    std::int64_t layers = 0;
    std::int64_t key_heads = 0;
    std::int64_t value_heads = 0;
    std::int64_t key_head_dim = 0;
    std::int64_t value_head_dim = 0;
    std::int64_t inner_dim = 0;  ///< Mamba-1 d_inner; the channels of a short convolution
    std::int64_t state_dim = 0;  ///< Mamba-1 d_state
    std::int64_t conv_kernel = 0;
    std::string state_dtype;
    std::string conv_state_dtype;   ///< the conv state's dtype when it differs from state_dtype; "" = the same
    bool beside_attention = false;  ///< in the same layers as attention (Falcon-H1), not layers of their own
};

/// A sparse-attention indexer's key cache (DeepSeek-V3.2): per token, per growing layer.
struct IndexerShape {
    std::int64_t head_dim = 0;
    std::string cache_dtype;       ///< the element type of the keys, e.g. fp8
    std::int64_t scale_bytes = 0;  ///< bytes of one quantisation scale
    std::int64_t quant_block = 0;  ///< elements per scale
};

/// What a converted GGUF of the model holds besides its attention geometry: the widths of the
/// embedding, feed-forward and vocabulary, and llama.cpp's architecture name. From these and the
/// heads, engines/llamacpp/llamacpp_tensors lists every tensor with its shape.
struct TensorWidths {
    std::string llama_arch;  ///< one of kGgufArchNames
    std::int64_t hidden_size = 0;
    std::int64_t ffn_size = 0;  ///< a dense layer's feed-forward width; 0 for an all-MoE model
    std::int64_t vocab_size = 0;
    bool tied_embeddings = false;  ///< no output.weight: the token embeddings serve as the output
    bool rope_freqs = false;       ///< a rope_freqs.weight of head_dim / 2 (Llama 3.1's rope scaling)
    std::int64_t experts = 0;      ///< routed experts per layer; 0 for a dense model
    std::int64_t expert_ffn_size = 0;
    std::int64_t experts_used = 0;  ///< routed experts a token goes through; 0 when the record does not say
    /// The width of a shared expert beside the routed ones, with a gate of its own (qwen35moe); 0
    /// for none.
    std::int64_t shared_expert_ffn_size = 0;
    /// deepseek2: the leading layers whose feed-forward is dense (first_k_dense_replace), ffn_size
    /// wide; the layers after them have experts. 0 for every other architecture.
    std::int64_t dense_layers = 0;
    /// deepseek2: shared experts beside the routed ones (n_shared_experts), each expert_ffn_size
    /// wide, with no gate of their own.
    std::int64_t shared_experts = 0;
    /// deepseek2: the rank of the query's compression (q_lora_rank); 0 when the queries are not
    /// compressed (DeepSeek-V2-Lite).
    std::int64_t q_lora_rank = 0;
    /// deepseek2: a per-expert score bias beside the router (e_score_correction_bias, which the
    /// noaux_tc routing of V3, R1 and Kimi K2 has).
    bool expert_score_bias = false;
};

struct Model {
    std::string name;
    std::string config_source;
    bool config_verified = false;
    std::optional<double> total_params_b;
    std::optional<double> active_params_b;
    std::optional<Rational> total_params_b_exact;  ///< the same figures, exactly as written
    std::optional<Rational> active_params_b_exact;
    std::optional<std::int64_t> native_context;
    std::optional<std::int64_t> num_layers;
    std::string attention_variant;
    std::optional<AttentionVariant> variant;  ///< attention_variant, parsed; nullopt when invalid
    std::optional<std::int64_t> attention_heads;
    std::optional<std::int64_t> kv_heads;
    std::optional<std::int64_t> head_dim;
    std::optional<std::int64_t> v_head_dim;  ///< V's width when it differs from K's (head_dim)
    KvLayers kv_layers;
    std::vector<KvGroup> kv_groups;  ///< empty when every growing layer has kv_heads x head_dim
    std::optional<MlaShape> mla;
    std::optional<SlidingShape> sliding;
    std::optional<LinearShape> linear;
    std::optional<IndexerShape> indexer;
    std::optional<TensorWidths> tensors;  ///< complete, or absent
};

/// The card's total memory as its driver or runtime printed it (memory_reported).
struct ReportedMemory {
    Rational value;      ///< the printed figure, exactly
    std::string unit;    ///< B, MiB, GiB or MB
    std::int64_t bytes;  ///< as the record states it (the lint checks it against value x unit)
    std::string by;      ///< nvidia-smi, rocm-smi, cuda or metal
    std::string line;    ///< the printed line
};

struct Accelerator {
    std::string vendor;
    std::string name;
    std::optional<double> memory_gb;
    std::string memory_type;
    std::optional<std::int64_t> memory_bus_bits;
    std::optional<double> memory_bandwidth_gb_s;
    std::optional<Rational> memory_gb_exact;
    std::optional<Rational> memory_bandwidth_gb_s_exact;
    std::optional<ReportedMemory> memory_reported;
    /// The total CUDA or HIP gives a program (memory_runtime_total; `by` is cuda or hip).
    std::optional<ReportedMemory> memory_runtime_total;
};

struct KvBasis {
    std::optional<std::int64_t> layers;
    std::optional<std::int64_t> kv_heads;
    std::optional<std::int64_t> head_dim;
    std::optional<std::int64_t>
        v_head_dim;  ///< V's width when it differs from K's: the layer caches head_dim + v_head_dim
    std::optional<std::int64_t> latent_dim;
    std::vector<KvGroup> groups;  ///< for a model whose layers differ
    std::optional<std::int64_t> kv_factor;
    std::optional<Rational> bytes_per_element;
    std::optional<std::int64_t> indexer_bytes;  ///< an indexer's key cache, bytes per token per layer
    std::optional<std::int64_t> window;         ///< all-sliding model: the layers stop growing here
    std::string statement;
};

/// One measured point of a row: a context and what the source reported there. A record in
/// the single-point form has one, read from its top-level keys; a record with
/// `measurements:` has one per item.
struct MeasurementPoint {
    std::int64_t context_length = 0;
    std::optional<double> tps;          ///< decode tokens/s per request
    std::optional<Rational> tps_exact;  ///< the decimal as written, for exact comparisons
    std::optional<double> prefill_tps;  ///< prompt-processing tokens/s
    std::optional<double> ttft_ms;      ///< time to first token
    std::optional<double> total_tps;    ///< decode tokens/s summed over the requests in flight
    std::optional<Rational> total_tps_exact;
    std::optional<std::int64_t> prompt_tokens;  ///< the prompt length of the prefill test
    std::optional<std::int64_t> gen_tokens;     ///< tokens generated in the decode test
    std::int64_t concurrency = 1;               ///< requests in flight
    std::optional<double> tps_stddev;
    std::optional<double> prefill_tps_stddev;
    /// True when the prompt's prefix was already cached: the TTFT and prefill speed are not a
    /// full prefill of context_length. nullopt when the record does not say.
    std::optional<bool> prefix_cached;
    std::optional<bool> warm;  ///< measured after warm-up runs (true) or on a cold first run (false)
    /// Where its keys are: "" for the top level, "measurements.3." for the fourth item.
    std::string path;
    bool listed = false;  ///< true when it is an item of `measurements:`

    std::string key(std::string_view field) const {
        std::string k = path;
        k.append(field);
        return k;
    }
};

/// One quality result of a row's cache dtype: a plain score, or a result against a baseline run.
struct QualityResult {
    std::string benchmark;
    std::string metric;
    std::optional<double> value;
    std::optional<Rational> value_exact;
    std::string unit;
    std::optional<bool> higher_is_better;
    std::string baseline_kv_cache_dtype;
    std::optional<double> baseline_value;
    std::optional<Rational> baseline_value_exact;
    bool relative_to_baseline = false;  ///< value is itself measured against the baseline run
    std::optional<std::int64_t> context_length;
    std::optional<Rational> recovery_percent;  ///< as stated: value / baseline_value x 100
    std::string path;                          ///< "quality.0."

    std::string key(std::string_view field) const {
        std::string k = path;
        k.append(field);
        return k;
    }

    /// What the value is, as the catalog's `comparison` column says it: "against-baseline" when
    /// it is measured against the baseline run (a divergence, or a share of its score),
    /// "beside-baseline" when the baseline's own score is printed beside it, "score" when no
    /// baseline run was made.
    std::string_view comparison() const {
        if (relative_to_baseline || (recovery_percent && !baseline_value)) return "against-baseline";
        if (baseline_value) return "beside-baseline";
        return "score";
    }
};

struct KvRow {
    std::string model;
    std::optional<std::string> accelerator;  ///< nullopt when null or absent
    /// The card as the source names it when no one accelerator record applies.
    std::optional<std::string> accelerator_named;
    std::string engine;
    std::optional<std::string> engine_version;
    std::string kv_cache_dtype;
    std::optional<std::string> v_cache_dtype;  ///< V's type when it differs from K's (kv_cache_dtype)
    std::optional<std::string> weight_quant;
    std::string attention_variant;
    std::optional<Rational> kv_bytes_per_token;
    KvBasis basis;
    /// The measured points: one for the single-point form, one per item of `measurements:`.
    /// Empty when the record has neither form right (a schema finding says which).
    std::vector<MeasurementPoint> points;
    std::vector<QualityResult> quality;
    std::optional<std::int64_t> weight_bytes;  ///< the weights' real size, when the record states it
    std::optional<std::string> provenance;
    std::optional<std::string> measured_on_model;
    std::optional<std::string> context_extension;
    std::optional<std::string> offload;
    /// How many cards of `accelerator` the run used (1 when the record does not say), and how
    /// it split over them, when stated.
    std::int64_t gpus = 1;
    bool gpus_stated = false;  ///< the record writes `gpus`; absent, the count is 1 by assumption
    /// `unstated.gpus`: why the source gives no count; without `gpus`, the catalog's gpus is NULL.
    std::optional<std::string> unstated_gpus;
    std::optional<std::int64_t> tensor_parallel;
    std::optional<std::int64_t> pipeline_parallel;
    std::optional<std::int64_t> data_parallel;
    /// The speculative decoding used; "" when the record says it was off (null), nullopt
    /// when it does not say.
    std::optional<std::string> speculative_decoding;
    std::optional<std::string> throughput_side;  ///< "server" or "client"
    /// The dtype the engine kept the fixed state in (conv and recurrent), when the record says;
    /// absent: the model record's state_dtype (and conv_state_dtype).
    std::optional<std::string> state_dtype;
    /// The conv state's dtype when the engine kept it apart from state_dtype.
    std::optional<std::string> conv_state_dtype;
    std::string methodology;
    std::string notes;
    std::vector<LintIgnore> lint_ignore;
};

/// One record file, loaded and typed.
struct Record {
    std::string file;     ///< the path as shown in findings
    std::string path_id;  ///< the id its path implies: kv-efficiency/NAME
    RecordKind kind = RecordKind::kv_efficiency;
    std::shared_ptr<const SourceText> source;
    std::optional<YamlNode> root;  ///< empty when the file did not parse
    std::string id;                ///< as written, or "" when absent
    std::vector<Source> sources;
    std::optional<Model> model;
    std::optional<Accelerator> accelerator;
    std::optional<KvRow> kv;

    /// The node at a dotted path ("kv_bytes_basis.layers"), or nullptr.
    const YamlNode* node(std::string_view dotted) const;
    /// The position of the value at a dotted path; falls back to its nearest parent, then the file.
    Position where(std::string_view dotted) const;
    /// The position of the key at a dotted path (for a value that is absent or null).
    Position where_key(std::string_view dotted) const;
};

/// The id of the catalog row one point becomes: the record's id for a record in the
/// single-point form; "<id>@<context>" for a listed point ("@32k", "@0", "@130064"), with
/// "-c<N>" added when the point was taken at a concurrency other than 1.
std::string point_row_id(const std::string& record_id, const MeasurementPoint& point);

/// "32k" for 32768, "1m" for 1048576, "0", or the plain number when it is not a whole
/// number of k.
std::string context_tag(std::int64_t context);

/// The name of an id, without its folder: "llamacpp-qwen35-27b-rtx3090-64k" of
/// "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k"; an id with no folder is its own name.
std::string_view id_name(std::string_view id);

/// The context tag at the end of an id and the tokens it names: "...-64k" -> {"64k", 65536},
/// "...-1m" -> {"1m", 1048576}; nullopt when the id ends in no such tag. The id-context-tag
/// rule and `kvcat new` read ids with this.
std::optional<std::pair<std::string, std::int64_t>> context_tag_of_id(const std::string& id);

/// The kind a path under records/ implies ("models/x.yaml" -> model), or nullopt.
std::optional<RecordKind> kind_from_path(std::string_view relative_path);

/// Loads one file: YAML, schema, typed fields. Findings go to `out`.
Record load_record(const std::string& disk_path, const std::string& shown_path, const std::string& relative_path,
                   std::vector<Diagnostic>& out);

/// Types an already parsed record (used by load_record and by tests that build text in memory).
Record make_record(LoadedYaml loaded, const std::string& relative_path, std::vector<Diagnostic>& out);

}  // namespace kvcat
