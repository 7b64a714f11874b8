// kvcat explain's JSON for one record of a records tree (the shipped records unless told),
// as `kvcat explain ID --format json` gives it.
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "output/explain.h"

namespace kvcat::test {

inline nlohmann::json explain(const std::string& id,
                              const std::filesystem::path& root = std::filesystem::path(KVCAT_SOURCE_DIR) / "records") {
    LintResult lint = lint_paths({root});
    const Record* r = find_record(lint, id);
    EXPECT_NE(r, nullptr) << id;
    return r ? explain_record(lint, *r) : nlohmann::json();
}

}  // namespace kvcat::test
