// The measured speeds a prediction stands on, and the bytes a decoded token reads.
//
// A speed point is one measured figure of a kv-efficiency record at one context: the decode
// speed of one request (the total over the requests in flight divided by their number when
// only the total was printed), the prompt speed and the time to first token of a full
// prefill. Derived figures and cached-prefix first tokens are left out: a prediction proven on
// held-out points must stand on measurements only. Each point carries the setup it ran in; two
// points of the same setup lie on one curve whatever record or build they came from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "load/record_set.h"

namespace kvcat {

/// What a speed depends on besides the context.
struct SpeedSetup {
    std::string model;        ///< the model record's id
    std::string accelerator;  ///< the accelerator record's id; "" when none applies
    std::string card;         ///< its product name, else the card as the source names it
    std::int64_t gpus = 1;
    std::string engine;
    std::string engine_version;                ///< as the record writes it; "" when unsaid (not part of key())
    std::string weights;                       ///< weight_quant as written; "" when unsaid
    std::optional<std::int64_t> weight_bytes;  ///< the weights' real size, when the record states it
    std::string kv;                            ///< K's cache dtype
    std::string v_kv;                          ///< V's when it differs; "" otherwise
    std::int64_t concurrency = 1;
    bool speculative = false;  ///< a draft model or MTP head made the speeds
    std::string offload;       ///< what was kept off the card; "" when nothing

    /// The card a pair is named by: the accelerator record, else the card's name.
    const std::string& card_key() const { return accelerator.empty() ? card : accelerator; }
    /// One string per setup: two points with equal keys lie on one curve.
    std::string key() const;
    /// "K q8_0" or "K q8_0 / V q4_0".
    std::string kv_text() const;
};

struct SpeedPoint {
    SpeedSetup setup;
    std::string record_id;
    std::string key_path;  ///< where the point's keys are: "" or "measurements.3."
    /// The key its decode speed was read from: measured_tps_at_ctx, or measured_total_tps_at_ctx
    /// when only the total over the requests was printed.
    std::string decode_key;
    std::int64_t context = 0;
    std::optional<double> decode_tps;   ///< one request's decode speed
    std::optional<double> prefill_tps;  ///< a full prefill's prompt speed
    std::optional<double> ttft_ms;      ///< a full prefill's time to first token
};

/// Every measured point of the kv-efficiency records, in record order.
std::vector<SpeedPoint> speed_points(const RecordSet& records);
/// The engine as the points spell it, whatever case `given` is in ("vllm" is vLLM); "" when no
/// point names it.
std::string engine_spelled(std::string_view given, const std::vector<SpeedPoint>& points);

/// The setup of a kv-efficiency row's points at `concurrency`; `records` gives its card's name.
SpeedSetup speed_setup_of(const RecordSet& records, const KvRow& k, std::int64_t concurrency);

/// The measured points of one record; `refs` gives its card's name.
std::vector<SpeedPoint> speed_points_of(const Record& r, const RecordSet& refs);

/// The least time a decoded token can take: the bytes one step reads (the active weights once,
/// each request's KV cache at the context and its fixed state) over the cards' bandwidth.
class SpeedPhysics {
  public:
    explicit SpeedPhysics(const RecordSet& records) : records_(records) {}
    /// Seconds per token at the roofline; nullopt when the model, the card's bandwidth or the
    /// weights' size is unknown.
    std::optional<double> floor_seconds(const SpeedSetup& setup, std::int64_t context) const;
    /// How the weights were sized: "Q4_K at its exact 4.5 bits a weight"; "" when they cannot be.
    std::string weights_how(const SpeedSetup& setup) const;
    /// The card's vendor (the backend an efficiency is learned per); "" when unknown.
    std::string vendor(const SpeedSetup& setup) const;

  private:
    const RecordSet& records_;
    mutable std::map<std::pair<std::string, std::int64_t>, std::optional<double>> cache_;
};

}  // namespace kvcat
