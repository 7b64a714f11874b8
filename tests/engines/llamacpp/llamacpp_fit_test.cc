// llama.cpp's --fit as kvcat follows it (engines/llamacpp/llamacpp_fit.h): the context it gives a
// start whose -c was not given, against a real start's log, and fit's answer without --ctx-size.
#include "engines/llamacpp/llamacpp_fit.h"

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kvcat_runner.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::llamacpp_fit_context;
using kvcat::Rational;
using kvcat::test::contains;

const Rational kMiB(1 << 20);

Rational mib(const char* decimal) {
    return *Rational::parse(decimal) * kMiB;
}

// records/allocations/llamacpp-b7772-gpt-oss-20b-f16-f16-64000-4seq-t4 (llama-server b7772, no -c,
// four sequences in one stream, a Tesla T4): "projected to use 15546 MiB of device memory vs.
// 14992 MiB of free device memory", then "context size reduced from 131072 to 64000". The log does
// not print the projection at 4,096 cells; its buffers give it: the card's model buffer 12,036.68
// MiB, 4,096 cells of the full layers' cache at 24,576 bytes a cell (96 MiB), the sliding layers'
// 24 MiB and the compute buffer's 398.38 MiB. The projections are whole bytes; both are taken to
// the MiB the log prints, less the parts common to both ends (the model and compute buffers).
TEST(LlamacppFit, AnUnsetContextIsShortenedAsTheT4StartShortenedIt) {
    const Rational model_and_compute = mib("12036.68") + mib("398.38");
    const Rational target = mib("14992") - mib("1024") - model_and_compute;
    auto bytes_at = [&](std::int64_t cells) {
        if (cells == 131072) return mib("15546") - model_and_compute;  // as printed at the trained context
        EXPECT_EQ(cells, 4096);
        return Rational(cells * 24576) + mib("24");
    };
    auto f = llamacpp_fit_context(131072, 1, target, bytes_at);
    EXPECT_TRUE(f.fits);
    EXPECT_EQ(f.context, 64000);
    EXPECT_TRUE(contains(f.how, "shortens it to 64,000")) << f.how;
}

TEST(LlamacppFit, TheTrainedContextStaysWhenItFitsAndTheShortestIsTheFloor) {
    auto per_cell = [](std::int64_t cells) { return Rational(cells * 1000); };
    auto kept = llamacpp_fit_context(32768, 1, Rational(32768 * 1000), per_cell);
    EXPECT_TRUE(kept.fits);
    EXPECT_EQ(kept.context, 32768);
    EXPECT_TRUE(contains(kept.how, "so llama.cpp keeps it")) << kept.how;
    // Linear bytes: the interpolation lands where the memory ends, less its remainder of 256.
    auto shortened = llamacpp_fit_context(32768, 1, Rational(20000 * 1000), per_cell);
    EXPECT_EQ(shortened.context, 19968);
    // Two streams: the steps are 512 cells, the floor 8,192.
    auto two = llamacpp_fit_context(32768, 2, Rational(30000 * 1000), per_cell);
    EXPECT_EQ(two.context, 29696);
    auto floor = llamacpp_fit_context(32768, 2, Rational(8192 * 1000), per_cell);
    EXPECT_FALSE(floor.fits);
    EXPECT_EQ(floor.context, 8192);
    EXPECT_TRUE(contains(floor.how, "moves layers to the CPU")) << floor.how;
    // A trained context no longer than the floor is kept, and layers move when it does not fit.
    auto short_model = llamacpp_fit_context(2048, 1, Rational(1000 * 1000), per_cell);
    EXPECT_FALSE(short_model.fits);
    EXPECT_EQ(short_model.context, 2048);
}

// kvcat fit --engine llama.cpp without --ctx-size answers for llama-server without -c: the
// context --fit gives it, and that context with --ctx-size fits where 256 more cells do not.
TEST(LlamacppFit, FitWithoutCtxSizeGivesTheContextLlamaServerWouldTake) {
    auto fit = [](const std::vector<std::string>& extra) {
        std::vector<std::string> args = {"--kv-dtype", "f16", "--engine", "llama.cpp", "--format", "json"};
        args.insert(args.end(), extra.begin(), extra.end());
        return kvcat::test::fit_qwen3_32b_on_3090("Q4_K_M", args);
    };
    auto unset = fit({});
    ASSERT_EQ(unset.status, 0) << unset.err;
    auto j = nlohmann::json::parse(unset.out);
    std::int64_t chosen = j["engine_tokens"];
    EXPECT_EQ(chosen % 256, 0);
    EXPECT_TRUE(contains(j["engine"]["context_how"].get<std::string>(), "shortens it to")) << j["engine"];
    EXPECT_EQ(j["engine"]["budget"].size(), 5u) << j["engine"]["budget"];  // card, weights, reserve, host, --fit
    EXPECT_EQ(fit({"--ctx-size", std::to_string(chosen)}).status, 0);
    EXPECT_EQ(fit({"--ctx-size", std::to_string(chosen + 256)}).status, 1);
}

// A build from before --fit keeps nothing free beside the start: b7342's log loads with no fitting
// step, b7772's fits first. At -c 18,000 Qwen3-32B Q4_K_M leaves 0.57 GiB of a 3090, under --fit's
// 1 GiB, so the newer build moves layers and the older one starts.
TEST(LlamacppFit, ABuildFromBeforeFitKeepsNoTarget) {
    auto fit = [](const std::string& version) {
        return kvcat::test::fit_qwen3_32b_on_3090("Q4_K_M", {"--kv-dtype", "f16", "--engine", "llama.cpp", "--ctx-size",
                                                             "18000", "--engine-version", version, "--format", "json"});
    };
    auto before = fit("b7342");
    ASSERT_EQ(before.status, 0) << before.err;
    EXPECT_EQ(nlohmann::json::parse(before.out)["fit_target_bytes"], 0);
    auto after = fit("b7772");
    EXPECT_EQ(after.status, 1) << after.out;
    EXPECT_EQ(nlohmann::json::parse(after.out)["fit_target_bytes"], 1073741824);
}

}  // namespace
