#include "bench_formats.h"

#include <cmath>

#include <fmt/format.h>

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
    run.points.push_back(p);
    return run;
}

}  // namespace kvcat
