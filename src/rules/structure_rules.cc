#include <map>

#include <fmt/format.h>

#include "kv_math.h"
#include "rules/rules.h"

namespace kvcat::rules {

void id_matches_path(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.root || !r.root->find("id") || r.id.empty()) return;
    if (r.id != r.path_id) {
        out.push_back(diag::id_path_mismatch(r.where("id"), r.id, r.path_id));
    }
}

void ids_are_unique(const std::vector<IdEntry>& ids, std::vector<Diagnostic>& out) {
    // Every record that shares an id is told about the others: which copy is the
    // intended one is for the author to say, not for the sort order of file names.
    std::map<std::string_view, std::vector<const IdEntry*>> by_id;
    for (const auto& e : ids) {
        if (!e.id.empty()) by_id[e.id].push_back(&e);
    }
    for (const auto& [id, entries] : by_id) {
        if (entries.size() < 2) continue;
        for (const IdEntry* e : entries) {
            std::string others;
            for (const IdEntry* o : entries) {
                if (o == e) continue;
                if (!others.empty()) others += ", ";
                others += o->file;
            }
            out.push_back(diag::duplicate_id(e->pos, std::string(id), others));
        }
    }
}

void model_layers_agree(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.model || !r.root) return;
    const Model& m = *r.model;
    std::string problem;
    kv_layer_count(m, &problem);
    if (!problem.empty()) {
        out.push_back(diag::model_layers(r.where("kv_layers"), problem));
    }
    auto require = [&](const char* key, const char* why) {
        if (!r.node(key)) {
            out.push_back(diag::missing_key(r.where("attention_variant"), key, why, false));
        }
    };
    if (m.attention_variant == "mla") {
        require("mla", "the latent's kv_lora_rank and qk_rope_head_dim, for an mla model");
    } else if (!m.attention_variant.empty() && (m.kv_groups.empty() || m.sliding)) {
        // kv_groups gives the shape of differing layers; sliding layers still need the uniform one.
        require("kv_heads", "the KV heads per layer, for a model that caches K and V");
        require("head_dim", "the elements per head, for a model that caches K and V");
    }
    if (m.attention_variant == "hybrid") {
        require("linear_attention", "the fixed-state layers' shape, for a hybrid model");
    }
    if (m.attention_variant == "sliding") {
        require("sliding_window", "the window and the number of sliding layers, for a sliding model");
    }
}

}  // namespace kvcat::rules
