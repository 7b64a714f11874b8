// The loader's field tables (src/load/schema.cc) and the JSON Schemas (schema/*.schema.json)
// must say the same thing: the same keys, the same required keys, the same types,
// nullability, enum values and bounds, at every level of nesting. The first half of
// this file compares them, and shows with mutated copies that each comparison can
// fail. The second half checks that the loader itself enforces what the schemas say,
// with the rule id and the line and column of each finding.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "load/records.h"
#include "load/schema.h"
#include "load/yaml_loader.h"
#include "support/diagnostic.h"

namespace kvcat {

// Names the kind in GoogleTest's messages; static, so no other test file can clash with it.
[[maybe_unused]] static void PrintTo(RecordKind kind, std::ostream* os) {
    *os << kind_name(kind);
}

namespace {

using nlohmann::json;

constexpr RecordKind kAllKinds[] = {RecordKind::model, RecordKind::accelerator, RecordKind::kv_efficiency,
                                    RecordKind::allocation};

std::string schema_path(RecordKind kind) {
    return std::string(KVCAT_SOURCE_DIR) + "/schema/" + std::string(kind_name(kind)) + ".schema.json";
}

json load_schema(RecordKind kind) {
    std::ifstream in(schema_path(kind));
    if (!in) {
        ADD_FAILURE() << "cannot open " << schema_path(kind);
        return json::object();
    }
    try {
        return json::parse(in);
    } catch (const json::parse_error& e) {
        ADD_FAILURE() << schema_path(kind) << " is not valid JSON: " << e.what();
        return json::object();
    }
}

// ---------------------------------------------------------------------------------
// Comparing a schema with a field table
// ---------------------------------------------------------------------------------

/// The JSON type(s) a field must have: the mapping the schemas follow.
std::set<std::string> expected_types(const FieldSpec& f) {
    std::set<std::string> t;
    switch (f.type) {
        case FieldType::string:
        case FieldType::reference:
        case FieldType::enumeration:
            t = {"string"};
            break;
        case FieldType::integer:
            t = {"integer"};
            break;
        case FieldType::number:
            t = {"number"};
            break;
        case FieldType::rational:
            t = {"integer", "number", "string"};
            break;  // a plain 34/32 is a YAML string
        case FieldType::boolean:
            t = {"boolean"};
            break;
        case FieldType::mapping:
            t = {"object"};
            break;
        case FieldType::string_list:
        case FieldType::integer_list:
        case FieldType::source_list:
        case FieldType::ignore_list:
        case FieldType::group_list:
        case FieldType::point_list:
        case FieldType::quality_list:
            t = {"array"};
            break;
    }
    if (f.nullable) t.insert("null");
    return t;
}

/// "type" as a set, whether written as "integer" or ["integer", "null"]; nullopt when malformed.
std::optional<std::set<std::string>> schema_types(const json& s) {
    if (!s.is_object() || !s.contains("type")) return std::nullopt;
    const json& t = s["type"];
    if (t.is_string()) return std::set<std::string>{t.get<std::string>()};
    if (!t.is_array()) return std::nullopt;
    std::set<std::string> out;
    for (const auto& x : t) {
        if (!x.is_string() || !out.insert(x.get<std::string>()).second) return std::nullopt;
    }
    return out;
}

std::string show(const std::set<std::string>& s) {
    std::string out = "[";
    for (const auto& x : s) out += (out.size() > 1 ? ", " : "") + x;
    return out + "]";
}

/// Whether the schema "pattern" (ECMA 262, unanchored as JSON Schema has it) matches a text.
bool pattern_matches(const std::string& pattern, const std::string& text) {
    return std::regex_search(text, std::regex(pattern, std::regex::ECMAScript));
}

/// The kind folder a reference field must point into. A new reference field fails here until added.
std::optional<std::string> reference_folder(std::string_view field) {
    if (field == "model" || field == "measured_on_model") return "models";
    if (field == "accelerator") return "accelerators";
    return std::nullopt;
}

class Comparison {
  public:
    std::vector<std::string> mismatches;

    void object(const json& s, std::span<const FieldSpec> fields, const std::string& where) {
        if (!s.is_object()) {
            add(where, "is not a schema object");
            return;
        }
        if (s.value("type", json()) != "object") add(where, "\"type\" is not \"object\"");
        if (s.value("additionalProperties", json()) != false) {
            add(where, "\"additionalProperties\" is not false: the loader refuses unknown keys");
        }
        const json props = s.value("properties", json::object());
        if (!props.is_object()) {
            add(where, "\"properties\" is not an object");
            return;
        }
        std::set<std::string> table_names, table_required;
        for (const auto& f : fields) {
            table_names.emplace(f.name);
            if (f.required) table_required.emplace(f.name);
        }
        for (const auto& name : table_names) {
            if (!props.contains(name)) add(where, "'" + name + "' is in the loader's table but not a schema property");
        }
        for (const auto& [name, _] : props.items()) {
            if (!table_names.count(name))
                add(where, "'" + name + "' is a schema property but not in the loader's table");
        }

        std::set<std::string> schema_required;
        const json req = s.value("required", json::array());
        if (!req.is_array()) {
            add(where, "\"required\" is not an array");
        } else {
            for (const auto& r : req) {
                if (!r.is_string() || !schema_required.insert(r.get<std::string>()).second) {
                    add(where, "\"required\" holds a non-string or a duplicate: " + r.dump());
                }
            }
        }
        for (const auto& name : table_required) {
            if (!schema_required.count(name))
                add(where, "'" + name + "' is required by the loader but not by the schema");
        }
        for (const auto& name : schema_required) {
            if (!table_required.count(name))
                add(where, "'" + name + "' is required by the schema but not by the loader");
        }

        for (const auto& f : fields) {
            std::string name(f.name);
            if (props.contains(name)) field(props[name], f, where + "." + name);
        }
    }

