#include "check/lint.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "check/findings.h"
#include "check/record_claims.h"
#include "check/rule_registry.h"
#include "check/rules/rules.h"
#include "load/data_dirs.h"
#include "load/load_findings.h"
#include "load/records_root.h"
#include "load/records_walk.h"
#include "support/suggest.h"

namespace kvcat {

namespace fs = std::filesystem;

std::string squeezed_claim(std::string_view text) {
    std::string out;
    for (char c : text) {
        bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
        if (space) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

std::optional<std::size_t> claim_acknowledgement(const std::vector<LintIgnore>& ignores, const Diagnostic& d) {
    if (!d.claim) return std::nullopt;
    std::string text = squeezed_claim(*d.claim);
    for (std::size_t k = 0; k < ignores.size(); ++k) {
        const LintIgnore& ig = ignores[k];
        if (ig.rule == d.rule && !ig.reason.empty() && !ig.claim.empty() && squeezed_claim(ig.claim) == text) return k;
    }
    return std::nullopt;
}

namespace {

/// The record rules' checks, in the registry's order, each once: one check may serve several
/// rules (tensors-mapping and total-params-tensors share the tensor inventory they judge).
const std::vector<RecordCheck>& record_checks() {
    static const std::vector<RecordCheck> checks = [] {
        std::vector<RecordCheck> out;
        for (const RuleInfo& rule : all_rules()) {
            if (rule.check && std::find(out.begin(), out.end(), rule.check) == out.end()) out.push_back(rule.check);
        }
        return out;
    }();
    return checks;
}

/// The index of the prose-arithmetic ignore naming the claim found at `pos`, if any. A claim
/// is named by its whole text as the record writes it (runs of white space aside): never by a
/// piece of it, or `claim: "="` would silence every claim of the record.
std::optional<std::size_t> claim_ignore(const Record& r, const std::vector<LocatedClaim>& claims, const Position& pos) {
    for (const auto& located : claims) {
        if (located.pos.line != pos.line || located.pos.column != pos.column) continue;
        std::string text = squeezed_claim(located.claim.text);
        for (std::size_t k = 0; k < r.kv->lint_ignore.size(); ++k) {
            const LintIgnore& ig = r.kv->lint_ignore[k];
            if (ig.rule != "prose-arithmetic" || ig.claim.empty() || ig.reason.empty()) continue;
            std::string named = squeezed_claim(ig.claim);
            if (!named.empty() && named == text) return k;
        }
    }
    return std::nullopt;
}

/// Moves the record's silenced findings from `findings` to `ignored` (warnings by rule, a
/// prose-arithmetic claim by its text), and reports ignores that are malformed or silence nothing.
void apply_ignores(const Record& r, std::vector<Diagnostic>& findings, std::vector<Diagnostic>& ignored) {
    if (!r.kv || r.kv->lint_ignore.empty()) return;
    std::set<std::string> used;
    std::set<std::size_t> used_claims;
    std::vector<LocatedClaim> claims;
    for (const auto& ig : r.kv->lint_ignore) {
        if (!ig.claim.empty() && claims.empty()) claims = record_claims(r);
    }
    std::vector<Diagnostic> kept;
    for (auto& d : findings) {
        bool silenced = false;
        if (d.claim && d.pos.file == r.file) {
            // A finding about one point is acknowledged by its claim, named whole, and nothing else.
            if (auto k = claim_acknowledgement(r.kv->lint_ignore, d)) {
                used_claims.insert(*k);
                Diagnostic note = d;
                note.severity = Severity::note;
                note.message += fmt::format(" (acknowledged: {})", r.kv->lint_ignore[*k].reason);
                ignored.push_back(std::move(note));
            } else {
                kept.push_back(std::move(d));
            }
            continue;
        }
        if (d.pos.file == r.file && d.rule == "prose-arithmetic" && !claims.empty()) {
            if (auto k = claim_ignore(r, claims, d.pos)) {
                used_claims.insert(*k);
                Diagnostic note = d;
                note.severity = Severity::note;
                note.message += fmt::format(" (ignored: {})", r.kv->lint_ignore[*k].reason);
                ignored.push_back(std::move(note));
                silenced = true;
            }
        }
        if (!silenced && d.pos.file == r.file && d.severity == Severity::warning) {
            for (const auto& ig : r.kv->lint_ignore) {
                if (ig.rule == d.rule && !ig.reason.empty()) {
                    used.insert(ig.rule);
                    Diagnostic note = d;
                    note.severity = Severity::note;
                    note.message += fmt::format(" (ignored: {})", ig.reason);
                    ignored.push_back(std::move(note));
                    silenced = true;
                    break;
                }
            }
        }
        if (!silenced) kept.push_back(std::move(d));
    }
    findings = std::move(kept);
    for (std::size_t k = 0; k < r.kv->lint_ignore.size(); ++k) {
        const LintIgnore& ig = r.kv->lint_ignore[k];
        Position pos = r.source ? r.source->position(ig.mark) : Position{r.file, 0, 0};
        const RuleInfo* claimed = find_rule_info(ig.rule);
        if (claimed && claimed->stage == RuleStage::run) continue;  // judged with the run's findings
        if (claimed && claimed->names_claims) {
            if (ig.claim.empty()) {
                findings.push_back(diag::ignore_problem(
                    pos, fmt::format("lint_ignore for '{}' names no claim; each of its findings is acknowledged by "
                                     "the claim it prints (claim: \"...\"), whole",
                                     ig.rule)));
            } else if (ig.reason.empty()) {
                findings.push_back(
                    diag::ignore_problem(pos, fmt::format("lint_ignore for '{}' gives no reason", ig.rule)));
            } else if (!used_claims.count(k)) {
                findings.push_back(diag::ignore_problem(
                    pos, fmt::format("lint_ignore for the {} claim \"{}\" acknowledges nothing: no finding of this "
                                     "record claims exactly that",
                                     ig.rule, squeezed_claim(ig.claim))));
            }
            continue;
        }
        if (!ig.claim.empty()) {
            if (ig.rule != "prose-arithmetic") {
                findings.push_back(diag::ignore_problem(
                    pos,
                    fmt::format("lint_ignore names a claim for '{}'; a claim can be named only for prose-arithmetic",
                                ig.rule)));
            } else if (ig.reason.empty()) {
                findings.push_back(
                    diag::ignore_problem(pos, "lint_ignore for a prose-arithmetic claim gives no reason"));
            } else if (!used_claims.count(k)) {
                findings.push_back(diag::ignore_problem(
                    pos, fmt::format("lint_ignore for the claim \"{}\" silences nothing: no wrong claim of this record "
                                     "reads exactly so (a claim is named whole)",
                                     squeezed_claim(ig.claim))));
            }
            continue;
        }
        auto info =
            std::find_if(all_rules().begin(), all_rules().end(), [&](const RuleInfo& ri) { return ri.id == ig.rule; });
        if (info == all_rules().end()) {
            std::vector<std::string_view> ids;
            for (const auto& ri : all_rules()) ids.push_back(ri.id);
            std::string hint = closest_match(ig.rule, ids);
            findings.push_back(
                diag::ignore_problem(pos, fmt::format("lint_ignore names rule '{}', which does not exist{}", ig.rule,
                                                      hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint))));
        } else if (info->severity == Severity::error) {
            findings.push_back(diag::ignore_problem(
                pos, fmt::format("lint_ignore names '{}', an error; only warnings can be silenced{}", ig.rule,
                                 ig.rule == "prose-arithmetic" ? " (a quoted claim can be, named with claim:)" : "")));
        } else if (ig.reason.empty()) {
            findings.push_back(diag::ignore_problem(pos, fmt::format("lint_ignore for '{}' gives no reason", ig.rule)));
        } else if (!used.count(ig.rule)) {
            findings.push_back(diag::ignore_problem(
                pos, fmt::format("lint_ignore for '{}' silences nothing: the rule no longer fires here", ig.rule)));
        }
    }
}

/// Moves the notes of what was not judged (not-judged) out of the findings, in their order.
void set_notes_apart(LintResult& result) {
    auto is_note = [](const Diagnostic& d) { return d.rule == "not-judged"; };
    for (const auto& d : result.diagnostics) {
        if (is_note(d)) result.notes.push_back(d);
    }
    std::erase_if(result.diagnostics, is_note);
}

/// Runs every record rule on one record; its findings (load findings included) go to `out`.
void check_record(const Record& r, const RecordSet& refs, std::vector<Diagnostic> findings,
                  std::vector<Diagnostic>& out, std::vector<Diagnostic>& ignored) {
    for (RecordCheck check : record_checks()) {
        // One record's bad figure is that record's finding; it must never stop the run.
        try {
            check(r, refs, findings);
        } catch (const OverflowError&) {
            findings.push_back(diag::overflow(r.where("id"), "a figure this record leads to"));
        } catch (const std::exception& e) {
            findings.push_back(
                diag::yaml_syntax(r.where("id"), fmt::format("the record could not be checked: {}", e.what())));
        }
    }
    apply_ignores(r, findings, ignored);
    for (auto& d : findings) out.push_back(std::move(d));
}

rules::IdEntry id_entry(const Record& r) {
    return rules::IdEntry{r.id, r.where("id")};
}

/// Loads a record file, unless it resolves outside its root (`resolved`, when it may): then
/// the file is never opened, and the record is empty but for that finding.
Record load_inside_root(const std::string& file, const std::string& relative, const std::string* resolved,
                        std::vector<Diagnostic>& out) {
    if (resolved) {
        std::string real = file;
        if (auto where = outside_root(fs::path(file), *resolved, &real)) {
            LoadedYaml refused;
            refused.source = std::make_shared<SourceText>(file, std::string());
            refused.diagnostics.push_back(diag::file_outside_root(file, *where, *resolved));
            return make_record(std::move(refused), relative, out);
        }
        return load_record(real, file, relative, out);  // the checked target, not the link again
    }
    return load_record(file, file, relative, out);
}

}  // namespace

LintResult lint_records(std::vector<Record> records, std::vector<Diagnostic> load_findings) {
    LintResult result;
    result.records = RecordSet(std::move(records));
    std::vector<rules::IdEntry> ids;
    for (const auto& r : result.records.records()) {
        std::vector<Diagnostic> own;
        for (auto it = load_findings.begin(); it != load_findings.end();) {
            if (it->pos.file == r.file) {
                own.push_back(std::move(*it));
                it = load_findings.erase(it);
            } else {
                ++it;
            }
        }
        check_record(r, result.records, std::move(own), result.diagnostics, result.ignored);
        ids.push_back(id_entry(r));
    }
    for (auto& d : load_findings) result.diagnostics.push_back(std::move(d));
    rules::id_duplicate(ids, result.diagnostics);
    sort_diagnostics(result.diagnostics);
    sort_diagnostics(result.ignored);
    set_notes_apart(result);
    return result;
}

namespace {

/// What the paths a user named hold, before any record is read: the roots they lie under,
/// the files whose findings are reported, and what the walks of named folders found.
struct NamedPaths {
    std::set<fs::path> roots;
    /// Shown paths whose findings are reported: gathered, then sorted once (a hundred
    /// thousand paths sharing their first thirty bytes cost more to keep in a tree than to sort).
    std::vector<std::string> reported;
    std::set<std::string> problems;         ///< entries already reported as unwalkable: never loaded
    std::map<fs::path, RecordTree> walked;  ///< a named folder that is its own root, walked once
    std::vector<std::string> skipped;
    std::vector<std::string> linked_folders;
    std::vector<Diagnostic> findings;

    bool is_reported(const std::string& file) const {
        return std::binary_search(reported.begin(), reported.end(), file);
    }
};

/// Walks each named folder (or takes the walk the caller made of it) and notes each named file.
NamedPaths gather_named(const std::vector<fs::path>& paths, const LintOptions& options) {
    NamedPaths named;
    for (const auto& p : paths) {
        std::error_code ec;
        auto status = fs::symlink_status(p, ec);
        if (ec || !fs::exists(status)) {
            // The default folder missing: kvcat run outside a checkout.
            throw std::runtime_error(p == "records" ? no_records_advice("records")
                                                    : fmt::format("{}: no such file or directory", p.string()));
        }
        fs::path root = records_root_for(p);
        named.roots.insert(root.lexically_normal());
        if (!fs::is_directory(p, ec)) {
            named.reported.push_back(shown_path(p));
            continue;
        }
        const std::string resolved = resolved_root(root);
        if (auto where = folder_outside(p, resolved)) {
            // A folder named through a link out of the root: nothing under it is read.
            Diagnostic d = diag::folder_outside_root(shown_path(p), *where, resolved);
            named.reported.push_back(d.pos.file);
            named.problems.insert(d.pos.file);
            named.findings.push_back(std::move(d));
            continue;
        }
        RecordTree found;
        if (options.walked && paths.size() == 1 && options.walked->shown == shown_path(p)) {
            found = std::move(*options.walked);
            *options.walked = RecordTree{};
        } else {
            walk_folder(p, resolved, found);
        }
        named.reported.insert(named.reported.end(), found.yaml.begin(), found.yaml.end());
        for (auto& s : found.skipped) named.skipped.push_back(std::move(s));
        for (auto& s : found.linked_folders) named.linked_folders.push_back(std::move(s));
        for (const auto& d : found.problems) {
            named.reported.push_back(d.pos.file);
            named.problems.insert(d.pos.file);
            named.findings.push_back(d);
        }
        // The root's own walk (plan_jobs) would find the same: keep this one for it.
        if (p.lexically_normal() == root.lexically_normal() && shown_path(p) == shown_path(root)) {
            named.walked.emplace(root.lexically_normal(), std::move(found));
        }
    }
    if (!std::is_sorted(named.reported.begin(), named.reported.end())) {
        std::sort(named.reported.begin(), named.reported.end());
    }
    named.reported.erase(std::unique(named.reported.begin(), named.reported.end()), named.reported.end());
    return named;
}

/// One record file to read. A job is two words and the file's name: at a hundred thousand
/// rows, what is kept per file is what the memory is.
struct Job {
    std::string file;
    const std::string* root;                ///< its root as shown, in Jobs::root_names
    const std::string* resolved = nullptr;  ///< its root resolved, when the file may lead outside it
    std::string relative() const { return path_under_root(file, *root); }
};

/// Every record file of every root, split into references (models, accelerators, and
/// anything outside the kinds) and rows, each file once.
struct Jobs {
    std::vector<Job> references;
    std::vector<Job> rows;
    // The jobs point into these; a vector keeps its elements where they are when it moves.
    std::vector<std::string> root_names;
    std::vector<std::string> root_resolved;
};

/// The jobs of one root: its walk, plus the named files under it the walk did not find.
void add_root_jobs(const fs::path& root, NamedPaths& named, Jobs& jobs) {
    const std::string& root_name = jobs.root_names.emplace_back(shown_path(root));
    const std::string& resolved = jobs.root_resolved.emplace_back(resolved_root(root));
    RecordTree found;
    if (auto done = named.walked.find(root); done != named.walked.end()) {
        found = std::move(done->second);  // its problems are in named.findings already
    } else {
        walk_folder(root, resolved, found);
    }
    for (auto& d : found.problems) {
        if (named.problems.insert(d.pos.file).second) named.findings.push_back(std::move(d));
    }
    // A named file outside a walkable tree is still loaded. Both lists are sorted: one
    // merge finds the reported files the walk did not.
    std::vector<std::string> extra;
    std::vector<std::string> unwalked;
    std::set_difference(named.reported.begin(), named.reported.end(), found.yaml.begin(), found.yaml.end(),
                        std::back_inserter(unwalked));
    for (auto& r : unwalked) {
        if (named.problems.count(r)) continue;
        if (records_root_for(fs::path(r)).lexically_normal() == root) extra.push_back(std::move(r));
    }
    // A link, or a file named outside the walk (through a linked folder, say), may lead
    // outside the root: those are resolved before anything is read. The walk enters no
    // linked folder, so a file it found through real folders can only leave by its own link.
    std::sort(extra.begin(), extra.end());
    auto may_leave = [&](const std::string& file) {
        return std::binary_search(found.links.begin(), found.links.end(), file) ||
               std::binary_search(extra.begin(), extra.end(), file);
    };
    for (const auto& f : extra) found.yaml.push_back(f);
    for (auto& file : found.yaml) {
        bool row = kind_from_path(path_under_root(file, root_name)) == RecordKind::kv_efficiency;
        const std::string* check = may_leave(file) ? &resolved : nullptr;
        (row ? jobs.rows : jobs.references).push_back(Job{std::move(file), &root_name, check});
    }
}

Jobs plan_jobs(NamedPaths& named) {
    Jobs jobs;
    jobs.root_names.reserve(named.roots.size());  // the jobs point into them
    jobs.root_resolved.reserve(named.roots.size());
    for (const auto& root : named.roots) add_root_jobs(root, named, jobs);
    // A file under two named roots is checked once.
    auto by_file = [](const Job& a, const Job& b) { return a.file < b.file; };
    for (auto* list : {&jobs.references, &jobs.rows}) {
        // One root's walk comes sorted already: then a check, not a sort, of a hundred thousand.
        if (!std::is_sorted(list->begin(), list->end(), by_file)) std::stable_sort(list->begin(), list->end(), by_file);
        list->erase(
            std::unique(list->begin(), list->end(), [](const Job& a, const Job& b) { return a.file == b.file; }),
            list->end());
        list->shrink_to_fit();
    }
    return jobs;
}

bool past_deadline(const LintOptions& options) {
    return options.deadline && std::chrono::steady_clock::now() > *options.deadline;
}

/// The workers a stage runs on: --threads, else every core, and never more than its files.
unsigned worker_count(const LintOptions& options, std::size_t files) {
    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, files)));
}

