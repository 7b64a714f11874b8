// GuideLLM `benchmarks.json`: {"benchmarks": [...]}, each benchmark one point. Its context
// is --context, else the successful requests' mean prompt_token_count, rounded; its
// concurrency the one its strategy fixes (synchronous 1, concurrent `streams`, throughput
// `max_concurrency`), else, for a run paced by a request rate (constant, poisson), --concurrency
// or the mean request_concurrency GuideLLM measured, rounded; the decode speed per request
// 1000 / the median inter_token_latency_ms, the TTFT the median time_to_first_token_ms (both
// of successful requests), the total output_tokens_per_second's mean over all requests.
#pragma once

#include "import/bench_input.h"

namespace kvcat::bench {

bool guidellm_claims(BenchInput& in);
BenchRun read_guidellm_report(BenchInput& in);

}  // namespace kvcat::bench
