// Reading SGLang's start-up lines from a log, and writing them into an allocation record.
//
// Spellings read: "KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB" (or "KV size"),
// "Mamba Cache is allocated. max_mamba_cache_size: S, conv_state size: X GB, ssm_state size: Y
// GB", "max_total_num_tokens=N", and page_size / tp_size / kv_cache_dtype / mamba_ssm_dtype of its
// server args. The sliding-window pool's pair of pools is refused by name.
#pragma once

#include <memory>
#include <string>

#include "engines/log_reading.h"

namespace kvcat {

std::unique_ptr<LogReader> sglang_log_reader(LogText kind);

/// The record's sglang block for a log of SGLang's lines.
void sglang_record_block(const ParsedLog& log, std::string& text);

}  // namespace kvcat
