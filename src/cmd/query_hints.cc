#include "cmd/query_hints.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "catalog/catalog.h"
#include "load/records.h"
#include "support/suggest.h"

namespace kvcat::cmd {

namespace {

/// The ids a record-id column may hold, as SQL, for did-you-mean; "" for other columns.
std::string known_ids_sql(std::string_view column, QueryTable table) {
    if (table == QueryTable::allocations && column == "id") return "SELECT id FROM allocations ORDER BY id";
    if (table == QueryTable::quality && column == "record_id")
        return "SELECT DISTINCT record_id FROM kv_efficiency ORDER BY 1";
    if (column == "model" || column == "measured_on_model") return "SELECT id FROM models ORDER BY id";
    if (column == "accelerator") return "SELECT id FROM accelerators ORDER BY id";
    if (column == "id") return "SELECT id FROM kv_rows UNION SELECT record_id FROM kv_rows ORDER BY 1";
    if (column == "record_id") return "SELECT DISTINCT record_id FROM kv_rows ORDER BY record_id";
    return "";
}

/// How many rows a comparison left out for having no value, and what a dtype family stood for.
void null_and_family_notes(const std::string& db, const QuerySpec& spec) {
    for (const auto& n : build_null_count_sql(spec)) {
        Table count = run_read_only(db, n.sql.sql, n.sql.parameters);
        auto* left_out = count.rows.empty() ? nullptr : std::get_if<std::int64_t>(&count.rows[0][0]);
        if (left_out && *left_out > 0) {
            spdlog::info("{} row{} with no {} left out by '{}' (see them with {}=null)", *left_out,
                         *left_out == 1 ? "" : "s", n.filter->column, n.filter->text, n.filter->column);
        }
    }
    for (const auto& n : build_family_count_sql(spec)) {
        // A family is its members: say what each gave, the ones that gave none too.
        Table counts = run_read_only(db, n.sql.sql, n.sql.parameters);
        std::vector<std::string> parts;
        for (const auto& member : n.filter->values) {
            const auto* name = std::get_if<std::string>(&member);
            if (!name) continue;
            std::int64_t rows = 0;
            for (const auto& row : counts.rows) {
                const auto* got = std::get_if<std::string>(&row[0]);
                const auto* count = std::get_if<std::int64_t>(&row[1]);
                if (got && count && *got == *name) rows = *count;
            }
            parts.push_back(fmt::format("{} {} row{}", *name, rows, rows == 1 ? "" : "s"));
        }
        spdlog::info("'{}' is the family {}: {}", n.filter->text, fmt::join(n.filter->families, ", "),
                     fmt::join(parts, ", "));
    }
}

/// The rows `f` keeps on its own.
std::int64_t rows_matching_alone(const std::string& db, const QuerySpec& spec, const Filter& f) {
    QuerySpec one;
    one.table = spec.table;
    one.filters = {f};
    BoundSql b = build_query_sql(one);
    Table count = run_read_only(db, "SELECT count(*) FROM (" + b.sql + ")", b.parameters);
    const auto* n = count.rows.empty() ? nullptr : std::get_if<std::int64_t>(&count.rows[0][0]);
    return n ? *n : 0;
}

/// What a table's rows are called in a sentence.
std::string_view rows_name(QueryTable table) {
    switch (table) {
        case QueryTable::allocations:
            return "allocation record";
        case QueryTable::quality:
            return "quality result";
        case QueryTable::kv_rows:
            break;
    }
    return "kv-efficiency row";
}

/// For a record-id column that matched nothing: the id that was probably meant, or, for an id
/// that exists, that no row names it and what answers for it instead. False for other columns.
bool id_notes(const std::string& db, const QuerySpec& spec, const Filter& f) {
    std::string sql = known_ids_sql(f.column, spec.table);
    if (sql.empty() || f.op != "=") return false;
    Table ids = run_read_only(db, sql, {});
    std::vector<std::string> known;
    for (const auto& row : ids.rows) {
        if (const auto* id = std::get_if<std::string>(&row[0])) known.push_back(*id);
    }
    std::vector<std::string_view> candidates(known.begin(), known.end());
    // Suggestions leave out the folder when the filter did.
    std::string_view folder = f.text.find('/') == std::string::npos ? id_column_folder(f.column, spec.table) : "";
    auto as_filter = [&](std::string_view id) {
        if (!folder.empty() && id.starts_with(folder)) id.remove_prefix(folder.size());
        return fmt::format("{}={}", f.column, id);
    };
    for (const auto& v : f.values) {
        const auto* wanted = std::get_if<std::string>(&v);
        if (!wanted) continue;
        if (std::find(known.begin(), known.end(), *wanted) != known.end()) {
            std::string_view short_id = id_name(*wanted);
            std::string instead;
            if (f.column == "model" || f.column == "measured_on_model") {
                instead = fmt::format("; `kvcat fit --model {}` and `kvcat curve --model {}` work from its figures",
                                      short_id, short_id);
            } else if (f.column == "accelerator") {
                instead = fmt::format("; `kvcat fit --accelerator {}` works from its figures", short_id);
            }
            spdlog::info("{} is in the catalog, but no {} names it as its {}{}", *wanted, rows_name(spec.table),
                         f.column, instead);
            continue;
        }
        // The ids that start with what was written come first: it is an id cut short.
        std::vector<std::string> offered;
        for (auto id : starting_with(*wanted, candidates)) offered.push_back(as_filter(id));
        std::string glob;
        // A glob matches the whole id, folder and all.
        if (offered.size() > 1) glob = fmt::format("; '{}~{}*' finds them all", f.column, *wanted);
        if (offered.empty()) {
            for (auto near : closest_ids(*wanted, candidates)) offered.push_back(as_filter(near));
        }
        std::vector<std::string_view> words(offered.begin(), offered.end());
        spdlog::info("no record has the id '{}'{}", *wanted,
                     offered.empty() ? std::string("; `kvcat query --distinct ") + f.column + "` lists those in use"
                                     : fmt::format(" (did you mean {}?{})", one_of(words, 4, ""), glob));
    }
    return true;
}

/// For a text column whose `=` value no row holds: the values it does hold, nearest first.
void value_notes(const std::string& db, const QuerySpec& spec, const Filter& f) {
    QuerySpec every;
    every.table = spec.table;
    Table values = run_read_only(db, build_distinct_sql(every, f.column).sql, {});
    std::vector<std::string> held;
    for (const auto& row : values.rows) {
        if (const auto* v = std::get_if<std::string>(&row[0])) held.push_back(*v);
    }
    const auto* wanted = f.op == "=" ? std::get_if<std::string>(&f.value) : nullptr;
    if (!wanted || held.empty()) {
        spdlog::info("'{}' matches no row on its own; `kvcat query --distinct {}` lists the values in use", f.text,
                     f.column);
        return;
    }
    std::vector<std::string_view> near;
    for (const auto& v : held) {
        if (letters_and_digits(v) == letters_and_digits(*wanted)) near.push_back(v);
    }
    std::vector<std::string_view> candidates(held.begin(), held.end());
    if (near.empty()) near = closest_ids(*wanted, candidates);
    std::vector<std::string> offered;
    for (auto v : near) offered.push_back(fmt::format("{}={}", f.column, v));
    std::vector<std::string_view> words(offered.begin(), offered.end());
    std::string listed =
        held.size() <= 8
            ? fmt::format("{}", fmt::join(held, ", "))
            : fmt::format("{} and {} more", fmt::join(held.begin(), held.begin() + 8, ", "), held.size() - 8);
    spdlog::info("no {} has {}={}{}; {} holds {}", rows_name(spec.table), f.column, *wanted,
                 words.empty() ? std::string() : fmt::format(" (did you mean {}?)", one_of(words, 4, "")), f.column,
                 listed);
}

}  // namespace

void explain_what_was_left_out(const std::string& db, const QuerySpec& spec, bool no_rows) {
    null_and_family_notes(db, spec);
    if (!no_rows) return;
    if (spec.filters.empty()) {
        spdlog::info("the catalog holds no {}", rows_name(spec.table));
        return;
    }
    std::vector<std::string> alone;
    bool each_matches = true;
    for (const auto& f : spec.filters) {
        std::int64_t n = rows_matching_alone(db, spec, f);
        alone.push_back(fmt::format("'{}' {}", f.text, n));
        if (n > 0) continue;
        each_matches = false;
        if (!id_notes(db, spec, f)) value_notes(db, spec, f);
    }
    if (each_matches && spec.filters.size() > 1) {
        spdlog::info("each filter keeps rows on its own, but no row passes them all (rows kept alone: {})",
                     fmt::join(alone, ", "));
    }
}

}  // namespace kvcat::cmd
