// The one list of state dtypes: the schemas' enums, the state's bytes and import-config's
// spellings all come from it.
#include "vocab/state_dtype.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace {

namespace fs = std::filesystem;

/// Every "enum" under a key named state_dtype or conv_state_dtype, anywhere in a JSON schema.
void state_enums(const nlohmann::json& node, std::vector<std::vector<std::string>>& out) {
    if (node.is_object()) {
        for (const auto& [key, value] : node.items()) {
            if ((key == "state_dtype" || key == "conv_state_dtype") && value.is_object() && value.contains("enum")) {
                out.push_back(value["enum"].get<std::vector<std::string>>());
            }
            state_enums(value, out);
        }
    } else if (node.is_array()) {
        for (const auto& value : node) state_enums(value, out);
    }
}

TEST(StateDtype, EverySchemasEnumIsTheOneList) {
    std::vector<std::string> names(kvcat::kStateDtypeNames.begin(), kvcat::kStateDtypeNames.end());
    std::size_t seen = 0;
    for (const char* schema : {"model.schema.json", "kv-efficiency.schema.json"}) {
        auto json = nlohmann::json::parse(kvcat::test::read_file(fs::path(KVCAT_SOURCE_DIR) / "schema" / schema));
        std::vector<std::vector<std::string>> enums;
        state_enums(json, enums);
        EXPECT_GE(enums.size(), 2u) << schema;
        for (const auto& e : enums) EXPECT_EQ(e, names) << schema;
        seen += enums.size();
    }
    EXPECT_GE(seen, 4u);
}

TEST(StateDtype, BytesAreFourForFloat32AndTwoOtherwiseAndAnUnknownNameThrows) {
    EXPECT_EQ(kvcat::state_dtype_bytes("float32"), 4);
    EXPECT_EQ(kvcat::state_dtype_bytes("fp32"), 4);
    EXPECT_EQ(kvcat::state_dtype_bytes("bfloat16"), 2);
    EXPECT_EQ(kvcat::state_dtype_bytes("float16"), 2);
    // Before the one list, any other name counted as 2 bytes without a word.
    EXPECT_THROW(kvcat::state_dtype_bytes("int8"), std::invalid_argument);
    EXPECT_THROW(kvcat::state_dtype_bytes("f32"), std::invalid_argument);
}

TEST(StateDtype, ConfigSpellingsReadAsTheRecordsNames) {
    EXPECT_EQ(kvcat::state_dtype_from("torch.float32"), "float32");
    EXPECT_EQ(kvcat::state_dtype_from("fp32"), "float32");
    EXPECT_EQ(kvcat::state_dtype_from("bf16"), "bfloat16");
    EXPECT_EQ(kvcat::state_dtype_from("torch.float16"), "float16");
    EXPECT_EQ(kvcat::state_dtype_from("float8_e4m3fn"), std::nullopt);
    for (auto name : {"float32", "bfloat16", "float16"}) {
        EXPECT_NE(kvcat::state_dtypes_known().find(name), std::string::npos) << name;
    }
}

}  // namespace
