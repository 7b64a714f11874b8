#include "import/skeleton.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "import/import_config.h"
#include "model/kv_math.h"
#include "support/spoken_list.h"
#include "support/suggest.h"
#include "support/typed_number.h"
#include "vocab/dtype.h"

namespace kvcat {

namespace {

/// A YAML literal block for a text of several lines: "|\n  line\n  line\n".
std::string yaml_block(std::string_view text) {
    std::string out = "|\n";
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        out += line.empty() ? "\n" : "  " + std::string(line) + "\n";
        start = end + 1;
    }
    return out;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += sep;
        out += item;
    }
    return out;
}

/// "models/x" from "x"; other kinds' prefixes are kept for the caller to refuse.
std::string with_folder(const std::string& id, std::string_view folder) {
    if (id.find('/') != std::string::npos) return id;
    return fmt::format("{}/{}", folder, id);
}

std::string suggestion_for(const std::string& wanted, const std::vector<std::string_view>& ids) {
    std::string near = closest_match(wanted, ids);
    std::vector<std::string> all(ids.begin(), ids.end());
    std::sort(all.begin(), all.end());
    std::string out = near.empty() ? "" : fmt::format("; did you mean '{}'?", near);
    out += all.empty() ? " (the records hold none)" : fmt::format(" Known: {}", join(all, ", "));
    return out;
}

std::string gib(const Rational& bytes) {
    Rational g = bytes / Rational(1024LL * 1024 * 1024);
    std::int64_t hundredths = g.round_scaled(2);
    return fmt::format("{}.{:02d} GiB", group_thousands(hundredths / 100), hundredths % 100);
}

}  // namespace

std::string Skeleton::message() const {
    return join(problems, "\n");
}

std::string default_kv_id(std::string_view engine, std::string_view model_id, std::string_view accelerator_id,
                          std::string_view weight_quant, std::string_view dtype, std::int64_t tokens) {
    auto name_of = [](std::string_view id) {
        if (auto slash = id.rfind('/'); slash != std::string_view::npos) id.remove_prefix(slash + 1);
        return id;
    };
    // The engine without its dots, as the shipped records spell it: llama.cpp is "llamacpp".
    std::string engine_name(engine);
    std::erase(engine_name, '.');
    std::vector<std::string> parts;
    for (std::string_view part :
         {std::string_view(engine_name), name_of(model_id), name_of(accelerator_id), weight_quant, dtype}) {
        std::string safe = file_safe_name(part);
        if (!safe.empty()) parts.push_back(safe);
    }
    if (tokens > 0) parts.push_back(context_tag(tokens));
    return "kv-efficiency/" + join(parts, "-");
}

std::optional<std::int64_t> parse_context(std::string_view text) {
    auto cell = parse_number(text);
    if (!cell || !std::holds_alternative<std::int64_t>(*cell)) return std::nullopt;
    std::int64_t v = std::get<std::int64_t>(*cell);
    if (v <= 0) return std::nullopt;
    return v;
}

namespace {

/// What the options name, once each is found and checked: what every later stage reads.
struct SkeletonInputs {
    std::string model_id;
    const Record* model_rec = nullptr;
    std::optional<CacheDtype> dtype;
    std::optional<CacheDtype> v_dtype;  ///< V's dtype when it differs from K's
    std::optional<std::string> accelerator_id;
    bool curve = false;        ///< the record is a curve of points, not one context
    std::int64_t longest = 0;  ///< the single point's context, or the curve's last
};

/// The model, the dtypes and the accelerator the options name, and the one-line and
/// context checks; each problem is added to `problems`.
SkeletonInputs find_inputs(const LintResult& catalog, const SkeletonOptions& opt, std::vector<std::string>& problems) {
    SkeletonInputs in;
    const RecordSet& set = catalog.records;
    // The model, and whether its record can be built on.
    in.model_id = with_folder(opt.model, "models");
    in.model_rec = set.find(in.model_id);
    if (!in.model_rec || in.model_rec->kind != RecordKind::model || !in.model_rec->model) {
        problems.push_back(fmt::format("no model record '{}'{}", opt.model,
                                       suggestion_for(in.model_id, set.ids_of(RecordKind::model))));
    } else {
        for (const auto& d : catalog.diagnostics) {
            if (d.severity == Severity::error && d.pos.file == in.model_rec->file) {
                problems.push_back(
                    fmt::format("{} has lint errors, so its figures cannot be trusted; fix them "
                                "first (kvcat lint {}). The first: {}",
                                in.model_id, in.model_rec->file, format_text(d)));
                break;
            }
        }
    }

    in.dtype = find_cache_dtype(opt.kv_dtype);
    if (!in.dtype) {
        std::vector<std::string_view> names;
        for (const auto& d : cache_dtypes()) names.push_back(d.name);
        std::string near = closest_match(opt.kv_dtype, names);
        std::vector<std::string> all(names.begin(), names.end());
        problems.push_back(fmt::format("unknown --kv-dtype '{}'{}; valid: {}", opt.kv_dtype,
                                       near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near),
                                       join(all, ", ")));
    }
    if (opt.v_dtype && *opt.v_dtype != opt.kv_dtype) {
        in.v_dtype = find_cache_dtype(*opt.v_dtype);
        if (!in.v_dtype) problems.push_back(fmt::format("unknown V cache dtype '{}'", *opt.v_dtype));
    }

