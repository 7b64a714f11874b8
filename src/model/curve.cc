#include "model/curve.h"

#include <stdexcept>

#include <fmt/format.h>

#include "model/kv_math.h"
#include "model/physics.h"
#include "support/typed_number.h"

namespace kvcat {

namespace {

const Rational kGiB(1LL << 30);

Cell bytes_cell(const Rational& r) {
    if (r.is_integer()) return r.num();
    return r.to_double();
}

/// GiB to three decimals: exact bytes, rounded once for display.
Cell gib_cell(const Rational& bytes) {
    return static_cast<double>((bytes / kGiB).round_scaled(3)) / 1000.0;
}

}  // namespace

Rational growing_kv_bytes_per_token(const Model& model, const CacheDtype& dtype) {
    auto basis = model_basis(model);
    if (!basis) throw PhysicsError("the model record lacks the figures for its KV cache");
    return growing_bytes_per_token(*basis, dtype.bytes_per_element());
}

Rational kv_cache_bytes(const Model& model, const CacheDtype& dtype, std::int64_t context) {
    return kv_cache_bytes(model, dtype.bytes_per_element(), context);
}

Rational kv_cache_bytes(const Model& model, const Rational& bytes_per_element, std::int64_t context) {
    auto basis = model_basis(model);
    if (!basis) throw PhysicsError("the model record lacks the figures for its KV cache");
    return kv_bytes_at_context(model, growing_bytes_per_token(*basis, bytes_per_element), context, bytes_per_element);
}

std::vector<std::int64_t> parse_contexts(std::string_view list) {
    std::vector<std::int64_t> out;
    std::size_t start = 0;
    while (true) {
        std::size_t comma = list.find(',', start);
        std::string_view item =
            list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        auto cell = parse_number(item);
        const auto* tokens = cell ? std::get_if<std::int64_t>(&*cell) : nullptr;
        if (!tokens || *tokens <= 0) {
            throw std::invalid_argument(
                fmt::format("context '{}' is not a positive whole number of tokens; write 8192, 8k or 1M", item));
        }
        out.push_back(*tokens);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::vector<CurvePoint> kv_curve(const CurveRequest& request) {
    const Model& model = *request.model;
    std::vector<CurvePoint> out;
    Rational fixed = fixed_state_bytes(model);
    std::optional<Rational> weights;
    if (request.weight_quant)
        weights = request.weight_bytes ? *request.weight_bytes : resident_weight_bytes(model, *request.weight_quant);
    for (const auto& dtype : request.dtypes) {
        for (std::int64_t context : request.contexts) {
            CurvePoint p;
            p.dtype = std::string(dtype.name);
            p.context = context;
            p.kv_bytes = kv_cache_bytes(model, dtype, context);
            p.fixed_state = fixed;
            p.weights = weights;
            Rational needed = p.kv_bytes + fixed + weights.value_or(Rational(0));
            for (const auto& a : request.accelerators) {
                if (!a.accelerator || !a.accelerator->memory_gb_exact) {
                    p.fits.push_back(std::nullopt);
                } else {
                    p.fits.push_back(needed <= memory_bytes(*a.accelerator));
                }
            }
            out.push_back(std::move(p));
        }
    }
    return out;
}

std::string_view curve_column_unit(std::string_view column) {
    if (column == "kv_bytes" || column == "fixed_state_bytes" || column == "weight_bytes" ||
        column == "engine_kv_bytes" || column == "engine_state_bytes")
        return "bytes";
    return "";
}

std::string short_id(std::string_view id) {
    std::size_t slash = id.rfind('/');
    return std::string(slash == std::string_view::npos ? id : id.substr(slash + 1));
}

Table curve_table(const CurveRequest& request, const std::vector<CurvePoint>& points) {
    Table t;
    t.columns = {"model", "kv_cache_dtype", "context_length", "kv_bytes", "kv_gib", "fixed_state_bytes"};
    if (request.weight_quant) t.columns.emplace_back("weight_bytes");
    for (const auto& a : request.accelerators) t.columns.push_back("fits_" + short_id(a.id));
    for (const auto& p : points) {
        std::vector<Cell> row = {
            request.model_id,         p.dtype, p.context, bytes_cell(p.kv_bytes), gib_cell(p.kv_bytes),
            bytes_cell(p.fixed_state)};
        if (request.weight_quant) row.push_back(p.weights ? bytes_cell(*p.weights) : Cell{});
        for (const auto& fit : p.fits) {
            row.push_back(fit ? Cell{std::string(*fit ? "yes" : "no")} : Cell{});
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

}  // namespace kvcat
