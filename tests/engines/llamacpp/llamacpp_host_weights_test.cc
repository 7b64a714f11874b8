// The weights llama.cpp keeps off the card (engines/llamacpp/llamacpp_quant.h, llamacpp_host_bytes),
// held to what llama.cpp printed: on every shipped whole-start record that names a file type kvcat
// plans and keeps every layer on one GPU, the host's model buffers are the plan's input layer and
// the card's the rest (with a tied model's output copy); and
// fit's llama.cpp verdict counts the weights on the card and the memory its --fit keeps free.
#include <filesystem>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "engines/allocation_fields.h"
#include "engines/llamacpp/llamacpp_log.h"
#include "engines/llamacpp/llamacpp_quant.h"
#include "gguf_file.h"
#include "kvcat_runner.h"
#include "support/rational.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::Rational;
using kvcat::test::contains;

std::int64_t checked_tensors(const kvcat::QuantPlan& plan) {
    return static_cast<std::int64_t>(plan.types.size());
}

struct HostTally {
    int compared = 0;  ///< host buffers set beside the plan's input layer
    int same = 0;
    int card_compared = 0;  ///< of those, files that are the plan's: the card's buffer beside the rest
    int card_same = 0;
    std::string apart;
};

void compare_record(const kvcat::Record& r, const kvcat::LintResult& all, HostTally& tally) {
    const kvcat::YamlNode* list = r.node("start.buffers");
    auto mix = kvcat::llama_mix_of_file_type(kvcat::allocation_fields::text(r, "start.file_type"));
    std::string offloaded = kvcat::allocation_fields::text(r, "start.offloaded_layers");
    if (!list || !list->is_sequence() || !mix || offloaded.empty()) return;
    if (offloaded.substr(0, offloaded.find('/')) != offloaded.substr(offloaded.find('/') + 1)) return;
    std::string id = kvcat::allocation_fields::text(r, "model");
    const kvcat::Record* model = all.records.find(id.starts_with("models/") ? id : "models/" + id);
    if (!model || !model->model || !model->model->tensors) return;
    Rational host(0);
    Rational card(0);
    int host_buffers = 0;
    int card_buffers = 0;
    for (std::size_t i = 0; i < list->items.size(); ++i) {
        if (kvcat::allocation_fields::text(r, fmt::format("start.buffers.{}.kind", i)) != "model") continue;
        std::string device = kvcat::allocation_fields::text(r, fmt::format("start.buffers.{}.device", i));
        auto mib = Rational::parse(kvcat::allocation_fields::text(r, fmt::format("start.buffers.{}.mib", i)));
        ASSERT_TRUE(mib) << r.id;
        if (kvcat::llamacpp_host_buffer(device)) {
            host = host + *mib;
            ++host_buffers;
        } else {
            card = card + *mib;
            ++card_buffers;
        }
    }
    if (host_buffers == 0 || card_buffers != 1) return;
    kvcat::QuantPlan plan = kvcat::llamacpp_quant_plan(*model->model, *mix, false);
    const Rational mib(1 << 20);
    // Each printed MiB is rounded to 0.01; a buffer places each tensor at its alignment (up to 256
    // bytes a tensor, as the record check takes it) and a mapped one starts and ends on pages.
    auto same = [&](const Rational& printed, std::int64_t planned, int buffers) {
        Rational apart = printed - Rational(planned) / mib;
        Rational slack = Rational(checked_tensors(plan) * 256 + 2 * 4096) / mib;
        return !(apart > Rational(buffers, 200) + slack) && !(Rational(0) - apart > Rational(buffers, 200));
    };
    ++tally.compared;
    bool host_same = same(host, kvcat::llamacpp_host_bytes(plan), host_buffers);
    if (host_same) ++tally.same;
    // The card's share is judged where the file is the plan's (its buffers sum to the plan's
    // bytes): a file made by other rules (unsloth's gpt-oss files keep their experts in MXFP4)
    // holds other types on the card, and only its input layer is known.
    // (A tied model's buffers hold token_embd twice: the host's and the card's output copy.)
    bool planned_file =
        same(host + card, kvcat::llamacpp_host_bytes(plan) + kvcat::llamacpp_card_bytes(plan), host_buffers + 1);
    bool card_same = !planned_file || same(card, kvcat::llamacpp_card_bytes(plan), 1);
    if (planned_file) ++tally.card_compared;
    if (planned_file && card_same) ++tally.card_same;
    if (!host_same || !card_same) {
        tally.apart += fmt::format("\n  {}: host {} MiB against {}, card {} MiB against {}", r.id, host.to_double(),
                                   (Rational(kvcat::llamacpp_host_bytes(plan)) / mib).to_double(), card.to_double(),
                                   (Rational(kvcat::llamacpp_card_bytes(plan)) / mib).to_double());
    }
}