    if (opt.accelerator) {
        in.accelerator_id = with_folder(*opt.accelerator, "accelerators");
        const Record* acc = set.find(*in.accelerator_id);
        if (!acc || acc->kind != RecordKind::accelerator) {
            problems.push_back(fmt::format("no accelerator record '{}'{}", *opt.accelerator,
                                           suggestion_for(*in.accelerator_id, set.ids_of(RecordKind::accelerator))));
        }
    }
    auto one_line = [&](const std::string& flag, const std::string& value) {
        if (value.empty() || value.find_first_of("\r\n") != std::string::npos ||
            value.find_first_not_of(" \t") == std::string::npos) {
            problems.push_back(fmt::format("{} must be one line of text", flag));
        }
    };
    one_line("--engine", opt.engine);
    if (opt.weight_quant) one_line("--weight-quant", *opt.weight_quant);
    if (opt.engine_version) one_line("--engine-version", *opt.engine_version);
    in.curve = !opt.points.empty();
    if (!in.curve && opt.context <= 0) {
        problems.push_back("--context must be a whole number of tokens greater than zero");
    }
    for (const auto& p : opt.points) {
        if (p.context_length < 0) problems.push_back("a point's context must not be negative");
    }
    in.longest = opt.context;
    if (in.curve) {
        in.longest = 0;
        for (const auto& p : opt.points) in.longest = std::max(in.longest, p.context_length);
    }
    return in;
}

/// The record's id: --id, or one made from the engine, model, accelerator, types and
/// context. nullopt, with the problem added, when it is not a plain name or its context tag
/// disagrees with the record's context.
std::optional<std::string> choose_id(const SkeletonOptions& opt, const SkeletonInputs& in,
                                     std::vector<std::string>& problems) {
    const CacheDtype& dtype = *in.dtype;
    std::string default_id = default_kv_id(
        opt.engine, in.model_id, in.accelerator_id.value_or(""), opt.weight_quant.value_or(""),
        in.v_dtype ? fmt::format("{}-{}", dtype.name, in.v_dtype->name) : std::string(dtype.name), in.longest);
    std::string id = opt.id ? with_folder(*opt.id, "kv-efficiency") : default_id;
    std::string id_name = id.substr(id.find('/') + 1);
    if (!id.starts_with("kv-efficiency/") || id_name.empty() || id_name.find('/') != std::string::npos ||
        file_safe_name(id_name) != id_name) {
        problems.push_back(
            fmt::format("id '{}' is not kv-efficiency/NAME with NAME a plain lower-case file name "
                        "(e.g. '{}')",
                        id, default_id));
        return std::nullopt;
    }
    if (auto tag = context_tag_of_id(id); tag && tag->second != in.longest) {
        problems.push_back(
            fmt::format("id '{}' ends in a tag for {} tokens, but the {} context is {}; the lint's "
                        "id-context-tag rule would warn. End the id with -{}",
                        id, group_thousands(tag->second), in.curve ? "longest" : "record's",
                        group_thousands(in.longest), context_tag(in.longest)));
        return std::nullopt;
    }
    return id;
}

