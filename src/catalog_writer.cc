#include "catalog_writer.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <array>
#include <string_view>
#include <type_traits>
#include <fstream>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "catalog_sql.h"
#include "content_hash.h"
#include "dtype.h"
#include "kv_math.h"
#include "physics.h"
#include "records_root.h"
#include "rules/rules.h"
#include "vocabulary.h"
#include "weight_quant.h"

namespace kvcat {

namespace fs = std::filesystem;

namespace {

void bind_rational(SQLite::Statement& st, int index, const Rational& r) {
    if (r.is_integer()) {
        st.bind(index, static_cast<std::int64_t>(r.num()));
    } else {
        st.bind(index, r.to_double());
    }
}

void bind_rational_or_null(SQLite::Statement& st, int index, const std::optional<Rational>& r) {
    if (r) {
        bind_rational(st, index, *r);
    } else {
        st.bind(index);
    }
}

void bind_ratio(SQLite::Statement& st, int index, const std::optional<Rational>& num, const Rational& den) {
    if (num && !den.is_zero()) {
        st.bind(index, (*num / den).to_double());
    } else {
        st.bind(index);
    }
}

template <typename T>
void bind_optional(SQLite::Statement& st, int index, const std::optional<T>& v) {
    if (!v) {
        st.bind(index);  // NULL
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
        st.bind(index, static_cast<std::int64_t>(*v));
    } else {
        st.bind(index, *v);
    }
}

void bind_text_or_null(SQLite::Statement& st, int index, const std::string& v) {
    if (v.empty()) {
        st.bind(index);
    } else {
        st.bind(index, v);
    }
}

bool pid_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

/// Removes temporary files left by builds that were killed.
void remove_stale_temporaries(const fs::path& db_path) {
    fs::path dir = db_path.parent_path().empty() ? fs::path(".") : db_path.parent_path();
    std::string prefix = db_path.filename().string() + ".tmp-";
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        std::string rest = name.substr(prefix.size());
        long pid = std::strtol(rest.substr(0, rest.find('-')).c_str(), nullptr, 10);
        if (pid_alive(pid) && pid != static_cast<long>(::getpid())) continue;  // another build is running
        std::error_code rec;
        fs::remove(it->path(), rec);
        spdlog::debug("removed a leftover temporary file {}", it->path().string());
    }
}

void fsync_path(const fs::path& path, bool directory) {
    int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0) {
        if (directory) return;  // some filesystems do not allow it; the rename is still atomic
        throw CatalogError(fmt::format("cannot open {} to sync it: {}", path.string(), std::strerror(errno)));
    }
    if (::fsync(fd) != 0 && !directory) {
        int err = errno;
        ::close(fd);
        throw CatalogError(fmt::format("cannot sync {}: {}", path.string(), std::strerror(err)));
    }
    ::close(fd);
}

/// The figures kvcat works out for a row beside the ones it states.
struct DerivedFigures {
    std::optional<Rational> gqa_baseline;
    std::optional<Rational> mha_baseline;
    std::optional<Rational> weight_bytes;
    std::optional<Rational> roofline_tps;
};

DerivedFigures derive_figures(const RecordSet& refs, const Model& m, const KvRow& k, const MeasurementPoint& point,
                              const Rational& at_context) {
    DerivedFigures d;
    auto element = element_bytes(k.kv_cache_dtype, k.v_cache_dtype);
    if (!element) return d;
    Rational bpe = *element;
    try {
        d.gqa_baseline = all_layers_gqa_bytes(m, bpe);
        d.mha_baseline = all_layers_mha_bytes(m, bpe);
        auto weights = row_weights(m, k.weight_quant, k.weight_bytes);
        if (weights) d.weight_bytes = weights->resident;
        const Accelerator* accelerator = rules::accelerator_of(refs, k);
        if (weights && accelerator) {
            d.roofline_tps =
                batch_roofline(*accelerator, weights->active, at_context, fixed_state_bytes(m), point.concurrency)
                    .ceiling_tps;
        }
    } catch (const std::exception&) {
        // A figure that cannot be worked out exactly stays NULL rather than approximate.
    }
    return d;
}