TEST(LlamacppHostWeights, EveryWholeStartsHostModelBuffersAreThePlansInputLayer) {
    const kvcat::LintResult all = kvcat::lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    HostTally tally;
    for (const kvcat::Record& r : all.records.records()) {
        if (r.id.starts_with("allocations/")) compare_record(r, all, tally);
    }
    std::cout << fmt::format(
        "{} whole starts on one GPU with a planned file type: host model buffers equal to "
        "the plan's input layer in {}; of the {} files that are the plan's, the card's model "
        "buffer equal to the rest in {}{}\n",
        tally.compared, tally.same, tally.card_compared, tally.card_same, tally.apart);
    EXPECT_GE(tally.compared, 17);
    EXPECT_GE(tally.card_compared, 10);
    EXPECT_EQ(tally.same, tally.compared) << tally.apart;
    EXPECT_EQ(tally.card_same, tally.card_compared) << tally.apart;
}

TEST(LlamacppHostWeights, AnUntiedModelKeepsItsTokenEmbeddingsOnTheHostAndATiedOneACopyOnTheCard) {
    const kvcat::LintResult all = kvcat::lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    auto plan_of = [&](const std::string& id, std::string_view mix) {
        const kvcat::Record* m = all.records.find(id);
        EXPECT_TRUE(m && m->model) << id;
        return kvcat::llamacpp_quant_plan(*m->model, *kvcat::find_llama_mix(mix), false);
    };
    // Llama 3.1 8B (Llama 3 8B's shapes), Q4_K_M: token_embd in q4_K, 128,256 x 4,096 x 144 / 256 = 295,501,824 bytes,
    // the "CPU buffer size = 281.81 MiB" of records/allocations/llamacpp-python-llama-3-8b-q4_k_m-f16-512-3070.
    auto llama = plan_of("models/llama-3.1-8b", "Q4_K_M");
    EXPECT_EQ(kvcat::llamacpp_host_bytes(llama), 295501824);
    EXPECT_TRUE(contains(kvcat::llamacpp_host_bytes_how(llama), "token_embd.weight (q4_K)"));
    EXPECT_EQ(kvcat::llamacpp_card_bytes(llama), llama.bytes - 295501824);
    // Qwen3-0.6B ties its embeddings: the host keeps token_embd (q8_0, 151,936 x 1,024 x 34 / 32 =
    // 165,306,368 bytes, the "Vulkan_Host model buffer size = 157.65 MiB" of
    // records/allocations/llamacpp-b5398-vulkan-qwen3-0.6b-q8_0-f16-4096-gfx1151) and the card a copy
    // of it as the output, so the card holds the whole file.
    auto tied = plan_of("models/qwen3-0.6b", "Q8_0");
    EXPECT_EQ(kvcat::llamacpp_host_bytes(tied), 165306368);
    EXPECT_EQ(kvcat::llamacpp_card_bytes(tied), tied.bytes);
    EXPECT_TRUE(contains(kvcat::llamacpp_host_bytes_how(tied), "tied output"));
}

