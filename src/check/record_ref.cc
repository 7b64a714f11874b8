#include "check/record_ref.h"

#include <fmt/format.h>

#include "load/records.h"
#include "support/suggest.h"

namespace kvcat {

namespace {

/// True when `text` starts with `prefix` and the prefix ends where a word of it does
/// ("vllm-qwen35" of "vllm-qwen35-35b-..."), so that "llama-3.1-8" is not taken for
/// "llama-3.1-8b" but is a mistyped id.
bool starts_with_words(std::string_view text, std::string_view prefix) {
    if (prefix.empty() || !text.starts_with(prefix)) return false;
    auto boundary = [](char c) { return c == '-' || c == '.' || c == '_' || c == '/'; };
    return text.size() == prefix.size() || boundary(prefix.back()) || boundary(text[prefix.size()]);
}

}  // namespace

RecordRef resolve_record(const RecordSet& set, std::string_view given, std::optional<RecordKind> kind) {
    // "vllm-qwen35-..." as the id is shown elided: the start is what is meant.
    for (std::string_view elided : {"\u2026", "..."}) {
        if (given.size() > elided.size() && given.ends_with(elided)) given.remove_suffix(elided.size());
    }
    auto wanted = [&](const Record& r) { return !r.id.empty() && (!kind || r.kind == *kind); };
    // Whole id first, then the name without its folder, then a unique prefix of a name.
    std::vector<const Record*> by_name, by_prefix;
    for (const auto& r : set.records()) {
        if (!wanted(r)) continue;
        if (r.id == given) return {&r, ""};
        std::string_view name = id_name(r.id);
        if (name == given)
            by_name.push_back(&r);
        else if (starts_with_words(name, given) || starts_with_words(r.id, given))
            by_prefix.push_back(&r);
    }
    if (by_name.size() == 1) return {by_name.front(), ""};
    const auto& several = by_name.empty() ? by_prefix : by_name;
    if (several.size() == 1) return {several.front(), ""};
    std::string what = kind ? fmt::format("{} record", kind_name(*kind)) : std::string("record");
    if (several.size() > 1) {
        std::string list;
        for (std::size_t i = 0; i < several.size() && i < 8; ++i) {
            if (i) list += ", ";
            list += several[i]->id;
        }
        if (several.size() > 8) list += fmt::format(" and {} more", several.size() - 8);
        return {nullptr, fmt::format("'{}' could be any of {} {}s: {}", given, several.size(), what, list)};
    }
    std::vector<std::string_view> ids, names;
    for (const auto& r : set.records()) {
        if (!wanted(r)) continue;
        ids.push_back(r.id);
        names.push_back(id_name(r.id));
    }
    // A start cut inside a word ("vllm-qwen35-35" of "vllm-qwen35-35b-..."): not taken as the
    // record, which a word just begun could name by chance, but offered.
    std::vector<std::string_view> cut_short;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (!given.empty() && (ids[i].starts_with(given) || names[i].starts_with(given))) cut_short.push_back(ids[i]);
    }
    if (!cut_short.empty()) {
        return {nullptr, fmt::format("no {} '{}'; did you mean {}?", what, given, one_of(cut_short))};
    }
    // By tokens first (llama-3-70b: llama-3.1-70b and llama-3.3-70b; h100: both H100 cards).
    bool bare = given.find('/') == std::string_view::npos;
    std::vector<std::string_view> near = closest_ids(given, bare ? names : ids);
    if (bare) {
        for (auto& n : near) {
            for (std::size_t i = 0; i < names.size(); ++i) {
                if (names[i].data() == n.data()) n = ids[i];
            }
        }
    }
    return {nullptr, fmt::format("no {} '{}'{}", what, given,
                                 near.empty() ? "" : fmt::format("; did you mean {}?", one_of(near)))};
}

std::set<std::string> files_named(const RecordSet& set, const std::vector<RecordName>& names) {
    std::set<std::string> files;
    for (const RecordName& name : names) {
        if (const Record* r = resolve_record(set, name.given, name.kind).record) files.insert(r->file);
    }
    return files;
}

}  // namespace kvcat
