#include "engines/allocation_fields.h"

#include <algorithm>

#include <fmt/format.h>

#include "load/schema.h"

namespace kvcat::allocation_fields {

const YamlNode* at(const Record& r, const std::string& key) {
    const YamlNode* n = r.node(key);
    return n && n->is_scalar() && n->value != "null" ? n : nullptr;
}

std::optional<std::int64_t> integer(const Record& r, const std::string& key) {
    return as_integer(r.node(key));
}

std::string text(const Record& r, const std::string& key) {
    const YamlNode* n = at(r, key);
    return n ? n->value : "";
}

/// Printed and computed decimals are the same number ("8192.00" and "8192.0" alike).
bool same_decimal(const std::string& printed, const std::string& computed) {
    auto a = Rational::parse(printed), b = Rational::parse(computed);
    return a && b && *a == *b;
}

std::string two(double x) {
    return fmt::format("{:.2f}", x);
}

std::string plural(std::int64_t n, std::string_view word) {
    return fmt::format("{} {}{}", group_thousands(n), word, n == 1 ? "" : "s");
}

std::string bytes_words(const Rational& r) {
    return r.is_integer() ? group_thousands(r.num()) : r.to_display();
}

/// The part's values as the record gives them: the printed figures (`figures`) apart from the
/// settings read beside them.
void read_part(const Record& r, const std::string& key, std::initializer_list<std::string_view> figures,
               AllocationPartCheck& part) {
    part.key = key;
    const YamlNode* n = r.node(key);
    if (!n || !n->is_mapping()) return;
    for (const auto& [name, value] : n->entries) {
        if (!value.is_scalar() || name.value == "log_line") continue;
        bool printed = std::find(figures.begin(), figures.end(), name.value) != figures.end();
        (printed ? part.printed : part.settings).emplace_back(name.value, value.value);
    }
}

/// A decimal figure the record says the engine printed at `key`, judged against `computed`
/// at the digits the engine prints. Nothing when the record holds no such figure.
void decimal_figure(const Record& r, const std::string& key, std::string computed, std::string unit, std::string why,
                    AllocationPartCheck& part) {
    std::string printed = text(r, key);
    if (printed.empty()) return;
    AllocationFigure f;
    f.key = key;
    f.printed = printed;
    f.computed = std::move(computed);
    f.unit = std::move(unit);
    f.why = std::move(why);
    f.holds = same_decimal(printed, f.computed);
    part.figures.push_back(std::move(f));
}

std::optional<CacheDtype> torch_cache_dtype(const std::string& kv, const std::string& model_dtype) {
    std::string name = kv.empty() || kv == "auto" ? (model_dtype.empty() ? "bfloat16" : model_dtype) : kv;
    if (name == "bfloat16") name = "bf16";
    if (name == "float16" || name == "half") name = "f16";
    if (name == "float32") name = "f32";
    if (name == "float8_e4m3fn") name = "fp8_e4m3";  // torch's names, as SGLang prints them
    if (name == "float8_e5m2") name = "fp8_e5m2";
    return find_cache_dtype(name);
}

}  // namespace kvcat::allocation_fields
