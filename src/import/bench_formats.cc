#include "import/bench_formats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "support/json_input.h"

namespace kvcat {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& file, int line, int column, const std::string& what) {
    throw BenchError(fmt::format("{}:{}:{}: {}", file, line, column, what));
}

std::string shown(const json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

/// A whole number field of a JSONL line, or an error naming it.
std::int64_t whole_at(const std::string& file, const JsonLine& l, const char* key) {
    auto it = l.value.find(key);
    if (it == l.value.end() || it->is_null()) {
        fail(file, l.line, 1, fmt::format("'{}' is missing: a llama-batched-bench line gives pp, tg and pl", key));
    }
    if (it->is_number_integer() && it->get<std::int64_t>() >= 0) return it->get<std::int64_t>();
    fail(file, l.line, 1, fmt::format("'{}' must be a whole number of zero or more, found {}", key, shown(*it)));
}

/// A positive number field, or an error naming it.
double speed_at(const std::string& file, int line, const json& obj, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_number() || !std::isfinite(it->get<double>()) || !(it->get<double>() > 0)) {
        fail(file, line, 1,
             fmt::format("'{}' must be a number above zero, found {}", key,
                         it == obj.end() ? std::string("nothing") : shown(*it)));
    }
    return it->get<double>();
}

/// The fields that make two batched-bench lines one configuration.
constexpr const char* kBatchedConfiguration[] = {"n_kv_max",     "n_batch",      "n_ubatch",  "flash_attn",
                                                 "is_pp_shared", "n_gpu_layers", "n_threads", "n_threads_batch"};

/// A metric of a profile export: {unit, avg, p50, ...}.
const json* metric(const json& j, const char* name) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_object()) return nullptr;
    return &*it;
}

}  // namespace

bool is_batched_bench_line(const json& j) {
    return j.is_object() && j.contains("speed_tg") && j.contains("pl") && j.contains("pp");
}

BenchRun read_batched_bench(const std::string& file, const std::vector<JsonLine>& lines) {
    if (lines.empty()) fail(file, 1, 1, "holds no llama-batched-bench result");
    BenchRun run;
    run.format = "llama-batched-bench JSONL";
    run.engine = "llama.cpp";
    const JsonLine& first = lines.front();
    for (const char* key : kBatchedConfiguration) {
        if (auto it = first.value.find(key); it != first.value.end()) {
            run.facts.push_back(fmt::format("{} {}", key, shown(*it)));
        }
    }
    bool shared = first.value.value("is_pp_shared", 0) != 0;
    for (const JsonLine& l : lines) {
        if (!is_batched_bench_line(l.value)) {
            fail(file, l.line, 1, "not a llama-batched-bench result (no pp, pl and speed_tg)");
        }
        for (const char* key : kBatchedConfiguration) {
            auto a = first.value.find(key);
            auto b = l.value.find(key);
            bool has_a = a != first.value.end();
            bool has_b = b != l.value.end();
            if (has_a != has_b || (has_a && *a != *b)) {
                fail(file, l.line, 1,
                     fmt::format("{} is {} here and {} on line {}: a record holds one configuration, so import "
                                 "each configuration's lines separately",
                                 key, has_b ? shown(*b) : "absent", has_a ? shown(*a) : "absent", first.line));
            }
        }
        MeasurementPoint p;
        p.listed = true;
        p.context_length = whole_at(file, l, "pp");
        p.prompt_tokens = p.context_length > 0 ? std::optional<std::int64_t>(p.context_length) : std::nullopt;
        std::int64_t tg = whole_at(file, l, "tg");
        if (tg > 0) p.gen_tokens = tg;
        p.concurrency = whole_at(file, l, "pl");
        if (p.concurrency < 1) fail(file, l.line, 1, "'pl' must be 1 or more: the sequences decoded together");
        p.total_tps = speed_at(file, l.line, l.value, "speed_tg");
        if (p.concurrency == 1) {
            p.tps = p.total_tps;
            if (p.context_length > 0) {
                p.prefill_tps = speed_at(file, l.line, l.value, "speed_pp");
                p.ttft_ms = speed_at(file, l.line, l.value, "t_pp") * 1000.0;
            }
        }
        for (const auto& q : run.points) {
            if (q.context_length == p.context_length && q.concurrency == p.concurrency) {
                fail(file, l.line, 1,
                     fmt::format("repeats pp {} and pl {} (another tg): a record holds one point per context and "
                                 "concurrency, so import each -ntg value separately",
                                 p.context_length, p.concurrency));
            }
        }
        run.points.push_back(p);
    }
    run.derivations.push_back(
        "context_length is pp, the prompt each sequence decodes after; the decode speed is the mean over its tg "
        "tokens");
    run.derivations.push_back(
        "at pl 1, measured_ttft_ms_at_ctx is t_pp x 1000 (t_pp is printed in seconds) and the prefill speed "
        "speed_pp; above pl 1 speed_pp counts every sequence's prompt, so no prefill speed or TTFT is kept");
    if (shared) run.facts.push_back("the prompt is shared by the pl sequences (-pps)");
    run.layout =
        "one per line, at context pp and concurrency pl; measured_total_tps_at_ctx is speed_tg,\n"
        "and at pl 1 measured_tps_at_ctx is speed_tg too.\n";
    return run;
}