/// The columns of kv_efficiency, in the order catalog.sql declares them. The insert names
/// each column, so a column added to the table is a compile error here until it is bound.
enum class RowColumn {
    id, record_id, model, accelerator, engine, engine_version, kv_cache_dtype, v_cache_dtype, weight_quant,
    attention_variant,
    context_length, kv_bytes_per_token, kv_bytes_per_token_exact, bytes_per_element, basis_statement,
    kv_bytes_at_context, fixed_state_bytes, gqa_baseline_bytes_per_token, mha_baseline_bytes_per_token,
    gqa_reduction, mha_reduction, weight_bytes, weight_bytes_source, roofline_tps, roofline_fraction,
    measured_tps_at_ctx, measured_ttft_ms_at_ctx, measured_prefill_tps_at_ctx, concurrency, prompt_tokens,
    gen_tokens, tps_stddev, prefill_tps_stddev, provenance, measured_on_model, context_extension, offload,
    methodology, notes, file, count_
};

constexpr std::array<std::string_view, static_cast<std::size_t>(RowColumn::count_)> kRowColumnNames = {
    "id", "record_id", "model", "accelerator", "engine", "engine_version", "kv_cache_dtype", "v_cache_dtype",
    "weight_quant",
    "attention_variant", "context_length", "kv_bytes_per_token", "kv_bytes_per_token_exact", "bytes_per_element",
    "basis_statement", "kv_bytes_at_context", "fixed_state_bytes", "gqa_baseline_bytes_per_token",
    "mha_baseline_bytes_per_token", "gqa_reduction", "mha_reduction", "weight_bytes", "weight_bytes_source",
    "roofline_tps", "roofline_fraction", "measured_tps_at_ctx", "measured_ttft_ms_at_ctx",
    "measured_prefill_tps_at_ctx", "concurrency", "prompt_tokens", "gen_tokens", "tps_stddev", "prefill_tps_stddev",
    "provenance", "measured_on_model", "context_extension", "offload", "methodology", "notes", "file",
};

/// The 1-based parameter of a column in the row insert.
int col(RowColumn c) { return static_cast<int>(c) + 1; }

template <typename T>
void bind_at(SQLite::Statement& st, RowColumn c, const T& value) {
    if constexpr (std::is_convertible_v<T, std::string_view> && !std::is_same_v<T, std::string>) {
        st.bind(col(c), std::string(value));
    } else {
        st.bind(col(c), value);
    }
}

std::string row_insert_sql() {
    std::string names;
    std::string params;
    for (std::size_t i = 0; i < kRowColumnNames.size(); ++i) {
        names += (i ? ", " : "") + std::string(kRowColumnNames[i]);
        params += fmt::format("{}?{}", i ? ", " : "", i + 1);
    }
    return fmt::format("INSERT INTO kv_efficiency ({}) VALUES ({})", names, params);
}

void insert_quality(SQLite::Statement& st, const Record& r) {
    int position = 0;
    for (const auto& q : r.kv->quality) {
        st.reset();
        st.clearBindings();
        st.bind(1, r.id);
        st.bind(2, position++);
        st.bind(3, q.benchmark);
        st.bind(4, q.metric);
        bind_optional(st, 5, q.value);
        st.bind(6, q.unit);
        st.bind(7, q.higher_is_better.value_or(false) ? 1 : 0);
        st.bind(8, q.baseline_kv_cache_dtype);
        bind_optional(st, 9, q.baseline_value);
        bind_optional(st, 10, q.context_length);
        if (q.recovery_percent) {
            st.bind(11, q.recovery_percent->to_double());
        } else if (q.value_exact && q.baseline_value_exact && !q.baseline_value_exact->is_zero()) {
            st.bind(11, (*q.value_exact * Rational(100) / *q.baseline_value_exact).to_double());
        }
        st.bind(12, r.file);
        st.exec();
    }
}

std::string notes_of(const Record& r) { return r.node("notes") ? r.node("notes")->value : ""; }

