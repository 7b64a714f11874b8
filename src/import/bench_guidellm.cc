#include "import/bench_guidellm.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace kvcat::bench {

namespace {

/// Where each object of the top-level "benchmarks" array starts (offsets of its '{'), in one
/// pass over the text outside its strings.
std::vector<std::size_t> guidellm_benchmark_offsets(std::string_view text) {
    std::vector<std::size_t> out;
    std::vector<char> stack;     // the open brackets
    std::string last_key;        // the last string read inside the top-level object
    bool in_benchmarks = false;  // inside the "benchmarks" array, directly
    std::size_t benchmarks_depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '"') {
            std::size_t start = ++i;
            while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
            if (stack.size() == 1) last_key = std::string(text.substr(start, std::min(i, text.size()) - start));
            continue;
        }
        if (c == '[' || c == '{') {
            if (c == '[' && stack.size() == 1 && last_key == "benchmarks") {
                in_benchmarks = true;
                benchmarks_depth = stack.size() + 1;
            } else if (c == '{' && in_benchmarks && stack.size() == benchmarks_depth) {
                out.push_back(i);
            }
            stack.push_back(c);
        } else if ((c == ']' || c == '}') && !stack.empty()) {
            stack.pop_back();
            if (in_benchmarks && stack.size() + 1 == benchmarks_depth) in_benchmarks = false;
        }
    }
    return out;
}

/// One GuideLLM benchmark with its place, for messages.
struct GuideBenchmark {
    const json& value;
    std::string where;  ///< "file:line:column: benchmark N"
};

[[noreturn]] void guide_fail(const GuideBenchmark& b, const std::string& what) {
    throw BenchError(fmt::format("{}: {}", b.where, what));
}

/// metrics.NAME.STATUS.STAT of a benchmark: a number, or nullopt when the metric is absent.
std::optional<double> guide_stat(const GuideBenchmark& b, const char* name, const char* status, const char* stat) {
    const json* metrics = b.value.contains("metrics") ? &b.value.at("metrics") : nullptr;
    if (!metrics || !metrics->is_object() || !metrics->contains(name)) return std::nullopt;
    json::json_pointer ptr(fmt::format("/{}/{}/{}", name, status, stat));
    if (!metrics->at(name).is_object() || !metrics->contains(ptr) || metrics->at(ptr).is_null()) return std::nullopt;
    const json& v = metrics->at(ptr);
    if (!v.is_number() || !std::isfinite(v.get<double>())) {
        guide_fail(b, fmt::format("metrics.{}.{}.{} must be a number, found {}", name, status, stat, shown(v)));
    }
    return v.get<double>();
}

/// A stat that must be above zero when the file holds it.
std::optional<double> guide_positive(const GuideBenchmark& b, const char* name, const char* status, const char* stat) {
    auto v = guide_stat(b, name, status, stat);
    if (v && !(*v > 0)) {
        guide_fail(b, fmt::format("metrics.{}.{}.{} is {}, expected a number above zero", name, status, stat, *v));
    }
    return v;
}

/// The benchmark's scheduling strategy: config.strategy (GuideLLM 0.4 and later) or
/// args.strategy (earlier reports).
const json& guide_strategy(const GuideBenchmark& b) {
    for (const char* path : {"/config/strategy", "/args/strategy"}) {
        json::json_pointer ptr(path);
        if (b.value.contains(ptr) && b.value.at(ptr).is_object()) return b.value.at(ptr);
    }
    guide_fail(b, "has no config.strategy: expected the scheduling strategy GuideLLM ran it with");
}

/// A positive whole number field of a strategy, or nullopt when absent or null.
std::optional<std::int64_t> guide_count(const GuideBenchmark& b, const json& strategy, const char* key) {
    auto it = strategy.find(key);
    if (it == strategy.end() || it->is_null()) return std::nullopt;
    if (it->is_number_integer() && it->get<std::int64_t>() >= 1) return it->get<std::int64_t>();
    guide_fail(b, fmt::format("strategy.{} must be a whole number of 1 or more, found {}", key, shown(*it)));
}

