#include "lint.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "rules/rules.h"

namespace kvcat {

namespace fs = std::filesystem;

RecordSet::RecordSet(std::vector<Record> records) : records_(std::move(records)) {
    for (std::size_t i = 0; i < records_.size(); ++i) {
        if (!records_[i].id.empty()) {
            by_id_.emplace(records_[i].id, i);  // the first record with an id keeps it
        }
    }
}

const Record* RecordSet::find(const std::string& id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &records_[it->second];
}

std::vector<std::string_view> RecordSet::ids_of(RecordKind kind) const {
    std::vector<std::string_view> out;
    for (const auto& r : records_) {
        if (r.kind == kind && !r.id.empty()) out.push_back(r.id);
    }
    return out;
}

std::vector<Rule> all_rule_functions() {
    return {
        rules::id_matches_path,
        rules::ids_are_unique,
        rules::model_layers_agree,
        rules::references_resolve,
        rules::dtype_bytes_agree,
        rules::basis_product_agrees,
        rules::basis_agrees_with_model,
        rules::variant_agrees_with_model,
        rules::context_within_native,
        rules::tps_within_roofline,
        rules::fits_in_memory,
        rules::prose_arithmetic_holds,
        rules::statement_matches_basis,
        rules::id_context_tag_agrees,
    };
}

fs::path records_root_for(const fs::path& path) {
    auto is_kind_folder = [](const fs::path& p) {
        auto name = p.filename().string();
        return name == "models" || name == "accelerators" || name == "kv-efficiency";
    };
    fs::path normal = path.lexically_normal();
    if (normal.filename().empty()) normal = normal.parent_path();  // "records/" -> "records"
    for (fs::path p = normal; !p.empty() && p != p.root_path(); p = p.parent_path()) {
        if (is_kind_folder(p)) {
            fs::path parent = p.parent_path();
            return parent.empty() ? fs::path(".") : parent;
        }
        if (p.parent_path() == p) break;
    }
    std::error_code ec;
    if (fs::is_directory(normal, ec)) return normal;
    fs::path parent = normal.parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

namespace {

struct FoundFiles {
    std::vector<fs::path> yaml;           ///< record files, sorted
    std::vector<std::string> skipped;     ///< other files
    std::vector<Diagnostic> problems;     ///< unwalkable entries
};

std::string shown(const fs::path& p) { return p.lexically_normal().generic_string(); }

void walk(const fs::path& dir, FoundFiles& found) {
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
        found.problems.push_back(diag::file_unreadable(shown(dir), ec.message()));
        return;
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) {
            found.problems.push_back(diag::file_unreadable(shown(it->path()), ec.message()));
            ec.clear();
            break;
        }
        const fs::path& p = it->path();
        std::error_code sec;
        bool yaml_name = p.extension() == ".yaml";
        if (it->is_directory(sec)) {
            if (yaml_name) {
                found.problems.push_back(
                    diag::file_unreadable(shown(p), "a directory named like a record; a record is a file"));
            }
            continue;
        }
        if (!yaml_name) {
            found.skipped.push_back(shown(p));
            continue;
        }
        if (!it->is_regular_file(sec)) {
            found.problems.push_back(diag::file_unreadable(
                shown(p), sec ? sec.message() : std::string("not a regular file (a dangling link?)")));
            continue;
        }
        found.yaml.push_back(p.lexically_normal());
    }
    std::sort(found.yaml.begin(), found.yaml.end());
}

void apply_ignores(LintResult& result) {
    // Map each file to the ignores its record declares.
    std::vector<Diagnostic> kept;
    std::vector<Diagnostic> extra;
    std::map<std::string, const Record*> by_file;
    for (const auto& r : result.records.records()) by_file[r.file] = &r;

    std::map<std::pair<std::string, std::string>, bool> used;
    for (auto& d : result.diagnostics) {
        auto it = by_file.find(d.pos.file);
        bool silenced = false;
        if (it != by_file.end() && it->second->kv && d.severity == Severity::warning) {
            for (const auto& ig : it->second->kv->lint_ignore) {
                if (ig.rule == d.rule && !ig.reason.empty()) {
                    used[{d.pos.file, ig.rule}] = true;
                    Diagnostic silenced_copy = d;
                    silenced_copy.severity = Severity::note;
                    silenced_copy.message += fmt::format(" (ignored: {})", ig.reason);
                    result.ignored.push_back(std::move(silenced_copy));
                    silenced = true;
                    break;
                }
            }
        }
        if (!silenced) kept.push_back(std::move(d));
    }
    for (const auto& r : result.records.records()) {
        if (!r.kv) continue;
        for (const auto& ig : r.kv->lint_ignore) {
            Position pos = r.source ? r.source->position(ig.mark) : Position{r.file, 0, 0};
            auto info = std::find_if(all_rules().begin(), all_rules().end(),
                                     [&](const RuleInfo& ri) { return ri.id == ig.rule; });
            if (info == all_rules().end()) {
                extra.push_back(diag::ignore_problem(pos, fmt::format("lint_ignore names rule '{}', which does not exist", ig.rule)));
            } else if (info->severity == Severity::error) {
                extra.push_back(diag::ignore_problem(
                    pos, fmt::format("lint_ignore names '{}', an error; only warnings can be silenced", ig.rule)));
            } else if (ig.reason.empty()) {
                extra.push_back(diag::ignore_problem(pos, fmt::format("lint_ignore for '{}' gives no reason", ig.rule)));
            } else if (!used.count({r.file, ig.rule})) {
                extra.push_back(diag::ignore_problem(
                    pos, fmt::format("lint_ignore for '{}' silences nothing: the rule no longer fires here", ig.rule)));
            }
        }
    }
    for (auto& d : extra) kept.push_back(std::move(d));
    result.diagnostics = std::move(kept);
}

}  // namespace

