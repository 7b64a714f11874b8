// What both oracle programs share: reading the model records, loading a GGUF for its shapes only,
// and quoting what libllama printed under a disagreement.
#pragma once

#include <filesystem>
#include <string>
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

/// Which layers of a hybrid hold attention, placed as kvcat places them (kv_layer_places); throws
/// std::runtime_error for a record that places none.
std::vector<bool> attention_layers(const Model& m);

/// The lines, each on a line of its own and indented under a DISAGREE line; "(nothing)" for none.
std::string joined(const std::vector<std::string>& lines);

}  // namespace kvcat::oracle
