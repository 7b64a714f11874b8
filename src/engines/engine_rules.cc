#include "engines/engine_rules.h"

#include <array>

#include "vocab/vocabulary.h"

namespace kvcat {

// Each engine's folder defines its rules (engines/engine_list.h).
#define KVCAT_ENGINE_RULES_DECLARATION(id) extern const EngineRules id##_rules;
KVCAT_ENGINES(KVCAT_ENGINE_RULES_DECLARATION)
#undef KVCAT_ENGINE_RULES_DECLARATION

namespace {

#define KVCAT_ENGINE_RULES_ADDRESS(id) &id##_rules,
const std::array kEngineRules{KVCAT_ENGINES(KVCAT_ENGINE_RULES_ADDRESS)};
#undef KVCAT_ENGINE_RULES_ADDRESS

}  // namespace

std::span<const EngineRules* const> all_engine_rules() {
    return kEngineRules;
}

const EngineRules& rules_of(Engine engine) {
    return *kEngineRules.at(static_cast<std::size_t>(engine));
}

std::optional<Engine> parse_engine(std::string_view text) {
    // The catalog's vocabulary holds the names and their spellings; an engine with rules here is
    // found by its own name first, and an application built on one (ollama, LM Studio) allocates
    // as the engine it names as its upstream does.
    const EngineName* e = engine_spelled(text);
    if (e == nullptr) return std::nullopt;
    for (std::string_view name : {e->name, e->upstream}) {
        if (name.empty()) continue;
        for (const EngineRules* r : kEngineRules) {
            if (r->catalog_name == name) return r->engine;
        }
    }
    return std::nullopt;  // an engine kvcat has no allocation model for
}

bool names_ik_llama(std::string_view text) {
    auto e = parse_engine(text);
    return e && *e == Engine::ik_llama;
}

std::string_view name_of(Engine e) {
    return rules_of(e).name;
}

Engine log_family(Engine e) {
    return rules_of(e).log_family;
}

EngineAnswer engine_allocation(const Model& model, const CacheDtype& dtype, Engine engine,
                               const EngineSettings& settings) {
    return rules_of(engine).allocate(model, dtype, settings);
}

std::vector<std::string> engine_log_lines(const EngineAnswer& answer, const Model& model) {
    return rules_of(answer.engine).log_lines(answer, model);
}

void no_card_defaults(EngineSettings& /*settings*/, const FitTerms& /*terms*/) {}

std::optional<EngineWeights> no_loaded_weights(const Model& /*model*/, std::string_view /*format*/,
                                               const EngineSettings& /*settings*/) {
    return std::nullopt;
}

std::optional<std::string> no_held_edge(const EngineAnswer& /*answer*/, const Rational& /*spare*/) {
    return std::nullopt;
}

}  // namespace kvcat
