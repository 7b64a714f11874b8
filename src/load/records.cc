#include "load/records.h"

#include "load/load_findings.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace kvcat {

namespace {

std::string str(const YamlNode* parent, std::string_view key) {
    if (!parent) return "";
    auto v = as_string(parent->find(key));
    return v.value_or("");
}

std::optional<std::string> opt_str(const YamlNode* parent, std::string_view key) {
    if (!parent) return std::nullopt;
    const YamlNode* n = parent->find(key);
    if (!n || n->is_null()) return std::nullopt;
    return as_string(n);
}

std::optional<std::int64_t> int_field(const YamlNode* parent, std::string_view key) {
    if (!parent) return std::nullopt;
    auto v = as_integer(parent->find(key));
    if (v && *v < 0) return std::nullopt;
    return v;
}

std::optional<double> num_field(const YamlNode* parent, std::string_view key) {
    if (!parent) return std::nullopt;
    return as_number(parent->find(key));
}

/// A plain decimal read exactly ("28.8" is 144/5), for figures compared with exact ones.
std::optional<Rational> decimal_field(const YamlNode* parent, std::string_view key) {
    if (!as_number(parent ? parent->find(key) : nullptr)) return std::nullopt;
    return Rational::parse(parent->find(key)->value);
}

std::optional<Rational> rational_field(const YamlNode* parent, std::string_view key) {
    if (!parent) return std::nullopt;
    const YamlNode* n = parent->find(key);
    if (!n || !n->is_scalar()) return std::nullopt;
    return Rational::parse(n->value);
}

/// true or false written plainly; nullopt when absent or anything else (a schema finding).
std::optional<bool> bool_field(const YamlNode* parent, std::string_view key) {
    const YamlNode* n = parent ? parent->find(key) : nullptr;
    if (!n || !n->is_scalar() || n->quoted) return std::nullopt;
    if (n->value == "true") return true;
    if (n->value == "false") return false;
    return std::nullopt;
}

const YamlNode* mapping_field(const YamlNode* parent, std::string_view key) {
    if (!parent) return nullptr;
    const YamlNode* n = parent->find(key);
    return (n && n->is_mapping()) ? n : nullptr;
}

/// A tensors mapping, kept only when it is complete: the architecture, the hidden and vocabulary
/// widths, and a dense feed-forward width or routed experts with their width.
std::optional<TensorWidths> read_tensor_widths(const YamlNode& t) {
    TensorWidths w;
    w.llama_arch = str(&t, "llama_arch");
    auto hidden = int_field(&t, "hidden_size");
    auto vocab = int_field(&t, "vocab_size");
    auto tied = bool_field(&t, "tied_embeddings");
    auto ffn = int_field(&t, "ffn_size");
    auto experts = int_field(&t, "experts");
    auto expert_ffn = int_field(&t, "expert_ffn_size");
    bool moe = experts && expert_ffn;
    if (w.llama_arch.empty() || !hidden || !vocab || !tied || (!ffn && !moe)) return std::nullopt;
    w.hidden_size = *hidden;
    w.vocab_size = *vocab;
    w.tied_embeddings = *tied;
    w.ffn_size = ffn.value_or(0);
    w.rope_freqs = bool_field(&t, "rope_freqs").value_or(false);
    if (moe) {
        w.experts = *experts;
        w.expert_ffn_size = *expert_ffn;
        w.experts_used = int_field(&t, "experts_used").value_or(0);
    }
    w.shared_expert_ffn_size = int_field(&t, "shared_expert_ffn_size").value_or(0);
    w.dense_layers = int_field(&t, "dense_layers").value_or(0);
    w.shared_experts = int_field(&t, "shared_experts").value_or(0);
    w.q_lora_rank = int_field(&t, "q_lora_rank").value_or(0);
    w.expert_score_bias = bool_field(&t, "expert_score_bias").value_or(false);
    return w;
}

std::vector<KvGroup> read_groups(const YamlNode* parent, std::string_view key) {
    std::vector<KvGroup> out;
    const YamlNode* list = parent ? parent->find(key) : nullptr;
    if (!list || !list->is_sequence()) return out;
    for (const auto& item : list->items) {
        auto layers = int_field(&item, "layers");
        auto heads = int_field(&item, "kv_heads");
        auto dim = int_field(&item, "head_dim");
        if (layers && heads && dim) out.push_back(KvGroup{*layers, *heads, *dim, int_field(&item, "v_head_dim")});
    }
    return out;
}

Model read_model(const YamlNode& root) {
    Model m;
    m.name = str(&root, "name");
    m.config_source = str(&root, "config_source");
    m.config_verified = str(&root, "config_verified") == "true";
    m.total_params_b = num_field(&root, "total_params_b");
    m.active_params_b = num_field(&root, "active_params_b");
    m.total_params_b_exact = decimal_field(&root, "total_params_b");
    m.active_params_b_exact = decimal_field(&root, "active_params_b");
    m.native_context = int_field(&root, "native_context");
    m.num_layers = int_field(&root, "num_layers");
    m.attention_variant = str(&root, "attention_variant");
    m.variant = parse_attention_variant(m.attention_variant);
    m.attention_heads = int_field(&root, "attention_heads");
    m.kv_heads = int_field(&root, "kv_heads");
    m.head_dim = int_field(&root, "head_dim");
    m.v_head_dim = int_field(&root, "v_head_dim");
    if (const YamlNode* kl = mapping_field(&root, "kv_layers")) {
        m.kv_layers.count = int_field(kl, "count");
        m.kv_layers.interval = int_field(kl, "interval");
        m.kv_layers.first_index = int_field(kl, "first_index");
        m.kv_layers.shared = int_field(kl, "shared");
        m.kv_layers.stateless = int_field(kl, "stateless");
        if (const YamlNode* idx = kl->find("indices"); idx && idx->is_sequence()) {
            for (const auto& item : idx->items) {
                if (auto v = as_integer(&item)) m.kv_layers.indices.push_back(*v);
            }
        }
    }
    m.kv_groups = read_groups(&root, "kv_groups");
    if (const YamlNode* mla = mapping_field(&root, "mla")) {
        auto rank = int_field(mla, "kv_lora_rank");
        auto rope = int_field(mla, "qk_rope_head_dim");
        if (rank && rope) m.mla = MlaShape{*rank, *rope};
    }
    if (const YamlNode* sw = mapping_field(&root, "sliding_window")) {
        auto window = int_field(sw, "window");
        auto layers = int_field(sw, "layers");
        std::string kind_text = str(sw, "kind");
        auto kind = kind_text.empty() ? std::optional<WindowKind>(WindowKind::sliding) : parse_window_kind(kind_text);
        if (window && layers && kind) {
            m.sliding = SlidingShape{*window,
                                     *layers,
                                     *kind,
                                     int_field(sw, "kv_heads"),
                                     int_field(sw, "head_dim"),
                                     int_field(sw, "v_head_dim")};
        }
    }
    if (const YamlNode* la = mapping_field(&root, "linear_attention")) {
        // A shape is kept only when every width its kind needs is there; the model-layers
        // rule names what is missing.
        LinearShape l;
        auto kind = parse_state_kind(str(la, "kind"));
        l.state_dtype = str(la, "state_dtype");
        l.conv_state_dtype = str(la, "conv_state_dtype");
        l.beside_attention = str(la, "beside_attention") == "true";
        auto layers = int_field(la, "layers");
        bool complete = kind && layers;
        if (complete) {
            l.kind = *kind;
            l.layers = *layers;
            for (std::string_view width : state_kind_widths(*kind)) {
                auto v = int_field(la, std::string(width));
                if (!v) {
                    complete = false;
                    break;
                }
                if (width == "key_heads") l.key_heads = *v;
                if (width == "value_heads") l.value_heads = *v;
                if (width == "key_head_dim") l.key_head_dim = *v;
                if (width == "value_head_dim") l.value_head_dim = *v;
                if (width == "inner_dim") l.inner_dim = *v;
                if (width == "state_dim") l.state_dim = *v;
                if (width == "conv_kernel") l.conv_kernel = *v;
            }
        }
        if (complete) m.linear = l;
    }
    if (const YamlNode* ix = mapping_field(&root, "indexer")) {
        auto head_dim = int_field(ix, "head_dim");
        auto scale = int_field(ix, "scale_bytes");
        auto block = int_field(ix, "quant_block");
        std::string dtype = str(ix, "cache_dtype");
        if (head_dim && scale && block && !dtype.empty()) m.indexer = IndexerShape{*head_dim, dtype, *scale, *block};
    }
    if (const YamlNode* t = mapping_field(&root, "tensors")) m.tensors = read_tensor_widths(*t);
    return m;
}

/// A total as a tool printed it (memory_reported, memory_runtime_total); nullopt when the mapping
/// is absent or lacks a figure (the schema says which).
std::optional<ReportedMemory> reported_memory(const YamlNode& root, std::string_view key) {
    const YamlNode* m = mapping_field(&root, key);
    if (!m) return std::nullopt;
    auto value = decimal_field(m, "value");
    auto bytes = int_field(m, "bytes");
    std::string unit = str(m, "unit");
    if (!value || !bytes || *bytes <= 0 || unit.empty()) return std::nullopt;
    return ReportedMemory{*value, unit, *bytes, str(m, "by"), str(m, "line")};
}

Accelerator read_accelerator(const YamlNode& root) {
    Accelerator a;
    a.vendor = str(&root, "vendor");
    a.name = str(&root, "name");
    a.memory_gb = num_field(&root, "memory_gb");
    a.memory_type = str(&root, "memory_type");
    a.memory_bus_bits = int_field(&root, "memory_bus_bits");
    a.memory_bandwidth_gb_s = num_field(&root, "memory_bandwidth_gb_s");
    a.memory_gb_exact = decimal_field(&root, "memory_gb");
    a.memory_bandwidth_gb_s_exact = decimal_field(&root, "memory_bandwidth_gb_s");
    a.memory_reported = reported_memory(root, "memory_reported");
    a.memory_runtime_total = reported_memory(root, "memory_runtime_total");
    return a;
}

/// Where a mapping's key is written (the mapping itself when the key is absent).
Mark key_mark(const YamlNode& mapping, std::string_view key) {
    for (const auto& [k, v] : mapping.entries) {
        if (k.value == key) return k.mark;
    }
    return mapping.mark;
}

MeasurementPoint read_point(const YamlNode& parent, std::string path, bool listed) {
    MeasurementPoint p;
    p.context_length = int_field(&parent, "context_length").value_or(0);
    p.tps = num_field(&parent, "measured_tps_at_ctx");
    p.tps_exact = decimal_field(&parent, "measured_tps_at_ctx");
    p.prefill_tps = num_field(&parent, "measured_prefill_tps_at_ctx");
    p.ttft_ms = num_field(&parent, "measured_ttft_ms_at_ctx");
    p.total_tps = num_field(&parent, "measured_total_tps_at_ctx");
    p.total_tps_exact = decimal_field(&parent, "measured_total_tps_at_ctx");
    p.prompt_tokens = int_field(&parent, "prompt_tokens");
    p.gen_tokens = int_field(&parent, "gen_tokens");
    p.concurrency = int_field(&parent, "concurrency").value_or(1);
    p.tps_stddev = num_field(&parent, "tps_stddev");
    p.prefill_tps_stddev = num_field(&parent, "prefill_tps_stddev");
    p.prefix_cached = bool_field(&parent, "prefix_cached");
    p.warm = bool_field(&parent, "warm");
    p.path = std::move(path);
    p.listed = listed;
    return p;
}

/// The points of a row, in either form. A record that has both forms, or neither, gets a
/// schema finding here and no points, so no per-point rule judges a half-read record.
std::vector<MeasurementPoint> read_points(const YamlNode& root, const SourceText& source,
                                          std::vector<Diagnostic>& out) {
    std::vector<MeasurementPoint> points;
    const YamlNode* list = root.find("measurements");
    static constexpr std::string_view kSingle[] = {"context_length", "measured_tps_at_ctx", "measured_ttft_ms_at_ctx"};
    if (list) {
        bool mixed = false;
        for (auto key : kSingle) {
            if (root.find(key)) {
                out.push_back(diag::bad_value(
                    source.position(key_mark(root, key)), std::string(key),
                    "cannot stand beside measurements: a record is either one point (context_length, "
                    "measured_tps_at_ctx, measured_ttft_ms_at_ctx at the top level) or a list of points under "
                    "measurements; move it into a point"));
                mixed = true;
            }
        }
        if (mixed || !list->is_sequence()) return points;
        if (list->items.empty()) {
            out.push_back(diag::bad_value(source.position(list->mark), "measurements", "must hold at least one point"));
            return points;
        }
        std::size_t index = 0;
        std::vector<int> lines;  // where each kept point starts, for the repeated-point message
        for (const auto& item : list->items) {
            std::string path = fmt::format("measurements.{}.", index++);
            if (!item.is_mapping() || !as_integer(item.find("context_length"))) continue;
            MeasurementPoint p = read_point(item, std::move(path), true);
            for (std::size_t i = 0; i < points.size(); ++i) {
                if (points[i].context_length == p.context_length && points[i].concurrency == p.concurrency) {
                    out.push_back(diag::bad_value(
                        source.position(item.find("context_length")->mark), "context_length",
                        fmt::format("repeats the point at line {} (context {}, concurrency {}); each point of a "
                                    "record needs its own context or concurrency",
                                    lines[i], p.context_length, p.concurrency)));
                    break;
                }
            }
            lines.push_back(item.mark.line);
            points.push_back(std::move(p));
        }
        return points;
    }
    // The single-point form: its three keys are required, as the schema's table once said.
    bool complete = true;
    for (auto key : kSingle) {
        if (root.find(key)) continue;
        bool nullable = key != "context_length";
        out.push_back(diag::missing_key(source.position(root.mark), std::string(key),
                                        nullable ? "a number or null" : "a whole number", nullable));
        complete = false;
    }
    if (complete && as_integer(root.find("context_length"))) points.push_back(read_point(root, "", false));
    return points;
}

QualityResult read_quality(const YamlNode& item, std::string path) {
    QualityResult q;
    q.benchmark = str(&item, "benchmark");
    q.metric = str(&item, "metric");
    q.value = num_field(&item, "value");
    q.value_exact = decimal_field(&item, "value");
    q.unit = str(&item, "unit");
    if (const YamlNode* h = item.find("higher_is_better"); h && h->is_scalar() && !h->quoted) {
        if (h->value == "true") q.higher_is_better = true;
        if (h->value == "false") q.higher_is_better = false;
    }
    q.baseline_kv_cache_dtype = str(&item, "baseline_kv_cache_dtype");
    q.baseline_value = num_field(&item, "baseline_value");
    q.baseline_value_exact = decimal_field(&item, "baseline_value");
    if (const YamlNode* rel = item.find("relative_to_baseline"); rel && rel->is_scalar() && !rel->quoted) {
        q.relative_to_baseline = rel->value == "true";
    }
    q.context_length = int_field(&item, "context_length");
    q.recovery_percent = decimal_field(&item, "recovery_percent");
    q.path = std::move(path);
    return q;
}

KvRow read_kv(const YamlNode& root, const SourceText& source, std::vector<Diagnostic>& out) {
    KvRow r;
    r.model = str(&root, "model");
    r.accelerator = opt_str(&root, "accelerator");
    r.accelerator_named = opt_str(&root, "accelerator_named");
    r.engine = str(&root, "engine");
    r.engine_version = opt_str(&root, "engine_version");
    r.kv_cache_dtype = str(&root, "kv_cache_dtype");
    r.v_cache_dtype = opt_str(&root, "v_cache_dtype");
    r.weight_quant = opt_str(&root, "weight_quant");
    r.attention_variant = str(&root, "attention_variant");
    r.kv_bytes_per_token = rational_field(&root, "kv_bytes_per_token");
    if (const YamlNode* b = mapping_field(&root, "kv_bytes_basis")) {
        r.basis.layers = int_field(b, "layers");
        r.basis.kv_heads = int_field(b, "kv_heads");
        r.basis.head_dim = int_field(b, "head_dim");
        r.basis.v_head_dim = int_field(b, "v_head_dim");
        r.basis.latent_dim = int_field(b, "latent_dim");
        r.basis.groups = read_groups(b, "groups");
        r.basis.kv_factor = int_field(b, "kv_factor");
        r.basis.bytes_per_element = rational_field(b, "bytes_per_element");
        r.basis.indexer_bytes = int_field(b, "indexer_bytes");
        r.basis.window = int_field(b, "window");
        r.basis.statement = str(b, "statement");
    }
    r.points = read_points(root, source, out);
    if (const YamlNode* ql = root.find("quality"); ql && ql->is_sequence()) {
        std::size_t index = 0;
        for (const auto& item : ql->items) {
            std::string path = fmt::format("quality.{}.", index++);
            if (item.is_mapping()) r.quality.push_back(read_quality(item, std::move(path)));
        }
    }
    r.weight_bytes = int_field(&root, "weight_bytes");
    r.provenance = opt_str(&root, "provenance");
    r.measured_on_model = opt_str(&root, "measured_on_model");
    r.context_extension = opt_str(&root, "context_extension");
    r.offload = opt_str(&root, "offload");
    auto gpus = int_field(&root, "gpus");
    r.gpus = std::max<std::int64_t>(gpus.value_or(1), 1);
    r.gpus_stated = gpus.has_value();
    r.unstated_gpus = opt_str(root.find("unstated"), "gpus");
    r.tensor_parallel = int_field(&root, "tensor_parallel");
    r.pipeline_parallel = int_field(&root, "pipeline_parallel");
    r.data_parallel = int_field(&root, "data_parallel");
    // Null is the source saying it was off ("off" in the catalog), distinct from the key left out.
    if (const YamlNode* spec = root.find("speculative_decoding"); spec && (spec->is_scalar() || spec->is_null())) {
        r.speculative_decoding = spec->is_null() ? std::string() : spec->value;
    }
    r.throughput_side = opt_str(&root, "throughput_side");
    r.state_dtype = opt_str(&root, "state_dtype");
    r.conv_state_dtype = opt_str(&root, "conv_state_dtype");
    r.methodology = str(&root, "methodology");
    r.notes = str(&root, "notes");
    if (const YamlNode* ig = root.find("lint_ignore"); ig && ig->is_sequence()) {
        for (const auto& item : ig->items) {
            if (!item.is_mapping()) continue;
            r.lint_ignore.push_back(
                LintIgnore{str(&item, "rule"), str(&item, "reason"), item.mark, str(&item, "claim")});
        }
    }
    return r;
}

std::vector<Source> read_sources(const YamlNode& root) {
    std::vector<Source> out;
    const YamlNode* list = root.find("sources");
    if (!list || !list->is_sequence()) return out;
    for (const auto& item : list->items) {
        if (!item.is_mapping()) continue;
        out.push_back(Source{str(&item, "name"), str(&item, "detail"), str(&item, "url"), str(&item, "date")});
    }
    return out;
}

}  // namespace

