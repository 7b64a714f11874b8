// llama-bench `-o json` (an array of result objects) and `-o jsonl` (one object a line). A
// `pp` test (n_prompt > 0, n_gen = 0) is prompt processing at its depth (n_depth), a `tg` test
// (n_gen > 0, n_prompt = 0) is decoding at its depth; the two at one depth make one point.
// avg_ts and stddev_ts are copied as printed. The entries are those of one configuration, or
// those --select picks.
#pragma once

#include "import/bench_input.h"

namespace kvcat::bench {

/// A llama-bench JSON file: an array of results.
bool llama_bench_json_claims(BenchInput& in);
BenchRun read_llama_bench_json(BenchInput& in);
/// llama-bench JSONL: one result a line (what no other JSONL reader claims).
bool llama_bench_jsonl_claims(BenchInput& in);
BenchRun read_llama_bench_jsonl(BenchInput& in);

}  // namespace kvcat::bench
