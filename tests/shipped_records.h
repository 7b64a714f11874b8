// The shipped records (records/), linted once a test binary and shared by the tests that read
// them: a model record by id, and the whole set.
// Header-only; needs KVCAT_SOURCE_DIR.
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "check/lint.h"

namespace kvcat::test {

/// records/, linted the first time it is asked for.
inline const LintResult& shipped_records() {
    static const LintResult r = lint_paths({std::filesystem::path(KVCAT_SOURCE_DIR) / "records"});
    return r;
}

/// The model record `id` ("models/qwen3-32b") of records/; a test that names one not shipped fails.
inline const Model& shipped_model(const std::string& id) {
    static const Model none;
    const Record* rec = shipped_records().records.find(id);
    EXPECT_TRUE(rec && rec->model) << id;
    return rec && rec->model ? *rec->model : none;
}

}  // namespace kvcat::test
