#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "catalog/catalog.h"
#include "catalog/filter.h"
#include "cmd/catalog_access.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/write_file.h"
#include "load/record_set.h"
#include "load/records_walk.h"
#include "output/record_link.h"
#include "output/report.h"
#include "output/report_page.h"

namespace kvcat::cmd {

namespace {

namespace fs = std::filesystem;

struct ReportOptions {
    std::string out = "kvcat-report.html";
    Common common;
    std::string title = "kvcat report";
    std::string link_base;
    std::vector<std::string> filters;
    bool no_formula_guard = false;
};

/// Every column of kv_rows that this kvcat can name in a filter, in the catalog's order: a
/// newer catalog's extra columns are read when the column table knows them.
std::vector<std::string> row_columns(const std::string& db) {
    std::vector<std::string> out;
    for (const auto& name : run_read_only(db, "SELECT * FROM kv_rows LIMIT 0").columns) {
        if (find_column(name)) out.push_back(name);
    }
    return out;
}

std::map<std::string, std::vector<std::string>> sources_by_record(const std::string& db) {
    std::map<std::string, std::vector<std::string>> out;
    Table t = run_read_only(db, "SELECT record_id, name FROM sources ORDER BY record_id, position");
    for (const auto& row : t.rows) {
        out[std::get<std::string>(row[0])].push_back(std::get<std::string>(row[1]));
    }
    return out;
}

/// Each record's first source's address, where it gives one: the planner links its points there.
std::map<std::string, std::string> source_urls_by_record(const std::string& db) {
    std::map<std::string, std::string> out;
    Table t = run_read_only(db, "SELECT record_id, url FROM sources WHERE position = 0 AND url IS NOT NULL");
    for (const auto& row : t.rows) out[std::get<std::string>(row[0])] = std::get<std::string>(row[1]);
    return out;
}

/// The catalog's quality results: the quality_rows view (each result beside its model and
/// dtype) when the catalog has it, else a quality table, else none.
std::optional<Table> quality_table(const std::string& db) {
    for (const char* name : {"quality_rows", "quality"}) {
        Table has =
            run_read_only(db, "SELECT count(*) FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ?1",
                          {Cell{std::string(name)}});
        if (std::get<std::int64_t>(has.rows.at(0).at(0)) != 0)
            return run_read_only(db, fmt::format("SELECT * FROM {}", name));
    }
    return std::nullopt;
}

/// The model and accelerator records the charts are computed from, and the kv-efficiency records
/// the planner's predicted speeds stand on (all of them, whatever the filters keep). The catalog
/// was built from these folders, so they lint clean; the table's rows come from the catalog.
RecordSet reference_records(const std::string& records) {
    fs::path root = records_root_for(records);
    std::string root_shown = root.lexically_normal().generic_string();
    std::vector<Record> out;
    for (const char* folder : {"models", "accelerators", "kv-efficiency"}) {
        std::error_code ec;
        if (!fs::is_directory(root / folder, ec)) continue;
        for (const auto& file : record_files(root / folder)) {
            std::vector<Diagnostic> findings;  // none: the catalog's build linted these files
            out.push_back(load_record(file, file, path_under_root(file, root_shown), findings));
        }
    }
    return RecordSet(std::move(out));
}

/// Links from the page to the record files: under --link-base when given (a repository's
/// web view), else relative to where the page is written, so they work from a disk. A file
/// name is percent-encoded and a link that is not safe (record_link.h) is left out.
std::function<std::string(const std::string&)> record_links(const ReportOptions& o) {
    auto checked = [](std::string link) { return is_safe_link(link) ? link : std::string(); };
    if (!o.link_base.empty()) {
        std::string base = o.link_base;
        if (!base.ends_with('/')) base += '/';
        return [base, checked](const std::string& file) {
            return checked(base + percent_encode_path(fs::path(file).lexically_normal().generic_string()));
        };
    }
    // Both ends as the file system resolves them (.. and symbolic links): `--out ../page.html`
    // has the parent folder for its own, and a relative path from "sub/.." would lead nowhere.
    auto resolved = [](const fs::path& p) {
        std::error_code ec;
        fs::path r = fs::weakly_canonical(fs::absolute(p), ec);
        return ec ? fs::absolute(p).lexically_normal() : r;
    };
    fs::path page_dir = o.out == "-" ? resolved(fs::current_path()) : resolved(o.out).parent_path();
    return [page_dir, checked, resolved](const std::string& file) {
        return checked(percent_encode_path(resolved(file).lexically_relative(page_dir).generic_string()));
    };
}

int run_report(const ReportOptions& o) {
    if (!o.link_base.empty() && !is_safe_link(o.link_base)) {
        spdlog::error("--link-base {}: a link base is an http: or https: address or a relative path",
                      nlohmann::json(o.link_base).dump());
        return ExitCode::failure;
    }
    QuerySpec spec;
    for (const auto& f : o.filters) spec.filters.push_back(parse_filter(f));
    if (int code = ensure_fresh_catalog(o.common.db, o.common.records); code != ExitCode::ok) return code;
    spec.columns = row_columns(o.common.db);
    BoundSql bound = build_query_sql(spec);
    RecordSet references = reference_records(o.common.records);
    ReportInput input;
    input.rows = run_read_only(o.common.db, bound.sql, bound.parameters);
    input.filtered = !spec.filters.empty();
    input.sources = sources_by_record(o.common.db);
    input.source_urls = source_urls_by_record(o.common.db);
    input.quality = quality_table(o.common.db);
    input.records = &references;
    input.link = record_links(o);
    input.title = o.title;
    input.generated_by = fmt::format("kvcat {}", KVCAT_VERSION);
    nlohmann::json content = report_content(input);
    content["formula_guard"] = !o.no_formula_guard;  // the page's CSV downloads (report_page.js)
    for (const auto& note : content["notes"]) spdlog::info("{}", note.get<std::string>());
    std::string page = report_html(content);
    if (o.out == "-") {
        std::cout << page;
        return ExitCode::ok;
    }
    // A site folder is made as needed: `--out site/index.html` in a fresh checkout.
    std::error_code ec;
    if (fs::path parent = fs::path(o.out).parent_path(); !parent.empty()) fs::create_directories(parent, ec);
    if (!write_whole_file(o.out, page, true)) return ExitCode::failure;
    spdlog::info("wrote {} ({} KiB)", o.out, page.size() / 1024);
    return ExitCode::ok;
}

}  // namespace

void setup_report(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<ReportOptions>();
    CLI::App* sub = app.add_subcommand("report", "One HTML page of charts and the rows, that opens offline");
    sub->add_option("--out", o->out, "The page to write (- for stdout); replaced when it exists")
        ->capture_default_str();
    add_db_option(*sub, o->common, DbUse::read);
    add_records_option(*sub, o->common, RecordsUse::rebuild);
    sub->add_option("--title", o->title, "The page's title")->capture_default_str();
    sub->add_option("--link-base", o->link_base,
                    "Link each row to BASE/<its record file> (a repository's web view) instead of "
                    "the file on disk");
    sub->add_flag("--no-formula-guard", o->no_formula_guard,
                  "The page's CSV downloads: write a text that begins with = + - @ (or a tab or CR) as stored, "
                  "without the ' that keeps a spreadsheet from running it as a formula");
    sub->add_option("filters", o->filters,
                    "column OP value, as for query: only these rows, their models and accelerators");
    sub->footer(
        "The page holds its data, Vega, Vega-Lite and vega-embed: it requests nothing.\n"
        "Examples:\n"
        "  kvcat report --out report.html\n"
        "  kvcat report --out qwen.html 'model~models/qwen*'\n"
        "  kvcat report --out site/index.html --link-base https://github.com/OWNER/REPO/blob/main");
    set_command_body(*sub, exit_code, [o] { return run_report(*o); });
}

}  // namespace kvcat::cmd
