// The engines kvcat models, one line each. Adding an engine is its folder under src/engines/
// (its rules, ending in an EngineRules named <id>_rules: engines/engine_rules.h), its line here,
// and its tests; docs/architecture.md says what else a record of its lines needs.
//
// The list makes the Engine enumerators (engines/engine_memory.h) and the table every question
// about an engine is asked through (engines/engine_rules.cc), so the two cannot disagree.
#pragma once

// NOLINTBEGIN(cppcoreguidelines-macro-usage): the one list of engines, expanded twice
#define KVCAT_ENGINES(X) \
    X(llamacpp)          \
    X(ik_llama)          \
    X(vllm)              \
    X(sglang)
// NOLINTEND(cppcoreguidelines-macro-usage)
