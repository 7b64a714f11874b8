#include "import/bench_vllm.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace kvcat::bench {

namespace {

bool looks_like_vllm(const json& j) {
    return j.is_object() && (j.contains("median_tpot_ms") || j.contains("mean_ttft_ms")) && j.contains("completed");
}

BenchRun read_vllm(const std::string& file, const std::string& text, const json& j, const BenchOptions& options) {
    Entry e{j, 1, 1, 1};
    auto [line, column] = line_column(text, text.find('{'));
    e.line = line;
    e.column = column;
    BenchRun run;
    run.format = "vLLM bench serve JSON";
    run.engine = "vLLM";
    MeasurementPoint p;
    p.listed = true;
    // The context: --context when given; else an input length the file holds (a key saved
    // with --metadata, e.g. random_input_len=8192, which vLLM writes as a string); else the
    // mean input length, total_input_tokens / completed. A saved result names no input
    // length of its own, so which of these was used is said in the methodology.
    std::optional<std::int64_t> context = options.context;
    if (context) {
        run.derivations.push_back(fmt::format("context_length {} was given with --context", *context));
    }
    for (const char* key : {"random_input_len", "input_len", "sharegpt_input_len"}) {
        if (context) break;
        auto it = j.find(key);
        if (it == j.end() || it->is_null()) continue;
        std::optional<std::int64_t> v;
        if (it->is_string()) {
            const std::string& s = it->get_ref<const std::string&>();
            std::int64_t n = 0;
            auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
            if (ec == std::errc() && ptr == s.data() + s.size()) v = n;
        } else {
            v = whole(file, e, key);
        }
        if (!v || *v < 0) {
            fail(file, line, column, fmt::format("'{}' is {}, not a whole number of tokens", key, shown(*it)));
        }
        context = v;
        run.derivations.push_back(fmt::format("context_length {} is the file's {}", *v, key));
    }
    if (!context) {
        auto input = whole(file, e, "total_input_tokens");
        auto done = whole(file, e, "completed");
        if (input && done && *done > 0 && *input >= 0) {
            // Rounded half up: the mean input length in whole tokens.
            context = (*input + *done / 2) / *done;
            run.derivations.push_back(
                fmt::format("context_length {} is the mean input length, total_input_tokens {} / completed {}, "
                            "rounded to a whole token",
                            *context, *input, *done));
        }
    }
    if (!context) {
        fail(file, line, column,
             "the result holds no input length (no random_input_len saved with --metadata, no total_input_tokens "
             "and completed); give the context with --context, e.g. the run's --random-input-len");
    }
    p.context_length = *context;
    auto concurrency = whole(file, e, "max_concurrency");
    if (!concurrency) concurrency = options.concurrency;
    if (!concurrency || *concurrency < 1) {
        fail(file, line, column,
             "the result has no max_concurrency (the run set no --max-concurrency); give the requests in flight "
             "with --concurrency");
    }
    p.concurrency = *concurrency;
    if (auto tpot = number(file, e, "median_tpot_ms")) {
        positive(file, e, "median_tpot_ms", *tpot);
        p.tps = std::round(100000.0 / *tpot) / 100.0;  // 1000 / TPOT, to 0.01 token/s
        if (!(p.tps > 0)) {
            fail(file, e.line, e.column,
                 fmt::format("'median_tpot_ms' is {} ms a token, a decode speed of 1000 / {} that is 0.00 "
                             "tokens/s at two decimals: no speed kvcat can record",
                             *tpot, *tpot));
        }
        run.facts.push_back(fmt::format("median_tpot_ms {} (decode speed per request = 1000 / it, to 0.01)", *tpot));
    }
    if (auto ttft = number(file, e, "median_ttft_ms")) {
        p.ttft_ms = positive(file, e, "median_ttft_ms", *ttft);
        run.facts.push_back(fmt::format("median_ttft_ms {}", *ttft));
    }
    if (auto total = number(file, e, "output_throughput")) {
        p.total_tps = positive(file, e, "output_throughput", *total);
        run.facts.push_back(fmt::format("output_throughput {} tokens/s over all requests", *total));
    }
    for (const char* key : {"model_id", "backend", "num_prompts", "completed", "total_input_tokens",
                            "total_output_tokens", "request_rate", "max_concurrency", "date"}) {
        if (auto v = text_field(e, key)) run.facts.push_back(fmt::format("{} {}", key, *v));
    }
    run.points.push_back(p);
    return run;
}

}  // namespace

bool vllm_claims(BenchInput& in) {
    return in.document && looks_like_vllm(*in.document) && !is_sglang_serving_line(*in.document);
}

BenchRun read_vllm_result(BenchInput& in) {
    return read_vllm(in.file, in.text, *in.document, in.options);
}

}  // namespace kvcat::bench