void insert_model(SQLite::Statement& st, const Record& r) {
    const Model& m = *r.model;
    std::string ignored;
    auto layers = kv_layer_count(m, &ignored);
    st.reset();
    st.clearBindings();
    st.bind(1, r.id);
    st.bind(2, m.name);
    st.bind(3, m.config_source);
    st.bind(4, m.config_verified ? 1 : 0);
    bind_optional(st, 5, m.total_params_b);
    bind_optional(st, 6, m.active_params_b);
    bind_optional(st, 7, m.native_context);
    bind_optional(st, 8, m.num_layers);
    st.bind(9, m.attention_variant);
    bind_optional(st, 10, m.attention_heads);
    bind_optional(st, 11, m.kv_heads);
    bind_optional(st, 12, m.head_dim);
    st.bind(13, static_cast<std::int64_t>(layers.count));
    bind_optional(st, 14, m.mla ? std::optional<std::int64_t>(m.mla->kv_lora_rank) : std::nullopt);
    bind_optional(st, 15, m.mla ? std::optional<std::int64_t>(m.mla->qk_rope_head_dim) : std::nullopt);
    bind_optional(st, 16, m.sliding ? std::optional<std::int64_t>(m.sliding->window) : std::nullopt);
    bind_optional(st, 17, m.sliding ? std::optional<std::int64_t>(m.sliding->layers) : std::nullopt);
    if (m.linear) {
        st.bind(18, std::string(name_of(m.linear->kind)));
        st.bind(19, static_cast<std::int64_t>(m.linear->layers));
    }
    bind_rational(st, 20, fixed_state_bytes(m));
    bind_text_or_null(st, 21, notes_of(r));
    st.bind(22, r.file);
    st.exec();
}

void insert_accelerator(SQLite::Statement& st, const Record& r) {
    const Accelerator& a = *r.accelerator;
    st.reset();
    st.clearBindings();
    st.bind(1, r.id);
    st.bind(2, a.vendor);
    st.bind(3, a.name);
    bind_optional(st, 4, a.memory_gb);
    st.bind(5, a.memory_type);
    bind_optional(st, 6, a.memory_bus_bits);
    bind_optional(st, 7, a.memory_bandwidth_gb_s);
    bind_text_or_null(st, 8, notes_of(r));
    st.bind(9, r.file);
    st.exec();
}

void insert_sources(SQLite::Statement& st, const Record& r) {
    int position = 0;
    for (const auto& s : r.sources) {
        st.reset();
        st.clearBindings();
        st.bind(1, r.id);
        st.bind(2, position++);
        st.bind(3, s.name);
        bind_text_or_null(st, 4, s.detail);
        bind_text_or_null(st, 5, s.url);
        bind_text_or_null(st, 6, s.date);
        st.exec();
    }
}

}  // namespace

std::optional<FileStamp> stamp_of(const fs::path& file) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) return std::nullopt;
    return FileStamp{static_cast<std::int64_t>(st.st_size),
                     static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec};
}

