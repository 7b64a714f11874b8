// An allocation record of SGLang's lines recomputed, summarised, and the figures its lines give.
#pragma once

#include <vector>

#include "engines/allocation_check.h"
#include "engines/engine_log.h"
#include "load/records.h"

namespace kvcat {

/// Every printed figure of a SGLang record, recomputed from the settings the log shows.
void sglang_check_record(const Record& record, const Model& model, AllocationCheck& out);

/// The settings and headline of a SGLang record, for a table of allocation records.
void sglang_summarise(const Record& record, const AllocationCheck& check, AllocationSummary& out,
                      AllocationHeadline& headline);

/// The figures SGLang's lines give, under the record keys import-log writes.
void sglang_logged_figures(const ParsedLog& log, std::vector<LoggedFigure>& out);

}  // namespace kvcat
