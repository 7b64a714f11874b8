// The shipped records (records/), linted once a test binary and shared by the tests that read
// them: a model record by id, the whole set, and the allocation check's figures on them.
// Header-only; needs KVCAT_SOURCE_DIR.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "check/lint.h"
#include "engines/allocation_check.h"
#include "engines/allocation_fields.h"

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

/// One figure the engine-allocation check gives on a shipped allocation record.
struct ShippedFigure {
    std::string record;  ///< "allocations/..."
    AllocationFigure figure;
};

/// Every figure the check gives on records/allocations whose reason contains `why`, record by
/// record in the catalog's order.
inline std::vector<ShippedFigure> shipped_allocation_figures(std::string_view why) {
    std::vector<ShippedFigure> out;
    for (const Record& r : shipped_records().records.records()) {
        if (!r.id.starts_with("allocations/")) continue;
        std::string model = allocation_fields::text(r, "model");
        const Record* m = shipped_records().records.find(model.starts_with("models/") ? model : "models/" + model);
        if (!m || !m->model) continue;
        for (const auto& part : check_allocation(r, *m->model).parts) {
            for (const auto& f : part.figures) {
                if (f.why.find(why) != std::string::npos) out.push_back({r.id, f});
            }
        }
    }
    return out;
}

}  // namespace kvcat::test
