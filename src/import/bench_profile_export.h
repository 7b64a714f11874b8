// AIPerf `profile_export_aiperf.json` and genai-perf `profile_export_genai_perf.json`:
// one object whose metrics are {unit, avg, p50, ...}. Its point's context is --context,
// else input_sequence_length's avg rounded (said so); the concurrency --concurrency, else
// the one the file's input_config holds; the decode speed per request 1000 / the p50
// inter_token_latency in ms, to 0.01; the TTFT its p50; the total output_token_throughput.
#pragma once

#include "import/bench_input.h"

namespace kvcat::bench {

bool profile_export_claims(BenchInput& in);
BenchRun read_profile_export_file(BenchInput& in);

}  // namespace kvcat::bench
