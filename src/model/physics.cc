#include "model/physics.h"

#include <fmt/format.h>

#include "model/kv_math.h"

namespace kvcat {

namespace {

const Rational kBillion(1000000000);

Rational require(const std::optional<Rational>& v, const char* what) {
    if (!v) throw PhysicsError(fmt::format("the record has no {}", what));
    return *v;
}

std::string bytes_text(const Rational& r) {
    if (r.is_integer()) return group_thousands(r.num());
    return fmt::format("{} ({})", group_thousands(r.floor()), r.to_string());
}

std::string gib(const Rational& r) {
    return two_decimals(r / Rational(1LL << 30)) + " GiB";
}

}  // namespace

std::string two_decimals(const Rational& r) {
    std::int64_t scaled = r.round_scaled(2);
    std::string sign = scaled < 0 ? "-" : "";
    std::int64_t a = scaled < 0 ? -scaled : scaled;
    return fmt::format("{}{}.{:02d}", sign, group_thousands(a / 100), a % 100);
}

Rational resident_weight_bytes(const Model& model, const WeightQuant& quant) {
    return require(model.total_params_b_exact, "total_params_b") * kBillion * quant.bytes_per_weight();
}

Rational active_weight_bytes(const Model& model, const WeightQuant& quant) {
    return require(model.active_params_b_exact, "active_params_b") * kBillion * quant.bytes_per_weight();
}

Rational memory_bytes(const Accelerator& accelerator) {
    if (accelerator.memory_reported) return Rational(accelerator.memory_reported->bytes);
    return require(accelerator.memory_gb_exact, "memory_gb") * kBillion;
}

std::string memory_how(const Accelerator& accelerator) {
    if (!accelerator.memory_reported) return "the vendor's GB x 10^9; no driver figure on record";
    const ReportedMemory& m = *accelerator.memory_reported;
    std::string_view who = m.by == "nvidia-smi" ? "nvidia-smi's total"
                           : m.by == "rocm-smi" ? "rocm-smi's VRAM total"
                           : m.by == "metal"    ? "Metal's recommendedMaxWorkingSetSize"
                           : m.by == "hip"      ? "HIP's total"
                                                : "CUDA's total";
    return fmt::format("{}, {} {}", who, m.value.to_display(), m.unit);
}

std::optional<Rational> runtime_memory_bytes(const Accelerator& accelerator) {
    if (!accelerator.memory_runtime_total) return std::nullopt;
    return Rational(accelerator.memory_runtime_total->bytes);
}

std::string runtime_memory_how(const Accelerator& accelerator) {
    if (!accelerator.memory_runtime_total) return "";
    const ReportedMemory& m = *accelerator.memory_runtime_total;
    return fmt::format("{}'s total, {} {}", m.by == "hip" ? "HIP" : "CUDA", m.value.to_display(), m.unit);
}

std::optional<Rational> memory_unit_bytes(std::string_view unit) {
    if (unit == "B") return Rational(1);
    if (unit == "MiB") return Rational(1LL << 20);
    if (unit == "GiB") return Rational(1LL << 30);
    if (unit == "MB") return Rational(1000000);
    return std::nullopt;
}

namespace {

/// KV heads each card holds under tensor parallelism. vLLM splits the KV heads over the cards
/// when the cards divide them, and gives each card one head (repeated) when the heads divide
/// the cards; any other split it refuses, and so does kvcat.
std::int64_t kv_heads_per_card(std::int64_t kv_heads, std::int64_t gpus) {
    if (kv_heads % gpus == 0) return kv_heads / gpus;
    if (gpus % kv_heads == 0) return 1;
    throw PhysicsError(
        fmt::format("{} KV heads do not spread over {} cards: tensor parallelism needs the cards to "
                    "divide the KV heads or the KV heads to divide the cards",
                    kv_heads, gpus));
}

}  // namespace

FitTerms model_terms(const Model& model) {
    FitTerms t;
    t.native_context = model.native_context.value_or(0);
    if (model.tensors) {
        t.vocab_size = model.tensors->vocab_size;
        t.hidden_size = model.tensors->hidden_size;
        t.arch = model.tensors->llama_arch;
        t.experts = model.tensors->experts;
        t.experts_used = model.tensors->experts_used;
        t.expert_ffn_size = model.tensors->expert_ffn_size;
    }
    t.head_dim = model.head_dim.value_or(0);
    return t;
}

FitTerms fit_context(const Model& model, const Accelerator& accelerator, const WeightQuant& quant,
                     const CacheDtype& dtype, std::int64_t batch, const Rational& reserve) {
    FitSetup setup;
    setup.batch = batch;
    setup.reserve = reserve;
    return fit_context(model, accelerator, &quant, dtype, setup);
}

FitTerms fit_context(const Model& model, const Accelerator& accelerator, const WeightQuant* quant,
                     const CacheDtype& dtype, const FitSetup& setup) {
    if (setup.batch < 1) throw PhysicsError("the batch must be at least 1");
    if (setup.gpus < 1) throw PhysicsError("the number of cards must be at least 1");
    auto basis = model_basis(model);
    if (!basis) throw PhysicsError("the model record lacks the figures for its KV cache");
    FitTerms t = model_terms(model);
    Rational batch(setup.batch);
    Rational cards(setup.gpus);
    t.batch = setup.batch;
    t.gpus = setup.gpus;
    t.memory = memory_bytes(accelerator);
    t.memory_how = memory_how(accelerator);
    t.runtime_memory = runtime_memory_bytes(accelerator);
    t.runtime_memory_how = runtime_memory_how(accelerator);
    t.card_name = accelerator.name;
    if (accelerator.memory_reported) t.memory_by = accelerator.memory_reported->by;
    if (quant) t.weight_format = quant->name;
    if (setup.weight_bytes) {
        t.weights = *setup.weight_bytes / cards;
        t.weights_how = setup.weight_how;
    } else {
        if (!quant) throw PhysicsError("give a weight format or the weights' size");
        t.weights = resident_weight_bytes(model, *quant) / cards;
        t.weights_how = fmt::format("all parameters x {} bits / 8", quant->bits_per_weight().to_display());
    }
    if (setup.gpus > 1) t.weights_how += fmt::format(", split over {} cards", setup.gpus);
    // The fixed state's heads and conv channels are split over the cards like the weights.
    t.fixed_state = fixed_state_bytes(model, setup.gpus) * batch;
    t.reserve = setup.reserve;
    t.reserve_given = setup.reserve_given;
    t.available = t.memory - t.weights - t.fixed_state - t.reserve;
    t.fits = t.available > Rational(0);

    // The share of the KV cache on one card: an MLA latent (and its indexer) is kept whole on
    // every card; K and V heads are split as kv_heads_per_card says.
    Rational share(1);
    if (basis->latent_dim) {
        t.kv_split_how = setup.gpus > 1 ? "the MLA latent is kept whole on every card" : "";
    } else if (setup.gpus > 1) {
        std::int64_t heads = basis->kv_heads.value_or(0);
        if (!basis->groups.empty()) {
            for (const auto& g : basis->groups) {
                if (g.kv_heads != heads) {
                    throw PhysicsError("a model whose layers differ in KV heads cannot be split over cards yet");
                }
            }
        }
        if (model.sliding && model.sliding->kv_heads && *model.sliding->kv_heads != heads) {
            throw PhysicsError(
                "a model whose bounded layers have KV heads of their own cannot be split over cards yet");
        }
        std::int64_t per_card = kv_heads_per_card(heads, setup.gpus);
        share = Rational(per_card, heads);
        t.kv_split_how =
            heads % setup.gpus == 0
                ? fmt::format("{} KV heads split over {} cards: {} on each", heads, setup.gpus, per_card)
                : fmt::format("{} KV heads on {} cards: each card keeps a copy of one head", heads, setup.gpus);
    }
    Rational per_layer = bounded_elements_per_layer_token(model, *basis) * dtype.bytes_per_element();
    if (basis->indexer_bytes) per_layer += Rational(*basis->indexer_bytes);
    t.growing_per_token =
        basis->window ? Rational(0) : growing_bytes_per_token(*basis, dtype.bytes_per_element()) * batch * share;
    if (model.sliding) {
        t.sliding_per_token = Rational(model.sliding->layers) * per_layer * batch * share;
        t.window = model.sliding->window;
    }
    if (!t.fits) {
        t.max_context = 0;
        return t;
    }
    if (t.growing_per_token.is_zero()) {
        // No layer grows: once a window's worth fits, any context does, up to the native one.
        if (t.sliding_per_token.is_zero() || !(t.sliding_per_token * Rational(t.window) > t.available)) {
            t.max_context = t.native_context;
            t.bounded = true;
        } else {
            t.max_context = (t.available / t.sliding_per_token).floor();
        }
        return t;
    }
    // Past the window the sliding layers cost a fixed window's worth; below it, every layer grows.
    Rational past_window = (t.available - t.sliding_per_token * Rational(t.window)) / t.growing_per_token;
    if (t.window > 0 && past_window < Rational(t.window)) {
        t.max_context = (t.available / (t.growing_per_token + t.sliding_per_token)).floor();
    } else {
        t.max_context = past_window.floor();
    }
    if (t.max_context < 0) t.max_context = 0;
    return t;
}

Rational fit_bytes_at(const FitTerms& t, std::int64_t context) {
    Rational kv = t.growing_per_token * Rational(context) +
                  t.sliding_per_token * Rational(t.window > 0 ? std::min(context, t.window) : 0);
    return t.weights + t.fixed_state + t.reserve + kv;
}

std::string fit_refusal(const FitTerms& t) {
    std::string card = t.gpus > 1 ? " of one card" : "";
    if (!(t.weights < t.memory)) {
        return fmt::format("does not fit: the weights alone need {} of {}{}", gib(t.weights), gib(t.memory), card);
    }
    return fmt::format(
        "does not fit: the weights ({}), the fixed state ({}) and the runtime reserve ({}) need {} of "
        "{}{}",
        gib(t.weights), gib(t.fixed_state), gib(t.reserve), gib(t.weights + t.fixed_state + t.reserve), gib(t.memory),
        card);
}

nlohmann::json fit_json(const FitTerms& t, const std::string& model_id, const std::string& accelerator_id,
                        const WeightQuant& quant, const CacheDtype& dtype) {
    auto exact = [](const Rational& r) -> nlohmann::json {
        if (r.is_integer()) return r.num();
        return nlohmann::json{{"exact", r.to_string()}, {"approx", r.to_double()}};
    };
    nlohmann::json j = fit_json(t, model_id, accelerator_id, std::string(quant.name), dtype);
    j["bits_per_weight"] = exact(quant.bits_per_weight());
    return j;
}

nlohmann::json fit_json(const FitTerms& t, const std::string& model_id, const std::string& accelerator_id,
                        const std::string& weights, const CacheDtype& dtype) {
    auto exact = [](const Rational& r) -> nlohmann::json {
        if (r.is_integer()) return r.num();
        return nlohmann::json{{"exact", r.to_string()}, {"approx", r.to_double()}};
    };
    // A model that does not fit has no largest context and no budget left for a cache.
    auto when_fits = [&](nlohmann::json value) { return t.fits ? value : nlohmann::json(nullptr); };
    return nlohmann::json{
        {"max_context", when_fits(t.max_context)},
        {"fits", t.fits},
        {"model", model_id},
        {"accelerator", accelerator_id},
        {"weight_quant", weights},
        {"weights_how", t.weights_how},
        {"gpus", t.gpus},
        {"kv_split", t.kv_split_how},
        {"kv_cache_dtype", std::string(dtype.name)},
        {"bytes_per_element", exact(dtype.bytes_per_element())},
        {"batch", t.batch},
        {"memory_bytes", exact(t.memory)},
        {"memory_how", t.memory_how},
        {"runtime_memory_bytes", t.runtime_memory ? exact(*t.runtime_memory) : nlohmann::json(nullptr)},
        {"weight_bytes", exact(t.weights)},
        {"fixed_state_bytes", exact(t.fixed_state)},
        {"reserve_bytes", exact(t.reserve)},
        {"available_for_kv_bytes", when_fits(exact(t.available))},
        {"kv_bytes_per_token", exact(t.growing_per_token)},
        {"sliding_kv_bytes_per_token", exact(t.sliding_per_token)},
        {"sliding_window", t.window},
        {"native_context", t.native_context},
        {"bounded", t.bounded},
    };
}

std::string fit_text(const FitTerms& t, const std::string& model_id, const std::string& accelerator_id,
                     const WeightQuant& quant, const CacheDtype& dtype) {
    return fit_text(t, model_id, accelerator_id, std::string(quant.name), dtype);
}

std::string fit_text(const FitTerms& t, const std::string& model_id, const std::string& accelerator_id,
                     const std::string& weights, const CacheDtype& dtype) {
    std::string cards = t.gpus > 1 ? fmt::format(", {} cards (each line is one card's)", t.gpus) : "";
    std::string out = fmt::format("{} on {}, weights {}, KV cache {}, batch {}{}\n", model_id, accelerator_id, weights,
                                  dtype.name, t.batch, cards);
    out += fmt::format("  memory                 {:>22} bytes  ({})\n", bytes_text(t.memory), t.memory_how);
    out += fmt::format("  - weights              {:>22} bytes  ({})\n", bytes_text(t.weights), t.weights_how);
    bool weights_too_big = !t.fits && !(t.weights < t.memory);
    if (!weights_too_big) {
        out += fmt::format("  - fixed state          {:>22} bytes  (linear-attention layers, per sequence x batch)\n",
                           bytes_text(t.fixed_state));
        out += fmt::format("  - runtime reserve      {:>22} bytes  ({}: context, compute buffers)\n",
                           bytes_text(t.reserve), gib(t.reserve));
    }
    if (!t.fits) {
        // The budget stops where it runs out: no negative remainder and no context.
        out += fmt::format("  = {}\n", fit_refusal(t));
        return out;
    }
    out += fmt::format("  = left for the KV cache {:>21} bytes  ({})\n", bytes_text(t.available), gib(t.available));
    out += fmt::format("  / KV per token         {:>22} bytes  (growing layers x batch{})\n",
                       bytes_text(t.growing_per_token), t.kv_split_how.empty() ? "" : "; " + t.kv_split_how);
    if (t.window > 0) {
        out += fmt::format("    {} layers cost {} bytes per token up to their {}-token window\n",
                           t.growing_per_token.is_zero() ? "all" : "bounded", bytes_text(t.sliding_per_token),
                           group_thousands(t.window));
    }
    out += fmt::format("  = largest context      {:>22} tokens", group_thousands(t.max_context));
    if (t.bounded) {
        out += "  (no layer grows past its window: any context fits; the native one is shown)";
    } else if (t.native_context > 0 && t.max_context > t.native_context) {
        out += fmt::format("  (above the native {}; the model itself stops there)", group_thousands(t.native_context));
    }
    out += "\n";
    return out;
}

std::optional<RowWeights> row_weights(const Model& model, const std::optional<std::string>& weight_quant,
                                      std::optional<std::int64_t> weight_bytes) {
    if (weight_bytes) {
        Rational total = require(model.total_params_b_exact, "total_params_b");
        Rational active = require(model.active_params_b_exact, "active_params_b");
        if (total.is_zero()) throw PhysicsError("total_params_b is zero");
        Rational resident(*weight_bytes);
        return RowWeights{resident, resident * active / total, "weights (weight_bytes)"};
    }
    auto quant = weight_quant ? find_weight_quant(*weight_quant) : std::nullopt;
    if (!quant) return std::nullopt;
    return RowWeights{resident_weight_bytes(model, *quant), active_weight_bytes(model, *quant),
                      fmt::format("{} weights", quant->name)};
}

Roofline batch_roofline(const Accelerator& accelerator, const Rational& active_weights, const Rational& kv_at_context,
                        const Rational& fixed_state, std::int64_t concurrency, std::int64_t gpus) {
    if (concurrency < 1) throw PhysicsError("the concurrency must be at least 1");
    if (gpus < 1) throw PhysicsError("the number of cards must be at least 1");
    Roofline r;
    r.bandwidth = require(accelerator.memory_bandwidth_gb_s_exact, "memory_bandwidth_gb_s") * kBillion * Rational(gpus);
    r.weights = active_weights;
    r.kv = kv_at_context * Rational(concurrency);
    r.fixed_state = fixed_state * Rational(concurrency);
    Rational per_step = r.weights + r.kv + r.fixed_state;
    if (per_step.is_zero()) throw PhysicsError("nothing is read per token");
    r.ceiling_tps = r.bandwidth / per_step;
    return r;
}

Roofline decode_roofline(const Model& model, const Accelerator& accelerator, const WeightQuant& quant,
                         const Rational& kv_bytes_at_context) {
    Roofline r;
    r.bandwidth = require(accelerator.memory_bandwidth_gb_s_exact, "memory_bandwidth_gb_s") * kBillion;
    r.weights = active_weight_bytes(model, quant);
    r.kv = kv_bytes_at_context;
    r.fixed_state = fixed_state_bytes(model);
    Rational per_token = r.weights + r.kv + r.fixed_state;
    if (per_token.is_zero()) throw PhysicsError("nothing is read per token");
    r.ceiling_tps = r.bandwidth / per_token;
    return r;
}

std::string per_request_terms(const Rational& kv_at_context, const Rational& fixed_state, std::int64_t context,
                              std::int64_t concurrency) {
    std::string terms =
        fmt::format("{} bytes of KV at {} tokens + {} bytes of fixed state", group_thousands(kv_at_context.floor()),
                    group_thousands(context), group_thousands(fixed_state.floor()));
    return concurrency == 1 ? terms : fmt::format("{} requests x ({})", concurrency, terms);
}

std::string roofline_how(const Accelerator& accelerator, const Roofline& roof, const std::string& weights_label,
                         const Rational& kv_at_context, const Rational& fixed_state, std::int64_t context,
                         std::int64_t concurrency, std::int64_t gpus) {
    if (!accelerator.memory_bandwidth_gb_s_exact) throw PhysicsError("the accelerator states no memory bandwidth");
    std::string cards = gpus > 1 ? fmt::format("{} cards x ", gpus) : "";
    return fmt::format("{}{} GB/s / ({} bytes of {} + {})", cards,
                       accelerator.memory_bandwidth_gb_s_exact->to_display(), group_thousands(roof.weights.floor()),
                       weights_label, per_request_terms(kv_at_context, fixed_state, context, concurrency));
}

}  // namespace kvcat
