// llama-batched-bench `--output-format jsonl`: one object a line with pp (prompt tokens
// per sequence), tg (generated tokens per sequence), pl (sequences in parallel), t_pp,
// speed_pp, t_tg, speed_tg. A line is one point at context pp and concurrency pl:
// speed_tg is the total decode speed over the pl sequences (measured_total_tps_at_ctx),
// and one sequence's speed too when pl is 1; at pl 1, speed_pp is the prefill speed
// and t_pp (the tool's "time to first token") the TTFT, in ms (x 1000, said in the
// methodology). Above pl 1 the prompt figures cover all sequences, so none is kept.
#pragma once

#include "import/bench_input.h"

namespace kvcat::bench {

bool batched_bench_claims(BenchInput& in);
BenchRun read_batched_bench_lines(BenchInput& in);

}  // namespace kvcat::bench
