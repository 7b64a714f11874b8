// import-config: per-layer blocks, where each layer states its own attention (NVIDIA's
// NAS-derived Llama-Nemotron models, model_type nemotron-nas).
//
// block_configs has one entry per decoder layer. Its `attention` says what the layer keeps:
// no_op (no attention: nothing), replace_with_linear (a linear map in place of attention:
// nothing), or attention with num_attention_heads / n_heads_in_group KV heads, as vLLM's
// nemotron_nas.py builds each layer. A window or sparsity on a layer is a design kvcat does
// not model and is refused by name.
#include "import/import_config_stages.h"

#include <map>

namespace kvcat::import_stages {

bool Importer::layout_from_block_configs(std::size_t n) {
    FieldReader& r = *r_;
    const json* blocks = r.get("block_configs");
    if (!blocks) return false;
    if (!blocks->is_array() || blocks->size() != n) {
        problems_.push_back(fmt::format(
            "{} must hold one block per layer ({}); found {}", r.path("block_configs"), n,
            blocks->is_array() ? fmt::format("{} blocks", blocks->size()) : std::string(blocks->type_name())));
        return true;
    }
    if (!d_.heads) return true;  // read_size named it
    std::vector<Role> roles;
    std::vector<std::int64_t> kv_heads;
    for (std::size_t i = 0; i < n; ++i) {
        std::string at = fmt::format("{}[{}].attention", r.path("block_configs"), i);
        const json& block = (*blocks)[i];
        auto it = block.is_object() ? block.find("attention") : block.end();
        if (!block.is_object() || it == block.end() || !it->is_object()) {
            problems_.push_back(
                fmt::format("{} is missing; expected an object saying what the layer's attention is", at));
            return true;
        }
        const json& a = *it;
        auto flag = [&](const char* key) {
            auto f = a.find(key);
            return f != a.end() && f->is_boolean() && f->get<bool>();
        };
        // Settings that would change what the layer keeps, which kvcat does not model.
        for (const char* key : {"window_length", "sparsify", "num_sink_tokens"}) {
            if (auto f = a.find(key); f != a.end() && !f->is_null()) {
                problems_.push_back(fmt::format(
                    "{}.{} is {}: a per-layer attention window, sparsity or sink, which kvcat does not model "
                    "(a NAS block_configs layer with a design of its own)",
                    at, key, json_text(*f)));
                return true;
            }
        }
        if (flag("unshifted_sink") || flag("use_prefill_window_in_sink_attention")) {
            problems_.push_back(fmt::format(
                "{} uses sink attention (unshifted_sink or use_prefill_window_in_sink_attention), which kvcat "
                "does not model",
                at));
            return true;
        }
        if (flag("no_op") || flag("replace_with_linear")) {
            roles.push_back(Role::none);
            kv_heads.push_back(0);
            continue;
        }
        auto g = a.find("n_heads_in_group");
        if (g == a.end() || !g->is_number_integer() || g->get<std::int64_t>() <= 0) {
            problems_.push_back(
                fmt::format("{}.n_heads_in_group is {}; expected a whole number greater than zero "
                            "for a layer with attention",
                            at, g == a.end() ? std::string("missing") : json_text(*g)));
            return true;
        }
        std::int64_t group = g->get<std::int64_t>();
        if (*d_.heads % group != 0) {
            problems_.push_back(
                fmt::format("{}.n_heads_in_group {} does not divide num_attention_heads {}", at, group, *d_.heads));
            return true;
        }
        roles.push_back(Role::full);
        kv_heads.push_back(*d_.heads / group);
    }
    d_.roles = roles;
    d_.layer_kv_heads = kv_heads;
    std::map<std::int64_t, std::int64_t> shapes;
    for (std::size_t i = 0; i < n; ++i) {
        if (roles[i] == Role::full) ++shapes[kv_heads[i]];
    }
    std::vector<std::string> parts;
    for (const auto& [heads, layers] : shapes) parts.push_back(fmt::format("{} with {} KV heads", layers, heads));
    if (shapes.size() == 1) d_.kv_heads = shapes.begin()->first;
    r.note_read(fmt::format("block_configs ({} attention, {} without)", d_.count(Role::full), d_.count(Role::none)));
    d_.layout_how = fmt::format(
        "block_configs gives each layer its own attention: {} attention layers ({}), {} with no attention "
        "(no_op or replace_with_linear) that keep nothing",
        d_.count(Role::full), join(parts), d_.count(Role::none));
    notes_.push_back(fmt::format(
        "num_key_value_heads is {}: the KV heads are stated per layer in block_configs, as num_attention_heads "
        "({}) / n_heads_in_group, which is how vLLM's nemotron_nas.py builds each layer.",
        r.scope().contains("num_key_value_heads") && r.scope()["num_key_value_heads"].is_null() ? "null" : "unset",
        *d_.heads));
    return true;
}

}  // namespace kvcat::import_stages
