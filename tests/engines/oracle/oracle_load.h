// What both oracle programs do before they ask libllama anything: read the model records, and
// load a GGUF for its shapes only.
#pragma once

#include <filesystem>
#include <vector>

#include "llama.h"
#include "load/records.h"

namespace kvcat::oracle {

/// Every record under RECORDS/models, sorted by id (a record that does not load is kept, with
/// no model, as load_record gives it).
std::vector<Record> load_model_records(const std::filesystem::path& records);

/// libllama's model parameters for a GGUF whose data is a hole: no_alloc (shapes only, the
/// weights never read and never mapped), on the CPU.
llama_model_params shapes_only_params();

}  // namespace kvcat::oracle