/// work(w) for each worker w below `threads`, on threads of their own (on this one for one worker).
template <class Work>
void run_workers(unsigned threads, const Work& work) {
    if (threads <= 1) {
        work(0);
        return;
    }
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& t : pool) t.join();
}

/// body(i) for every i below n, on `threads` workers taking the next index as they finish; what a
/// call throws stops the others at their next index and is thrown here once all have stopped.
template <class Body>
void for_each_index(std::size_t n, unsigned threads, const Body& body) {
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(threads);
    auto work = [&](unsigned worker) {
        try {
            for (std::size_t i = next++; i < n; i = next++) body(i);
        } catch (...) {
            errors[worker] = std::current_exception();
            next = n;
        }
    };
    run_workers(threads, work);
    for (auto& e : errors) {
        if (e) std::rethrow_exception(e);
    }
}

/// Stage 1: models, accelerators and the other records rows refer to, read and checked on every
/// core, kept for every row to refer to. Each file's findings keep their place in file order.
/// With options.judge_only, only the files it names are checked, and `judged` holds them.
std::unique_ptr<RecordSet> check_references(const std::vector<Job>& jobs, const LintOptions& options,
                                            LintResult& result, std::vector<rules::IdEntry>& ids,
                                            std::optional<std::set<std::string>>& judged) {
    const unsigned threads = worker_count(options, jobs.size());
    std::vector<Record> references(jobs.size());
    std::vector<std::vector<Diagnostic>> own(jobs.size());
    for_each_index(jobs.size(), threads, [&](std::size_t i) {
        if (past_deadline(options)) throw LintStopped();
        references[i] = load_inside_root(jobs[i].file, jobs[i].relative(), jobs[i].resolved, own[i]);
    });
    auto refs = std::make_unique<RecordSet>(std::move(references));
    if (options.judge_only) judged = options.judge_only(*refs);
    // Checked once every reference is read: a record's checks read the others through refs.
    std::vector<std::vector<Diagnostic>> findings(jobs.size());
    std::vector<std::vector<Diagnostic>> ignored(jobs.size());
    for_each_index(jobs.size(), threads, [&](std::size_t i) {
        const Record& r = refs->records()[i];
        if (!judged || judged->contains(r.file)) check_record(r, *refs, std::move(own[i]), findings[i], ignored[i]);
    });
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        std::move(findings[i].begin(), findings[i].end(), std::back_inserter(result.diagnostics));
        std::move(ignored[i].begin(), ignored[i].end(), std::back_inserter(result.ignored));
        ids.push_back(id_entry(refs->records()[i]));
    }
    if (options.sink) options.sink->begin(*refs);
    return refs;
}

