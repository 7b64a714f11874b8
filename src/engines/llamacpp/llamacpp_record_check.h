// An allocation record of llama.cpp's lines (and ik_llama.cpp's, which are read as llama.cpp's,
// with its MLA layout) recomputed: each cache's K, V and size in MiB, the recurrent state's R, S
// and size, and, for llama.cpp, the whole start's buffers (compute at least kvcat's bound; the
// model buffers shown beside llama-quantize's plan).
#pragma once

#include <vector>

#include "engines/allocation_check.h"
#include "engines/engine_log.h"
#include "load/records.h"

namespace kvcat {

/// Every printed figure of a llama.cpp-family record; `whole_start` also judges its start block
/// (llama.cpp's buffers; ik_llama.cpp's graph was not read, so its buffers are not judged).
void llama_family_check_record(const Record& record, const Model& model, AllocationCheck& out, bool whole_start);

/// The settings and headline (the caches' and state's sizes in MiB) of a llama.cpp-family record.
void llama_family_summarise(const Record& record, const AllocationCheck& check, AllocationSummary& out,
                            AllocationHeadline& headline);

/// The figures llama.cpp's lines give, under the record keys import-log writes: each cache, the
/// recurrent state and the start's buffers.
void llama_family_logged_figures(const ParsedLog& log, std::vector<LoggedFigure>& out);

}  // namespace kvcat
