#include "check/record_ref.h"

#include <gtest/gtest.h>

#include "check/lint.h"

namespace kvcat {
namespace {

const LintResult& shipped() {
    // The first catalog, frozen: the ids these tests name stay put as records/ grows.
    static const LintResult lint = lint_paths({std::filesystem::path(KVCAT_FIXTURES_DIR) / "seed-catalog/records"});
    return lint;
}

std::string id_of(std::string_view given, std::optional<RecordKind> kind) {
    RecordRef ref = resolve_record(shipped().records, given, kind);
    return ref.record ? ref.record->id : "error: " + ref.error;
}

TEST(RecordRef, AWholeIdIsItself) {
    EXPECT_EQ(id_of("models/qwen3.5-27b", RecordKind::model), "models/qwen3.5-27b");
    EXPECT_EQ(id_of("accelerators/nvidia-rtx-4090", std::nullopt), "accelerators/nvidia-rtx-4090");
}

TEST(RecordRef, TheFolderMayBeLeftOut) {
    EXPECT_EQ(id_of("qwen3.5-27b", RecordKind::model), "models/qwen3.5-27b");
    EXPECT_EQ(id_of("nvidia-rtx-4090", RecordKind::accelerator), "accelerators/nvidia-rtx-4090");
    EXPECT_EQ(id_of("vllm-qwen35-35b-hybrid-fp8kv-256k", std::nullopt),
              "kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k");
}

TEST(RecordRef, AUniquePrefixNamesItsRecord) {
    EXPECT_EQ(id_of("vllm-qwen35", std::nullopt), "kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k");
    EXPECT_EQ(id_of("kv-efficiency/llamacpp", std::nullopt), "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k");
    EXPECT_EQ(id_of("deepseek", RecordKind::model), "models/deepseek-v3");
    EXPECT_EQ(id_of("vllm-qwen35-...", std::nullopt), "kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k");
    EXPECT_EQ(id_of("vllm-qwen35-35b-\u2026", std::nullopt), "kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k");
}

TEST(RecordRef, AStartMustEndWhereAWordDoes) {
    // llama-3.1-8 is a mistyped llama-3.1-8b, not a start of it.
    EXPECT_EQ(id_of("models/llama-3.1-8", RecordKind::model),
              "error: no model record 'models/llama-3.1-8'; did you mean 'models/llama-3.1-8b'?");
    EXPECT_TRUE(id_of("qwen3.5-3", RecordKind::model).starts_with("error: no model record 'qwen3.5-3'"));
    EXPECT_EQ(id_of("qwen3.5-35b", RecordKind::model), "models/qwen3.5-35b-a3b");
}

TEST(RecordRef, AStartCutInsideAWordIsOfferedNotTaken) {
    EXPECT_EQ(id_of("vllm-qwen35-35", std::nullopt),
              "error: no record 'vllm-qwen35-35'; did you mean 'kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k'?");
    EXPECT_EQ(id_of("kv-efficiency/llamacpp-qwen35-27", std::nullopt),
              "error: no record 'kv-efficiency/llamacpp-qwen35-27'; did you mean "
              "'kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k'?");
    // Several records start so: each is named, up to four.
    std::string e = id_of("qwen3.5-3", RecordKind::model);
    EXPECT_TRUE(e.starts_with("error: no model record 'qwen3.5-3'; did you mean 'models/qwen3.5-3")) << e;
}

TEST(RecordRef, EveryCardIdIsSpeltOneWay) {
    // vendor-model, lower case, without a brand line: nvidia-rtx-3090 and nvidia-rtx-3090-ti,
    // not nvidia-geforce-rtx-3090-ti beside nvidia-rtx-3090, so a reader who has typed one id
    // can guess the next.
    static const LintResult lint = lint_paths({std::filesystem::path(KVCAT_SOURCE_DIR) / "records/accelerators"});
    std::size_t cards = 0;
    for (const auto& r : lint.records.records()) {
        if (r.kind != RecordKind::accelerator || !r.accelerator) continue;
        ++cards;
        std::string vendor = r.accelerator->vendor;
        for (auto& c : vendor) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        EXPECT_TRUE(r.id.starts_with("accelerators/" + vendor + "-")) << r.id << " of " << r.accelerator->vendor;
        EXPECT_EQ(r.id.find("geforce"), std::string::npos) << r.id;
        for (char c : r.id) EXPECT_FALSE(std::isupper(static_cast<unsigned char>(c))) << r.id;
    }
    EXPECT_GE(cards, 20u);
}

TEST(RecordRef, AnAmbiguousPrefixListsWhatItCouldMean) {
    std::string e = id_of("qwen3.5", RecordKind::model);
    EXPECT_TRUE(e.starts_with("error: 'qwen3.5' could be any of ")) << e;
    EXPECT_NE(e.find("models/qwen3.5-27b"), std::string::npos) << e;
    EXPECT_NE(e.find("models/qwen3.5-9b"), std::string::npos) << e;
}

TEST(RecordRef, AnUnknownIdGetsTheNearestOne) {
    EXPECT_EQ(id_of("qwen3.5-72b", RecordKind::model),
              "error: no model record 'qwen3.5-72b'; did you mean 'models/qwen3.5-27b'?");
    EXPECT_EQ(
        id_of("accelerators/nvidia-rtx-4080", RecordKind::accelerator),
        "error: no accelerator record 'accelerators/nvidia-rtx-4080'; did you mean 'accelerators/nvidia-rtx-4090'?");
    // The kind matters: a model's name does not answer for an accelerator.
    EXPECT_TRUE(id_of("qwen3.5-27b", RecordKind::accelerator).starts_with("error: no accelerator record"));
    std::string far = id_of("zzzzzzzz", RecordKind::model);
    EXPECT_EQ(far, "error: no model record 'zzzzzzzz'");
}

}  // namespace
}  // namespace kvcat