    void field(const json& p, const FieldSpec& f, const std::string& where) {
        if (!p.is_object()) {
            add(where, "is not a schema object");
            return;
        }
        if (!p.contains("description") || !p["description"].is_string() ||
            p["description"].get<std::string>().empty()) {
            add(where, "has no description");
        }
        auto types = schema_types(p);
        auto want = expected_types(f);
        if (!types) {
            add(where, "has no usable \"type\"");
        } else if (*types != want) {
            add(where, "has type " + show(*types) + ", the loader's " + std::string(describe_type(f.type)) +
                           (f.nullable ? " or null" : "") + " is " + show(want));
        }

        if (f.type == FieldType::enumeration) {
            enumeration(p, f, where);
        } else if (p.contains("enum")) {
            add(where, "has an \"enum\", but the loader's field is not an enumeration");
        }

        switch (f.type) {
            case FieldType::string:
                expect_eq(p, "minLength", 1, where, "the loader refuses an empty string");
                break;
            case FieldType::reference: {
                expect_eq(p, "minLength", 1, where, "the loader refuses an empty string");
                reference(p, f, where);
                break;
            }
            case FieldType::integer:
                expect_eq(p, "minimum", f.positive ? 1 : 0, where,
                          f.positive ? "the loader wants it greater than zero" : "the loader refuses a negative");
                break;
            case FieldType::number:
                if (f.positive) {
                    expect_eq(p, "exclusiveMinimum", 0, where, "the loader wants it greater than zero");
                } else if (p.contains("exclusiveMinimum") || p.contains("minimum")) {
                    add(where, "has a lower bound, but the loader sets none");
                }
                break;
            case FieldType::rational:
                rational(p, f, where);
                break;
            case FieldType::boolean:
                break;
            case FieldType::enumeration:
                break;
            case FieldType::mapping:
                object(p, f.children, where);
                break;
            case FieldType::string_list:
            case FieldType::integer_list: {
                const json items = p.value("items", json());
                auto item_types = schema_types(items);
                std::set<std::string> want_item{f.type == FieldType::string_list ? "string" : "integer"};
                if (!item_types || *item_types != want_item) add(where + "[]", "items have the wrong type");
                if (f.type == FieldType::integer_list) {
                    expect_eq(items, "minimum", 0, where + "[]", "the loader wants each item >= 0");
                }
                break;
            }
            case FieldType::source_list:
            case FieldType::ignore_list:
            case FieldType::group_list:
            case FieldType::point_list:
            case FieldType::quality_list:
                if (f.type == FieldType::source_list || f.type == FieldType::point_list) {
                    expect_eq(p, "minItems", 1, where, "the loader wants at least one item");
                } else if (p.contains("minItems") && p["minItems"] != 0) {
                    add(where, "has a minItems, but the loader accepts an empty list");
                }
                object(p.value("items", json()), f.children, where + "[]");
                break;
        }
    }

  private:
    void add(const std::string& where, const std::string& what) { mismatches.push_back(where + ": " + what); }

    void expect_eq(const json& p, const char* key, int value, const std::string& where, const char* why) {
        if (!p.is_object() || !p.contains(key) || !p[key].is_number() || p[key] != value) {
            add(where, std::string("\"") + key + "\" should be " + std::to_string(value) + ": " + why);
        }
    }

    void enumeration(const json& p, const FieldSpec& f, const std::string& where) {
        if (!p.contains("enum") || !p["enum"].is_array()) {
            add(where, "has no \"enum\" array for the loader's allowed values");
            return;
        }
        std::multiset<std::string> schema_values;
        for (const auto& v : p["enum"]) schema_values.insert(v.is_string() ? v.get<std::string>() : v.dump());
        std::multiset<std::string> table_values(f.allowed.begin(), f.allowed.end());
        if (f.nullable) table_values.insert("null");
        if (schema_values != table_values) {
            add(where, "\"enum\" differs from the loader's allowed values " +
                           show({table_values.begin(), table_values.end()}));
        }
    }

    void reference(const json& p, const FieldSpec& f, const std::string& where) {
        auto folder = reference_folder(f.name);
        if (!folder) {
            add(where, "is a reference of a kind this test does not know; add it to reference_folder()");
            return;
        }
        if (!p.contains("pattern") || !p["pattern"].is_string()) {
            add(where, "has no \"pattern\" for a " + *folder + "/ id");
            return;
        }
        std::string pattern = p["pattern"];
        if (!pattern_matches(pattern, *folder + "/some-record")) add(where, "pattern refuses a " + *folder + "/ id");
        for (auto kind : kAllKinds) {
            std::string other(kind_folder(kind));
            if (other != *folder && pattern_matches(pattern, other + "/some-record")) {
                add(where, "pattern accepts an id under " + other + "/");
            }
        }
        if (pattern_matches(pattern, "some-record")) add(where, "pattern accepts an id without a kind folder");
        if (pattern_matches(pattern, *folder + "/")) add(where, "pattern accepts " + *folder + "/ with no name");
    }

