#include "engines/vllm/vllm_profile.h"

#include <fmt/format.h>

#include "engines/allocation_fields.h"
#include "engines/vllm/vllm_allocation.h"
#include "engines/vllm/vllm_log.h"

namespace kvcat {

namespace {

using namespace allocation_fields;  // NOLINT(google-build-using-namespace): the record readers every check shares

const Rational kGiB(1LL << 30);
/// Half a hundredth of a GiB: how far a figure printed to 0.01 GiB may lie from its bytes.
const Rational kHalf = Rational(1LL << 30) / Rational(200);
/// The margin vLLM keeps off both suggestions (redundancy_buffer_memory, 150 MiB).
const Rational kBuffer(150LL << 20);
/// The release whose pool the CUDA graphs' estimate comes off (commit 96a85c57).
constexpr std::string_view kEstimateTakenOff = "0.20.0";

/// Bytes known to lie between two ends.
struct Span {
    Rational lo, hi;
};
Span operator+(const Span& a, const Span& b) {
    return {a.lo + b.lo, a.hi + b.hi};
}
Span operator-(const Span& a, const Span& b) {
    return {a.lo - b.hi, a.hi - b.lo};
}
Span exactly(const Rational& x) {
    return {x, x};
}

/// The bytes a figure the record holds as printed in GiB stood for.
std::optional<Span> printed_gib(const Record& r, const std::string& key) {
    auto v = Rational::parse(text(r, key));
    if (!v) return std::nullopt;
    Rational b = *v * kGiB;
    return Span{b - kHalf, b + kHalf};
}

/// A span of bytes as vLLM would print it in GiB: "55.15", or "55.14 to 55.16".
std::string gib_words(const Span& s) {
    std::string lo = two((s.lo / kGiB).to_double()), hi = two((s.hi / kGiB).to_double());
    return lo == hi ? lo : lo + " to " + hi;
}

std::string bytes_words(const Span& s) {
    std::int64_t lo = s.lo.floor(), hi = s.hi.ceil();
    return lo == hi ? group_thousands(lo) : group_thousands(lo) + " to " + group_thousands(hi);
}

void gib_figure(const Record& r, const std::string& key, const Span& computed, std::string why,
                AllocationPartCheck& part) {
    auto printed = printed_gib(r, key);
    if (!printed) return;
    AllocationFigure f{.key = key,
                       .printed = text(r, key),
                       .computed = gib_words(computed),
                       .unit = "GiB",
                       .why = std::move(why),
                       .holds = true};
    f.holds = printed->lo <= computed.hi && computed.lo <= printed->hi;
    part.figures.push_back(std::move(f));
}

/// A byte figure vLLM printed as int() of a sum: within a byte of the span.
void bytes_figure(const Record& r, const std::string& key, const Span& computed, std::string why,
                  AllocationPartCheck& part) {
    auto printed = integer(r, key);
    if (!printed) return;
    AllocationFigure f{.key = key,
                       .printed = group_thousands(*printed),
                       .computed = bytes_words(computed),
                       .unit = "bytes",
                       .why = std::move(why),
                       .holds = true};
    Rational v(*printed);
    f.holds = computed.lo - Rational(1) <= v && v <= computed.hi + Rational(1);
    part.figures.push_back(std::move(f));
}

/// The printed figures of the profile, and the share it was printed for.
void list_printed(const Record& r, AllocationPartCheck& part) {
    for_each_profile_figure(LoggedVllmProfile{}, [&](const char* key, const auto& /*none*/) {
        std::string v = text(r, std::string("vllm.") + key);
        if (!v.empty()) part.printed.emplace_back(key, v);
    });
    if (std::string u = text(r, "vllm.gpu_memory_utilization"); !u.empty())
        part.settings.emplace_back("gpu_memory_utilization", u);
}

/// The pool's share of the graphs' estimate: none before 0.20.0, the printed estimate from it,
/// and unknown when the record has no estimate line or no release. A later line counts the
/// estimate in the peak activation ("consumed memory" releases), so nothing more comes off.
std::optional<Span> estimate_taken_off(const Record& r, bool consumed_shape, std::vector<NotJudged>& not_judged) {
    if (consumed_shape) return exactly(Rational(0));
    std::string version = text(r, "engine_version");
    if (!version.empty() && vllm_version_before(version, kEstimateTakenOff)) return exactly(Rational(0));
    if (auto e = printed_gib(r, "vllm.cudagraph_estimate_gib")) return e;
    std::string key;
    for (const char* k : {"vllm.available_kv_gib", "vllm.kv_in_use_gib", "vllm.kv_in_use_bytes"}) {
        if (key.empty() && !text(r, k).empty()) key = k;
    }
    if (key.empty()) return std::nullopt;
    not_judged.push_back({key, version.empty()
                                   ? "the release is not given, so whether vLLM took its CUDA graphs' "
                                     "estimate off the pool (from 0.20.0) is not known, and the pool is "
                                     "not summed"
                                   : "vLLM from 0.20.0 takes its CUDA graphs' estimate off the pool, and the "
                                     "record has no 'CUDA graph pool memory' line giving it, so the pool "
                                     "is not summed"});
    return std::nullopt;
}

}  // namespace

bool vllm_profile_key(std::string_view key) {
    bool found = false;
    for_each_profile_figure(LoggedVllmProfile{},
                            [&](const char* name, const auto& /*none*/) { found = found || key == name; });
    return found;
}

VllmProfileCheck vllm_profile_check(const Record& r) {
    VllmProfileCheck c;
    auto requested = printed_gib(r, "vllm.requested_gib"), activation = printed_gib(r, "vllm.activation_peak_gib"),
         graphs = printed_gib(r, "vllm.cudagraph_gib"), weights = printed_gib(r, "vllm.weights_gib"),
         consumed = printed_gib(r, "vllm.consumed_gib"), non_torch = printed_gib(r, "vllm.non_torch_gib");
    bool consumed_shape = consumed.has_value();
    if (!requested || !activation || !graphs || !(consumed_shape || (weights && non_torch))) return c;
    c.any = true;
    AllocationPartCheck& part = c.part;
    part.key = "vllm";
    part.what = "memory profile";
    list_printed(r, part);
    // W + A + N (or C + A): what the profile run left in use before the graphs.
    Span used = consumed_shape ? *consumed + *activation : *weights + *activation + *non_torch;
    std::string used_words = consumed_shape ? "consumed + peak activation" : "weight + peak activation + non-torch";
    part.terms.push_back(fmt::format("{}: {} GiB", used_words, gib_words(used)));

    auto total = printed_gib(r, "vllm.cuda_total_gib");
    auto utilization = Rational::parse(text(r, "vllm.gpu_memory_utilization"));
    if (total && utilization) {
        Span share{total->lo * *utilization, total->hi * *utilization};
        part.terms.push_back(fmt::format("requested: CUDA's total x {} = {} GiB",
                                         text(r, "vllm.gpu_memory_utilization"), gib_words(share)));
        gib_figure(r, "vllm.requested_gib", share,
                   fmt::format("CUDA's total ({} GiB as printed) x gpu_memory_utilization {} is",
                               text(r, "vllm.cuda_total_gib"), text(r, "vllm.gpu_memory_utilization")),
                   part);
    }
    // int(R) - (W + A + N + G) - 150 MiB; int() takes up to a byte off R.
    Span fit = *requested - used - *graphs - exactly(kBuffer);
    part.terms.push_back(fmt::format("--kv-cache-memory to fit: requested - ({}) - CUDA graphs - 150 MiB = {} bytes",
                                     used_words, bytes_words(fit)));
    bytes_figure(r, "vllm.kv_cache_memory_fit_bytes", fit,
                 "the requested memory less the profile's usage, the CUDA graphs and vLLM's 150 MiB margin is", part);
    auto fit_bytes = integer(r, "vllm.kv_cache_memory_fit_bytes");
    if (auto free = printed_gib(r, "vllm.free_on_start_gib"); free && fit_bytes) {
        // B2 - B1 = F - int(R): the same usage off the free memory instead of the requested.
        Span full = exactly(Rational(*fit_bytes)) + *free - *requested;
        bytes_figure(r, "vllm.kv_cache_memory_full_bytes", full,
                     "the suggestion to fit, plus the free memory at start less the requested memory, is", part);
    }
    if (auto estimate = estimate_taken_off(r, consumed_shape, c.not_judged)) {
        Span pool = *requested - used - *estimate;
        part.terms.push_back(fmt::format("pool: requested - ({}){} = {} GiB", used_words,
                                         consumed_shape || estimate->hi.is_zero() ? "" : " - the graphs' estimate",
                                         gib_words(pool)));
        std::string why = fmt::format("the requested memory less {}{} is", used_words,
                                      consumed_shape || estimate->hi.is_zero() ? "" : " and the CUDA graphs' estimate");
        gib_figure(r, "vllm.available_kv_gib", pool, why, part);
        gib_figure(r, "vllm.kv_in_use_gib", pool, why, part);
        bytes_figure(r, "vllm.kv_in_use_bytes", pool, why, part);
    }
    // 0.10.2 prints the pool in bytes, int(R - (W + A + N)), and int(R) - (W + A + N) is the same
    // whole number: the graphs as captured are then its difference from the suggestion to fit.
    if (auto in_use = integer(r, "vllm.kv_in_use_bytes"); in_use && fit_bytes && !consumed_shape) {
        Rational g = Rational(*in_use) - Rational(*fit_bytes) - kBuffer;
        part.terms.push_back(fmt::format("CUDA graphs: kv in use - the suggestion to fit - 150 MiB = {} bytes",
                                         group_thousands(g.floor())));
        gib_figure(r, "vllm.cudagraph_gib", exactly(g),
                   fmt::format("the kv cache in use less the suggestion to fit and the 150 MiB margin, {} bytes, is",
                               group_thousands(g.floor())),
                   part);
    }
    return c;
}

}  // namespace kvcat
