// One prediction as `kvcat predict`, `fit`, `curve` and the page show it: decode, prefill and
// the time to first token, each with its 80% interval, its basis and the records it stood on,
// beside the roofline, which stays a ceiling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "predict/holdout.h"

namespace kvcat {

struct SpeedPart {
    SpeedMeasure measure = SpeedMeasure::decode;
    RawEstimate estimate;
    IntervalWidth width;
    double low() const;
    double high() const;
};

struct SpeedAnswer {
    SpeedSetup setup;
    std::int64_t context = 0;
    std::optional<double> ceiling_tps;  ///< the bandwidth roofline; nullopt when it cannot be worked out
    std::string weights_how;            ///< how the roofline sized the weights
    std::vector<SpeedPart> parts;       ///< the measures it could predict, decode first
    const SpeedPart* part(SpeedMeasure m) const;
};

SpeedAnswer predict_speed(const SpeedPredictor& predictor, const SpeedIntervals& intervals, const SpeedSetup& setup,
                          std::int64_t context);

/// The predictor over a record set with its intervals learned, for a command that asks once.
class CatalogSpeeds {
  public:
    explicit CatalogSpeeds(const RecordSet& records);
    CatalogSpeeds(const CatalogSpeeds&) = delete;
    CatalogSpeeds& operator=(const CatalogSpeeds&) = delete;
    SpeedAnswer answer(const SpeedSetup& setup, std::int64_t context) const {
        return predict_speed(predictor_, intervals_, setup, context);
    }
    /// The engine as the records spell it ("vllm" is vLLM); "" when no measured point names it.
    std::string engine_named(std::string_view given) const;
    const SpeedPredictor& predictor() const { return predictor_; }
    const SpeedIntervals& intervals() const { return intervals_; }

  private:
    SpeedPhysics physics_;
    SpeedPredictor predictor_;
    SpeedIntervals intervals_;
};

/// What the report's planner needs to give `kvcat predict`'s answer for any choice, with the
/// page's own roofline: {"curves": [{"model", "card", "gpus", "engine", "weights", "kv", "v_kv",
/// "concurrency", "speculative", "offload", "record", "points": [[context, decode_tps,
/// share, prefill_tps, ttft_ms]]}], "efficiency": {"engine|vendor" or "engine" or "": share},
/// "vendors": {accelerator id: vendor}, "widths": {measure: {basis: [below, above]}},
/// "dtype_names": {engine: {spelling: the catalog's name}}} (only names that change). A share is
/// the point's seconds per token over its roofline's (null when that cannot be worked out).
nlohmann::json speed_model_json(const SpeedPredictor& predictor, const SpeedIntervals& intervals,
                                const RecordSet& records);

/// decode_tps, decode_tps_low, decode_tps_high, basis, ... (null where nothing reaches).
nlohmann::json speed_answer_json(const SpeedAnswer& answer);
/// "predicted decode 31.2 tokens/s (80%: 27.9-34.0), basis curve-inside: ..." lines.
std::string speed_answer_text(const SpeedAnswer& answer);

}  // namespace kvcat