TEST(LlamacppHostWeights, FitsVerdictCountsTheWeightsOnTheCardAndTheFitTarget) {
    // Qwen3-32B Q4_K_M on an RTX 3090 at -c 15,616: 19,756,174,336 bytes of weights of which
    // 437,575,680 (token_embd, q4_K) stay on the host, 4,093,640,704 bytes of cache, the compute
    // buffer (512 x (3 x 25,600 + 3 x 5,120) x 4 + the f16 mask 15,616 x 512 x 2 + 512 x 4 =
    // 204,736,512), the 986 MiB the card holds before llama.cpp starts (llamacpp_card_held.h) and
    // the 1 GiB llama.cpp's --fit keeps free: 25,724,613,632 of 25,769,803,776.
    auto fit = [](const std::string& ctx, const std::string& target) {
        return kvcat::test::fit_qwen3_32b_on_3090("Q4_K_M", {"--kv-dtype", "f16", "--engine", "llama.cpp", "--ctx-size",
                                                             ctx, "--fit-target", target, "--format", "json"});
    };
    auto fits = fit("15616", "1024");
    ASSERT_EQ(fits.status, 0) << fits.err;
    auto j = nlohmann::json::parse(fits.out);
    EXPECT_EQ(j["weights_off_card_bytes"], 437575680);
    EXPECT_EQ(j["fit_target_bytes"], 1073741824);
    EXPECT_EQ(j["fits"], true);
    // 256 cells more (64 MiB of cache) and the target is no longer free: llama.cpp would move layers.
    auto over = fit("15872", "1024");
    EXPECT_EQ(over.status, 1) << over.err;
    auto k = nlohmann::json::parse(over.out);
    EXPECT_EQ(k["fits"], false);
    EXPECT_TRUE(contains(k["engine_overflow"].get<std::string>(), "keeps layers on the CPU")) << k["engine_overflow"];
    EXPECT_TRUE(contains(k["engine_overflow"].get<std::string>(), "with -fit off it starts with"))
        << k["engine_overflow"];
    EXPECT_TRUE(contains(k["engine_overflow"].get<std::string>(), "leaves --fit its target is 15,616"))
        << k["engine_overflow"];
    // -fit off (--fit-target 0): the same start fits the card.
    auto off = fit("16640", "0");
    EXPECT_EQ(off.status, 0) << off.err;
    EXPECT_EQ(nlohmann::json::parse(off.out)["fit_target_bytes"], 0);
}

// --weight-file: the file's own tensors say what stays on the host, for a recipe kvcat does not
// plan (unsloth's, an imatrix override): token_embd's extent in the file, and nothing for a file
// whose output is its token embeddings.
TEST(LlamacppHostWeights, AWeightFilesOwnTokenEmbeddingsStayOnTheHost) {
    auto fit = [](const std::string& file) {
        return kvcat::test::KvcatRunner(false).run(
            {"fit", "--records", (fs::path(KVCAT_SOURCE_DIR) / "records").string(), "--model", "qwen3-32b",
             "--accelerator", "nvidia-rtx-3090", "--weight-file", file, "--kv-dtype", "f16", "--engine", "llama.cpp",
             "--ctx-size", "4096", "--format", "json"});
    };
    kvcat::test::GgufFile untied(1 << 20);
    auto u = fit(untied.path());
    ASSERT_EQ(u.status, 0) << u.err;
    auto j = nlohmann::json::parse(u.out);
    EXPECT_EQ(j["weights_off_card_bytes"], 64);
    EXPECT_TRUE(contains(j["weights_off_card_how"].get<std::string>(), "token_embd.weight: llama.cpp loads"))
        << j["weights_off_card_how"];
    EXPECT_TRUE(contains(j["weights_off_card_how"].get<std::string>(), untied.path() + " holds them"));
    kvcat::test::GgufFile tied(1 << 20, 0x46554747u, 0, 0, "tied.gguf", "blk.0.attn_q.weight");
    auto t = fit(tied.path());
    ASSERT_EQ(t.status, 0) << t.err;
    EXPECT_FALSE(nlohmann::json::parse(t.out).contains("weights_off_card_bytes")) << t.out;
}

}  // namespace
