// Reading vLLM's start-up lines from a log, and writing them into an allocation record.
//
// Spellings read: "Available KV cache memory: X GiB", "GPU KV cache size: N tokens", "Maximum
// concurrency for N tokens per request: Xx", and the settings of the engine's config line, of
// "non-default args" and of a launch command pasted above them.
#pragma once

#include <memory>
#include <string>

#include "engines/log_reading.h"

namespace kvcat {

std::unique_ptr<LogReader> vllm_log_reader(LogText kind);

/// The record's vllm block for a log of vLLM's lines.
void vllm_record_block(const ParsedLog& log, std::string& text);

}  // namespace kvcat