/// What one worker of stage 2 found: nothing is shared between workers but the job counter,
/// the sink (which locks) and, when rows are kept, these lists until they are merged.
struct WorkerOutput {
    std::vector<Diagnostic> findings;
    std::vector<Diagnostic> ignored;
    std::vector<rules::IdEntry> ids;
    std::vector<Record> kept;
    std::vector<rules::RowSpeeds> speeds;  ///< for the run's checks across rows
    std::size_t read = 0;
    std::size_t unchanged = 0;
    std::exception_ptr error;
};

/// Stage 2: the rows, on every core (or as many as there are rows). Throws LintStopped when
/// the deadline passed, or what a worker threw.
std::vector<WorkerOutput> check_rows(const std::vector<Job>& jobs, const RecordSet& refs, const LintOptions& options) {
    const unsigned threads = worker_count(options, jobs.size());
    std::vector<WorkerOutput> outputs(threads);
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::atomic<bool> stopped{false};
    auto work = [&](unsigned worker) {
        WorkerOutput& o = outputs[worker];
        try {
            for (std::size_t i = next++; i < jobs.size(); i = next++) {
                if (past_deadline(options)) {
                    stopped = true;
                    next = jobs.size();  // the others stop at their next file
                    break;
                }
                const Job& job = jobs[i];
                const std::string& file = job.file;
                const UnchangedFile* before = options.unchanged ? options.unchanged(file) : nullptr;
                if (before) {
                    o.ids.push_back(rules::IdEntry{before->id, before->id_pos});
                    o.findings.insert(o.findings.end(), before->findings.begin(), before->findings.end());
                    o.ignored.insert(o.ignored.end(), before->ignored.begin(), before->ignored.end());
                    ++o.unchanged;
                } else {
                    std::vector<Diagnostic> own;
                    Record r = load_inside_root(file, job.relative(), job.resolved, own);
                    const bool judge = !options.judge_only;  // a row is never among the files it names
                    if (judge) check_record(r, refs, std::move(own), o.findings, o.ignored);
                    o.ids.push_back(id_entry(r));
                    if (options.sink) options.sink->row(r, refs);
                    if (judge && !options.unchanged && r.kv) o.speeds.push_back(rules::row_speeds(r, refs));
                    if (options.keep_rows) o.kept.push_back(std::move(r));
                    ++o.read;
                }
                std::size_t finished = ++done;
                if (worker == 0 && options.progress && finished % 256 == 0) {
                    options.progress(finished, jobs.size());
                }
            }
        } catch (...) {
            o.error = std::current_exception();
            next = jobs.size();  // stop the others early
        }
    };
    run_workers(threads, work);
    if (stopped) throw LintStopped();
    if (options.progress) options.progress(done.load(), jobs.size());
    for (auto& o : outputs) {
        if (o.error) std::rethrow_exception(o.error);
    }
    return outputs;
}

