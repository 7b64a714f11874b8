// The model records the oracle test can turn into a llama.cpp GGUF, and how: each names the
// llama.cpp architecture it loads as and writes that architecture's keys and tensors, with
// the record's layers, heads and widths and a tiny feed-forward and vocabulary (the cache
// does not depend on them). The records it cannot turn into a GGUF are listed with the reason.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "load/records.h"

namespace kvcat::oracle {

struct OracleModel {
    std::string id;    ///< the model record's id, "models/qwen3-32b"
    std::string arch;  ///< llama.cpp's architecture name, "qwen3"
    bool sliding = false;
    bool state = false;  ///< it keeps a recurrent state, which llama.cpp allocates even without weights
};

/// A record that is not checked against the engine, and why.
struct Unchecked {
    std::string id;
    std::string why;
};

/// The models the oracle checks, each with its architecture; `skipped` gets the rest.
std::vector<OracleModel> oracle_models(const std::vector<Record>& models, std::vector<Unchecked>& skipped);

/// Writes a GGUF of `model` (as oracle_models() chose) to `path`.
void write_model_gguf(const OracleModel& which, const Model& model, const std::filesystem::path& path);

}  // namespace kvcat::oracle