/// The point's concurrency and how the methodology says it was taken.
std::pair<std::int64_t, std::string> guide_concurrency(const GuideBenchmark& b, const BenchOptions& options,
                                                       std::vector<std::string>& facts) {
    const json& strategy = guide_strategy(b);
    std::string type = strategy.value("type_", std::string());
    if (type.empty()) type = strategy.value("kind", std::string());
    if (type == "synchronous") return {1, "synchronous: one request at a time"};
    if (type == "concurrent") {
        auto streams = guide_count(b, strategy, "streams");
        if (!streams) guide_fail(b, "a concurrent strategy without streams: expected the requests kept in flight");
        return {*streams, fmt::format("concurrent at {} streams", *streams)};
    }
    if (type == "throughput") {
        if (auto cap = guide_count(b, strategy, "max_concurrency"))
            return {*cap, fmt::format("throughput, at most {} requests in flight", *cap)};
    }
    // Paced by a request rate (or as fast as possible with no cap): the concurrency is an outcome.
    std::string pace = type.empty() ? std::string("an unnamed strategy") : type;
    if (auto it = strategy.find("rate"); it != strategy.end() && it->is_number())
        pace += fmt::format(" at {} requests/s", shown(*it));
    if (options.concurrency) {
        return {*options.concurrency,
                fmt::format("{}; concurrency {} was given with --concurrency", pace, *options.concurrency)};
    }
    auto mean = guide_stat(b, "request_concurrency", "successful", "mean");
    if (!mean || !(*mean > 0)) {
        guide_fail(b, fmt::format("{} fixes no concurrency and the benchmark holds no request_concurrency; give the "
                                  "requests in flight with --concurrency",
                                  pace));
    }
    facts.push_back(
        fmt::format("{}: request_concurrency successful mean {}", b.where.substr(b.where.rfind(": ") + 2), *mean));
    std::int64_t n = whole_concurrency(*mean);
    return {n, fmt::format("{}, which fixes no concurrency: {} is request_concurrency's mean over successful "
                           "requests, {}, rounded (measured, not set)",
                           pace, n, *mean)};
}

MeasurementPoint read_guide_benchmark(const GuideBenchmark& b, const BenchOptions& options, BenchRun& run) {
    if (!b.value.is_object()) guide_fail(b, "is not a benchmark object");
    if (!b.value.contains("metrics") || !b.value.at("metrics").is_object())
        guide_fail(b, "has no metrics: expected GuideLLM's metrics of the benchmark");
    std::string label = b.where.substr(b.where.rfind(": ") + 2);
    MeasurementPoint p;
    p.listed = true;
    if (options.context) {
        p.context_length = *options.context;
    } else {
        auto prompt = guide_stat(b, "prompt_token_count", "successful", "mean");
        if (!prompt || !(*prompt >= 0) || *prompt > 1e15) {
            guide_fail(b, "holds no metrics.prompt_token_count.successful.mean: give the context with --context");
        }
        p.context_length = std::llround(*prompt);
        run.derivations.push_back(fmt::format(
            "{}: context_length {} is the successful requests' mean prompt_token_count, {}, rounded to a whole token",
            label, p.context_length, *prompt));
    }
    auto [concurrency, how] = guide_concurrency(b, options, run.facts);
    p.concurrency = concurrency;
    run.derivations.push_back(fmt::format("{}: {}", label, how));
    if (auto itl = guide_positive(b, "inter_token_latency_ms", "successful", "median")) {
        p.tps = speed_of_latency(b.where, "metrics.inter_token_latency_ms.successful.median", *itl);
        run.facts.push_back(fmt::format("{}: inter_token_latency_ms median {}", label, *itl));
    }
    if (auto ttft = guide_positive(b, "time_to_first_token_ms", "successful", "median")) {
        p.ttft_ms = *ttft;
        run.facts.push_back(fmt::format("{}: time_to_first_token_ms median {}", label, *ttft));
    }
    if (auto total = guide_positive(b, "output_tokens_per_second", "total", "mean")) {
        p.total_tps = *total;
        run.facts.push_back(fmt::format("{}: output_tokens_per_second mean {} over all requests", label, *total));
    }
    if (auto out = guide_stat(b, "output_token_count", "successful", "mean");
        out && *out >= 1 && *out < 1e15 && *out == std::floor(*out)) {
        p.gen_tokens = static_cast<std::int64_t>(*out);
    }
    json::json_pointer done("/metrics/request_totals/successful");
    if (b.value.contains(done) && b.value.at(done).is_number_integer())
        run.facts.push_back(fmt::format("{}: {} successful requests", label, b.value.at(done).get<std::int64_t>()));
    if (!p.tps && !p.ttft_ms && !p.total_tps) {
        guide_fail(b,
                   "holds none of inter_token_latency_ms, time_to_first_token_ms and output_tokens_per_second: no "
                   "speed to import");
    }
    return p;
}