bool is_profile_export(const json& j) {
    const json* ttft = j.is_object() ? metric(j, "time_to_first_token") : nullptr;
    return ttft && ttft->contains("unit") &&
           (j.contains("inter_token_latency") || j.contains("output_token_throughput"));
}

BenchRun read_profile_export(const std::string& file, int line, int column, const json& j,
                             const BenchOptions& options) {
    BenchRun run;
    bool aiperf = j.contains("aiperf_version");
    run.format = aiperf ? "AIPerf profile export" : "genai-perf profile export";
    for (const char* key : {"aiperf_version", "schema_version", "benchmark_id", "start_time"}) {
        if (auto it = j.find(key); it != j.end() && !it->is_null())
            run.facts.push_back(fmt::format("{} {}", key, shown(*it)));
    }
    MeasurementPoint p;
    p.listed = true;
    auto stat = [&](const char* name, const char* which, const char* unit) -> std::optional<double> {
        const json* m = metric(j, name);
        if (!m) return std::nullopt;
        std::string got = m->value("unit", "");
        if (unit && got != unit) {
            fail(file, line, column, fmt::format("{} is in '{}', expected {}", name, got, unit));
        }
        auto it = m->find(which);
        if (it == m->end() || it->is_null()) return std::nullopt;
        if (!it->is_number() || !std::isfinite(it->get<double>())) {
            fail(file, line, column, fmt::format("{}.{} must be a number, found {}", name, which, shown(*it)));
        }
        return it->get<double>();
    };
    if (options.context) {
        p.context_length = *options.context;
        run.derivations.push_back(fmt::format("context_length {} was given with --context", *options.context));
    } else if (auto isl = stat("input_sequence_length", "avg", "tokens"); isl && *isl >= 0) {
        p.context_length = static_cast<std::int64_t>(std::llround(*isl));
        run.derivations.push_back(fmt::format(
            "context_length {} is input_sequence_length's avg {}, rounded to a whole token", p.context_length, *isl));
    } else {
        fail(file, line, column, "the export holds no input_sequence_length; give the context with --context");
    }
    std::optional<std::int64_t> concurrency = options.concurrency;
    if (!concurrency) {
        // AIPerf keeps the run's settings in input_config.loadgen; genai-perf in input_config.
        for (const char* path : {"/input_config/loadgen/concurrency", "/input_config/concurrency"}) {
            json::json_pointer ptr(path);
            if (j.contains(ptr) && j.at(ptr).is_number_integer()) {
                concurrency = j.at(ptr).get<std::int64_t>();
                break;
            }
        }
    }
    if (!concurrency || *concurrency < 1) {
        fail(file, line, column,
             "the export names no concurrency (no input_config with one); give the requests in flight with "
             "--concurrency, the run's --concurrency");
    }
    p.concurrency = *concurrency;
    if (auto itl = stat("inter_token_latency", "p50", "ms")) {
        if (!(*itl > 0)) fail(file, line, column, "inter_token_latency.p50 must be above zero");
        p.tps = std::round(100000.0 / *itl) / 100.0;
        run.facts.push_back(
            fmt::format("inter_token_latency p50 {} ms (decode speed per request = 1000 / it, to 0.01)", *itl));
    }
    if (auto ttft = stat("time_to_first_token", "p50", "ms")) {
        if (!(*ttft > 0)) fail(file, line, column, "time_to_first_token.p50 must be above zero");
        p.ttft_ms = *ttft;
        run.facts.push_back(fmt::format("time_to_first_token p50 {} ms", *ttft));
    }
    if (auto total = stat("output_token_throughput", "avg", nullptr)) {
        if (!(*total > 0)) fail(file, line, column, "output_token_throughput.avg must be above zero");
        p.total_tps = *total;
        run.facts.push_back(fmt::format("output_token_throughput {} tokens/s over all requests", *total));
    }
    if (auto osl = stat("output_sequence_length", "avg", "tokens"); osl && *osl >= 1 && *osl == std::floor(*osl)) {
        p.gen_tokens = static_cast<std::int64_t>(*osl);
    }
    if (auto count = stat("request_count", "avg", nullptr))
        run.facts.push_back(fmt::format("request_count {}", *count));
    run.facts.push_back("the speeds are the client's: measured by the benchmark client over the network");
    run.layout =
        "one for the export; measured_tps_at_ctx is 1000 / inter_token_latency's p50,\n"
        "measured_total_tps_at_ctx is output_token_throughput, both measured by the client.\n";
    run.points.push_back(p);
    return run;
}

