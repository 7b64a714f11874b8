// The findings of reading a record file: its bytes, its YAML, its place under the records root
// and its schema. Each rule's message is built by one named factory, so its wording is tested
// once; every one of these rules is an error (a file that cannot be read as a record is not one).
// The loader rules are listed here, with what each checks; the lint's registry
// (src/check/rules/loader_rules.cc) declares them from this list.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "support/diagnostic.h"

namespace kvcat {

/// A rule the loader judges: its id and one line of what it checks (`code` in backticks where
/// the README shows it).
struct LoaderRule {
    std::string_view id;
    std::string_view summary;
};

/// Every loader rule, in a stable order.
std::span<const LoaderRule> loader_rules();

namespace diag {

Diagnostic file_unreadable(const std::string& file, const std::string& why);
Diagnostic file_too_large(const std::string& file, std::size_t size, std::size_t limit);
Diagnostic file_outside_root(const std::string& file, const std::string& resolves_to, const std::string& root);
/// file-outside-root for a link to a folder: nothing under it is read.
Diagnostic folder_outside_root(const std::string& link, const std::string& resolves_to, const std::string& root);
Diagnostic file_empty(const std::string& file);
Diagnostic encoding(const Position& pos, const std::string& what);
Diagnostic yaml_syntax(const Position& pos, const std::string& what);
Diagnostic duplicate_key(const Position& pos, const std::string& key, int first_line);
Diagnostic alias(const Position& pos);
Diagnostic too_deep(const Position& pos, int limit);
Diagnostic multiple_documents(const Position& pos);
Diagnostic not_a_mapping(const Position& pos, const std::string& what);
Diagnostic missing_key(const Position& pos, const std::string& key, const std::string& expected,
                       bool nullable_required);
Diagnostic wrong_type(const Position& pos, const std::string& key, const std::string& expected,
                      const std::string& found);
Diagnostic unknown_key(const Position& pos, const std::string& key, const std::string& suggestion,
                       const std::string& kind);
Diagnostic bad_enum(const Position& pos, const std::string& key, const std::string& value, const std::string& allowed,
                    const std::string& suggestion);
Diagnostic bad_value(const Position& pos, const std::string& key, const std::string& what);
/// record-kind: `folders` lists where records live ("models/, ... or allocations/").
Diagnostic unknown_kind(const std::string& file, const std::string& folder, const std::string& folders);
Diagnostic overflow(const Position& pos, const std::string& what);

}  // namespace diag

}  // namespace kvcat
