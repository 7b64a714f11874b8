// SGLang `bench_serving --output-file` JSONL: one object a line, each a point. Its context is
// --context, else random_input_len when every prompt had that length (a random dataset at
// random_range_ratio 1), else the mean input length total_input_tokens / completed, rounded;
// its concurrency max_concurrency, else --concurrency, else the mean requests in flight
// (the line's `concurrency`, or completed x mean_e2e_latency_ms / duration as SGLang works
// it out), rounded; the decode speed per request 1000 / median_tpot_ms (1000 / median_itl_ms
// when the writer saved no TPOT), the TTFT median_ttft_ms, the total output_throughput.
// Python writes an unbounded request rate as the bare word Infinity, which is read there.
#pragma once

#include "import/bench_input.h"

namespace kvcat::bench {

bool sglang_serving_claims(BenchInput& in);
BenchRun read_sglang_serving_lines(BenchInput& in);

}  // namespace kvcat::bench