/// The exact figures the record states, from the model's basis at the dtypes.
struct SkeletonFigures {
    ModelBasis mb;
    KvBasis basis;
    Rational per_token;
    Rational at_context;   ///< one sequence's cache at the longest context
    Rational fixed_state;  ///< the linear layers' state per sequence
};

/// The model's basis; nullopt, with the problem added, when its record lacks the figures.
std::optional<ModelBasis> basis_of(const SkeletonInputs& in, std::vector<std::string>& problems) {
    std::optional<ModelBasis> mb;
    try {
        mb = model_basis(*in.model_rec->model);
    } catch (const OverflowError&) {
        mb.reset();
    }
    if (!mb || mb->layers <= 0) {
        problems.push_back(
            fmt::format("{} lacks the figures for a KV basis: it needs num_layers and kv_layers, and "
                        "kv_heads and head_dim (or mla, for an MLA model)",
                        in.model_id));
        return std::nullopt;
    }
    return mb;
}

std::optional<SkeletonFigures> compute_figures(const SkeletonInputs& in, const ModelBasis& found,
                                               std::vector<std::string>& problems) {
    const Model& model = *in.model_rec->model;
    SkeletonFigures f;
    f.mb = found;
    const ModelBasis* mb = &f.mb;
    KvBasis& basis = f.basis;
    basis.layers = mb->layers;
    basis.kv_heads = mb->kv_heads;
    basis.head_dim = mb->head_dim;
    basis.v_head_dim = mb->v_head_dim;
    basis.latent_dim = mb->latent_dim;
    basis.kv_factor = mb->kv_factor;
    basis.bytes_per_element =
        *element_bytes(in.dtype->name, in.v_dtype ? std::optional<std::string>(in.v_dtype->name) : std::nullopt);
    basis.indexer_bytes = mb->indexer_bytes;
    basis.window = mb->window;
    std::optional<Rational> per_token;
    try {
        per_token = basis_product(basis);
        if (per_token) f.at_context = kv_bytes_at_context(model, *per_token, in.longest, *basis.bytes_per_element);
        f.fixed_state = fixed_state_bytes(model);
    } catch (const OverflowError&) {
        problems.push_back(fmt::format("the basis of {} at {} overflows 64 bits", in.model_id, in.dtype->name));
        return std::nullopt;
    }
    if (!per_token) {
        problems.push_back(fmt::format("{} lacks the figures for a KV basis", in.model_id));
        return std::nullopt;
    }
    f.per_token = *per_token;
    return f;
}

/// bytes_per_element as the dtype table states it (the block fraction, unreduced), and the
/// dtype in words.
struct ElementText {
    std::string bytes;
    std::string words;
};

ElementText element_text(const CacheDtype& dtype, const std::optional<CacheDtype>& v_dtype) {
    ElementText e;
    e.bytes = dtype.block_values == 1 ? std::to_string(dtype.block_bytes)
                                      : fmt::format("{}/{}", dtype.block_bytes, dtype.block_values);
    e.words = std::string(dtype.name);
    if (v_dtype) {
        // The mean of K's and V's bytes per element, over the blocks' common size when they
        // share one (q8_0 K and q4_0 V: (34 + 18) / 2 bytes per 32 values = 26/32).
        std::int64_t num = std::int64_t{dtype.block_bytes} * v_dtype->block_values +
                           std::int64_t{v_dtype->block_bytes} * dtype.block_values;
        std::int64_t den = 2 * std::int64_t{dtype.block_values} * v_dtype->block_values;
        if (dtype.block_values == v_dtype->block_values && (dtype.block_bytes + v_dtype->block_bytes) % 2 == 0) {
            num = (dtype.block_bytes + v_dtype->block_bytes) / 2;
            den = dtype.block_values;
        }
        e.bytes = den == 1 ? std::to_string(num) : fmt::format("{}/{}", num, den);
        e.words = fmt::format("{} K and {} V, their mean", dtype.name, v_dtype->name);
    }
    return e;
}