const YamlNode* Record::node(std::string_view dotted) const {
    if (!root) return nullptr;
    const YamlNode* cur = &*root;
    // Part by part, without a list of the parts: the rules look up paths this way thousands of
    // times a lint.
    for (std::string_view rest = dotted; !rest.empty();) {
        auto dot = rest.find('.');
        std::string_view part = rest.substr(0, dot);
        rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
        if (!cur) return nullptr;
        if (cur->is_sequence()) {
            // A list item by its 0-based index: "measurements.2.context_length".
            std::size_t index = 0;
            auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
            if (ec != std::errc() || ptr != part.data() + part.size() || index >= cur->items.size()) return nullptr;
            cur = &cur->items[index];
            continue;
        }
        if (!cur->is_mapping()) return nullptr;
        cur = cur->find(part);
    }
    return cur;
}

Position Record::where(std::string_view dotted) const {
    if (!root || !source) return Position{file, 0, 0};
    if (const YamlNode* n = node(dotted)) {
        return source->position(n->mark);
    }
    auto dot = dotted.rfind('.');
    if (dot == std::string_view::npos) return source->position(root->mark);
    return where(dotted.substr(0, dot));
}

Position Record::where_key(std::string_view dotted) const {
    if (!root || !source) return Position{file, 0, 0};
    auto dot = dotted.rfind('.');
    const YamlNode* parent = dot == std::string_view::npos ? &*root : node(dotted.substr(0, dot));
    std::string_view last = dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
    if (parent && parent->is_mapping()) {
        for (const auto& [k, v] : parent->entries) {
            if (k.value == last) return source->position(k.mark);
        }
    }
    return where(dotted);
}