/// The workers' findings, ids and rows into `result`; the rows after the references, in file
/// order as a single-threaded run would give them.
void merge_rows(std::vector<WorkerOutput>& outputs, std::unique_ptr<RecordSet> refs, bool keep_rows, LintResult& result,
                std::vector<rules::IdEntry>& ids) {
    std::vector<Record> all;
    if (keep_rows) all = refs->release();
    const auto reference_count = static_cast<std::ptrdiff_t>(all.size());
    std::size_t id_count = ids.size();
    for (const auto& o : outputs) id_count += o.ids.size();
    ids.reserve(id_count);
    for (auto& o : outputs) {
        for (auto& d : o.findings) result.diagnostics.push_back(std::move(d));
        for (auto& d : o.ignored) result.ignored.push_back(std::move(d));
        for (auto& e : o.ids) ids.push_back(std::move(e));
        o.ids = {};
        for (auto& r : o.kept) all.push_back(std::move(r));
        result.rows_read += o.read;
        result.rows_unchanged += o.unchanged;
    }
    if (keep_rows) {
        std::stable_sort(all.begin() + reference_count, all.end(),
                         [](const Record& a, const Record& b) { return a.file < b.file; });
        result.records = RecordSet(std::move(all));
    } else {
        result.records = std::move(*refs);
    }
}

}  // namespace

