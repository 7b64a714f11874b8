// The registry of engines: every engine of engines/engine_list.h has rules that answer every
// question, under its own name, and every question asked of an engine goes through them.
#include "engines/engine_rules.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engines/sglang/sglang_allocation.h"
#include "engines/vllm/vllm_allocation.h"

namespace kvcat {
namespace {

TEST(EngineRules, EveryListedEngineAnswersEveryQuestion) {
    std::set<std::string> names;
    std::size_t i = 0;
    ASSERT_EQ(all_engine_rules().size(), 4U);
    for (const EngineRules* r : all_engine_rules()) {
        SCOPED_TRACE(std::string(r->name));
        // The table is in the list's order, so rules_of() finds each engine at its enumerator.
        EXPECT_EQ(static_cast<std::size_t>(r->engine), i++);
        EXPECT_EQ(&rules_of(r->engine), r);
        EXPECT_FALSE(r->name.empty());
        EXPECT_FALSE(r->catalog_name.empty());
        EXPECT_FALSE(r->plan_kv_dtypes.empty());
        EXPECT_FALSE(r->verdict_rule.empty());
        EXPECT_TRUE(names.insert(std::string(r->name)).second) << "two engines named " << r->name;
        // A designated initialiser that leaves a question out leaves a null function here.
        EXPECT_NE(r->allocate, nullptr);
        EXPECT_NE(r->log_lines, nullptr);
        EXPECT_NE(r->loaded_weights, nullptr);
        EXPECT_NE(r->card_defaults, nullptr);
        EXPECT_NE(r->ask, nullptr);
        EXPECT_NE(r->budget, nullptr);
        EXPECT_NE(r->judge, nullptr);
        EXPECT_NE(r->held_edge, nullptr);
        EXPECT_NE(r->check_record, nullptr);
        EXPECT_NE(r->summarise, nullptr);
        EXPECT_NE(r->logged_figures, nullptr);
        EXPECT_NE(r->record_block, nullptr);
        // A family of log lines has its reader and says what it reads; a fork read as its upstream has none.
        bool family = log_family(r->engine) == r->engine;
        EXPECT_EQ(r->log_reader != nullptr, family);
        EXPECT_EQ(!r->log_formats.empty(), family);
        // Its own name and its catalog name both find it; its log family reads its own lines.
        EXPECT_EQ(parse_engine(r->name), r->engine);
        EXPECT_EQ(parse_engine(r->catalog_name), r->engine);
        EXPECT_EQ(name_of(r->engine), r->name);
        EXPECT_EQ(log_family(log_family(r->engine)), log_family(r->engine));
        // An engine sized by its context needs no memory handed to it, and one sized from memory does.
        EXPECT_EQ(r->sizing == EngineSizing::at_start, r->without_memory == EngineWithoutMemory::sized_by_context);
    }
}

TEST(EngineRules, AnApplicationBuiltOnAnEngineIsAskedAsThatEngine) {
    EXPECT_EQ(parse_engine("ollama"), Engine::llamacpp);
    EXPECT_EQ(parse_engine("lm-studio"), Engine::llamacpp);
    EXPECT_EQ(parse_engine("ik_llama.cpp"), Engine::ik_llama);  // a fork with a cache of its own is itself
    EXPECT_EQ(log_family(Engine::ik_llama), Engine::llamacpp);
    EXPECT_FALSE(parse_engine("TensorRT-LLM").has_value());  // an engine kvcat has no rules for
}

TEST(EngineRules, TheCardChangesOnlyTheDefaultsOfTheEngineWhoseRulesSaySo) {
    Rational card(std::int64_t{80} << 30);
    for (const EngineRules* r : all_engine_rules()) {
        EngineSettings s;
        FitTerms terms;
        terms.memory = card;
        terms.card_name = "NVIDIA H100 80GB HBM3";
        terms.memory_by = "nvidia-smi";
        r->card_defaults(s, terms);
        EXPECT_EQ(s.max_num_seqs.has_value(), r->engine == Engine::vllm) << r->name;
        EXPECT_EQ(s.card_held.has_value(), r->engine == Engine::llamacpp) << r->name;
    }
    EngineSettings direct;
    vllm_card_defaults(direct, card, "NVIDIA H100 80GB HBM3");
    EngineSettings via;
    FitTerms terms;
    terms.memory = card;
    terms.card_name = "NVIDIA H100 80GB HBM3";
    rules_of(Engine::vllm).card_defaults(via, terms);
    EXPECT_EQ(via.max_num_seqs, direct.max_num_seqs);
    EXPECT_EQ(via.max_num_batched_tokens, direct.max_num_batched_tokens);
}

// `vllm serve`'s defaults by card (EngineArgs.get_batch_defaults): 1,024 sequences and 8,192
// batched tokens on a card of 70 GiB or more that is no A100, 256 and 2,048 on any other; a value
// given is kept.
TEST(EngineRules, VllmTakesTheCardsSequencesAndBatchedTokensUnlessGiven) {
    struct Case {
        std::int64_t gib;
        const char* name;
        std::int64_t seqs, tokens;
    };
    const Case cases[] = {{80, "NVIDIA H100 80GB HBM3", 1024, 8192},
                          {141, "NVIDIA H200", 1024, 8192},
                          {80, "NVIDIA A100-SXM4-80GB", 256, 2048},
                          {24, "NVIDIA GeForce RTX 3090", 256, 2048}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        EngineSettings s;
        vllm_card_defaults(s, Rational(c.gib << 30), c.name);
        EXPECT_EQ(s.max_num_seqs, c.seqs);
        EXPECT_TRUE(s.max_num_seqs_default);
        EXPECT_EQ(s.max_num_batched_tokens, c.tokens);
        EngineSettings given;
        given.max_num_seqs = 7;
        given.max_num_batched_tokens = 512;
        given.max_num_batched_tokens_given = true;
        vllm_card_defaults(given, Rational(c.gib << 30), c.name);
        EXPECT_EQ(given.max_num_seqs, 7);
        EXPECT_FALSE(given.max_num_seqs_default);
        EXPECT_EQ(given.max_num_batched_tokens, 512);
    }
}

TEST(EngineRules, EachFamilysReaderFilesALogOfItsLinesUnderItsEngine) {
    struct Case {
        const char* line;
        Engine engine;
    };
    const Case cases[] = {
        {"llama_kv_cache: size =  256.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16):  128.00 MiB, V (f16):  "
         "128.00 MiB",
         Engine::llamacpp},
        {"GPU KV cache size: 90,048 tokens", Engine::vllm},
        {"KV Cache is allocated. #tokens: 975424, KV size: 43.67 GB", Engine::sglang},
    };
    for (const Case& c : cases) {
        ParsedLog log = parse_engine_log(c.line, "pasted", LogText::record_lines);
        EXPECT_EQ(log.engine, c.engine) << c.line;
        ASSERT_FALSE(logged_figures(log).empty()) << c.line;
        // The record block its rules write starts with the part its check reads.
        std::string block;
        rules_of(c.engine).record_block(log, block);
        EXPECT_NE(block.find(c.engine == Engine::llamacpp ? "kv_cache:" : std::string(name_of(c.engine)) + ":"),
                  std::string::npos)
            << block;
    }
    // Two families' lines in one log are two engines' starts, which no record holds.
    EXPECT_THROW(parse_engine_log(std::string(cases[1].line) + "\n" + cases[2].line, "pasted", LogText::record_lines),
                 LogError);
}

TEST(EngineRules, TheAllocationSchemaNamesEveryEngineAndNothingWithoutRules) {
    // Records are read before any engine is asked, so the loader keeps its own list; it must be
    // the registry's engines, and applications that parse to one of them.
    std::ifstream in(std::filesystem::path(KVCAT_SOURCE_DIR) / "schema" / "allocation.schema.json");
    auto schema = nlohmann::json::parse(in);
    std::set<std::string> listed;
    for (const auto& name : schema["properties"]["engine"]["enum"]) {
        listed.insert(name.get<std::string>());
        EXPECT_TRUE(parse_engine(name.get<std::string>()).has_value()) << name << " has no engine rules";
    }
    for (const EngineRules* r : all_engine_rules()) EXPECT_TRUE(listed.contains(std::string(r->name))) << r->name;
}

}  // namespace
}  // namespace kvcat
