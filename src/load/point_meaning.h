// What a measured point's numbers mean, and which catalog column each belongs in.
//
// A speed means one thing per column: measured_* holds what a source measured as the
// column says (a TTFT is a full prefill of the context), so a sort or filter on a measured
// column never returns a fit, and "the TTFT at context" is never a cache hit. A derived
// record's speeds (provenance: derived, such as a line fitted to published points) go to the
// derived_* columns; a TTFT or prefill speed taken with a cached prefix goes to the
// cached_prefix_* columns. The record keeps its figures where the source printed them; this
// file decides where the catalog puts them.
#pragma once

#include <optional>
#include <string>

#include "load/records.h"

namespace kvcat {

/// One point's speeds, each in the column whose meaning it has; the others are nullopt.
struct PointSpeeds {
    std::optional<double> measured_tps;
    std::optional<double> measured_ttft_ms;
    std::optional<double> measured_prefill_tps;
    std::optional<double> measured_total_tps;
    std::optional<double> cached_prefix_ttft_ms;
    std::optional<double> cached_prefix_prefill_tps;
    std::optional<double> derived_tps;
    std::optional<double> derived_ttft_ms;
    std::optional<double> derived_prefill_tps;
    std::optional<double> derived_total_tps;
};

/// True when the row's figures are computed (provenance: derived), not measured.
bool is_derived(const KvRow& row);

/// Where each of the point's speeds goes in the catalog.
PointSpeeds point_speeds(const KvRow& row, const MeasurementPoint& point);

/// "tensor 4", "tensor 2 x pipeline 2"; nullopt when the row states no split.
std::optional<std::string> parallelism_text(const KvRow& row);

/// The speculative decoding as the catalog shows it: the method, "off" when the record says
/// none was used (null), nullopt when it does not say.
std::optional<std::string> speculative_text(const KvRow& row);

}  // namespace kvcat