/// The basis's statement: the product in words, which the lint recomputes.
std::string basis_statement(const Model& model, const SkeletonFigures& f, const ElementText& element) {
    const ModelBasis& mb = f.mb;
    std::string byte_word = *f.basis.bytes_per_element == Rational(1) ? "byte" : "bytes";
    std::string layers_word = "layers";
    if (mb.window) {
        layers_word = fmt::format("{} layers", name_of(model.sliding->kind));
    } else if (model.variant) {
        switch (*model.variant) {
            case AttentionVariant::hybrid:
                layers_word = "full-attention layers";
                break;
            case AttentionVariant::sliding:
                layers_word = "global layers";
                break;
            case AttentionVariant::mla:
            case AttentionVariant::mha:
            case AttentionVariant::gqa:
            case AttentionVariant::mqa:
                break;
        }
    }
    const std::string total = f.per_token.to_display();
    std::string statement;
    if (mb.latent_dim && mb.indexer_bytes) {
        statement = fmt::format("{} layers x ({} latent x 1 x {} {} ({}) + {} indexer bytes) = {} B/token", mb.layers,
                                *mb.latent_dim, element.bytes, byte_word, element.words, *mb.indexer_bytes, total);
    } else if (mb.latent_dim) {
        statement = fmt::format("{} layers x {} latent x 1 x {} {} ({}) = {} B/token", mb.layers, *mb.latent_dim,
                                element.bytes, byte_word, element.words, total);
    } else if (mb.v_head_dim) {
        statement = fmt::format("{} {} x {} kv heads x {} ({} K + {} V per head) x {} {} ({}) = {} B/token", mb.layers,
                                layers_word, *mb.kv_heads, *mb.head_dim + *mb.v_head_dim, *mb.head_dim, *mb.v_head_dim,
                                element.bytes, byte_word, element.words, total);
    } else {
        statement =
            fmt::format("{} {} x {} kv heads x {} head_dim x 2 (K+V) x {} {} ({}) = {} B/token", mb.layers, layers_word,
                        *mb.kv_heads, *mb.head_dim, element.bytes, byte_word, element.words, total);
    }
    if (mb.window) {
        statement +=
            fmt::format(" until the {}-token window is full; no layer grows past it", group_thousands(*mb.window));
    }
    return statement;
}

/// Everything the record's text is written from.
struct SkeletonPlan {
    const SkeletonOptions& opt;
    const SkeletonInputs& in;
    const SkeletonFigures& f;
    const std::string& id;
    const std::vector<std::string>& to_fill;
    bool above_native = false;
    const Model& model() const { return *in.model_rec->model; }
};

/// The head comment and the fields up to the basis.
void write_head(const SkeletonPlan& plan, std::string& t) {
    const SkeletonOptions& opt = plan.opt;
    const SkeletonInputs& in = plan.in;
    t += "# yaml-language-server: $schema=../../schema/kv-efficiency.schema.json\n";
    t += fmt::format("# Written by `{}`. The byte figures are computed from {}\n", opt.written_by, in.model_id);
    t += fmt::format("# and the {} element size; do not edit them by hand. `kvcat lint` fails on this\n",
                     in.dtype->name);
    std::string fill = spoken_list(plan.to_fill);
    t += fmt::format("# file ([schema-missing-key]) until {}, at the end, {} written.\n", fill,
                     plan.to_fill.size() == 1 ? "is" : "are");
    t += fmt::format("id: {}\n", yaml_inline(plan.id));
    t += fmt::format("model: {}\n", yaml_inline(in.model_id));
    t += fmt::format("accelerator: {}\n", in.accelerator_id ? yaml_inline(*in.accelerator_id) : "null");
    const bool unstated_card = !in.accelerator_id && opt.unstated_accelerator;
    if (unstated_card || opt.unstated_gpus) t += "unstated:\n";
    if (unstated_card) t += fmt::format("  accelerator: {}\n", yaml_inline(*opt.unstated_accelerator));
    if (opt.unstated_gpus) t += fmt::format("  gpus: {}\n", yaml_inline(*opt.unstated_gpus));
    if (!in.accelerator_id && opt.accelerator_named) {
        t += fmt::format("accelerator_named: {}\n", yaml_inline(*opt.accelerator_named));
    }
    if (opt.gpus) {
        t += fmt::format("gpus: {}\n", *opt.gpus);
    }
    t += fmt::format("engine: {}\n", yaml_inline(opt.engine));
    t += fmt::format("engine_version: {}\n", opt.engine_version ? yaml_inline(*opt.engine_version) : "null");
    t += fmt::format("weight_quant: {}\n", opt.weight_quant ? yaml_inline(*opt.weight_quant) : "null");
    t += fmt::format("kv_cache_dtype: {}\n", in.dtype->name);
    if (in.v_dtype) t += fmt::format("v_cache_dtype: {}\n", in.v_dtype->name);
    if (opt.weight_bytes) t += fmt::format("weight_bytes: {}\n", *opt.weight_bytes);
    t += fmt::format("attention_variant: {}\n", plan.model().attention_variant);
    if (opt.provenance) t += fmt::format("provenance: {}\n", yaml_inline(*opt.provenance));
    if (!in.curve) t += fmt::format("context_length: {}\n", opt.context);
}

