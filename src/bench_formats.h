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
// Every entry must be one configuration; bad input is a BenchError naming file:line:column.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_import.h"

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

}  // namespace kvcat
