// More benchmark formats for `kvcat import-bench`, beside those of bench_import.h:
//   - llama-batched-bench `--output-format jsonl`: one object a line with pp (prompt tokens
//     per sequence), tg (generated tokens per sequence), pl (sequences in parallel), t_pp,
//     speed_pp, t_tg, speed_tg. A line is one point at context pp and concurrency pl:
//     speed_tg is the total decode speed over the pl sequences (measured_total_tps_at_ctx),
//     and one sequence's speed too when pl is 1; at pl 1, speed_pp is the prefill speed
//     and t_pp (the tool's "time to first token") the TTFT, in ms (x 1000, said in the
//     methodology). Above pl 1 the prompt figures cover all sequences, so none is kept.
//   - AIPerf `profile_export_aiperf.json` and genai-perf `profile_export_genai_perf.json`:
//     one object whose metrics are {unit, avg, p50, ...}. Its point's context is --context,
//     else input_sequence_length's avg rounded (said so); the concurrency --concurrency, else
//     the one the file's input_config holds; the decode speed per request 1000 / the p50
//     inter_token_latency in ms, to 0.01; the TTFT its p50; the total output_token_throughput.
//   - GuideLLM `benchmarks.json`: {"benchmarks": [...]}, each benchmark one point. Its context
//     is --context, else the successful requests' mean prompt_token_count, rounded; its
//     concurrency the one its strategy fixes (synchronous 1, concurrent `streams`, throughput
//     `max_concurrency`), else, for a run paced by a request rate (constant, poisson), --concurrency
//     or the mean request_concurrency GuideLLM measured, rounded; the decode speed per request
//     1000 / the median inter_token_latency_ms, the TTFT the median time_to_first_token_ms (both
//     of successful requests), the total output_tokens_per_second's mean over all requests.
//   - SGLang `bench_serving --output-file` JSONL: one object a line, each a point. Its context is
//     --context, else random_input_len when every prompt had that length (a random dataset at
//     random_range_ratio 1), else the mean input length total_input_tokens / completed, rounded;
//     its concurrency max_concurrency, else --concurrency, else the mean requests in flight
//     (the line's `concurrency`, or completed x mean_e2e_latency_ms / duration as SGLang works
//     it out), rounded; the decode speed per request 1000 / median_tpot_ms (1000 / median_itl_ms
//     when the writer saved no TPOT), the TTFT median_ttft_ms, the total output_throughput.
//     Python writes an unbounded request rate as the bare word Infinity, which is read there.
// Every entry must be one configuration; bad input is a BenchError naming file:line:column.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "import/bench_import.h"

namespace kvcat {

/// One JSONL line of a benchmark file, with its line number.
struct JsonLine {
    nlohmann::json value;
    int line = 0;
};

/// True when the object is a llama-batched-bench JSONL result.
bool is_batched_bench_line(const nlohmann::json& j);

/// Reads llama-batched-bench JSONL lines as one run. Throws BenchError.
BenchRun read_batched_bench(const std::string& file, const std::vector<JsonLine>& lines);

/// True when the object is an AIPerf or genai-perf profile export.
bool is_profile_export(const nlohmann::json& j);

/// Reads an AIPerf or genai-perf profile export starting at `line`:`column`. Throws BenchError.
BenchRun read_profile_export(const std::string& file, int line, int column, const nlohmann::json& j,
                             const BenchOptions& options);

/// True when the document is a GuideLLM benchmarks report.
bool is_guidellm_report(const nlohmann::json& j);

/// Reads a GuideLLM report; `text` is the file's text, for the place of each benchmark. Throws
/// BenchError.
BenchRun read_guidellm(const std::string& file, const std::string& text, const nlohmann::json& j,
                       const BenchOptions& options);

/// True when the object is one line of SGLang bench_serving output.
bool is_sglang_serving_line(const nlohmann::json& j);

/// A JSONL line parsed with Python's bare Infinity, -Infinity and NaN read as the strings
/// "Infinity", "-Infinity" and "NaN"; nullopt when it is not JSON even so.
std::optional<nlohmann::json> parse_python_json_line(std::string_view line);

/// Reads SGLang bench_serving JSONL lines as one run. Throws BenchError.
BenchRun read_sglang_serving(const std::string& file, const std::vector<JsonLine>& lines, const BenchOptions& options);

}  // namespace kvcat