/// kv_bytes_per_token and the kv_bytes_basis block.
void write_basis(const SkeletonPlan& plan, std::string& t) {
    const SkeletonInputs& in = plan.in;
    const ModelBasis& mb = plan.f.mb;
    const Rational& per_token = plan.f.per_token;
    ElementText element = element_text(*in.dtype, in.v_dtype);
    t += fmt::format("kv_bytes_per_token: {}\n", per_token.is_integer()
                                                     ? std::to_string(per_token.num())
                                                     : fmt::format("{}/{}", per_token.num(), per_token.den()));
    t += "kv_bytes_basis:\n";
    t += fmt::format("  layers: {}  # layers that grow a KV cache: {}\n", mb.layers, mb.layers_how);
    if (mb.latent_dim) {
        t += fmt::format("  latent_dim: {}  # kv_lora_rank + qk_rope_head_dim\n", *mb.latent_dim);
        t += "  kv_factor: 1  # one latent, not K and V\n";
    } else {
        t += fmt::format("  kv_heads: {}\n", *mb.kv_heads);
        t += fmt::format("  head_dim: {}\n", *mb.head_dim);
        if (mb.v_head_dim) t += fmt::format("  v_head_dim: {}  # V's width, beside K's head_dim\n", *mb.v_head_dim);
        t += "  kv_factor: 2  # K and V\n";
    }
    if (in.v_dtype) {
        t += fmt::format("  bytes_per_element: {}  # the mean of K's {} ({}) and V's {} ({})\n", element.bytes,
                         in.dtype->name, in.dtype->bytes_per_element().to_display(), in.v_dtype->name,
                         in.v_dtype->bytes_per_element().to_display());
    } else {
        t += fmt::format("  bytes_per_element: {}  # {}: {}\n", element.bytes, in.dtype->name, in.dtype->description);
    }
    if (mb.indexer_bytes) {
        t += fmt::format("  indexer_bytes: {}  # the indexer's key cache per token per layer, in its own dtype\n",
                         *mb.indexer_bytes);
    }
    if (mb.window) t += fmt::format("  window: {}  # no layer grows past it\n", *mb.window);
    t += fmt::format("  statement: {}\n", yaml_inline(basis_statement(plan.model(), plan.f, element)));
}

/// The measured figures: a curve's points as given, or one context's speeds left null.
void write_measurements(const SkeletonPlan& plan, std::string& t) {
    if (!plan.in.curve) {
        t += "measured_tps_at_ctx: null\n";
        t += "measured_ttft_ms_at_ctx: null\n";
        return;
    }
    t += "measurements:\n";
    auto number = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string("null"); };
    for (const auto& p : plan.opt.points) {
        t += fmt::format("  - context_length: {}\n", p.context_length);
        t += fmt::format("    measured_tps_at_ctx: {}\n", number(p.tps));
        t += fmt::format("    measured_prefill_tps_at_ctx: {}\n", number(p.prefill_tps));
        t += fmt::format("    measured_ttft_ms_at_ctx: {}\n", number(p.ttft_ms));
        if (p.total_tps) t += fmt::format("    measured_total_tps_at_ctx: {}\n", *p.total_tps);
        if (p.prompt_tokens) t += fmt::format("    prompt_tokens: {}\n", *p.prompt_tokens);
        if (p.gen_tokens) t += fmt::format("    gen_tokens: {}\n", *p.gen_tokens);
        if (p.concurrency != 1) t += fmt::format("    concurrency: {}\n", p.concurrency);
        if (p.tps_stddev) t += fmt::format("    tps_stddev: {}\n", *p.tps_stddev);
        if (p.prefill_tps_stddev) t += fmt::format("    prefill_tps_stddev: {}\n", *p.prefill_tps_stddev);
    }
}

