#include "physics.h"

#include <fmt/format.h>

#include "kv_math.h"

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

std::string gib(const Rational& r) { return two_decimals(r / Rational(1LL << 30)) + " GiB"; }

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
    return require(accelerator.memory_gb_exact, "memory_gb") * kBillion;
}

FitTerms fit_context(const Model& model, const Accelerator& accelerator, const WeightQuant& quant,
                     const CacheDtype& dtype, std::int64_t batch, const Rational& reserve) {
    if (batch < 1) throw PhysicsError("the batch must be at least 1");
    auto basis = model_basis(model);
    if (!basis) throw PhysicsError("the model record lacks the figures for its KV cache");
    FitTerms t;
    t.batch = batch;
    t.native_context = model.native_context.value_or(0);
    t.memory = memory_bytes(accelerator);
    t.weights = resident_weight_bytes(model, quant);
    t.fixed_state = fixed_state_bytes(model) * Rational(batch);
    t.reserve = reserve;
    t.available = t.memory - t.weights - t.fixed_state - t.reserve;
    Rational per_layer = elements_per_layer_token(*basis) * dtype.bytes_per_element();
    if (basis->indexer_bytes) per_layer += Rational(*basis->indexer_bytes);
    t.growing_per_token = basis->window ? Rational(0)
                                        : growing_bytes_per_token(*basis, dtype.bytes_per_element()) * Rational(batch);
    if (model.sliding) {
        t.sliding_per_token = Rational(model.sliding->layers) * per_layer * Rational(batch);
        t.window = model.sliding->window;
    }
    if (!(t.available > Rational(0))) {
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

nlohmann::json fit_json(const FitTerms& t, const std::string& model_id, const std::string& accelerator_id,
                        const WeightQuant& quant, const CacheDtype& dtype) {
    auto exact = [](const Rational& r) -> nlohmann::json {
        if (r.is_integer()) return r.num();
        return nlohmann::json{{"exact", r.to_string()}, {"approx", r.to_double()}};
    };
    return nlohmann::json{
        {"max_context", t.max_context},
        {"model", model_id},
        {"accelerator", accelerator_id},
        {"weight_quant", std::string(quant.name)},
        {"bits_per_weight", exact(quant.bits_per_weight())},
        {"kv_cache_dtype", std::string(dtype.name)},
        {"bytes_per_element", exact(dtype.bytes_per_element())},
        {"batch", t.batch},
        {"memory_bytes", exact(t.memory)},
        {"weight_bytes", exact(t.weights)},
        {"fixed_state_bytes", exact(t.fixed_state)},
        {"reserve_bytes", exact(t.reserve)},
        {"available_for_kv_bytes", exact(t.available)},
        {"kv_bytes_per_token", exact(t.growing_per_token)},
        {"sliding_kv_bytes_per_token", exact(t.sliding_per_token)},
        {"sliding_window", t.window},
        {"native_context", t.native_context},
    };
}

std::string fit_text(const FitTerms& t, const std::string& model_id, const std::string& accelerator_id,
                     const WeightQuant& quant, const CacheDtype& dtype) {
    std::string out = fmt::format("{} on {}, weights {}, KV cache {}, batch {}\n", model_id, accelerator_id,
                                  quant.name, dtype.name, t.batch);
    out += fmt::format("  memory                 {:>22} bytes  (the vendor's GB x 10^9)\n", bytes_text(t.memory));
    out += fmt::format("  - weights              {:>22} bytes  (all parameters x {} bits / 8)\n",
                       bytes_text(t.weights), quant.bits_per_weight().to_display());
    out += fmt::format("  - fixed state          {:>22} bytes  (linear-attention layers, per sequence x batch)\n",
                       bytes_text(t.fixed_state));
    out += fmt::format("  - runtime reserve      {:>22} bytes  ({}: context, compute buffers)\n",
                       bytes_text(t.reserve), gib(t.reserve));
    out += fmt::format("  = left for the KV cache {:>21} bytes  ({})\n", bytes_text(t.available), gib(t.available));
    out += fmt::format("  / KV per token         {:>22} bytes  (growing layers x batch)\n",
                       bytes_text(t.growing_per_token));
    if (t.window > 0) {
        out += fmt::format("    sliding layers cost {} bytes per token up to their {}-token window\n",
                           bytes_text(t.sliding_per_token), t.window);
    }
    out += fmt::format("  = largest context      {:>22} tokens", group_thousands(t.max_context));
    if (t.native_context > 0 && t.max_context > t.native_context) {
        out += fmt::format("  (above the native {}; the model itself stops there)", group_thousands(t.native_context));
    }
    out += "\n";
    if (t.max_context == 0) out += "  the weights, state and reserve alone do not fit\n";
    return out;
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

}  // namespace kvcat
