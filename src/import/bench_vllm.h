// A `vllm bench serve --save-result` JSON: one file is one point at its max_concurrency. Its
// context is --context when given, else an input length saved in the file with --metadata
// (random_input_len, input_len), else the mean input length total_input_tokens / completed,
// rounded; the methodology says which. Decode speed per request is 1000 / median_tpot_ms (a
// change of unit, said in the methodology), the total is output_throughput, the time to first
// token median_ttft_ms.
#pragma once

#include "import/bench_input.h"

namespace kvcat::bench {

/// A vLLM result, not an SGLang bench_serving line (which holds its keys too).
bool vllm_claims(BenchInput& in);
BenchRun read_vllm_result(BenchInput& in);

}  // namespace kvcat::bench
