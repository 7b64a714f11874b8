// vLLM's memory profile, checked against itself.
//
// Once its CUDA graphs are captured, a vLLM V1 worker prints one line that accounts for the card
// (vllm/v1/worker/gpu_worker.py, compile_or_warm_up_model; read at v0.10.2 01efc7ef, v0.11.0
// b8b302cd, v0.20.0 88d34c64 and 4f819f80 in the CentML/vllm mirror, whose tags carry upstream's
// commits):
//
//   Free memory on device (F/T GiB) on startup. Desired GPU memory utilization is (U, R GiB).
//   Actual usage is W GiB for weight, A GiB for peak activation, N GiB for non-torch memory, and
//   G GiB for CUDAGraph memory. Replace gpu_memory_utilization config with
//   `--kv-cache-memory=B1` to fit into requested memory, or `--kv-cache-memory=B2` to fully
//   utilize gpu memory. Current kv cache memory in use is K GiB.
//
// (later releases print "C GiB for consumed memory (weights + non-torch)" for W and N, and count
// the CUDA graphs' estimate in A). Every GiB is round(bytes / 2^30, 2); B1 and B2 are bytes:
//
//   R  = T x U                                   (requested_memory; int(R) below is its floor)
//   B1 = int(R) - (W + A + N + G) - 150 MiB      (kv_cache_memory_bytes_to_requested_limit)
//   B2 = F - (W + A + N + G) - 150 MiB           (kv_cache_memory_bytes_to_gpu_limit)
//   K  = R - (W + A + N) - E                     (the pool; E is the CUDA graphs' estimate, taken
//                                                 off from 0.20.0, printed as "CUDA graph pool
//                                                 memory: X GiB (actual), E GiB (estimated)")
//
// where G is the graphs as captured, after the pool was sized. 0.10.2 prints K in bytes,
// int(R - (W + A + N)), and then G = K - B1 - 150 MiB to the byte. The lint's engine-profile
// rule holds a record's figures to these sums, undoing each figure's rounding.
#pragma once

#include <string_view>
#include <vector>

#include "engines/allocation_check.h"

namespace kvcat {

struct Record;

/// What the profile's sums give for each figure of the record's `vllm:` block that one of them
/// fixes, and the part `explain` shows; figures whose sum lacks a term are named in `not_judged`.
/// Nothing when the record holds no profile line.
struct VllmProfileCheck {
    AllocationPartCheck part;
    std::vector<NotJudged> not_judged;
    bool any = false;  ///< the record holds the profile line's figures
};

VllmProfileCheck vllm_profile_check(const Record& r);

/// Whether `key` (under `vllm:`) is one of the profile line's figures.
bool vllm_profile_key(std::string_view key);

}  // namespace kvcat
