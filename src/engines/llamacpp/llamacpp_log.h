// Reading llama.cpp's start-up lines (and those of the forks and applications that print them:
// ik_llama.cpp, LM Studio, ollama) from a log, and writing them into an allocation record.
//
// Spellings read (current and older builds): "llama_kv_cache: size = ... MiB (N cells, L layers,
// S/T seqs), K (t): ... V (t): ..." (also llama_kv_cache_unified:, with "S seqs"; the K/V part
// may be cut), the ISWA "llama_kv_cache_iswa: creating [non-]SWA KV cache, size = N cells" before
// each, "llama_memory_recurrent: size = ... R (t): ... S (t): ...", the older "KV self size = ...
// MiB, K (t): ..., V (t): ..." (ik_llama.cpp: "c^KV (t): ...") with the cells from "kv_size = N",
// "n_ctx = N" or -c on a pasted command line; and its whole start: "<device> model|compute|output
// buffer size = X MiB" (the older "llm_load_tensors: <device> buffer size" is the weights),
// n_ubatch, flash_attn and the file type.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engines/log_reading.h"

namespace kvcat {

std::unique_ptr<LogReader> llamacpp_log_reader(LogText kind);

/// The record's caches, recurrent state and start block for a log of llama.cpp's lines.
void llamacpp_record_block(const ParsedLog& log, std::string& text);

/// Whether a buffer llama.cpp prints ("<device> model buffer size") is in host memory: "CPU",
/// "CPU_Mapped", "CUDA_Host", "Vulkan_Host", and the CPU's repacking types ("AMX", "CPU_AARCH64").
bool llamacpp_host_buffer(std::string_view device);

/// Whether a model buffer holds the tensors the CPU backend repacks for its kernels ("AMX",
/// "CPU_AARCH64", "CPU_REPACK", "CPU_KLEIDIAI": ggml-cpu's extra buffer types). With the file
/// mapped, those tensors' bytes are in the mapped buffers too, so such a buffer is a second copy.
bool llamacpp_repack_buffer(std::string_view device);

}  // namespace kvcat
