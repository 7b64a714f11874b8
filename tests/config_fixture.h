// A model config of tests/fixtures/configs/, parsed as import-config parses one.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "import/import_config.h"
#include "test_util.h"

namespace kvcat::test {

inline nlohmann::json config_fixture(const std::string& name) {
    return parse_config_json(read_file(fixture_path("configs/" + name)));
}

}  // namespace kvcat::test
