#include "catalog/build_plan.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>
#include "catalog/catalog.h"
#include "catalog/catalog_file.h"
#include "catalog/catalog_seal.h"
#include "load/records_root.h"
#include "support/bounded_read.h"
#include "support/content_hash.h"

namespace kvcat {

namespace fs = std::filesystem;

namespace {

std::optional<FileStamp> stat_stamp(const char* file) {
    struct stat st {};
    if (::stat(file, &st) != 0) return std::nullopt;
    return FileStamp{static_cast<std::int64_t>(st.st_size),
                     static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec};
}

}  // namespace

std::optional<FileStamp> stamp_of(const fs::path& file) {
    return stat_stamp(file.c_str());
}

std::vector<std::optional<FileStamp>> stamp_files(const std::vector<std::string>& files, unsigned threads) {
    std::vector<std::optional<FileStamp>> stamps(files.size());
    auto stamp_slice = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) stamps[i] = stat_stamp(files[i].c_str());
    };
    // A stat is a few microseconds, mostly the kernel's; a thread is worth it only past a
    // few thousand of them. Each thread takes a run of neighbouring files (one folder's,
    // mostly), and writes only its own slots.
    constexpr std::size_t kFilesPerThread = 4096;
    if (threads == 0) threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, files.size() / kFilesPerThread + 1));
    if (threads <= 1) {
        stamp_slice(0, files.size());
        return stamps;
    }
    std::vector<std::thread> pool;
    std::size_t per = (files.size() + threads - 1) / threads;
    for (unsigned t = 1; t < threads; ++t) {
        pool.emplace_back(stamp_slice, std::min(files.size(), t * per), std::min(files.size(), (t + 1) * per));
    }
    stamp_slice(0, std::min(files.size(), per));
    for (auto& t : pool) t.join();
    return stamps;
}

namespace {

/// The common case of an incremental build, answered without building any index: the
/// catalog's files, in path order, are exactly `files` (sorted the same way, bytewise) and
/// every one has the size and modification time recorded for it (`stamps`, in the same order).
bool every_stamp_matches(SQLite::Database& previous, const std::vector<std::string>& files,
                         const std::vector<std::optional<FileStamp>>& stamps) {
    SQLite::Statement q(previous, "SELECT path, size, mtime_ns FROM files ORDER BY path");
    std::size_t i = 0;
    while (q.executeStep()) {
        if (i == files.size()) return false;
        SQLite::Column path_column = q.getColumn(0);
        // A view of the column's bytes: no copy of a hundred thousand paths.
        std::string_view path(path_column.getText(), static_cast<std::size_t>(path_column.getBytes()));
        if (path != files[i]) return false;
        const auto& stamp = stamps[i];
        if (!stamp || stamp->size != q.getColumn(1).getInt64() || stamp->mtime_ns != q.getColumn(2).getInt64()) {
            return false;
        }
        ++i;
    }
    return i == files.size();
}

}  // namespace

void UnchangedFiles::add(std::string file, UnchangedFile prior) {
    if (!entries_.empty() && !(entries_.back().first < file)) {
        throw std::logic_error("UnchangedFiles::add: files must come in increasing path order");
    }
    entries_.emplace_back(std::move(file), std::move(prior));
}

const UnchangedFile* UnchangedFiles::find(std::string_view file) const {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), file,
                               [](const auto& entry, std::string_view f) { return entry.first < f; });
    return it != entries_.end() && it->first == file ? &it->second : nullptr;
}