CatalogWriter::CatalogWriter(fs::path db_path, std::optional<fs::path> previous) : db_path_(std::move(db_path)) {
    std::error_code ec;
    if (fs::exists(db_path_, ec)) {
        int version = 0;
        std::string why;
        if (!is_kvcat_catalog(db_path_, &version, &why)) {
            throw CatalogError(fmt::format("{} exists and {}; refusing to replace it (remove it or pass --db)",
                                           db_path_.string(), why));
        }
    }
    remove_stale_temporaries(db_path_);
    tmp_path_ = db_path_;
    tmp_path_ += fmt::format(".tmp-{}-{}", ::getpid(), std::chrono::steady_clock::now().time_since_epoch().count());
    try {
        db_ = std::make_unique<SQLite::Database>(tmp_path_.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        // The file is private until the rename, so no journal is needed: a failure discards it.
        db_->exec("PRAGMA journal_mode = OFF");
        db_->exec("PRAGMA synchronous = OFF");
        if (previous) {
            // ATTACH is not allowed inside a transaction, so it comes first.
            SQLite::Statement attach(*db_, "ATTACH DATABASE ? AS previous");
            attach.bind(1, previous->string());
            attach.exec();
            has_previous_ = true;
        }
        db_->exec("BEGIN");
        db_->exec(kCatalogSql);
        row_insert_ = std::make_unique<SQLite::Statement>(*db_, row_insert_sql());
        quality_insert_ = std::make_unique<SQLite::Statement>(
            *db_, "INSERT INTO quality VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)");
        source_insert_ = std::make_unique<SQLite::Statement>(*db_, "INSERT INTO sources VALUES (?1,?2,?3,?4,?5,?6)");
        file_insert_ = std::make_unique<SQLite::Statement>(*db_, "INSERT INTO files VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
    } catch (...) {
        row_insert_.reset();
        quality_insert_.reset();
        source_insert_.reset();
        file_insert_.reset();
        db_.reset();
        fs::remove(tmp_path_, ec);
        throw;
    }
}

CatalogWriter::~CatalogWriter() {
    if (committed_) return;
    row_insert_.reset();
    quality_insert_.reset();
    source_insert_.reset();
    file_insert_.reset();
    db_.reset();  // never throws: SQLiteCpp closes quietly
    std::error_code ec;
    fs::remove(tmp_path_, ec);
}

void CatalogWriter::insert_file(const Record& r, RecordKind kind) {
    auto stamp = stamp_of(r.file);
    Position id_pos = r.where("id");
    SQLite::Statement& st = *file_insert_;
    st.reset();
    st.clearBindings();
    st.bind(1, r.file);
    st.bind(2, r.id);
    st.bind(3, std::string(kind_name(kind)));
    st.bind(4, stamp ? stamp->size : std::int64_t{-1});  // -1 never matches: read again next time
    st.bind(5, stamp ? stamp->mtime_ns : std::int64_t{-1});
    st.bind(6, content_hash_hex(r.source ? r.source->content_hash() : 0));
    st.bind(7, id_pos.line);
    st.bind(8, id_pos.column);
    st.exec();
}

void CatalogWriter::begin(const RecordSet& refs) {
    std::lock_guard lock(mutex_);
    SQLite::Statement engine_insert(*db_, "INSERT INTO engines VALUES (?1, ?2, ?3)");
    for (const auto& e : engine_names()) {
        engine_insert.reset();
        engine_insert.clearBindings();
        engine_insert.bind(1, std::string(e.name));
        if (!e.upstream.empty()) engine_insert.bind(2, std::string(e.upstream));
        engine_insert.bind(3, std::string(e.what));
        engine_insert.exec();
    }
    SQLite::Statement model_insert(
        *db_, "INSERT INTO models VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22)");
    SQLite::Statement accel_insert(*db_, "INSERT INTO accelerators VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
    for (const auto& r : refs.records()) {
        if (r.model) {
            insert_model(model_insert, r);
            ++stats_.models;
        } else if (r.accelerator) {
            insert_accelerator(accel_insert, r);
            ++stats_.accelerators;
        } else {
            continue;
        }
        insert_sources(*source_insert_, r);
        insert_file(r, r.kind);
    }
}

void CatalogWriter::row(const Record& r, const RecordSet& refs) {
    if (!r.kv) return;
    const KvRow& k = *r.kv;
    const Record* model_record = refs.find(k.model);
    if (!model_record || !model_record->model || !k.kv_bytes_per_token || !k.basis.bytes_per_element ||
        k.points.empty()) {
        // Such a row has lint errors, so this build will not be committed; skip it.
        return;
    }
    const Model& m = *model_record->model;
    Rational per_token = *k.kv_bytes_per_token;
    Rational bpe = *k.basis.bytes_per_element;
    struct PointFigures {
        Rational at_context;
        DerivedFigures derived;
    };
    std::vector<PointFigures> figures;
    Rational fixed(0);
    try {
        fixed = fixed_state_bytes(m);
        for (const auto& point : k.points) {
            Rational at_context = kv_bytes_at_context(m, per_token, point.context_length, bpe);
            figures.push_back(PointFigures{at_context, derive_figures(refs, m, k, point, at_context)});
        }
    } catch (const OverflowError&) {
        return;  // reported by the lint as arith-overflow; the build will not be committed
    }
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < k.points.size(); ++i) {
        const MeasurementPoint& point = k.points[i];
        const DerivedFigures& derived = figures[i].derived;
        SQLite::Statement& st = *row_insert_;
        st.reset();
        st.clearBindings();
        using C = RowColumn;
        bind_at(st, C::id, point_row_id(r.id, point));
        bind_at(st, C::record_id, r.id);
        bind_at(st, C::model, k.model);
        bind_optional(st, col(C::accelerator), k.accelerator);
        bind_at(st, C::engine, k.engine);
        bind_optional(st, col(C::engine_version), k.engine_version);
        bind_at(st, C::kv_cache_dtype, k.kv_cache_dtype);
        bind_optional(st, col(C::v_cache_dtype), k.v_cache_dtype);
        bind_optional(st, col(C::weight_quant), k.weight_quant);
        bind_at(st, C::attention_variant, k.attention_variant);
        bind_at(st, C::context_length, point.context_length);
        bind_rational(st, col(C::kv_bytes_per_token), per_token);
        bind_at(st, C::kv_bytes_per_token_exact, per_token.to_string());
        bind_at(st, C::bytes_per_element, bpe.to_string());
        bind_at(st, C::basis_statement, k.basis.statement);
        bind_rational(st, col(C::kv_bytes_at_context), figures[i].at_context);
        bind_rational(st, col(C::fixed_state_bytes), fixed);
        bind_rational_or_null(st, col(C::gqa_baseline_bytes_per_token), derived.gqa_baseline);
        bind_rational_or_null(st, col(C::mha_baseline_bytes_per_token), derived.mha_baseline);
        bind_ratio(st, col(C::gqa_reduction), derived.gqa_baseline, per_token);
        bind_ratio(st, col(C::mha_reduction), derived.mha_baseline, per_token);
        bind_rational_or_null(st, col(C::weight_bytes), derived.weight_bytes);
        if (derived.weight_bytes) bind_at(st, C::weight_bytes_source, k.weight_bytes ? "stated" : "derived");
        bind_rational_or_null(st, col(C::roofline_tps), derived.roofline_tps);
        if (derived.roofline_tps && point.tps_exact && !derived.roofline_tps->is_zero()) {
            bind_at(st, C::roofline_fraction, (*point.tps_exact / *derived.roofline_tps).to_double());
        }
        bind_optional(st, col(C::measured_tps_at_ctx), point.tps);
        bind_optional(st, col(C::measured_ttft_ms_at_ctx), point.ttft_ms);
        bind_optional(st, col(C::measured_prefill_tps_at_ctx), point.prefill_tps);
        bind_at(st, C::concurrency, point.concurrency);
        bind_optional(st, col(C::prompt_tokens), point.prompt_tokens);
        bind_optional(st, col(C::gen_tokens), point.gen_tokens);
        bind_optional(st, col(C::tps_stddev), point.tps_stddev);
        bind_optional(st, col(C::prefill_tps_stddev), point.prefill_tps_stddev);
        bind_optional(st, col(C::provenance), k.provenance);
        bind_optional(st, col(C::measured_on_model), k.measured_on_model);
        bind_optional(st, col(C::context_extension), k.context_extension);
        bind_optional(st, col(C::offload), k.offload);
        bind_at(st, C::methodology, k.methodology);
        bind_at(st, C::notes, k.notes);
        bind_at(st, C::file, r.file);
        st.exec();
        ++stats_.rows;
    }
    insert_quality(*quality_insert_, r);
    insert_sources(*source_insert_, r);
    insert_file(r, RecordKind::kv_efficiency);
}

void CatalogWriter::copy_unchanged(const std::map<std::string, FileStamp>& files) {
    if (!has_previous_ || files.empty()) return;
    std::lock_guard lock(mutex_);
    db_->exec("CREATE TEMP TABLE keep (file TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER)");
    {
        SQLite::Statement keep(*db_, "INSERT INTO keep VALUES (?1, ?2, ?3)");
        for (const auto& [file, stamp] : files) {
            keep.reset();
            keep.bind(1, file);
            keep.bind(2, stamp.size);
            keep.bind(3, stamp.mtime_ns);
            keep.exec();
        }
    }
    int copied = db_->exec(
        "INSERT INTO kv_efficiency SELECT * FROM previous.kv_efficiency WHERE file IN (SELECT file FROM keep)");
    db_->exec(
        "INSERT INTO sources SELECT s.* FROM previous.sources AS s "
        "WHERE s.record_id IN (SELECT DISTINCT record_id FROM previous.kv_efficiency "
        "WHERE file IN (SELECT file FROM keep))");
    db_->exec("INSERT INTO quality SELECT * FROM previous.quality WHERE file IN (SELECT file FROM keep)");
    // The stamps are today's: a file touched but unchanged is not hashed again next time.
    db_->exec(
        "INSERT INTO files SELECT f.path, f.id, f.kind, keep.size, keep.mtime_ns, f.hash, f.id_line, f.id_column "
        "FROM previous.files AS f JOIN keep ON keep.file = f.path");
    db_->exec("DROP TABLE keep");
    stats_.rows += static_cast<std::size_t>(copied);
    stats_.rows_copied += static_cast<std::size_t>(copied);
}

void CatalogWriter::set_findings(const std::vector<Diagnostic>& warnings, const std::vector<Diagnostic>& ignored) {
    std::lock_guard lock(mutex_);
    SQLite::Statement st(*db_, "INSERT INTO lint_findings VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
    for (const auto* list : {&warnings, &ignored}) {
        for (const auto& d : *list) {
            if (d.severity == Severity::error) continue;  // a catalog is only written without errors
            st.reset();
            st.clearBindings();
            st.bind(1, d.pos.file);
            st.bind(2, d.pos.line);
            st.bind(3, d.pos.column);
            st.bind(4, std::string(to_string(d.severity)));
            st.bind(5, d.rule);
            st.bind(6, d.message);
            bind_optional(st, 7, d.stated);
            bind_optional(st, 8, d.computed);
            st.exec();
        }
    }
}

void CatalogWriter::set_meta(const std::string& key, const std::string& value) {
    std::lock_guard lock(mutex_);
    SQLite::Statement st(*db_, "INSERT OR REPLACE INTO build_meta VALUES (?1, ?2)");
    st.bind(1, key);
    st.bind(2, value);
    st.exec();
}

void CatalogWriter::set_built_from(const fs::path& records_root) {
    const std::string shown = records_root.lexically_normal().generic_string();
    RecordSetFingerprint fingerprint;
    {
        std::lock_guard lock(mutex_);
        SQLite::Statement q(*db_, "SELECT path, size, mtime_ns FROM files");
        while (q.executeStep()) {
            add_to_fingerprint(fingerprint, path_under_root(q.getColumn(0).getString(), shown),
                               q.getColumn(1).getInt64(), q.getColumn(2).getInt64());
        }
    }
    set_meta("records_root", shown);
    set_meta(std::string(kMetaResolvedRoot), resolved_root(records_root));
    set_meta(std::string(kMetaRecordSet), fingerprint.text());
}

BuildStats CatalogWriter::commit() {
    std::lock_guard lock(mutex_);
    {
        SQLite::Statement column_insert(*db_, "INSERT INTO column_info VALUES (?1,?2,?3,?4,?5)");
        for (const auto& c : kv_row_columns()) {
            column_insert.reset();
            column_insert.bind(1, std::string(c.name));
            column_insert.bind(2, std::string(c.type));
            column_insert.bind(3, std::string(c.unit));
            column_insert.bind(4, c.derived ? 1 : 0);
            column_insert.bind(5, std::string(c.description));
            column_insert.exec();
        }
    }
    db_->exec(fmt::format("PRAGMA user_version = {}", kCatalogSchemaVersion));
    row_insert_.reset();
    quality_insert_.reset();
    source_insert_.reset();
    file_insert_.reset();
    db_->exec("COMMIT");
    if (has_previous_) db_->exec("DETACH DATABASE previous");
    db_.reset();
    fsync_path(tmp_path_, false);
    fs::rename(tmp_path_, db_path_);
    fsync_path(db_path_.parent_path().empty() ? fs::path(".") : db_path_.parent_path(), true);
    committed_ = true;
    return stats_;
}

BuildStats build_catalog(const RecordSet& records, const fs::path& db_path) {
    CatalogWriter writer(db_path);
    writer.begin(records);
    for (const auto& r : records.records()) {
        if (!r.kv) continue;
        const Record* model = records.find(r.kv->model);
        if (!model || !model->model || !r.kv->kv_bytes_per_token || !r.kv->basis.bytes_per_element ||
            r.kv->points.empty()) {
            throw CatalogError(fmt::format("{}: the record is incomplete or names no model; lint it first", r.file));
        }
        writer.row(r, records);
    }
    return writer.commit();
}

namespace {

/// The common case of an incremental build, answered without building any index: the
/// catalog's files, in path order, are exactly `files` (sorted the same way, bytewise) and
/// every one has the size and modification time recorded for it.
bool every_stamp_matches(SQLite::Database& previous, const std::vector<std::string>& files) {
    sqlite3* db = previous.getHandle();
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT path, size, mtime_ns FROM files ORDER BY path", -1, &raw, nullptr) != SQLITE_OK) {
        sqlite3_finalize(raw);
        return false;
    }
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> stmt(raw, sqlite3_finalize);
    std::size_t i = 0;
    while (sqlite3_step(raw) == SQLITE_ROW) {
        if (i == files.size()) return false;
        auto text = reinterpret_cast<const char*>(sqlite3_column_text(raw, 0));
        std::string_view path(text ? text : "", static_cast<std::size_t>(sqlite3_column_bytes(raw, 0)));
        if (path != files[i]) return false;
        auto stamp = stamp_of(fs::path(files[i]));
        if (!stamp || stamp->size != sqlite3_column_int64(raw, 1) || stamp->mtime_ns != sqlite3_column_int64(raw, 2)) {
            return false;
        }
        ++i;
    }
    return i == files.size();
}

}  // namespace

BuildPlan plan_build(const fs::path& db_path, const fs::path& records_root) {
    BuildPlan plan;
    std::error_code ec;
    if (!fs::exists(db_path, ec)) {
        plan.reason = "no catalog yet";
        return plan;
    }
    int version = 0;
    std::string why;
    if (!is_kvcat_catalog(db_path, &version, &why) || version != kCatalogSchemaVersion) {
        plan.reason = fmt::format("the catalog has schema version {}, this kvcat writes {}", version,
                                  kCatalogSchemaVersion);
        return plan;
    }
    SQLite::Database previous(db_path.string(), SQLite::OPEN_READONLY);
    std::string root = records_root.lexically_normal().generic_string();
    {
        SQLite::Statement meta(previous, "SELECT value FROM build_meta WHERE key = 'records_root'");
        if (!meta.executeStep() || meta.getColumn(0).getString() != root) {
            plan.reason = "the catalog was built from other records";
            return plan;
        }
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
    const std::vector<std::string> files = record_files(records_root);
    if (says_what_it_was_built_from && every_stamp_matches(previous, files)) {
        plan.incremental = true;
        plan.up_to_date = true;
        plan.reason = "nothing changed";
        return plan;
    }
    struct Known {
        std::string id;
        std::string kind;
        FileStamp stamp;
        std::string hash;
        int id_line = 0;
        int id_column = 0;
    };
    // Hashed, not ordered: a hundred thousand paths that share their first thirty bytes make
    // every comparison in a tree long.
    std::unordered_map<std::string, Known> known;
    {
        SQLite::Statement count(previous, "SELECT count(*) FROM files");
        if (count.executeStep()) known.reserve(static_cast<std::size_t>(count.getColumn(0).getInt64()));
        SQLite::Statement q(previous, "SELECT path, id, kind, size, mtime_ns, hash, id_line, id_column FROM files");
        while (q.executeStep()) {
            known.emplace(q.getColumn(0).getString(),
                          Known{q.getColumn(1).getString(), q.getColumn(2).getString(),
                                FileStamp{q.getColumn(3).getInt64(), q.getColumn(4).getInt64()},
                                q.getColumn(5).getString(), q.getColumn(6).getInt(), q.getColumn(7).getInt()});
        }
    }

    std::set<std::string> changed_ids;  // models and accelerators added, edited or removed
    std::set<std::string> dirty_rows;   // row files to read and check again
    std::vector<std::pair<std::string, FileStamp>> current_rows;  // in file order
    std::unordered_set<std::string_view> seen;
    bool touched = false;
    seen.reserve(files.size());
    for (const auto& shown : files) {
        seen.insert(shown);
        std::string relative = path_under_root(shown, root);
        bool is_row = kind_from_path(relative) == RecordKind::kv_efficiency;
        std::string path_id = relative.ends_with(".yaml") ? relative.substr(0, relative.size() - 5) : relative;
        fs::path file(shown);
        auto stamp = stamp_of(file);
        auto old = known.find(shown);
        bool changed = false;
        if (old == known.end() || !stamp) {
            changed = true;
        } else if (!(*stamp == old->second.stamp)) {
            // The metadata moved; the bytes decide.
            std::ifstream in(file, std::ios::binary);
            std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            changed = content_hash_hex(content_hash(bytes)) != old->second.hash;
            touched = touched || !changed;
        }
        if (changed) {
            ++plan.changed_files;
            if (is_row) {
                dirty_rows.insert(shown);
            } else {
                changed_ids.insert(path_id);
                if (old != known.end()) changed_ids.insert(old->second.id);
            }
        }
        if (is_row && stamp) current_rows.emplace_back(shown, *stamp);
    }
    for (const auto& [path, k] : known) {
        if (seen.count(path)) continue;
        ++plan.changed_files;
        if (k.kind != kind_name(RecordKind::kv_efficiency)) changed_ids.insert(k.id);
    }
    plan.incremental = true;
    if (plan.changed_files == 0 && !touched && says_what_it_was_built_from) {
        plan.up_to_date = true;
        plan.reason = "nothing changed";
        return plan;
    }
    // A row that names a changed model or accelerator is checked again.
    if (!changed_ids.empty()) {
        SQLite::Statement q(previous, "SELECT file, model, accelerator, measured_on_model FROM kv_efficiency");
        while (q.executeStep()) {
            for (int c = 1; c <= 3; ++c) {
                if (!q.getColumn(c).isNull() && changed_ids.count(q.getColumn(c).getString())) {
                    dirty_rows.insert(q.getColumn(0).getString());
                }
            }
        }
    }
    std::map<std::string, std::vector<Diagnostic>> findings;
    {
        SQLite::Statement q(previous,
                            "SELECT file, line, \"column\", severity, rule, message, stated, computed FROM lint_findings");
        while (q.executeStep()) {
            Diagnostic d;
            d.pos = Position{q.getColumn(0).getString(), q.getColumn(1).getInt(), q.getColumn(2).getInt()};
            d.severity = q.getColumn(3).getString() == "note" ? Severity::note : Severity::warning;
            d.rule = q.getColumn(4).getString();
            d.message = q.getColumn(5).getString();
            if (!q.getColumn(6).isNull()) d.stated = q.getColumn(6).getString();
            if (!q.getColumn(7).isNull()) d.computed = q.getColumn(7).getString();
            findings[d.pos.file].push_back(std::move(d));
        }
    }
    for (const auto& [file, stamp] : current_rows) {
        auto old = known.find(file);
        if (old == known.end() || dirty_rows.count(file)) continue;
        UnchangedFile u;
        u.id = old->second.id;
        u.id_pos = Position{file, old->second.id_line, old->second.id_column};
        for (auto& d : findings[file]) {
            (d.severity == Severity::note ? u.ignored : u.findings).push_back(d);
        }
        plan.unchanged.emplace(file, std::move(u));
        plan.unchanged_stamps.emplace(file, stamp);
    }
    plan.reason = fmt::format("{} file{} changed, {} row{} to check again", plan.changed_files,
                              plan.changed_files == 1 ? "" : "s", current_rows.size() - plan.unchanged.size(),
                              current_rows.size() - plan.unchanged.size() == 1 ? "" : "s");
    return plan;
}

}  // namespace kvcat