    void rational(const json& p, const FieldSpec& f, const std::string& where) {
        expect_eq(p, "exclusiveMinimum", 0, where, "a positive rational, 0.5 included, follows the loader's bound");
        if (!p.contains("pattern") || !p["pattern"].is_string()) {
            add(where, "has no \"pattern\" for the fraction form");
            return;
        }
        std::string pattern = p["pattern"];
        for (const char* good : {"34/32", "1/2", "9/8"}) {
            if (!pattern_matches(pattern, good)) add(where, std::string("pattern refuses the fraction ") + good);
        }
        // A quoted whole number is a string the loader refuses, as is anything not a fraction.
        for (const char* bad : {"34", "2.5", "abc", "34/32x", "x34/32", "3/0", "1/2/3", ""}) {
            if (pattern_matches(pattern, bad)) add(where, std::string("pattern accepts '") + bad + "'");
        }
        if (f.positive && pattern_matches(pattern, "0/4")) add(where, "pattern accepts 0/4, which is not > 0");
    }
};

std::vector<std::string> compare(const json& schema, std::span<const FieldSpec> fields, const std::string& where) {
    Comparison c;
    c.object(schema, fields, where);
    return c.mismatches;
}

std::string listed(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += "\n  " + l;
    return out;
}

/// Expects some mismatch to contain every one of the given fragments.
void expect_mismatch(const std::vector<std::string>& mismatches, std::initializer_list<std::string_view> fragments) {
    bool found = std::any_of(mismatches.begin(), mismatches.end(), [&](const std::string& m) {
        return std::all_of(fragments.begin(), fragments.end(),
                           [&](std::string_view f) { return m.find(f) != std::string::npos; });
    });
    std::string wanted;
    for (auto f : fragments) wanted += std::string(" '") + std::string(f) + "'";
    EXPECT_TRUE(found) << "no mismatch mentions" << wanted << "; got:" << listed(mismatches);
}

// ---------------------------------------------------------------------------------
// The shipped schemas agree with the tables
// ---------------------------------------------------------------------------------

class JsonSchemaAgreement : public testing::TestWithParam<RecordKind> {};

TEST_P(JsonSchemaAgreement, PropertiesRequiredTypesAndEnumsMatchTheLoaderTable) {
    RecordKind kind = GetParam();
    json schema = load_schema(kind);
    auto mismatches = compare(schema, record_fields(kind), std::string(kind_name(kind)));
    EXPECT_TRUE(mismatches.empty()) << schema_path(kind) << " disagrees with the loader:" << listed(mismatches);
}

TEST_P(JsonSchemaAgreement, IsADraft202012SchemaWithIdTitleAndDescription) {
    RecordKind kind = GetParam();
    json schema = load_schema(kind);
    EXPECT_EQ(schema.value("$schema", ""), "https://json-schema.org/draft/2020-12/schema");
    std::string id = schema.value("$id", "");
    std::string file = std::string(kind_name(kind)) + ".schema.json";
    EXPECT_TRUE(id.size() >= file.size() && id.compare(id.size() - file.size(), file.size(), file) == 0)
        << "$id '" << id << "' should end with " << file;
    EXPECT_FALSE(schema.value("title", "").empty());
    EXPECT_FALSE(schema.value("description", "").empty());
}

TEST_P(JsonSchemaAgreement, IdPatternNamesTheKindFolder) {
    RecordKind kind = GetParam();
    json schema = load_schema(kind);
    const json id = schema["properties"].value("id", json::object());
    ASSERT_TRUE(id.contains("pattern") && id["pattern"].is_string());
    std::string pattern = id["pattern"];
    std::string folder(kind_folder(kind));
    EXPECT_TRUE(pattern_matches(pattern, folder + "/some-record")) << pattern;
    EXPECT_FALSE(pattern_matches(pattern, folder + "/")) << pattern << " accepts an empty name";
    EXPECT_FALSE(pattern_matches(pattern, "some-record")) << pattern;
    for (auto other : kAllKinds) {
        if (other == kind) continue;
        EXPECT_FALSE(pattern_matches(pattern, std::string(kind_folder(other)) + "/some-record"))
            << pattern << " accepts an id of " << kind_name(other);
    }
}

TEST_P(JsonSchemaAgreement, EveryFieldDescriptionIsNotEmptyAndEveryTableFieldHasOne) {
    // The schema's descriptions are the editor's documentation; the table's description feeds them.
    std::vector<std::string> missing;
    auto walk = [&](auto&& self, std::span<const FieldSpec> fields, const std::string& where) -> void {
        for (const auto& f : fields) {
            if (f.description.empty()) missing.push_back(where + "." + std::string(f.name));
            if (!f.children.empty()) self(self, f.children, where + "." + std::string(f.name));
        }
    };
    walk(walk, record_fields(GetParam()), std::string(kind_name(GetParam())));
    EXPECT_TRUE(missing.empty()) << "table fields without a description:" << listed(missing);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, JsonSchemaAgreement, testing::ValuesIn(kAllKinds),
                         [](const testing::TestParamInfo<RecordKind>& param_info) {
                             std::string name(kind_name(param_info.param));
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

// ---------------------------------------------------------------------------------
// Each comparison can fail: mutated copies of the schemas and of the tables
// ---------------------------------------------------------------------------------

TEST(JsonSchemaComparisonCatches, AFieldAddedToTheTableButNotTheSchema) {
    std::vector<FieldSpec> fields(record_fields(RecordKind::model).begin(), record_fields(RecordKind::model).end());
    fields.push_back(FieldSpec{"rope_theta", FieldType::number, true, false, "RoPE base"});
    auto m = compare(load_schema(RecordKind::model), fields, "model");
    expect_mismatch(m, {"model", "'rope_theta' is in the loader's table but not a schema property"});
    expect_mismatch(m, {"'rope_theta' is required by the loader but not by the schema"});
}

TEST(JsonSchemaComparisonCatches, APropertyAddedToTheSchemaButNotTheTable) {
    json s = load_schema(RecordKind::accelerator);
    s["properties"]["tdp_w"] = {{"description", "power, W"}, {"type", "number"}};
    expect_mismatch(compare(s, record_fields(RecordKind::accelerator), "accelerator"),
                    {"'tdp_w' is a schema property but not in the loader's table"});
}

TEST(JsonSchemaComparisonCatches, ARequiredListThatDiffers) {
    json s = load_schema(RecordKind::kv_efficiency);
    auto& req = s["required"];
    req.erase(std::find(req.begin(), req.end(), "kv_bytes_basis"));
    req.push_back("provenance");
    auto m = compare(s, record_fields(RecordKind::kv_efficiency), "kv-efficiency");
    expect_mismatch(m, {"'kv_bytes_basis' is required by the loader but not by the schema"});
    expect_mismatch(m, {"'provenance' is required by the schema but not by the loader"});
}

TEST(JsonSchemaComparisonCatches, NullabilityAddedOrDropped) {
    json s = load_schema(RecordKind::kv_efficiency);
    s["properties"]["measured_tps_at_ctx"]["type"] = "number";
    s["properties"]["engine"]["type"] = {"string", "null"};
    auto m = compare(s, record_fields(RecordKind::kv_efficiency), "kv-efficiency");
    expect_mismatch(m, {"kv-efficiency.measured_tps_at_ctx", "has type [number]", "[null, number]"});
    expect_mismatch(m, {"kv-efficiency.engine", "has type [null, string]"});
}

TEST(JsonSchemaComparisonCatches, AWrongType) {
    json s = load_schema(RecordKind::model);
    s["properties"]["config_verified"]["type"] = "string";
    s["properties"]["num_layers"]["type"] = "number";
    auto m = compare(s, record_fields(RecordKind::model), "model");
    expect_mismatch(m, {"model.config_verified", "[boolean]"});
    expect_mismatch(m, {"model.num_layers", "[integer]"});
}

TEST(JsonSchemaComparisonCatches, EnumValuesThatDiffer) {
    json s = load_schema(RecordKind::kv_efficiency);
    s["properties"]["kv_cache_dtype"]["enum"].erase(0);            // drop f32
    s["properties"]["provenance"]["enum"].push_back("estimated");  // a value the loader refuses
    s["properties"]["engine"]["enum"] = {"vLLM", "llama.cpp"};     // an enum on a free string
    auto m = compare(s, record_fields(RecordKind::kv_efficiency), "kv-efficiency");
    expect_mismatch(m, {"kv-efficiency.kv_cache_dtype", "\"enum\" differs"});
    expect_mismatch(m, {"kv-efficiency.provenance", "\"enum\" differs"});
    expect_mismatch(m, {"kv-efficiency.engine", "not an enumeration"});
}

TEST(JsonSchemaComparisonCatches, BoundsThatDiffer) {
    json s = load_schema(RecordKind::model);
    s["properties"]["num_layers"]["minimum"] = 0;
    s["properties"]["total_params_b"].erase("exclusiveMinimum");
    s["properties"]["kv_layers"]["properties"]["first_index"]["minimum"] = 1;
    s["properties"]["sources"].erase("minItems");
    s["properties"]["name"].erase("minLength");
    auto m = compare(s, record_fields(RecordKind::model), "model");
    expect_mismatch(m, {"model.num_layers", "\"minimum\" should be 1"});
    expect_mismatch(m, {"model.total_params_b", "\"exclusiveMinimum\" should be 0"});
    expect_mismatch(m, {"model.kv_layers.first_index", "\"minimum\" should be 0"});
    expect_mismatch(m, {"model.sources", "\"minItems\" should be 1"});
    expect_mismatch(m, {"model.name", "\"minLength\" should be 1"});
}

TEST(JsonSchemaComparisonCatches, UnknownKeysAllowed) {
    json s = load_schema(RecordKind::model);
    s["additionalProperties"] = true;
    s["properties"]["mla"].erase("additionalProperties");
    auto m = compare(s, record_fields(RecordKind::model), "model");
    expect_mismatch(m, {"model:", "additionalProperties"});
    expect_mismatch(m, {"model.mla:", "additionalProperties"});
}

TEST(JsonSchemaComparisonCatches, ANestedMappingThatDiffers) {
    json s = load_schema(RecordKind::kv_efficiency);
    s["properties"]["kv_bytes_basis"]["properties"].erase("statement");
    s["properties"]["kv_bytes_basis"]["properties"]["layers"]["type"] = "string";
    auto m = compare(s, record_fields(RecordKind::kv_efficiency), "kv-efficiency");
    expect_mismatch(m,
                    {"kv-efficiency.kv_bytes_basis", "'statement' is in the loader's table but not a schema property"});
    expect_mismatch(m, {"kv-efficiency.kv_bytes_basis.layers", "has type [string]"});
}

TEST(JsonSchemaComparisonCatches, ListItemsThatDiffer) {
    json s = load_schema(RecordKind::kv_efficiency);
    s["properties"]["sources"]["items"]["properties"]["author"] = {{"description", "who"}, {"type", "string"}};
    s["properties"]["lint_ignore"]["items"]["required"] = {"rule"};
    auto m = compare(s, record_fields(RecordKind::kv_efficiency), "kv-efficiency");
    expect_mismatch(m, {"kv-efficiency.sources[]", "'author' is a schema property"});
    expect_mismatch(m, {"kv-efficiency.lint_ignore[]", "'reason' is required by the loader"});

    json model = load_schema(RecordKind::model);
    model["properties"]["kv_layers"]["properties"]["indices"]["items"]["type"] = "number";
    expect_mismatch(compare(model, record_fields(RecordKind::model), "model"),
                    {"model.kv_layers.indices[]", "items have the wrong type"});
}

TEST(JsonSchemaComparisonCatches, PatternsThatAreTooLooseOrPointAtTheWrongKind) {
    json s = load_schema(RecordKind::kv_efficiency);
    s["properties"]["accelerator"]["pattern"] = "^models/";
    s["properties"]["model"]["pattern"] = "^models/";
    s["properties"]["kv_bytes_per_token"]["pattern"] = "^[0-9/]+$";
    s["properties"]["kv_bytes_basis"]["properties"]["bytes_per_element"].erase("pattern");
    auto m = compare(s, record_fields(RecordKind::kv_efficiency), "kv-efficiency");
    expect_mismatch(m, {"kv-efficiency.accelerator", "refuses a accelerators/ id"});
    expect_mismatch(m, {"kv-efficiency.accelerator", "accepts an id under models/"});
    expect_mismatch(m, {"kv-efficiency.model", "pattern accepts models/ with no name"});
    expect_mismatch(m, {"kv-efficiency.kv_bytes_per_token", "pattern accepts '34'"});
    expect_mismatch(m, {"kv-efficiency.kv_bytes_basis.bytes_per_element", "no \"pattern\""});
}

TEST(JsonSchemaComparisonCatches, AFieldWithoutADescription) {
    json s = load_schema(RecordKind::accelerator);
    s["properties"]["memory_gb"].erase("description");
    expect_mismatch(compare(s, record_fields(RecordKind::accelerator), "accelerator"),
                    {"accelerator.memory_gb", "no description"});
}

// ---------------------------------------------------------------------------------
// Conditional requirements: the model schema's allOf if/then and the model-layers rule
// ---------------------------------------------------------------------------------

/// Evaluates the small part of JSON Schema the model's `if` clauses use; anything else is a failure.
bool holds(const json& s, const json& instance) {
    for (const auto& [key, value] : s.items()) {
        if (key == "required") {
            for (const auto& r : value) {
                if (!instance.is_object() || !instance.contains(r.get<std::string>())) return false;
            }
        } else if (key == "properties") {
            for (const auto& [name, sub] : value.items()) {
                if (instance.is_object() && instance.contains(name) && !holds(sub, instance[name])) return false;
            }
        } else if (key == "const") {
            if (instance != value) return false;
        } else if (key == "enum") {
            if (std::find(value.begin(), value.end(), instance) == value.end()) return false;
        } else if (key == "type") {
            if (value != "string") {
                ADD_FAILURE() << "this test evaluates only \"type\": \"string\" in an if clause, not " << value.dump();
            }
            if (!instance.is_string()) return false;
        } else if (key == "not") {
            if (holds(value, instance)) return false;
        } else if (key != "description" && key != "$comment") {
            ADD_FAILURE() << "this test cannot evaluate the keyword '" << key << "' in an if clause";
        }
    }
    return true;
}

/// The keys the schema's allOf if/then clauses require of a record.
std::set<std::string> conditionally_required(const json& schema, const json& instance) {
    std::set<std::string> out;
    if (!schema.contains("allOf")) return out;
    for (const auto& clause : schema["allOf"]) {
        if (!clause.contains("if") || !clause.contains("then") || clause.size() != 2 || clause["then"].size() != 1 ||
            !clause["then"].contains("required")) {
            ADD_FAILURE() << "this test understands allOf items of the form {if, then: {required}}, not "
                          << clause.dump();
            continue;
        }
        if (holds(clause["if"], instance)) {
            for (const auto& r : clause["then"]["required"]) out.insert(r.get<std::string>());
        }
    }
    return out;
}

/// A model record with every key the table requires and none it does not.
std::string minimal_model(const std::optional<std::string>& variant) {
    std::string text =
        "id: models/test-model\n"
        "name: Test Model\n"
        "config_source: config.json\n"
        "config_verified: true\n"
        "total_params_b: 7\n"
        "active_params_b: 7\n"
        "native_context: 32768\n"
        "num_layers: 4\n";
    if (variant) text += "attention_variant: " + *variant + "\n";
    text +=
        "attention_heads: 8\n"
        "kv_layers:\n"
        "  count: 4\n"
        "sources:\n"
        "  - name: config.json\n";
    return text;
}

/// The keys the lint (loader and rules) reports missing, by rule schema-missing-key.
std::set<std::string> lint_missing_keys(const std::string& text) {
    std::vector<Diagnostic> findings;
    std::vector<Record> records;
    records.push_back(make_record(load_yaml("models/test-model.yaml", text), "models/test-model.yaml", findings));
    LintResult result = lint_records(std::move(records), std::move(findings));
    std::set<std::string> out;
    const std::string lead = "required key '";
    for (const auto& d : result.diagnostics) {
        if (d.rule != "schema-missing-key") continue;
        auto start = d.message.find(lead);
        auto end = start == std::string::npos ? start : d.message.find('\'', start + lead.size());
        if (end == std::string::npos) {
            ADD_FAILURE() << "unexpected missing-key message: " << d.message;
            continue;
        }
        out.insert(d.message.substr(start + lead.size(), end - start - lead.size()));
    }
    return out;
}

TEST(JsonSchemaConditionalRequirements, ModelIfThenMatchesTheModelLayersRuleForEveryVariant) {
    json schema = load_schema(RecordKind::model);
    ASSERT_TRUE(schema.contains("allOf")) << "the model schema should state its conditional requirements";
    std::vector<std::string> variants(attention_variants().begin(), attention_variants().end());
    variants.push_back("not-a-variant");  // the rule still wants kv_heads and head_dim; so does the schema
    for (const auto& v : variants) {
        SCOPED_TRACE("attention_variant: " + v);
        auto by_lint = lint_missing_keys(minimal_model(v));
        auto by_schema = conditionally_required(schema, json{{"attention_variant", v}});
        EXPECT_EQ(by_lint, by_schema) << "lint wants " << show(by_lint) << ", schema wants " << show(by_schema);
        EXPECT_FALSE(by_schema.empty());
    }
    // Without attention_variant only the unconditional requirement fires, in both.
    EXPECT_EQ(lint_missing_keys(minimal_model(std::nullopt)), std::set<std::string>{"attention_variant"});
    EXPECT_TRUE(conditionally_required(schema, json::object()).empty());
}

TEST(JsonSchemaConditionalRequirements, ConditionallyRequiredKeysAreModelProperties) {
    json schema = load_schema(RecordKind::model);
    for (const auto& clause : schema.value("allOf", json::array())) {
        for (const auto& r : clause["then"].value("required", json::array())) {
            EXPECT_TRUE(schema["properties"].contains(r.get<std::string>())) << r;
        }
    }
}

TEST(JsonSchemaConditionalRequirements, ASatisfiedConditionIsQuietInTheLint) {
    std::string text = minimal_model("mla") + "mla:\n  kv_lora_rank: 512\n  qk_rope_head_dim: 64\n";
    EXPECT_TRUE(lint_missing_keys(text).empty());
}

// ---------------------------------------------------------------------------------
// The loader enforces what the schemas say, at the right line and column
// ---------------------------------------------------------------------------------

// Line numbers in the comments are the ones the tests below assert.
const std::string kAccelerator =
    "id: accelerators/test-card\n"  // 1
    "vendor: ACME\n"                // 2
    "name: Test Card\n"             // 3
    "memory_gb: 24\n"               // 4
    "memory_type: GDDR6X\n"         // 5
    "memory_bandwidth_gb_s: 936\n"  // 6
    "sources:\n"                    // 7
    "  - name: spec sheet\n";       // 8

const std::string kModel =
    "id: models/test-model\n"       // 1
    "name: Test Model\n"            // 2
    "config_source: config.json\n"  // 3
    "config_verified: true\n"       // 4
    "total_params_b: 7\n"           // 5
    "active_params_b: 7\n"          // 6
    "native_context: 32768\n"       // 7
    "num_layers: 4\n"               // 8
    "attention_variant: gqa\n"      // 9
    "attention_heads: 8\n"          // 10
    "kv_heads: 2\n"                 // 11
    "head_dim: 512\n"               // 12
    "kv_layers:\n"                  // 13
    "  count: 4\n"                  // 14
    "sources:\n"                    // 15
    "  - name: config.json\n";      // 16

const std::string kKv =
    "id: kv-efficiency/test-row\n"               // 1
    "model: models/test-model\n"                 // 2
    "accelerator: null\n"                        // 3
    "engine: vLLM\n"                             // 4
    "kv_cache_dtype: fp8\n"                      // 5
    "attention_variant: gqa\n"                   // 6
    "context_length: 4096\n"                     // 7
    "kv_bytes_per_token: 8192\n"                 // 8
    "kv_bytes_basis:\n"                          // 9
    "  layers: 4\n"                              // 10
    "  kv_heads: 2\n"                            // 11
    "  head_dim: 512\n"                          // 12
    "  kv_factor: 2\n"                           // 13
    "  bytes_per_element: 1\n"                   // 14
    "  statement: 4 x 2 x 512 x 2 x 1 = 8192\n"  // 15
    "measured_tps_at_ctx: null\n"                // 16
    "measured_ttft_ms_at_ctx: null\n"            // 17
    "methodology: derived from the model\n"      // 18
    "notes: a test row\n"                        // 19
    "sources:\n"                                 // 20
    "  - name: a config\n";                      // 21

const std::map<std::string, std::string>& paths() {
    static const std::map<std::string, std::string> p = {
        {kAccelerator, "accelerators/test-card.yaml"},
        {kModel, "models/test-model.yaml"},
        {kKv, "kv-efficiency/test-row.yaml"},
    };
    return p;
}

/// Replaces one whole line (without its newline) of a base text; fails if it is not there exactly once.
std::string edit(const std::string& base, const std::string& line, const std::string& replacement) {
    std::string needle = "\n" + line + "\n";
    std::string padded = "\n" + base;
    auto at = padded.find(needle);
    EXPECT_NE(at, std::string::npos) << "no line '" << line << "'";
    EXPECT_EQ(padded.find(needle, at + 1), std::string::npos) << "line '" << line << "' is there twice";
    if (at == std::string::npos) return base;
    std::string repl = replacement.empty() ? "\n" : "\n" + replacement + "\n";
    padded.replace(at, needle.size(), repl);
    return padded.substr(1);
}

std::string drop(const std::string& base, const std::string& line) {
    return edit(base, line, "");
}

/// The findings of loading and typing one record (the loader and schema validation, no cross-record rules).
std::vector<Diagnostic> load(const std::string& base, const std::string& text) {
    const std::string& path = paths().at(base);
    std::vector<Diagnostic> out;
    make_record(load_yaml(path, text), path, out);
    return out;
}

std::string dump(const std::vector<Diagnostic>& ds) {
    std::string out;
    for (const auto& d : ds) out += "\n  " + format_text(d);
    return out;
}

/// Expects exactly one finding with this rule, at this line and column, whose message holds every fragment.
void expect_one(const std::vector<Diagnostic>& ds, const std::string& rule, int line, int column,
                std::initializer_list<std::string_view> fragments) {
    std::vector<const Diagnostic*> hits;
    for (const auto& d : ds) {
        if (d.rule == rule) hits.push_back(&d);
    }
    ASSERT_EQ(hits.size(), 1u) << "want one " << rule << "; got:" << dump(ds);
    const Diagnostic& d = *hits.front();
    EXPECT_EQ(d.severity, Severity::error);
    EXPECT_EQ(d.pos.line, line) << format_text(d);
    EXPECT_EQ(d.pos.column, column) << format_text(d);
    for (auto f : fragments) {
        EXPECT_NE(d.message.find(f), std::string::npos) << "'" << f << "' not in: " << d.message;
    }
}

TEST(LoaderEnforcesSchema, TheBaseRecordsAreClean) {
    for (const auto& [text, path] : paths()) {
        EXPECT_TRUE(load(text, text).empty()) << path << dump(load(text, text));
    }
    // Together they also pass every cross-record rule, so each test below sees only its own finding.
    std::vector<Diagnostic> findings;
    std::vector<Record> records;
    for (const auto& [text, path] : paths()) records.push_back(make_record(load_yaml(path, text), path, findings));
    LintResult result = lint_records(std::move(records), std::move(findings));
    EXPECT_TRUE(result.diagnostics.empty()) << dump(result.diagnostics);
}

TEST(LoaderEnforcesSchema, AMissingRequiredKeyIsReportedAtItsMapping) {
    auto top = load(kAccelerator, drop(kAccelerator, "vendor: ACME"));
    expect_one(top, "schema-missing-key", 1, 1, {"required key 'vendor' is missing", "expected a string"});
    EXPECT_EQ(top.size(), 1u) << dump(top);

    auto nested = load(kKv, drop(kKv, "  statement: 4 x 2 x 512 x 2 x 1 = 8192"));
    expect_one(nested, "schema-missing-key", 10, 3, {"'statement'"});

    auto item = load(kModel, edit(kModel, "  - name: config.json", "  - detail: config.json"));
    expect_one(item, "schema-missing-key", 16, 5, {"'name'"});
}

TEST(LoaderEnforcesSchema, AMissingNullableKeySaysToWriteNull) {
    auto ds = load(kKv, drop(kKv, "measured_tps_at_ctx: null"));
    expect_one(ds, "schema-missing-key", 1, 1,
               {"required key 'measured_tps_at_ctx' is missing", "number or null", "measured_tps_at_ctx: null"});
    // A key that may not be null gets no such advice.
    auto plain = load(kKv, drop(kKv, "engine: vLLM"));
    expect_one(plain, "schema-missing-key", 1, 1, {"'engine'"});
    EXPECT_EQ(plain.front().message.find(": null"), std::string::npos) << plain.front().message;
}

TEST(LoaderEnforcesSchema, AWrongTypeIsReportedAtTheValue) {
    expect_one(load(kModel, edit(kModel, "num_layers: 4", "num_layers: four")), "schema-type", 8, 13,
               {"'num_layers' must be a whole number", "'four'"});
    // A quoted "true" is a string, not a boolean, for the loader as for the schema.
    expect_one(load(kModel, edit(kModel, "config_verified: true", "config_verified: \"true\"")), "schema-type", 4, 18,
               {"'config_verified' must be true or false"});
    expect_one(load(kKv, edit(kKv, "context_length: 4096", "context_length: 4096.5")), "schema-type", 7, 17,
               {"'context_length'"});
    // A context written as the command line takes it is told the integer to write instead.
    expect_one(load(kKv, edit(kKv, "context_length: 4096", "context_length: 64k")), "schema-type", 7, 17,
               {"'context_length'", "64k", "write 65536"});
    expect_one(load(kKv, edit(kKv, "context_length: 4096", "context_length: 1M")), "schema-type", 7, 17,
               {"write 1048576"});
    // A quoted whole number fails the rational's pattern in the schema and the loader alike.
    expect_one(load(kKv, edit(kKv, "kv_bytes_per_token: 8192", "kv_bytes_per_token: \"8192\"")), "schema-type", 8, 21,
               {"'kv_bytes_per_token'", "a fraction such as 34/32"});
    expect_one(load(kKv, edit(kKv, "  kv_heads: 2", "  kv_heads: [2]")), "schema-type", 11, 13,
               {"'kv_heads'", "a list"});
    // A nested object that is not a mapping has its own rule, as a record's top level does.
    expect_one(load(kModel, edit(kModel, "kv_layers:\n  count: 4", "kv_layers: 4")), "schema-not-mapping", 13, 12,
               {"'kv_layers' (found '4') must be a mapping"});
    expect_one(load(kModel, edit(kModel, "  count: 4", "  count: 4\n  indices: [0, 1, x, 3]")), "schema-type", 15, 19,
               {"indices item"});
}

TEST(LoaderEnforcesSchema, NullIsATypeErrorUnlessTheFieldIsNullable) {
    // On the key's line the finding points at the null; an empty value points at the key.
    expect_one(load(kKv, edit(kKv, "engine: vLLM", "engine: null")), "schema-type", 4, 9,
               {"'engine' must be a string, found null"});
    expect_one(load(kKv, edit(kKv, "engine: vLLM", "engine:")), "schema-type", 4, 1, {"found null"});
    EXPECT_TRUE(load(kKv, edit(kKv, "accelerator: null", "accelerator: ~")).empty());
    EXPECT_TRUE(load(kKv, kKv + "engine_version: null\nweight_quant: null\nmeasured_on_model: null\n"
                                "context_extension: null\n")
                    .empty());
}

TEST(LoaderEnforcesSchema, AnUnknownKeyIsReportedAtTheKeyWithADidYouMean) {
    auto ds = load(kAccelerator, edit(kAccelerator, "memory_type: GDDR6X", "memry_type: GDDR6X"));
    expect_one(ds, "schema-unknown-key", 5, 1,
               {"unknown key 'memry_type' in an accelerator record", "did you mean 'memory_type'?"});
    expect_one(ds, "schema-missing-key", 1, 1, {"'memory_type'"});

    auto nested = load(kKv, edit(kKv, "  kv_heads: 2", "  kv_head: 2"));
    expect_one(nested, "schema-unknown-key", 11, 3, {"'kv_head'", "kv_bytes_basis", "did you mean 'kv_heads'?"});

    auto item = load(kKv, edit(kKv, "  - name: a config", "  - name: a config\n    urll: https://example.org"));
    expect_one(item, "schema-unknown-key", 22, 5, {"'urll'", "sources item", "did you mean 'url'?"});

    auto far = load(kModel, kModel + "colour: red\n");
    expect_one(far, "schema-unknown-key", 17, 1, {"unknown key 'colour'"});
    EXPECT_EQ(far.front().message.find("did you mean"), std::string::npos) << far.front().message;
}

TEST(LoaderEnforcesSchema, AValueOutsideItsEnumIsReportedAtTheValue) {
    expect_one(load(kKv, edit(kKv, "kv_cache_dtype: fp8", "kv_cache_dtype: fp9")), "schema-enum", 5, 17,
               {"'fp9' is not a valid kv_cache_dtype", "did you mean 'fp8'?", "one of: f32, fp32,"});
    expect_one(load(kModel, edit(kModel, "attention_variant: gqa", "attention_variant: hybird")), "schema-enum", 9, 20,
               {"did you mean 'hybrid'?", "one of: mha, gqa, mqa, mla, hybrid, sliding"});
    expect_one(load(kKv, kKv + "provenance: guessed\n"), "schema-enum", 22, 13,
               {"'guessed' is not a valid provenance"});
    std::string linear = edit(kModel, "  count: 4",
                              "  count: 4\n"
                              "linear_attention:\n"
                              "  kind: gated_deltanet\n"
                              "  layers: 1\n  key_heads: 1\n  value_heads: 1\n  key_head_dim: 1\n"
                              "  value_head_dim: 1\n  conv_kernel: 4\n  state_dtype: float32");
    expect_one(load(kModel, linear), "schema-enum", 16, 9,
               {"'gated_deltanet' is not a valid kind", "did you mean 'gated-deltanet'?"});
}

TEST(LoaderEnforcesSchema, BoundsMatchTheSchemaMinimums) {
    expect_one(load(kAccelerator, edit(kAccelerator, "memory_gb: 24", "memory_gb: 0")), "schema-value", 4, 12,
               {"'memory_gb' must be greater than zero"});
    // 0 growing layers is a model whose every layer is bounded or keeps a fixed state.
    EXPECT_TRUE(load(kModel, edit(kModel, "  count: 4", "  count: 0")).empty());
    expect_one(load(kModel, edit(kModel, "  count: 4", "  count: -1")), "schema-value", 14, 10,
               {"'count' must not be negative"});
    expect_one(load(kModel, edit(kModel, "  count: 4", "  count: 4\n  first_index: -1")), "schema-value", 15, 16,
               {"'first_index' must not be negative"});
    EXPECT_TRUE(load(kModel, edit(kModel, "  count: 4", "  count: 4\n  first_index: 0")).empty());
    expect_one(load(kKv, edit(kKv, "kv_bytes_per_token: 8192", "kv_bytes_per_token: 0/4")), "schema-value", 8, 21,
               {"'kv_bytes_per_token' must be greater than zero"});
    expect_one(load(kKv, edit(kKv, "sources:\n  - name: a config", "sources: []")), "schema-value", 20, 10,
               {"'sources' must name at least one source"});
    expect_one(load(kKv, edit(kKv, "engine: vLLM", "engine: \"\"")), "schema-value", 4, 9,
               {"'engine' must not be empty"});
}

TEST(LoaderEnforcesSchema, TheFormsTheSchemaAcceptsLoadCleanly) {
    // A fraction, plain or quoted, and a whole number are all rationals; a decimal is a number.
    EXPECT_TRUE(load(kKv, edit(kKv, "  bytes_per_element: 1", "  bytes_per_element: 34/32")).empty());
    EXPECT_TRUE(load(kKv, edit(kKv, "  bytes_per_element: 1", "  bytes_per_element: \"34/32\"")).empty());
    EXPECT_TRUE(load(kKv, edit(kKv, "measured_tps_at_ctx: null", "measured_tps_at_ctx: 28.8")).empty());
    EXPECT_TRUE(load(kKv, kKv + "lint_ignore: []\n").empty());
    EXPECT_TRUE(load(kKv, kKv + "lint_ignore:\n  - rule: context-above-native\n    reason: tested\n").empty());
    EXPECT_TRUE(load(kModel, edit(kModel, "  count: 4", "  count: 4\n  indices: [0, 1, 2, 3]")).empty());
}

}  // namespace
}  // namespace kvcat
