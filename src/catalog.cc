#include "catalog.h"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "catalog_sql.h"
#include "dtype.h"
#include "kv_math.h"
#include "physics.h"
#include "rules/rules.h"
#include "weight_quant.h"

namespace kvcat {

namespace fs = std::filesystem;

namespace {

constexpr std::array kColumns = {
    ColumnInfo{"id", "text", "", false, "the record id, kv-efficiency/NAME"},
    ColumnInfo{"model", "text", "", false, "the model record's id"},
    ColumnInfo{"model_name", "text", "", false, "the model's published name"},
    ColumnInfo{"accelerator", "text", "", false, "the accelerator record's id; empty when not tied to hardware"},
    ColumnInfo{"accelerator_name", "text", "", false, "the accelerator's product name"},
    ColumnInfo{"engine", "text", "", false, "the inference engine"},
    ColumnInfo{"engine_version", "text", "", false, "the engine's version or build, when published"},
    ColumnInfo{"kv_cache_dtype", "text", "", false, "the KV cache element type"},
    ColumnInfo{"weight_quant", "text", "", false, "the weights' quantisation"},
    ColumnInfo{"attention_variant", "text", "", false, "mha, gqa, mqa, mla, hybrid or sliding"},
    ColumnInfo{"context_length", "integer", "tokens", false, "the context the row describes"},
    ColumnInfo{"native_context", "integer", "tokens", false, "the model's native context"},
    ColumnInfo{"kv_bytes_per_token", "number", "bytes/token", false,
               "KV bytes each token adds, as stated and checked against its basis and model"},
    ColumnInfo{"bytes_per_element", "text", "bytes", false, "exact bytes per cached element, e.g. 17/16"},
    ColumnInfo{"kv_bytes_at_context", "number", "bytes", true,
               "KV bytes of one sequence at context_length (sliding layers capped at their window)"},
    ColumnInfo{"fixed_state_bytes", "integer", "bytes", true,
               "per-sequence state of the linear-attention layers, which does not grow with context"},
    ColumnInfo{"gqa_baseline_bytes_per_token", "number", "bytes/token", true,
               "what every layer caching as GQA at the model's KV heads would cost"},
    ColumnInfo{"mha_baseline_bytes_per_token", "number", "bytes/token", true,
               "what every layer caching as MHA at the model's query heads would cost"},
    ColumnInfo{"gqa_reduction", "number", "ratio", true, "gqa_baseline_bytes_per_token / kv_bytes_per_token"},
    ColumnInfo{"mha_reduction", "number", "ratio", true, "mha_baseline_bytes_per_token / kv_bytes_per_token"},
    ColumnInfo{"weight_bytes", "integer", "bytes", true,
               "resident weights at weight_quant; empty when the format has no exact size"},
    ColumnInfo{"roofline_tps", "number", "tokens/s", true,
               "decode ceiling for one sequence: bandwidth / (active weights + KV at context + fixed state)"},
    ColumnInfo{"roofline_fraction", "number", "ratio", true, "measured_tps_at_ctx / roofline_tps"},
    ColumnInfo{"measured_tps_at_ctx", "number", "tokens/s", false,
               "decode speed at context_length; empty when the source did not report it"},
    ColumnInfo{"measured_ttft_ms_at_ctx", "number", "ms", false,
               "time to first token at context_length; empty when the source did not report it"},
    ColumnInfo{"provenance", "text", "", false, "measured, third-party-measured, derived or joined"},
    ColumnInfo{"measured_on_model", "text", "", false, "the model the measurement was taken on, when another"},
    ColumnInfo{"context_extension", "text", "", false, "how a context above the native one was reached"},
    ColumnInfo{"offload", "text", "", false, "what was kept off the accelerator, when anything was"},
    ColumnInfo{"total_params_b", "number", "billions", false, "the model's total parameters"},
    ColumnInfo{"active_params_b", "number", "billions", false, "the model's parameters active per token"},
    ColumnInfo{"memory_gb", "number", "GB", false, "the accelerator's memory, 10^9 bytes"},
    ColumnInfo{"memory_bandwidth_gb_s", "number", "GB/s", false, "the accelerator's memory bandwidth"},
    ColumnInfo{"file", "text", "", false, "the record file"},
};

constexpr std::array<std::string_view, 11> kDefaultColumns = {
    "id",
    "accelerator",
    "engine",
    "kv_cache_dtype",
    "attention_variant",
    "context_length",
    "kv_bytes_per_token",
    "kv_bytes_at_context",
    "measured_tps_at_ctx",
    "measured_ttft_ms_at_ctx",
    "provenance",
};

void bind_rational(SQLite::Statement& st, int index, const Rational& r) {
    if (r.is_integer()) {
        st.bind(index, static_cast<std::int64_t>(r.num()));
    } else {
        st.bind(index, r.to_double());
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

/// True when `path` holds a SQLite database with kvcat's tables; sets `version`.
bool is_kvcat_catalog(const fs::path& path, int* version, std::string* why) {
    try {
        SQLite::Database db(path.string(), SQLite::OPEN_READONLY);
        SQLite::Statement tables(db, "SELECT count(*) FROM sqlite_schema WHERE name IN ('kv_efficiency', 'models')");
        tables.executeStep();
        int count = tables.getColumn(0).getInt();
        *version = db.execAndGet("PRAGMA user_version").getInt();
        if (count != 2 || *version == 0) {
            *why = "it is a SQLite database, but not a kvcat catalog";
            return false;
        }
        return true;
    } catch (const std::exception& e) {
        *why = fmt::format("it is not a readable SQLite database ({})", e.what());
        return false;
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
        auto dash = rest.find('-');
        long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
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

/// The figures kvcat works out for a row beside the ones it states.
struct DerivedFigures {
    std::optional<Rational> gqa_baseline;
    std::optional<Rational> mha_baseline;
    std::optional<Rational> weight_bytes;
    std::optional<Rational> roofline_tps;
};

DerivedFigures derive_figures(const RecordSet& set, const Model& m, const KvRow& k, const Rational& at_context) {
    DerivedFigures d;
    auto dtype = find_cache_dtype(k.kv_cache_dtype);
    if (!dtype) return d;
    Rational bpe = dtype->bytes_per_element();
    try {
        d.gqa_baseline = all_layers_gqa_bytes(m, bpe);
        d.mha_baseline = all_layers_mha_bytes(m, bpe);
        auto quant = k.weight_quant ? find_weight_quant(*k.weight_quant) : std::nullopt;
        if (quant && m.total_params_b_exact) d.weight_bytes = resident_weight_bytes(m, *quant);
        const Accelerator* accelerator = rules::accelerator_of(set, k);
        if (quant && accelerator) d.roofline_tps = decode_roofline(m, *accelerator, *quant, at_context).ceiling_tps;
    } catch (const std::exception&) {
        // A figure that cannot be worked out exactly stays NULL rather than approximate.
    }
    return d;
}

void insert_records(SQLite::Database& db, const RecordSet& set, BuildStats& stats) {
    SQLite::Statement model_insert(db,
        "INSERT INTO models VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22)");
    SQLite::Statement accel_insert(db, "INSERT INTO accelerators VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
    SQLite::Statement kv_insert(db,
        "INSERT INTO kv_efficiency VALUES "
        "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26,?27,?28,"
        "?29,?30,?31)");
    SQLite::Statement source_insert(db, "INSERT INTO sources VALUES (?1,?2,?3,?4,?5,?6)");

    for (const auto& r : set.records()) {
        if (r.model) {
            const Model& m = *r.model;
            std::string ignored;
            auto layers = kv_layer_count(m, &ignored);
            model_insert.reset();
            model_insert.clearBindings();
            model_insert.bind(1, r.id);
            model_insert.bind(2, m.name);
            model_insert.bind(3, m.config_source);
            model_insert.bind(4, m.config_verified ? 1 : 0);
            bind_optional(model_insert, 5, m.total_params_b);
            bind_optional(model_insert, 6, m.active_params_b);
            bind_optional(model_insert, 7, m.native_context);
            bind_optional(model_insert, 8, m.num_layers);
            model_insert.bind(9, m.attention_variant);
            bind_optional(model_insert, 10, m.attention_heads);
            bind_optional(model_insert, 11, m.kv_heads);
            bind_optional(model_insert, 12, m.head_dim);
            model_insert.bind(13, static_cast<std::int64_t>(layers.count));
            bind_optional(model_insert, 14, m.mla ? std::optional<std::int64_t>(m.mla->kv_lora_rank) : std::nullopt);
            bind_optional(model_insert, 15, m.mla ? std::optional<std::int64_t>(m.mla->qk_rope_head_dim) : std::nullopt);
            bind_optional(model_insert, 16, m.sliding ? std::optional<std::int64_t>(m.sliding->window) : std::nullopt);
            bind_optional(model_insert, 17, m.sliding ? std::optional<std::int64_t>(m.sliding->layers) : std::nullopt);
            if (m.linear) {
                model_insert.bind(18, m.linear->kind);
                model_insert.bind(19, static_cast<std::int64_t>(m.linear->layers));
            }
            bind_rational(model_insert, 20, fixed_state_bytes(m));
            bind_text_or_null(model_insert, 21, r.node("notes") ? r.node("notes")->value : "");
            model_insert.bind(22, r.file);
            model_insert.exec();
            ++stats.models;
        } else if (r.accelerator) {
            const Accelerator& a = *r.accelerator;
            accel_insert.reset();
            accel_insert.clearBindings();
            accel_insert.bind(1, r.id);
            accel_insert.bind(2, a.vendor);
            accel_insert.bind(3, a.name);
            bind_optional(accel_insert, 4, a.memory_gb);
            accel_insert.bind(5, a.memory_type);
            bind_optional(accel_insert, 6, a.memory_bus_bits);
            bind_optional(accel_insert, 7, a.memory_bandwidth_gb_s);
            bind_text_or_null(accel_insert, 8, r.node("notes") ? r.node("notes")->value : "");
            accel_insert.bind(9, r.file);
            accel_insert.exec();
            ++stats.accelerators;
        }
    }
    // Rows after models, so every reference exists when it is written.
    for (const auto& r : set.records()) {
        if (!r.kv) continue;
        const KvRow& k = *r.kv;
        const Record* model_record = set.find(k.model);
        if (!model_record || !model_record->model || !k.kv_bytes_per_token || !k.basis.bytes_per_element ||
            !k.context_length) {
            // build_catalog is only called on records that lint clean; refuse anything else whole.
            throw CatalogError(fmt::format("{}: the record is incomplete or names no model; lint it first", r.file));
        }
        const Model& m = *model_record->model;
        Rational per_token = *k.kv_bytes_per_token;
        Rational bpe = *k.basis.bytes_per_element;
        Rational at_context = kv_bytes_at_context(m, per_token, *k.context_length, bpe);
        kv_insert.reset();
        kv_insert.clearBindings();
        kv_insert.bind(1, r.id);
        kv_insert.bind(2, k.model);
        bind_optional(kv_insert, 3, k.accelerator);
        kv_insert.bind(4, k.engine);
        bind_optional(kv_insert, 5, k.engine_version);
        kv_insert.bind(6, k.kv_cache_dtype);
        bind_optional(kv_insert, 7, k.weight_quant);
        kv_insert.bind(8, k.attention_variant);
        kv_insert.bind(9, static_cast<std::int64_t>(*k.context_length));
        bind_rational(kv_insert, 10, per_token);
        kv_insert.bind(11, per_token.to_string());
        kv_insert.bind(12, bpe.to_string());
        kv_insert.bind(13, k.basis.statement);
        bind_rational(kv_insert, 14, at_context);
        bind_rational(kv_insert, 15, fixed_state_bytes(m));
        DerivedFigures derived = derive_figures(set, m, k, at_context);
        bind_rational_or_null(kv_insert, 16, derived.gqa_baseline);
        bind_rational_or_null(kv_insert, 17, derived.mha_baseline);
        bind_ratio(kv_insert, 18, derived.gqa_baseline, per_token);
        bind_ratio(kv_insert, 19, derived.mha_baseline, per_token);
        bind_rational_or_null(kv_insert, 20, derived.weight_bytes);
        bind_rational_or_null(kv_insert, 21, derived.roofline_tps);
        if (derived.roofline_tps && k.measured_tps_at_ctx_exact && !derived.roofline_tps->is_zero()) {
            kv_insert.bind(22, (*k.measured_tps_at_ctx_exact / *derived.roofline_tps).to_double());
        }
        bind_optional(kv_insert, 23, k.measured_tps_at_ctx);
        bind_optional(kv_insert, 24, k.measured_ttft_ms_at_ctx);
        bind_optional(kv_insert, 25, k.provenance);
        bind_optional(kv_insert, 26, k.measured_on_model);
        bind_optional(kv_insert, 27, k.context_extension);
        bind_optional(kv_insert, 28, k.offload);
        kv_insert.bind(29, k.methodology);
        kv_insert.bind(30, k.notes);
        kv_insert.bind(31, r.file);
        kv_insert.exec();
        ++stats.rows;
    }
    for (const auto& r : set.records()) {
        int position = 0;
        for (const auto& s : r.sources) {
            source_insert.reset();
            source_insert.clearBindings();
            source_insert.bind(1, r.id);
            source_insert.bind(2, position++);
            source_insert.bind(3, s.name);
            bind_text_or_null(source_insert, 4, s.detail);
            bind_text_or_null(source_insert, 5, s.url);
            bind_text_or_null(source_insert, 6, s.date);
            source_insert.exec();
        }
    }
    SQLite::Statement column_insert(db, "INSERT INTO column_info VALUES (?1,?2,?3,?4,?5)");
    for (const auto& c : kColumns) {
        column_insert.reset();
        column_insert.bind(1, std::string(c.name));
        column_insert.bind(2, std::string(c.type));
        column_insert.bind(3, std::string(c.unit));
        column_insert.bind(4, c.derived ? 1 : 0);
        column_insert.bind(5, std::string(c.description));
        column_insert.exec();
    }
}

int authorize(void*, int action, const char* arg1, const char* arg2, const char*, const char*) {
    switch (action) {
        case SQLITE_SELECT:
        case SQLITE_READ:
        case SQLITE_RECURSIVE:
            return SQLITE_OK;
        case SQLITE_FUNCTION: {
            std::string_view name = arg2 ? arg2 : "";
            if (name == "load_extension" || name == "readfile" || name == "writefile" || name == "edit") {
                return SQLITE_DENY;
            }
            return SQLITE_OK;
        }
        case SQLITE_PRAGMA: {
            // Reading pragmas that describe the schema are allowed; none that sets a value.
            static constexpr std::array<std::string_view, 8> kReadable = {
                "table_info", "table_xinfo", "table_list", "index_list",
                "index_info", "index_xinfo", "user_version", "foreign_key_list"};
            std::string_view name = arg1 ? arg1 : "";
            bool readable = std::find(kReadable.begin(), kReadable.end(), name) != kReadable.end();
            bool sets_value = arg2 != nullptr && name == "user_version";
            return (readable && !sets_value) ? SQLITE_OK : SQLITE_DENY;
        }
        default:
            return SQLITE_DENY;
    }
}

struct Deadline {
    std::chrono::steady_clock::time_point at;
};

int progress(void* data) {
    auto* deadline = static_cast<Deadline*>(data);
    return std::chrono::steady_clock::now() > deadline->at ? 1 : 0;
}

bool only_whitespace_or_comments(const char* tail) {
    std::string_view rest = tail ? tail : "";
    std::size_t i = 0;
    while (i < rest.size()) {
        char c = rest[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';') {
            ++i;
        } else if (rest.substr(i, 2) == "--") {
            auto nl = rest.find('\n', i);
            i = nl == std::string_view::npos ? rest.size() : nl + 1;
        } else if (rest.substr(i, 2) == "/*") {
            auto end = rest.find("*/", i + 2);
            i = end == std::string_view::npos ? rest.size() : end + 2;
        } else {
            return false;
        }
    }
    return true;
}

}  // namespace

std::span<const ColumnInfo> kv_row_columns() { return kColumns; }

const ColumnInfo* find_column(std::string_view name) {
    for (const auto& c : kColumns) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

std::span<const std::string_view> default_query_columns() { return kDefaultColumns; }

BuildStats build_catalog(const RecordSet& records, const fs::path& db_path) {
    std::error_code ec;
    if (fs::exists(db_path, ec)) {
        int version = 0;
        std::string why;
        if (!is_kvcat_catalog(db_path, &version, &why)) {
            throw CatalogError(fmt::format("{} exists and {}; refusing to replace it (remove it or pass --db)",
                                           db_path.string(), why));
        }
    }
    remove_stale_temporaries(db_path);
    fs::path tmp = db_path;
    tmp += fmt::format(".tmp-{}-{}", ::getpid(),
                       std::chrono::steady_clock::now().time_since_epoch().count());
    BuildStats stats;
    try {
        {
            SQLite::Database db(tmp.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            // The file is private until the rename, so no journal is needed: a failure discards it.
            db.exec("PRAGMA journal_mode = OFF");
            db.exec("PRAGMA synchronous = OFF");
            db.exec("PRAGMA foreign_keys = ON");
            SQLite::Transaction transaction(db);
            db.exec(kCatalogSql);
            insert_records(db, records, stats);
            db.exec(fmt::format("PRAGMA user_version = {}", kCatalogSchemaVersion));
            transaction.commit();
        }
        fsync_path(tmp, false);
        fs::rename(tmp, db_path);
        fsync_path(db_path.parent_path().empty() ? fs::path(".") : db_path.parent_path(), true);
    } catch (...) {
        std::error_code rec;
        fs::remove(tmp, rec);
        throw;
    }
    return stats;
}

std::optional<std::string> catalog_staleness(const fs::path& db_path, const fs::path& records_root) {
    std::error_code ec;
    if (!fs::exists(db_path, ec)) {
        return fmt::format("{} does not exist yet", db_path.string());
    }
    int version = 0;
    std::string why;
    if (!is_kvcat_catalog(db_path, &version, &why)) {
        throw CatalogError(fmt::format("{}: {}; refusing to use or replace it", db_path.string(), why));
    }
    if (version != kCatalogSchemaVersion) {
        return fmt::format("{} has schema version {}; this kvcat writes version {}", db_path.string(), version,
                           kCatalogSchemaVersion);
    }
    auto db_time = fs::last_write_time(db_path, ec);
    if (ec) return fmt::format("cannot read the time of {}", db_path.string());
    auto newest = fs::last_write_time(records_root, ec);
    fs::path newest_path = records_root;
    for (fs::recursive_directory_iterator it(records_root, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        std::error_code tec;
        auto t = it->last_write_time(tec);
        if (!tec && t > newest) {
            newest = t;
            newest_path = it->path();
        }
    }
    if (newest > db_time) {
        return fmt::format("{} is newer than the catalog", newest_path.string());
    }
    return std::nullopt;
}

Table run_read_only(const fs::path& db_path, const std::string& sql, const std::vector<Cell>& parameters,
                    const QueryLimits& limits) {
    std::error_code ec;
    if (!fs::exists(db_path, ec)) {
        throw CatalogError(fmt::format("{}: no catalog here; run 'kvcat build' first", db_path.string()));
    }
    std::unique_ptr<SQLite::Database> db;
    try {
        db = std::make_unique<SQLite::Database>(db_path.string(), SQLite::OPEN_READONLY);
    } catch (const std::exception& e) {
        throw CatalogError(fmt::format("{}: cannot open the catalog: {}", db_path.string(), e.what()));
    }
    sqlite3* raw = db->getHandle();
    sqlite3_db_config(raw, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_exec(raw, "PRAGMA query_only = ON", nullptr, nullptr, nullptr);
    sqlite3_set_authorizer(raw, authorize, nullptr);
    Deadline deadline;
    if (limits.timeout) {
        deadline.at = std::chrono::steady_clock::now() + *limits.timeout;
        sqlite3_progress_handler(raw, 1000, progress, &deadline);
    }

    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v2(raw, sql.c_str(), static_cast<int>(sql.size()), &stmt, &tail);
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> guard(stmt, sqlite3_finalize);
    if (rc == SQLITE_AUTH || (rc != SQLITE_OK && sqlite3_errcode(raw) == SQLITE_AUTH)) {
        throw CatalogError(
            "the catalog is read-only here: only SELECT (and schema-reading PRAGMAs) may run; writes, ATTACH, "
            "load_extension and pragmas that change settings are refused");
    }
    if (rc != SQLITE_OK) {
        throw CatalogError(fmt::format("SQL error: {}", sqlite3_errmsg(raw)));
    }
    if (!stmt) {
        throw CatalogError("no SQL statement given");
    }
    if (!only_whitespace_or_comments(tail)) {
        throw CatalogError("one statement at a time: remove what follows the first ';'");
    }
    if (!sqlite3_stmt_readonly(stmt)) {
        throw CatalogError("the catalog is read-only here: only statements that read may run");
    }
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        int index = static_cast<int>(i) + 1;
        const Cell& p = parameters[i];
        if (std::holds_alternative<std::monostate>(p)) {
            sqlite3_bind_null(stmt, index);
        } else if (auto* iv = std::get_if<std::int64_t>(&p)) {
            sqlite3_bind_int64(stmt, index, *iv);
        } else if (auto* dv = std::get_if<double>(&p)) {
            sqlite3_bind_double(stmt, index, *dv);
        } else {
            const auto& s = std::get<std::string>(p);
            sqlite3_bind_text(stmt, index, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
        }
    }
    Table table;
    int columns = sqlite3_column_count(stmt);
    for (int c = 0; c < columns; ++c) {
        const char* name = sqlite3_column_name(stmt, c);
        table.columns.emplace_back(name ? name : "");
    }
    while (true) {
        rc = sqlite3_step(stmt);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) {
            if (rc == SQLITE_INTERRUPT) {
                throw CatalogError(fmt::format("the query ran past its time limit of {} ms",
                                               limits.timeout ? limits.timeout->count() : 0));
            }
            throw CatalogError(fmt::format("SQL error: {}", sqlite3_errmsg(raw)));
        }
        std::vector<Cell> row;
        row.reserve(static_cast<std::size_t>(columns));
        for (int c = 0; c < columns; ++c) {
            switch (sqlite3_column_type(stmt, c)) {
                case SQLITE_NULL: row.emplace_back(std::monostate{}); break;
                case SQLITE_INTEGER: row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(stmt, c))); break;
                case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(stmt, c)); break;
                default: {
                    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
                    int bytes = sqlite3_column_bytes(stmt, c);
                    row.emplace_back(std::string(text ? text : "", static_cast<std::size_t>(bytes)));
                }
            }
        }
        table.rows.push_back(std::move(row));
    }
    return table;
}

}  // namespace kvcat
