// A plain CSV whose header names context_length and any of tps, prefill_tps, ttft_ms,
// total_tps, concurrency; an empty cell is null. It is what no other reader claims.
#pragma once

#include "import/bench_input.h"

namespace kvcat::bench {

bool csv_claims(BenchInput& in);
BenchRun read_csv_points(BenchInput& in);

}  // namespace kvcat::bench