/// What a report says of its run as a whole: the versions, the model and the data asked for.
void guide_facts(const json& j, BenchRun& run) {
    for (const char* path : {"/metadata/guidellm_version", "/args/model", "/args/data", "/args/profile",
                             "/config/backend/model", "/benchmarks/0/config/backend/model",
                             "/benchmarks/0/worker/backend_model", "/benchmarks/0/request_loader/data"}) {
        json::json_pointer ptr(path);
        if (!j.contains(ptr) || j.at(ptr).is_null()) continue;
        std::string name = std::string(path).substr(std::string(path).rfind('/') + 1);
        std::string fact = fmt::format("{} {}", name, shown(j.at(ptr)));
        if (std::find(run.facts.begin(), run.facts.end(), fact) == run.facts.end()) run.facts.push_back(fact);
    }
}

bool is_guidellm_report(const json& j) {
    if (!j.is_object()) return false;
    auto it = j.find("benchmarks");
    if (it == j.end() || !it->is_array()) return false;
    if (j.contains(json::json_pointer("/metadata/guidellm_version"))) return true;
    return !it->empty() && it->front().is_object() && it->front().value("type_", "") == "generative_benchmark";
}

BenchRun read_guidellm(const std::string& file, const std::string& text, const json& j, const BenchOptions& options) {
    BenchRun run;
    run.format = "GuideLLM benchmarks JSON";
    const json& benchmarks = j.at("benchmarks");
    auto offsets = guidellm_benchmark_offsets(text);
    if (benchmarks.empty()) {
        auto at = text.find('{');
        int line = 1;
        for (std::size_t i = 0; i < at && i < text.size(); ++i) line += text[i] == '\n';
        fail(file, line, 1, "holds no benchmark: its \"benchmarks\" list is empty");
    }
    guide_facts(j, run);
    if (options.context)
        run.derivations.push_back(fmt::format("context_length {} was given with --context", *options.context));
    std::vector<std::pair<std::string, MeasurementPoint>> seen;
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        std::size_t at = i < offsets.size() ? offsets[i] : 0;
        int line = 1;
        std::size_t line_start = 0;
        for (std::size_t k = 0; k < at; ++k) {
            if (text[k] == '\n') {
                ++line;
                line_start = k + 1;
            }
        }
        GuideBenchmark b{benchmarks[i], fmt::format("{}:{}:{}: benchmark {}", file, line, at - line_start + 1, i + 1)};
        MeasurementPoint p = read_guide_benchmark(b, options, run);
        for (const auto& [where, q] : seen) {
            if (q.context_length == p.context_length && q.concurrency == p.concurrency) {
                guide_fail(b, fmt::format("is at context {} and concurrency {}, as {} is: a record holds one point "
                                          "per context and concurrency",
                                          p.context_length, p.concurrency, where));
            }
        }
        seen.emplace_back(fmt::format("benchmark {}", i + 1), p);
        run.points.push_back(p);
    }
    run.facts.push_back("the speeds are the client's: GuideLLM measures them over the HTTP API it benchmarks");
    run.layout =
        "one per benchmark; measured_tps_at_ctx is 1000 / the median inter_token_latency_ms and\n"
        "measured_ttft_ms_at_ctx the median time_to_first_token_ms of the successful requests,\n"
        "measured_total_tps_at_ctx the mean output_tokens_per_second over all requests, all\n"
        "measured by the client.\n";
    return run;
}

}  // namespace

bool guidellm_claims(BenchInput& in) {
    return in.document && is_guidellm_report(*in.document);
}

BenchRun read_guidellm_report(BenchInput& in) {
    return sorted(read_guidellm(in.file, in.text, *in.document, in.options));
}

}  // namespace kvcat::bench