/// What the cache comes to at the context, what the record leaves to its author, and how
/// to write it.
void write_tail(const SkeletonPlan& plan, std::string& t) {
    const SkeletonOptions& opt = plan.opt;
    const SkeletonInputs& in = plan.in;
    const Model& model = plan.model();
    const Rational& at_context = plan.f.at_context;
    t += fmt::format("# At {} tokens one sequence's cache is {} bytes ({})", group_thousands(in.longest),
                     at_context.is_integer() ? group_thousands(at_context.num()) : at_context.to_display(),
                     gib(at_context));
    if (model.sliding && !plan.f.mb.window) {
        t += fmt::format(",\n# counting the {} {} layers at min(context, {}) tokens each", model.sliding->layers,
                         name_of(model.sliding->kind), group_thousands(model.sliding->window));
    }
    t += ".\n";
    if (model.linear) {
        t += fmt::format("# The {} {} layers keep a fixed state per sequence ({} bytes), not counted above.\n",
                         model.linear->layers, name_of(model.linear->kind), plan.f.fixed_state.to_display());
    }
    if (!opt.provenance) {
        t += "# provenance (optional): measured, third-party-measured, derived, or joined (then name\n";
        t += "# measured_on_model).\n";
    }
    if (plan.above_native) {
        t += fmt::format("# context_length {} is above {}'s native context {}: say how it was reached\n",
                         group_thousands(in.longest), in.model_id, group_thousands(*model.native_context));
        t += "# (RoPE scaling, YaRN, the engine's flag). Until then the lint warns [context-above-native].\n";
        t += "context_extension:\n";
    }
    if (opt.methodology) t += "methodology: " + yaml_block(*opt.methodology);
    t += "#\n";
    t += "# For the author. kvcat cannot know these; write them here, then run kvcat lint on this file:\n";
    if (!opt.methodology) {
        t += "# methodology: |\n";
        t += "#   How the figures were obtained: engine build and flags, hardware, prompt and output\n";
        t += "#   lengths, how speed was measured; or that the row only derives the cache size from\n";
        t += "#   the model record.\n";
    } else {
        t += "# methodology above was drafted from the benchmark file: add what it cannot say (the source's\n";
        t += "#   address, the table or run, what the file leaves unsaid).\n";
    }
    t += "# notes: |\n";
    t += "#   What the row shows and its caveats.\n";
    t += "# sources:\n";
    t += "#   - name: where the figures were read (a page, a table, a benchmark log)\n";
    t += "#     url: the address a reader can open (a measured value needs one: the source-url rule)\n";
    t += "#     date: YYYY-MM-DD, when it was published or read\n";
    t += "#     detail: which table, cell or file\n";
}

}  // namespace

Skeleton make_kv_skeleton(const LintResult& catalog, const SkeletonOptions& opt) {
    Skeleton out;
    SkeletonInputs in = find_inputs(catalog, opt, out.problems);
    if (!out.problems.empty()) return out;
    auto mb = basis_of(in, out.problems);
    if (!mb) return out;
    auto id = choose_id(opt, in, out.problems);
    if (!id) return out;
    auto figures = compute_figures(in, *mb, out.problems);
    if (!figures) return out;
    out.kv_bytes_per_token = figures->per_token;

    const Model& model = *in.model_rec->model;
    bool above_native = model.native_context && in.longest > *model.native_context;
    out.id = *id;
    out.to_fill = {"notes", "sources"};
    if (!opt.methodology) out.to_fill.insert(out.to_fill.begin(), "methodology");
    if (above_native) out.to_fill.insert(out.to_fill.begin(), "context_extension");

    SkeletonPlan plan{opt, in, *figures, out.id, out.to_fill, above_native};
    std::string t;
    write_head(plan, t);
    write_basis(plan, t);
    write_measurements(plan, t);
    write_tail(plan, t);
    out.text = std::move(t);
    return out;
}

}  // namespace kvcat