// ---------------------------------------------------------------------------------
// Shared by the two serving benchmarks
// ---------------------------------------------------------------------------------

namespace {

/// 1000 / a per-token latency in ms, to 0.01 token/s, or an error when that rounds to zero.
double speed_of_latency(const std::string& where, const std::string& name, double ms) {
    double tps = std::round(100000.0 / ms) / 100.0;
    if (!std::isfinite(tps)) {
        throw BenchError(fmt::format("{}: {} is {} ms a token, too short to be a decode speed", where, name, ms));
    }
    if (!(tps > 0)) {
        throw BenchError(
            fmt::format("{}: {} is {} ms a token, a decode speed of 0.00 tokens/s at two decimals: no "
                        "speed kvcat can record",
                        where, name, ms));
    }
    return tps;
}

/// A mean count of requests in flight as a whole number of at least one.
std::int64_t whole_concurrency(double mean) {
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(std::min(mean, 1e15))));
}

}  // namespace

// ---------------------------------------------------------------------------------
// GuideLLM benchmarks.json
// ---------------------------------------------------------------------------------

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

}  // namespace

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

// ---------------------------------------------------------------------------------
// SGLang bench_serving JSONL
// ---------------------------------------------------------------------------------

namespace {

/// The fields that make two bench_serving lines one workload against one server.
constexpr const char* kSglangConfiguration[] = {"backend", "dataset_name", "random_range_ratio", "sharegpt_output_len",
                                                "sharegpt_context_len"};

/// The engine behind a bench_serving --backend.
std::optional<std::string> engine_of_backend(const std::string& backend) {
    if (backend.starts_with("sglang")) return "SGLang";
    if (backend.starts_with("vllm")) return "vLLM";
    if (backend.starts_with("lmdeploy")) return "LMDeploy";
    if (backend == "trt") return "TensorRT-LLM";
    return std::nullopt;
}

/// A number field of a line, or nullopt when absent or null; an error naming it otherwise.
std::optional<double> sglang_number(const std::string& file, const JsonLine& l, const char* key) {
    auto it = l.value.find(key);
    if (it == l.value.end() || it->is_null()) return std::nullopt;
    if (it->is_number() && std::isfinite(it->get<double>())) return it->get<double>();
    fail(file, l.line, 1, fmt::format("'{}' must be a finite number, found {}", key, shown(*it)));
}

double sglang_positive(const std::string& file, const JsonLine& l, const char* key, double v) {
    if (!(v > 0)) fail(file, l.line, 1, fmt::format("'{}' is {}, expected a number above zero", key, v));
    return v;
}

/// A whole number field of zero or more, or nullopt when absent or null.
std::optional<std::int64_t> sglang_count(const std::string& file, const JsonLine& l, const char* key) {
    auto it = l.value.find(key);
    if (it == l.value.end() || it->is_null()) return std::nullopt;
    if (it->is_number_integer() && it->get<std::int64_t>() >= 0) return it->get<std::int64_t>();
    fail(file, l.line, 1, fmt::format("'{}' must be a whole number of zero or more, found {}", key, shown(*it)));
}

std::int64_t sglang_context(const std::string& file, const JsonLine& l, const BenchOptions& options, std::string& how) {
    if (options.context) {
        how = fmt::format("context_length {} was given with --context", *options.context);
        return *options.context;
    }
    std::string dataset = l.value.value("dataset_name", std::string());
    auto input_len = sglang_count(file, l, "random_input_len");
    auto ratio = sglang_number(file, l, "random_range_ratio");
    if (dataset.starts_with("random") && input_len && ratio && *ratio == 1.0) {
        how = fmt::format("context_length {} is random_input_len: at random_range_ratio 1 every prompt has it",
                          *input_len);
        return *input_len;
    }
    auto input = sglang_count(file, l, "total_input_tokens");
    auto done = sglang_count(file, l, "completed");
    if (!input || !done || *done < 1) {
        fail(file, l.line, 1,
             "holds no total_input_tokens and completed of 1 or more to take the mean input length from; give the "
             "context with --context");
    }
    std::int64_t mean = (*input + *done / 2) / *done;
    how = fmt::format("context_length {} is the mean input length, total_input_tokens {} / completed {}, rounded{}",
                      mean, *input, *done,
                      dataset.starts_with("random") ? fmt::format(" (random_input_len {} is the longest a prompt "
                                                                  "could be at random_range_ratio {})",
                                                                  input_len.value_or(0), ratio.value_or(0))
                                                    : std::string());
    return mean;
}

std::int64_t sglang_concurrency(const std::string& file, const JsonLine& l, const BenchOptions& options,
                                std::string& how) {
    if (auto cap = sglang_count(file, l, "max_concurrency")) {
        if (*cap < 1) fail(file, l.line, 1, "'max_concurrency' must be 1 or more");
        return *cap;
    }
    std::string rate = l.value.contains("request_rate") ? shown(l.value.at("request_rate")) : "unstated";
    if (options.concurrency) {
        how = fmt::format("request_rate {} with no max_concurrency; concurrency {} was given with --concurrency", rate,
                          *options.concurrency);
        return *options.concurrency;
    }
    if (auto mean = sglang_number(file, l, "concurrency"); mean && *mean > 0) {
        std::int64_t n = whole_concurrency(*mean);
        how = fmt::format(
            "request_rate {} with no max_concurrency: concurrency {} is the line's concurrency {} (the "
            "mean requests in flight), rounded (measured, not set)",
            rate, n, *mean);
        return n;
    }
    auto done = sglang_count(file, l, "completed");
    auto e2e = sglang_number(file, l, "mean_e2e_latency_ms");
    auto duration = sglang_number(file, l, "duration");
    if (!done || !e2e || !duration || *done < 1 || !(*e2e > 0) || !(*duration > 0)) {
        fail(file, l.line, 1,
             fmt::format("request_rate {} with no max_concurrency, and no concurrency nor completed, "
                         "mean_e2e_latency_ms and duration to work one out: give the requests in flight with "
                         "--concurrency",
                         rate));
    }
    double mean = static_cast<double>(*done) * (*e2e / 1000.0) / *duration;
    std::int64_t n = whole_concurrency(mean);
    how = fmt::format(
        "request_rate {} with no max_concurrency: concurrency {} is the mean requests in flight, "
        "completed {} x mean_e2e_latency_ms {} / 1000 / duration {} = {}, rounded (SGLang's own "
        "reckoning of its concurrency figure; measured, not set)",
        rate, n, *done, *e2e, *duration, mean);
    return n;
}

MeasurementPoint read_sglang_line(const std::string& file, const JsonLine& l, const BenchOptions& options,
                                  BenchRun& run) {
    MeasurementPoint p;
    p.listed = true;
    std::string how;
    p.context_length = sglang_context(file, l, options, how);
    if (!how.empty()) run.derivations.push_back(fmt::format("line {}: {}", l.line, how));
    how.clear();
    p.concurrency = sglang_concurrency(file, l, options, how);
    if (!how.empty()) run.derivations.push_back(fmt::format("line {}: {}", l.line, how));
    std::string where = fmt::format("{}:{}:1", file, l.line);
    if (auto tpot = sglang_number(file, l, "median_tpot_ms")) {
        p.tps = speed_of_latency(where, "'median_tpot_ms'", sglang_positive(file, l, "median_tpot_ms", *tpot));
    } else if (auto itl = sglang_number(file, l, "median_itl_ms")) {
        p.tps = speed_of_latency(where, "'median_itl_ms'", sglang_positive(file, l, "median_itl_ms", *itl));
        std::string why =
            "measured_tps_at_ctx is 1000 / median_itl_ms where a line saves no median_tpot_ms (an older writer); "
            "an inter-token gap is one token's only when each streamed chunk holds one";
        if (std::find(run.derivations.begin(), run.derivations.end(), why) == run.derivations.end())
            run.derivations.push_back(why);
    }
    if (auto ttft = sglang_number(file, l, "median_ttft_ms"))
        p.ttft_ms = sglang_positive(file, l, "median_ttft_ms", *ttft);
    if (auto total = sglang_number(file, l, "output_throughput"))
        p.total_tps = sglang_positive(file, l, "output_throughput", *total);
    if (!p.tps && !p.ttft_ms && !p.total_tps)
        fail(file, l.line, 1, "holds none of median_tpot_ms, median_itl_ms, median_ttft_ms and output_throughput");
    auto output = sglang_count(file, l, "total_output_tokens");
    auto done = sglang_count(file, l, "completed");
    if (output && done && *done >= 1 && *output >= *done && *output % *done == 0) p.gen_tokens = *output / *done;
    std::string fact = fmt::format("line {}:", l.line);
    for (const char* key :
         {"dataset_name", "request_rate", "max_concurrency", "random_input_len", "random_output_len", "completed",
          "duration", "median_tpot_ms", "median_itl_ms", "median_ttft_ms", "output_throughput", "accept_length"}) {
        auto it = l.value.find(key);
        if (it != l.value.end() && !it->is_null()) fact += fmt::format(" {} {},", key, shown(*it));
    }
    fact.pop_back();
    run.facts.push_back(fact);
    return p;
}

void check_one_workload(const std::string& file, const std::vector<JsonLine>& lines) {
    const JsonLine& first = lines.front();
    for (const JsonLine& l : lines) {
        if (!is_sglang_serving_line(l.value)) {
            fail(file, l.line, 1,
                 "not a bench_serving result (expected completed, total_output_tokens_retokenized and a latency "
                 "or throughput)");
        }
        for (const char* key : kSglangConfiguration) {
            auto a = first.value.find(key);
            auto b = l.value.find(key);
            bool has_a = a != first.value.end() && !a->is_null();
            bool has_b = b != l.value.end() && !b->is_null();
            if (has_a != has_b || (has_a && *a != *b)) {
                fail(file, l.line, 1,
                     fmt::format("{} is {} here and {} on line {}: a record holds one workload against one server, "
                                 "so import each one's lines separately",
                                 key, has_b ? shown(*b) : "absent", has_a ? shown(*a) : "absent", first.line));
            }
        }
    }
}

}  // namespace