BuildPlan plan_build(const fs::path& db_path, const fs::path& records_root, const std::function<void()>& starting) {
    BuildPlan plan;
    std::error_code ec;
    if (!fs::exists(db_path, ec)) {
        plan.reason = "no catalog yet";
        return plan;
    }
    int version = 0;
    std::string why;
    if (!is_kvcat_catalog(db_path, &version, &why) || version != kCatalogSchemaVersion) {
        plan.reason =
            fmt::format("the catalog has schema version {}, this kvcat writes {}", version, kCatalogSchemaVersion);
        return plan;
    }
    auto opened_previous = open_catalog_readonly(db_path);
    SQLite::Database& previous = *opened_previous;
    std::string root = records_root.lexically_normal().generic_string();
    {
        SQLite::Statement meta(previous, "SELECT value FROM build_meta WHERE key = 'records_root'");
        if (!meta.executeStep() || meta.getColumn(0).getString() != root) {
            plan.reason = "the catalog was built from other records";
            return plan;
        }
    }
    // Rows are taken from the previous catalog only when this kvcat wrote it, for this root,
    // and nothing has changed it since; a catalog that came with a checkout is read again.
    if (auto unsealed = catalog_unsealed(db_path, resolved_root(records_root))) {
        plan.reason = fmt::format("{} is not one this kvcat built here ({})", db_path.string(), *unsealed);
        if (auto damage = catalog_damage(db_path)) {
            plan.damaged = true;
            plan.notice =
                fmt::format("{} is damaged ({}); building it again from every record", db_path.string(), *damage);
        } else {
            plan.notice = fmt::format("{}: {}, so its rows are not reused; building it again from every record",
                                      db_path.string(), *unsealed);
        }
        return plan;
    }
    // A catalog that does not yet say what it was built from is written again, even when
    // nothing changed: otherwise every query would find it stale and rebuild it in vain.
    bool says_what_it_was_built_from = false;
    {
        SQLite::Statement meta(previous, "SELECT count(*) FROM build_meta WHERE key IN (?1, ?2)");
        meta.bind(1, std::string(kMetaResolvedRoot));
        meta.bind(2, std::string(kMetaRecordSet));
        says_what_it_was_built_from = meta.executeStep() && meta.getColumn(0).getInt() == 2;
    }
    plan.tree = walk_records(records_root);
    const std::vector<std::string>& files = plan.tree.yaml;
    const std::vector<std::optional<FileStamp>> stamps = stamp_files(files);
    if (says_what_it_was_built_from && every_stamp_matches(previous, files, stamps)) {
        plan.incremental = true;
        plan.up_to_date = true;
        plan.reason = "nothing changed";
        return plan;
    }
    // Something moved, so a new catalog is written, from the previous one's bytes unless the
    // catalog cannot be read after all.
    if (starting) starting();
    // One ordered pass over the catalog's files beside the sorted file list (a merge, as
    // every_stamp_matches reads them): a file is stat'ed once, and hashed only when its
    // metadata moved; no index of a hundred thousand paths is built.
    const std::string_view row_kind = kind_name(RecordKind::kv_efficiency);
    std::set<std::string> changed_ids;  // models and accelerators added, edited or removed
    std::set<std::string> dirty_rows;   // row files named by a changed model or accelerator
    struct Kept {
        std::string path;
        std::string id;
        int id_line = 0;
        int id_column = 0;
        FileStamp stamp;
        bool touched = false;  ///< its metadata moved, its bytes did not
    };
    std::vector<Kept> kept;  // row files whose bytes are as the catalog knew them, in path order
    kept.reserve(files.size());
    bool touched = false;
    auto text_of = [](const SQLite::Column& c) {
        return std::string_view(c.getText(), static_cast<std::size_t>(c.getBytes()));
    };
    auto changed_record = [&](std::string_view shown) {
        // A model or accelerator file (not a row): what names it is checked again.
        std::string relative = path_under_root(std::string(shown), root);
        changed_ids.insert(relative.ends_with(".yaml") ? relative.substr(0, relative.size() - 5) : relative);
    };
    std::size_t rows_on_disk = 0;  // row files under the root now
    auto disk_only = [&](const std::string& shown) {
        ++plan.changed_files;
        if (kind_from_path(path_under_root(shown, root)) == RecordKind::kv_efficiency) {
            ++rows_on_disk;
        } else {
            changed_record(shown);
        }
    };
    SQLite::Statement q(previous,
                        "SELECT path, id, kind, size, mtime_ns, hash, id_line, id_column FROM files ORDER BY path");
    std::size_t i = 0;
    bool more = q.executeStep();
    while (more || i < files.size()) {
        int order = !more ? 1 : i == files.size() ? -1 : text_of(q.getColumn(0)).compare(files[i]);
        if (order > 0) {  // on disk, not in the catalog: new
            disk_only(files[i]);
            ++i;
            continue;
        }
        std::string_view path = text_of(q.getColumn(0));
        bool is_row = text_of(q.getColumn(2)) == row_kind;
        if (order < 0) {  // in the catalog, gone from disk
            ++plan.changed_files;
            if (is_row) {
                plan.dropped.emplace_back(std::string(path), q.getColumn(1).getString());
            } else {
                changed_ids.insert(q.getColumn(1).getString());
            }
            more = q.executeStep();
            continue;
        }
        const std::string& shown = files[i];
        const auto& stamp = stamps[i];
        if (is_row && stamp) ++rows_on_disk;
        FileStamp before{q.getColumn(3).getInt64(), q.getColumn(4).getInt64()};
        bool changed = !stamp;
        bool moved = false;
        if (stamp && !(*stamp == before)) {
            // The metadata moved; the bytes decide (a file past the loader's limit, or no
            // longer a regular one, has changed: the lint says what it is now).
            std::string unread;
            auto bytes = read_bounded(fs::path(shown), LoadLimits{}.max_bytes, unread);
            changed = !bytes || content_hash_hex(content_hash(*bytes)) != text_of(q.getColumn(5));
            moved = !changed;
            touched = touched || moved;
        }
        if (changed) {
            ++plan.changed_files;
            if (is_row) {
                plan.dropped.emplace_back(shown, q.getColumn(1).getString());
            } else {
                changed_record(shown);
                changed_ids.insert(q.getColumn(1).getString());
            }
        } else if (is_row) {
            kept.push_back(Kept{shown, q.getColumn(1).getString(), q.getColumn(6).getInt(), q.getColumn(7).getInt(),
                                *stamp, moved});
        }
        ++i;
        more = q.executeStep();
    }
    plan.incremental = true;
    if (plan.changed_files == 0 && !touched && says_what_it_was_built_from) {
        plan.up_to_date = true;
        plan.reason = "nothing changed";
        plan.dropped.clear();
        return plan;
    }
    // A row that names a changed model or accelerator is checked again.
    if (!changed_ids.empty()) {
        SQLite::Statement rows(previous, "SELECT file, model, accelerator, measured_on_model FROM kv_efficiency");
        while (rows.executeStep()) {
            for (int c = 1; c <= 3; ++c) {
                if (!rows.getColumn(c).isNull() && changed_ids.count(rows.getColumn(c).getString())) {
                    dirty_rows.insert(rows.getColumn(0).getString());
                }
            }
        }
    }
    std::map<std::string, std::vector<Diagnostic>, std::less<>> findings;
    {
        SQLite::Statement f(
            previous, "SELECT file, line, \"column\", severity, rule, message, stated, computed FROM lint_findings");
        while (f.executeStep()) {
            Diagnostic d;
            d.pos = Position{f.getColumn(0).getString(), f.getColumn(1).getInt(), f.getColumn(2).getInt()};
            d.severity = f.getColumn(3).getString() == "note" ? Severity::note : Severity::warning;
            d.rule = f.getColumn(4).getString();
            d.message = f.getColumn(5).getString();
            if (!f.getColumn(6).isNull()) d.stated = f.getColumn(6).getString();
            if (!f.getColumn(7).isNull()) d.computed = f.getColumn(7).getString();
            findings[d.pos.file].push_back(std::move(d));
        }
    }
    for (Kept& k : kept) {
        if (dirty_rows.count(k.path)) {
            plan.dropped.emplace_back(std::move(k.path), std::move(k.id));
            continue;
        }
        if (k.touched) plan.restamped.emplace_back(k.path, k.stamp);
        UnchangedFile u;
        u.id = std::move(k.id);
        u.id_pos = Position{k.path, k.id_line, k.id_column};
        if (auto found = findings.find(k.path); found != findings.end()) {
            for (auto& d : found->second) (d.severity == Severity::note ? u.ignored : u.findings).push_back(d);
        }
        plan.unchanged.add(std::move(k.path), std::move(u));
    }
    std::size_t again = rows_on_disk - plan.unchanged.size();
    plan.reason = fmt::format("{} file{} changed, {} row{} to check again", plan.changed_files,
                              plan.changed_files == 1 ? "" : "s", again, again == 1 ? "" : "s");
    return plan;
}

}  // namespace kvcat
