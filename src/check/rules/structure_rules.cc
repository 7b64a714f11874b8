#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/load_findings.h"
#include "model/kv_math.h"

namespace kvcat::rules {

void id_path_mismatch(const Record& r, const RecordSet& /*set*/, std::vector<Diagnostic>& out) {
    if (!r.root || !r.root->find("id") || r.id.empty()) return;
    if (r.id != r.path_id) {
        out.push_back(diag::id_path_mismatch(r.where("id"), r.id, r.path_id));
    }
}

void id_duplicate(const std::vector<IdEntry>& ids, std::vector<Diagnostic>& out) {
    // Every record that shares an id is told about the others: which copy is the
    // intended one is for the author to say, not for the sort order of file names.
    // Sorted pointers, not a map of lists: a hundred thousand ids cost one vector.
    std::vector<const IdEntry*> sorted;
    sorted.reserve(ids.size());
    for (const auto& e : ids) {
        if (!e.id.empty()) sorted.push_back(&e);
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const IdEntry* a, const IdEntry* b) { return a->id < b->id; });
    for (auto first = sorted.begin(); first != sorted.end();) {
        auto last = std::find_if(first, sorted.end(), [&](const IdEntry* e) { return e->id != (*first)->id; });
        if (last - first >= 2) {
            for (auto e = first; e != last; ++e) {
                std::string others;
                for (auto o = first; o != last; ++o) {
                    if (o == e) continue;
                    if (!others.empty()) others += ", ";
                    others += (*o)->pos.file;
                }
                out.push_back(diag::duplicate_id((*e)->pos, (*e)->id, others));
            }
        }
        first = last;
    }
}

void model_layers(const Record& r, const RecordSet& /*set*/, std::vector<Diagnostic>& out) {
    if (!r.model || !r.root) return;
    const Model& m = *r.model;
    std::string problem;
    try {
        kv_layer_count(m, &problem);
    } catch (const OverflowError&) {
        out.push_back(diag::overflow(r.where("kv_layers"), "the sum of the model's layers"));
    }
    if (!problem.empty()) {
        out.push_back(diag::model_layers(r.where("kv_layers"), problem));
    }
    // Figures every row and the catalog will compute from this model must fit, or a record
    // that lints clean would fail to build.
    if (m.mla) {
        try {
            (void)m.mla->latent_dim();
        } catch (const OverflowError&) {
            const char* larger =
                m.mla->kv_lora_rank >= m.mla->qk_rope_head_dim ? "mla.kv_lora_rank" : "mla.qk_rope_head_dim";
            out.push_back(diag::overflow(r.where(larger), "kv_lora_rank + qk_rope_head_dim"));
        }
    }
    if (m.linear) {
        try {
            (void)fixed_state_bytes(m);
        } catch (const OverflowError&) {
            // Point at the largest factor: the one that could not be meant.
            const LinearShape& l = *m.linear;
            std::pair<std::int64_t, const char*> factors[] = {{l.layers, "linear_attention.layers"},
                                                              {l.key_heads, "linear_attention.key_heads"},
                                                              {l.value_heads, "linear_attention.value_heads"},
                                                              {l.key_head_dim, "linear_attention.key_head_dim"},
                                                              {l.value_head_dim, "linear_attention.value_head_dim"},
                                                              {l.inner_dim, "linear_attention.inner_dim"},
                                                              {l.state_dim, "linear_attention.state_dim"},
                                                              {l.conv_kernel, "linear_attention.conv_kernel"}};
            auto largest = std::max_element(std::begin(factors), std::end(factors));
            out.push_back(diag::overflow(r.where(largest->second), "the fixed state of the linear layers"));
        }
    }
    auto require = [&](const char* key, const char* why) {
        if (!r.node(key)) {
            out.push_back(diag::missing_key(r.where("attention_variant"), key, why, false));
        }
    };
    // The widths each fixed-state kind is described by.
    if (const YamlNode* la = r.node("linear_attention"); la && la->is_mapping()) {
        if (auto kind = parse_state_kind(as_string(la->find("kind")).value_or(""))) {
            std::span<const std::string_view> needed = state_kind_widths(*kind);
            for (std::string_view key : needed) {
                if (!la->find(std::string(key))) {
                    out.push_back(diag::missing_key(r.where("linear_attention.kind"),
                                                    fmt::format("linear_attention.{}", key),
                                                    fmt::format("a width of a {} layer", title_of(*kind)), false));
                }
            }
        }
    }
    auto variant = m.variant ? m.variant : parse_attention_variant(m.attention_variant);
    if (!variant) {
        // The schema reports the unknown variant; any variant but mla caches K and V.
        if (!m.attention_variant.empty() && m.kv_groups.empty()) {
            require("kv_heads", "the KV heads per layer, for a model that caches K and V");
            require("head_dim", "the elements per head, for a model that caches K and V");
        }
        return;
    }
    switch (*variant) {
        case AttentionVariant::mla:
            require("mla", "the latent's kv_lora_rank and qk_rope_head_dim, for an mla model");
            break;
        case AttentionVariant::hybrid:
            require("linear_attention", "the fixed-state layers' shape, for a hybrid model");
            [[fallthrough]];
        case AttentionVariant::mha:
        case AttentionVariant::gqa:
        case AttentionVariant::mqa:
            if (m.kv_groups.empty()) {
                require("kv_heads", "the KV heads per layer, for a model that caches K and V");
                require("head_dim", "the elements per head, for a model that caches K and V");
            }
            break;
        case AttentionVariant::sliding:
            // kv_groups gives the shape of differing layers; sliding layers still need the uniform one.
            require("kv_heads", "the KV heads per layer, for a model that caches K and V");
            require("head_dim", "the elements per head, for a model that caches K and V");
            require("sliding_window", "the window and the number of sliding layers, for a sliding model");
            break;
    }
}

KVCAT_RULES(structure_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"id-path-mismatch", Severity::error, "`id` is not the file's path under `records/`", RuleStage::record,
                 id_path_mismatch},
        RuleInfo{"model-layers", Severity::error,
                 "a model's KV-caching, sliding and linear layers do not add up to its layers", RuleStage::record,
                 model_layers},
        RuleInfo{"id-duplicate", Severity::error, "two records share an id", RuleStage::run},
    };
    return kRules;
}

}  // namespace kvcat::rules
