#include "load/point_meaning.h"

#include <fmt/format.h>

namespace kvcat {

bool is_derived(const KvRow& row) {
    return row.provenance && *row.provenance == "derived";
}

PointSpeeds point_speeds(const KvRow& row, const MeasurementPoint& point) {
    PointSpeeds s;
    if (is_derived(row)) {
        s.derived_tps = point.tps;
        s.derived_ttft_ms = point.ttft_ms;
        s.derived_prefill_tps = point.prefill_tps;
        s.derived_total_tps = point.total_tps;
        return s;
    }
    s.measured_tps = point.tps;
    s.measured_total_tps = point.total_tps;
    // Decode reads the whole cache whether or not its prefix was computed again, so only the
    // figures of the first token change meaning with a cached prefix.
    if (point.prefix_cached.value_or(false)) {
        s.cached_prefix_ttft_ms = point.ttft_ms;
        s.cached_prefix_prefill_tps = point.prefill_tps;
    } else {
        s.measured_ttft_ms = point.ttft_ms;
        s.measured_prefill_tps = point.prefill_tps;
    }
    return s;
}

std::optional<std::string> parallelism_text(const KvRow& row) {
    std::string out;
    auto add = [&](const char* name, const std::optional<std::int64_t>& size) {
        if (!size) return;
        if (!out.empty()) out += " x ";
        out += fmt::format("{} {}", name, *size);
    };
    add("tensor", row.tensor_parallel);
    add("pipeline", row.pipeline_parallel);
    add("data", row.data_parallel);
    if (out.empty()) return std::nullopt;
    return out;
}

std::optional<std::string> speculative_text(const KvRow& row) {
    if (!row.speculative_decoding) return std::nullopt;
    if (row.speculative_decoding->empty()) return std::string("off");
    return *row.speculative_decoding;
}

}  // namespace kvcat