LintOptions judging_none() {
    LintOptions options;
    options.judge_only = [](const RecordSet&) { return std::set<std::string>(); };
    return options;
}

LintResult lint_paths(const std::vector<fs::path>& paths, const LintOptions& options) {
    NamedPaths named = gather_named(paths, options);
    Jobs jobs = plan_jobs(named);

    LintResult result;
    std::vector<rules::IdEntry> ids;
    if (past_deadline(options)) throw LintStopped();
    std::optional<std::set<std::string>> judged;
    auto refs = check_references(jobs.references, options, result, ids, judged);
    auto outputs = check_rows(jobs.rows, *refs, options);
    jobs.rows = {};
    merge_rows(outputs, std::move(refs), options.keep_rows, result, ids);
    // Across rows: not when an incremental build has not read the unchanged rows again, nor
    // when no row is judged.
    if (!options.unchanged && !judged) {
        std::vector<rules::RowSpeeds> speeds;
        for (auto& o : outputs) {
            for (auto& row : o.speeds) speeds.push_back(std::move(row));
        }
        // File order, whatever worker read each: the findings are the same on every run.
        std::sort(speeds.begin(), speeds.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
        rules::decode_far_from_prediction(std::move(speeds), result.records, result.diagnostics, result.ignored);
    }

    for (auto& d : named.findings) result.diagnostics.push_back(std::move(d));
    rules::id_duplicate(ids, result.diagnostics);
    std::erase_if(result.diagnostics, [&](const Diagnostic& d) { return !named.is_reported(d.pos.file); });
    std::erase_if(result.ignored, [&](const Diagnostic& d) { return !named.is_reported(d.pos.file); });
    if (judged) {  // a file's duplicate id, or the walk's finding on it, is said only of a judged file
        auto unjudged = [&](const Diagnostic& d) { return !judged->contains(d.pos.file); };
        std::erase_if(result.diagnostics, unjudged);
        std::erase_if(result.ignored, unjudged);
    }
    sort_diagnostics(result.diagnostics);
    sort_diagnostics(result.ignored);
    set_notes_apart(result);
    result.skipped = std::move(named.skipped);
    auto& linked = named.linked_folders;
    std::sort(linked.begin(), linked.end());
    linked.erase(std::unique(linked.begin(), linked.end()), linked.end());
    result.linked_folders = std::move(linked);
    result.files = std::move(named.reported);
    return result;
}

}  // namespace kvcat