std::string context_tag(std::int64_t context) {
    constexpr std::int64_t kMi = 1024 * 1024;
    if (context == 0) return "0";
    if (context % kMi == 0) return fmt::format("{}m", context / kMi);
    if (context % 1024 == 0) return fmt::format("{}k", context / 1024);
    return std::to_string(context);
}

std::string point_row_id(const std::string& record_id, const MeasurementPoint& point) {
    if (!point.listed) return record_id;
    std::string id = record_id + "@" + context_tag(point.context_length);
    if (point.concurrency != 1) id += fmt::format("-c{}", point.concurrency);
    return id;
}

std::string_view id_name(std::string_view id) {
    auto slash = id.find('/');
    return slash == std::string_view::npos ? id : id.substr(slash + 1);
}

std::optional<std::pair<std::string, std::int64_t>> context_tag_of_id(const std::string& id) {
    auto dash = id.rfind('-');
    auto slash = id.rfind('/');
    if (dash == std::string::npos || (slash != std::string::npos && dash < slash)) return std::nullopt;
    std::string tag = id.substr(dash + 1);
    if (tag.size() < 2) return std::nullopt;
    char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(tag.back())));
    std::string digits = tag.substr(0, tag.size() - 1);
    if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        })) {
        return std::nullopt;
    }
    std::int64_t n = std::stoll(digits);
    if (unit == 'k') return std::make_pair(tag, n * 1024);
    if (unit == 'm') return std::make_pair(tag, n * 1024 * 1024);
    return std::nullopt;
}

