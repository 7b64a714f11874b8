#include "import/bench_batched_bench.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace kvcat::bench {

namespace {

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

}  // namespace

bool batched_bench_claims(BenchInput& in) {
    return in.body.front() == '{' && !in.lines().empty() && is_batched_bench_line(in.lines().front().value);
}

BenchRun read_batched_bench_lines(BenchInput& in) {
    auto lines = json_lines(in.lines());
    return sorted(read_batched_bench(in.file, lines));
}

}  // namespace kvcat::bench
