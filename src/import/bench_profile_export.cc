#include "import/bench_profile_export.h"

#include <cmath>

#include <fmt/format.h>

namespace kvcat::bench {

namespace {

/// A metric of a profile export: {unit, avg, p50, ...}.
const json* metric(const json& j, const char* name) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_object()) return nullptr;
    return &*it;
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

}  // namespace

bool profile_export_claims(BenchInput& in) {
    return in.document && is_profile_export(*in.document);
}

BenchRun read_profile_export_file(BenchInput& in) {
    auto [line, column] = line_column(in.text, in.start);
    return sorted(read_profile_export(in.file, line, column, *in.document, in.options));
}

}  // namespace kvcat::bench
