// The shape of each record kind, as one table per kind.
//
// The loader validates every record against these tables (required keys, types,
// enums, unknown keys with a did-you-mean), and a test checks that the JSON Schemas
// in schema/ say the same thing, so the editor's view of a record and the lint's
// cannot drift apart.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "load/yaml_loader.h"
#include "support/diagnostic.h"

namespace kvcat {

enum class RecordKind { model, accelerator, kv_efficiency, allocation };

/// Every kind, in the order messages list them: the one list a records walk, a path's kind and
/// the records root's search read.
std::span<const RecordKind> record_kinds();
std::string_view kind_folder(RecordKind kind);  ///< "models", "accelerators", "kv-efficiency", "allocations"
/// "models/, accelerators/, kv-efficiency/ or allocations/": where records live, for messages.
std::string kind_folders_text();
std::string_view kind_name(RecordKind kind);  ///< "model", "accelerator", "kv-efficiency"
/// "a model", "an accelerator": for "..., a model record" in messages.
std::string with_article(std::string_view noun);

enum class FieldType {
    string,
    integer,   ///< a plain whole number, no quotes
    number,    ///< a plain decimal number
    rational,  ///< a whole number or an exact fraction such as 34/32
    boolean,
    enumeration,
    reference,  ///< an id of another record, e.g. models/qwen3.5-27b
    mapping,
    string_list,
    integer_list,
    source_list,
    ignore_list,
    group_list,    ///< a list of {layers, kv_heads, head_dim}
    point_list,    ///< a list of measured points
    quality_list,  ///< a list of quality results
};

struct FieldSpec {
    std::string_view name;
    FieldType type;
    bool required = false;
    bool nullable = false;
    std::string_view description;                    ///< with the unit, for the JSON Schema and the README
    std::span<const std::string_view> allowed = {};  ///< for enumeration
    std::span<const FieldSpec> children = {};        ///< for mapping and the list kinds of mappings
    bool positive = false;                           ///< integers and numbers that must be greater than zero
};

std::span<const FieldSpec> record_fields(RecordKind kind);
std::span<const FieldSpec> source_fields();
std::span<const FieldSpec> ignore_fields();
std::span<const FieldSpec> kv_group_fields();
std::span<const FieldSpec> point_fields();
std::span<const FieldSpec> quality_fields();

/// The allowed values of attention_variant, provenance and the other enumerations.
std::span<const std::string_view> attention_variants();
std::span<const std::string_view> provenance_values();
std::span<const std::string_view> cache_dtype_names();

/// "a whole number", "a string", ...: how a type is named in messages.
std::string_view describe_type(FieldType type);

/// Checks one mapping against its fields; `context` names it in messages ("kv-efficiency",
/// "kv_bytes_basis"). Reports missing, unknown, mistyped and out-of-range values.
void validate_fields(const YamlNode& mapping, std::span<const FieldSpec> fields, const std::string& context,
                     const SourceText& source, std::vector<Diagnostic>& out);

/// Value accessors for fields that passed validation; they return nullopt otherwise.
std::optional<std::int64_t> as_integer(const YamlNode* node);
std::optional<double> as_number(const YamlNode* node);
std::optional<std::string> as_string(const YamlNode* node);

}  // namespace kvcat
