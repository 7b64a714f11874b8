// The KV cache against context: one model's exact cache bytes at each context, per cache
// dtype, and whether they fit each accelerator.
//
// Every figure comes from kv_math, so sliding windows (which stop growing at the window),
// MLA latents and the fixed state of linear-attention layers are counted as the lint
// counts them; nothing here re-derives a byte. `kvcat curve` prints the table and the
// report draws the same points.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "load/records.h"
#include "support/rational.h"
#include "support/table.h"
#include "vocab/dtype.h"
#include "vocab/weight_quant.h"

namespace kvcat {

/// KV bytes per token of the layers that keep growing with the context, at `dtype`, with an
/// indexer's key cache in its own dtype: the figure `kvcat new` and `kvcat fit` use. Throws PhysicsError when the model
/// record lacks the figures.
Rational growing_kv_bytes_per_token(const Model& model, const CacheDtype& dtype);

/// KV bytes for one sequence at `context` tokens: the growing layers at every token, the
/// sliding layers up to their window. The fixed state is not included. Throws PhysicsError.
Rational kv_cache_bytes(const Model& model, const CacheDtype& dtype, std::int64_t context);
/// The same for a cache whose K and V differ: bytes per element is their mean (element_bytes).
Rational kv_cache_bytes(const Model& model, const Rational& bytes_per_element, std::int64_t context);

/// "8k,128k,1M,4096" -> tokens (k and M in powers of two, as context lengths are counted).
/// Throws std::invalid_argument naming the item that is not a positive whole number.
std::vector<std::int64_t> parse_contexts(std::string_view list);

struct CurveAccelerator {
    std::string id;
    const Accelerator* accelerator = nullptr;
};

struct CurveRequest {
    std::string model_id;
    const Model* model = nullptr;
    std::vector<CacheDtype> dtypes;
    std::vector<CurveAccelerator> accelerators;
    std::vector<std::int64_t> contexts;
    std::optional<WeightQuant> weight_quant;  ///< when set, the weights count against memory too
    /// The weights' exact bytes (a llama.cpp mix as llama-quantize writes it), in place of
    /// weight_quant's figure; only with weight_quant.
    std::optional<Rational> weight_bytes;
};

struct CurvePoint {
    std::string dtype;
    std::int64_t context = 0;
    Rational kv_bytes;
    Rational fixed_state;
    std::optional<Rational> weights;
    std::vector<std::optional<bool>> fits;  ///< per accelerator; nullopt when its memory is unknown
};

/// One point per dtype per context, in the order asked. Throws PhysicsError or OverflowError.
std::vector<CurvePoint> kv_curve(const CurveRequest& request);

/// The points as a table: model, kv_cache_dtype, context_length, kv_bytes, kv_gib,
/// fixed_state_bytes, weight_bytes (with a weight format), then fits_<accelerator> (yes/no).
Table curve_table(const CurveRequest& request, const std::vector<CurvePoint>& points);

/// The unit of a column of curve_table ("bytes" for kv_bytes, fixed_state_bytes and
/// weight_bytes), "" for the others: what a readable table shows in GiB and MiB.
std::string_view curve_column_unit(std::string_view column);

/// An accelerator id without its folder: "accelerators/nvidia-h100-sxm" -> "nvidia-h100-sxm".
std::string short_id(std::string_view id);

}  // namespace kvcat
