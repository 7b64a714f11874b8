// An allocation record of vLLM's lines recomputed, summarised, and the figures its lines give.
#pragma once

#include <vector>

#include "engines/allocation_check.h"
#include "engines/engine_log.h"
#include "load/records.h"

namespace kvcat {

/// Every printed figure of a vLLM record, recomputed from the settings the log shows.
void vllm_check_record(const Record& record, const Model& model, AllocationCheck& out);

/// The settings and headline of a vLLM record, for a table of allocation records.
void vllm_summarise(const Record& record, const AllocationCheck& check, AllocationSummary& out,
                    AllocationHeadline& headline);

/// The figures vLLM's lines give, under the record keys import-log writes.
void vllm_logged_figures(const ParsedLog& log, std::vector<LoggedFigure>& out);

}  // namespace kvcat