std::optional<RecordKind> kind_from_path(std::string_view relative_path) {
    auto slash = relative_path.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    std::string_view top = relative_path.substr(0, slash);
    for (auto kind : record_kinds()) {
        if (kind_folder(kind) == top) return kind;
    }
    return std::nullopt;
}

Record make_record(LoadedYaml loaded, const std::string& relative_path, std::vector<Diagnostic>& out) {
    Record rec;
    rec.source = loaded.source;
    rec.file = loaded.source ? loaded.source->file() : relative_path;
    rec.path_id = relative_path;
    if (rec.path_id.size() > 5 && rec.path_id.ends_with(".yaml")) {
        rec.path_id.resize(rec.path_id.size() - 5);
    }
    for (auto& d : loaded.diagnostics) out.push_back(std::move(d));
    auto kind = kind_from_path(relative_path);
    if (!kind) {
        auto slash = relative_path.find('/');
        out.push_back(diag::unknown_kind(rec.file,
                                         slash == std::string::npos ? std::string(".") : relative_path.substr(0, slash),
                                         kind_folders_text()));
        return rec;
    }
    rec.kind = *kind;
    if (!loaded.root) return rec;
    rec.root = std::move(loaded.root);
    const YamlNode& root = *rec.root;
    if (!root.is_mapping()) {
        out.push_back(
            diag::not_a_mapping(rec.source->position(root.mark),
                                fmt::format("{} record (found {})", with_article(kind_name(*kind)), root.describe())));
        rec.root.reset();
        return rec;
    }
    validate_fields(root, record_fields(*kind), std::string(kind_name(*kind)), *rec.source, out);
    rec.id = str(&root, "id");
    rec.sources = read_sources(root);
    switch (*kind) {
        case RecordKind::model:
            rec.model = read_model(root);
            break;
        case RecordKind::accelerator:
            rec.accelerator = read_accelerator(root);
            break;
        case RecordKind::kv_efficiency:
            rec.kv = read_kv(root, *rec.source, out);
            break;
        case RecordKind::allocation:
            // The engine-allocation rule reads its figures from the tree, value by value.
            break;
    }
    return rec;
}

Record load_record(const std::string& disk_path, const std::string& shown_path, const std::string& relative_path,
                   std::vector<Diagnostic>& out) {
    return make_record(load_yaml_file(disk_path, shown_path), relative_path, out);
}

}  // namespace kvcat
