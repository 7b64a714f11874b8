#include "import/bench_sglang_serving.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "support/json_input.h"

namespace kvcat::bench {

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

bool sglang_serving_claims(BenchInput& in) {
    return in.body.front() == '{' && !in.lines().empty() && is_sglang_serving_line(in.lines().front().value);
}

BenchRun read_sglang_serving_lines(BenchInput& in) {
    auto lines = json_lines(in.lines());
    return sorted(read_sglang_serving(in.file, lines, in.options));
}

}  // namespace kvcat::bench