bool is_sglang_serving_line(const json& j) {
    return j.is_object() && j.contains("total_output_tokens_retokenized") && j.contains("completed") &&
           (j.contains("median_ttft_ms") || j.contains("median_itl_ms") || j.contains("output_throughput"));
}

std::optional<json> parse_python_json_line(std::string_view line) {
    bool rewrote = false;
    std::string out = python_floats_as_strings(line, rewrote);
    if (!rewrote) return std::nullopt;
    try {
        return parse_json_input(out);
    } catch (const JsonInputError&) {
        return std::nullopt;
    }
}

BenchRun read_sglang_serving(const std::string& file, const std::vector<JsonLine>& lines, const BenchOptions& options) {
    if (lines.empty()) fail(file, 1, 1, "holds no bench_serving result");
    check_one_workload(file, lines);
    BenchRun run;
    run.format = "SGLang bench_serving JSONL";
    std::string backend = lines.front().value.value("backend", std::string());
    run.engine = engine_of_backend(backend);
    if (!backend.empty()) run.facts.push_back(fmt::format("backend {}", backend));
    std::vector<std::pair<int, MeasurementPoint>> seen;
    for (const JsonLine& l : lines) {
        MeasurementPoint p = read_sglang_line(file, l, options, run);
        for (const auto& [line, q] : seen) {
            if (q.context_length == p.context_length && q.concurrency == p.concurrency) {
                fail(file, l.line, 1,
                     fmt::format("is at context {} and concurrency {}, as line {} is: a record holds one point per "
                                 "context and concurrency",
                                 p.context_length, p.concurrency, line));
            }
        }
        seen.emplace_back(l.line, p);
        run.points.push_back(p);
    }
    run.facts.push_back("the speeds are the client's: bench_serving measures them over the HTTP API");
    run.layout =
        "one per line; measured_tps_at_ctx is 1000 / median_tpot_ms (or median_itl_ms),\n"
        "measured_ttft_ms_at_ctx median_ttft_ms, measured_total_tps_at_ctx output_throughput,\n"
        "all measured by the client.\n";
    return run;
}

}  // namespace kvcat