LintResult lint_records(std::vector<Record> records, std::vector<Diagnostic> load_findings) {
    LintResult result;
    result.records = RecordSet(std::move(records));
    result.diagnostics = std::move(load_findings);
    for (Rule rule : all_rule_functions()) {
        rule(result.records, result.diagnostics);
    }
    apply_ignores(result);
    sort_diagnostics(result.diagnostics);
    sort_diagnostics(result.ignored);
    return result;
}

LintResult lint_paths(const std::vector<fs::path>& paths) {
    std::set<fs::path> roots;
    std::set<std::string> reported;  // shown paths whose findings are reported
    std::set<std::string> problems;  // entries already reported as unwalkable: never loaded
    std::vector<std::string> skipped;
    std::vector<Diagnostic> findings;

    for (const auto& p : paths) {
        std::error_code ec;
        auto status = fs::symlink_status(p, ec);
        if (ec || !fs::exists(status)) {
            throw std::runtime_error(fmt::format("{}: no such file or directory", p.string()));
        }
        fs::path root = records_root_for(p);
        roots.insert(root.lexically_normal());
        if (fs::is_directory(p, ec)) {
            FoundFiles found;
            walk(p, found);
            for (const auto& f : found.yaml) reported.insert(shown(f));
            for (auto& s : found.skipped) skipped.push_back(std::move(s));
            for (auto& d : found.problems) {
                reported.insert(d.pos.file);
                problems.insert(d.pos.file);
                findings.push_back(std::move(d));
            }
        } else {
            reported.insert(shown(p));
        }
    }

    std::vector<Record> records;
    std::set<std::string> loaded;
    for (const auto& root : roots) {
        FoundFiles found;
        walk(root, found);
        for (auto& d : found.problems) {
            if (problems.insert(d.pos.file).second) {
                findings.push_back(std::move(d));
            }
        }
        // A named file outside a walkable tree is still loaded.
        for (const auto& r : reported) {
            fs::path rp(r);
            if (problems.count(r)) continue;
            if (records_root_for(rp).lexically_normal() == root &&
                std::find(found.yaml.begin(), found.yaml.end(), rp) == found.yaml.end()) {
                found.yaml.push_back(rp);
            }
        }
        for (const auto& file : found.yaml) {
            std::string file_shown = shown(file);
            if (!loaded.insert(file_shown).second) continue;
            std::string relative = file.lexically_relative(root).generic_string();
            records.push_back(load_record(file.string(), file_shown, relative, findings));
        }
    }

    LintResult result = lint_records(std::move(records), std::move(findings));
    std::erase_if(result.diagnostics, [&](const Diagnostic& d) { return !reported.count(d.pos.file); });
    std::erase_if(result.ignored, [&](const Diagnostic& d) { return !reported.count(d.pos.file); });
    result.skipped = std::move(skipped);
    result.files.assign(reported.begin(), reported.end());
    return result;
}

}  // namespace kvcat
