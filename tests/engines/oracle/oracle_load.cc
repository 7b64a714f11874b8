#include "engines/oracle/oracle_load.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "model/kv_math.h"
#include "support/diagnostic.h"

namespace kvcat::oracle {

std::vector<Record> load_model_records(const std::filesystem::path& records) {
    std::vector<Record> models;
    std::vector<Diagnostic> findings;
    for (const auto& entry : std::filesystem::directory_iterator(records / "models")) {
        if (entry.path().extension() != ".yaml") continue;
        std::string rel = "models/" + entry.path().filename().string();
        models.push_back(load_record(entry.path().string(), entry.path().string(), rel, findings));
    }
    std::sort(models.begin(), models.end(), [](const Record& a, const Record& b) { return a.id < b.id; });
    return models;
}

llama_model_params shapes_only_params() {
    llama_model_params mp = llama_model_default_params();
    mp.no_alloc = true;
    mp.load_mode = LLAMA_LOAD_MODE_NONE;
    mp.lazy_mode = LLAMA_LAZY_MODE_OFF;
    mp.n_gpu_layers = 0;
    return mp;
}

std::vector<bool> attention_layers(const Model& m) {
    auto places = kv_layer_places(m);
    if (!places) throw std::runtime_error("the record does not place its attention layers");
    return *places;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += "\n      " + l;
    return out.empty() ? "\n      (nothing)" : out;
}

}  // namespace kvcat::oracle
