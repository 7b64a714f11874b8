#include "catalog/catalog_writer.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <span>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "catalog/build_plan.h"
#include "catalog/catalog_file.h"
#include "catalog/catalog_seal.h"
#include "catalog_sql.h"
#include "check/rules/rules.h"
#include "engines/allocation_check.h"
#include "load/point_meaning.h"
#include "load/records_root.h"
#include "model/kv_math.h"
#include "model/physics.h"
#include "support/bounded_read.h"
#include "support/content_hash.h"
#include "support/replace_file.h"
#include "vocab/dtype.h"
#include "vocab/dtype_spelling.h"
#include "vocab/vocabulary.h"
#include "vocab/weight_quant.h"

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

bool pid_alive(long pid) {
    return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

/// Removes temporary files left by builds that were killed: only regular files whose name is
/// exactly the form this writer makes (own_temporary_pid), never a folder, a link or a
/// look-alike such as `kvcat.db.tmp-notes`.
void remove_stale_temporaries(const fs::path& db_path) {
    fs::path dir = db_path.parent_path().empty() ? fs::path(".") : db_path.parent_path();
    std::string prefix = db_path.filename().string() + ".tmp-";
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        long pid = own_temporary_pid(name, prefix);
        if (pid == 0) continue;
        std::error_code sec;
        if (!it->is_regular_file(sec) || it->is_symlink(sec)) continue;
        if (pid_alive(pid) && pid != static_cast<long>(::getpid())) continue;  // another build is running
        std::error_code rec;
        fs::remove(it->path(), rec);
        spdlog::debug("removed a leftover temporary file {}", it->path().string());
    }
}

/// Appends the bytes of `from`, a regular file, to `into`. Throws CatalogError.
void copy_into(ReplacementFile& into, const fs::path& from) {
    int in = ::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0) throw CatalogError(fmt::format("cannot read {}: {}", from.string(), std::strerror(errno)));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{in};
    struct stat st {};
    if (::fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
        throw CatalogError(fmt::format("{} is not a regular file", from.string()));
    }
    try {
        into.append_file(in);
    } catch (const ReplaceError& e) {
        throw CatalogError(e.what());
    }
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
            d.roofline_tps = batch_roofline(*accelerator, weights->active, at_context, fixed_state_bytes(m, k),
                                            point.concurrency, k.gpus)
                                 .ceiling_tps;
        }
    } catch (const std::exception&) {
        // A figure that cannot be worked out exactly stays NULL rather than approximate.
    }
    return d;
}

/// A table the writer fills: its columns in the order catalog.sql declares them. An insert
/// names every column and has a parameter per column, `:name`; a value is bound through
/// `table["name"]`, which finds the parameter at compile time, so a misspelt column does
/// not compile, and the static_asserts below hold each list to the schema.
template <std::size_t N>
struct TableColumns {
    std::string_view table;
    std::array<std::string_view, N> columns;

    /// The 1-based parameter of `column` in insert_sql().
    consteval int operator[](std::string_view column) const {
        for (std::size_t i = 0; i < N; ++i) {
            if (columns[i] == column) return static_cast<int>(i) + 1;
        }
        throw "no such column in this table";  // evaluated at compile time: an error there
    }

    /// INSERT INTO table ("a", "b") VALUES (:a, :b)
    std::string insert_sql(std::string_view verb = "INSERT") const {
        std::string names;
        std::string params;
        for (std::size_t i = 0; i < N; ++i) {
            names += fmt::format("{}\"{}\"", i ? ", " : "", columns[i]);
            params += fmt::format("{}:{}", i ? ", " : "", columns[i]);
        }
        return fmt::format("{} INTO {} ({}) VALUES ({})", verb, table, names, params);
    }
};

template <std::size_t N>
consteval TableColumns<N> table_columns(std::string_view table, const std::string_view (&columns)[N]) {
    TableColumns<N> out{table, {}};
    for (std::size_t i = 0; i < N; ++i) out.columns[i] = columns[i];
    return out;
}

constexpr auto kModels = table_columns("models", {"id",
                                                  "name",
                                                  "config_source",
                                                  "config_verified",
                                                  "total_params_b",
                                                  "active_params_b",
                                                  "native_context",
                                                  "num_layers",
                                                  "attention_variant",
                                                  "attention_heads",
                                                  "kv_heads",
                                                  "head_dim",
                                                  "kv_layers",
                                                  "kv_lora_rank",
                                                  "qk_rope_head_dim",
                                                  "indexer_bytes",
                                                  "sliding_window",
                                                  "sliding_layers",
                                                  "linear_kind",
                                                  "linear_layers",
                                                  "fixed_state_bytes",
                                                  "notes",
                                                  "file"});

constexpr auto kAccelerators = table_columns(
    "accelerators",
    {"id", "vendor", "name", "memory_gb", "memory_type", "memory_bus_bits", "memory_bandwidth_gb_s", "notes", "file"});

constexpr auto kKvEfficiency = table_columns("kv_efficiency", {"id",
                                                               "record_id",
                                                               "model",
                                                               "accelerator",
                                                               "accelerator_named",
                                                               "engine",
                                                               "engine_version",
                                                               "kv_cache_dtype",
                                                               "v_cache_dtype",
                                                               "weight_quant",
                                                               "attention_variant",
                                                               "context_length",
                                                               "kv_bytes_per_token",
                                                               "kv_bytes_per_token_exact",
                                                               "bytes_per_element",
                                                               "basis_statement",
                                                               "kv_bytes_at_context",
                                                               "fixed_state_bytes",
                                                               "gqa_baseline_bytes_per_token",
                                                               "mha_baseline_bytes_per_token",
                                                               "gqa_reduction",
                                                               "mha_reduction",
                                                               "weight_bytes",
                                                               "weight_bytes_source",
                                                               "roofline_tps",
                                                               "roofline_fraction",
                                                               "measured_tps_at_ctx",
                                                               "measured_ttft_ms_at_ctx",
                                                               "measured_prefill_tps_at_ctx",
                                                               "measured_total_tps_at_ctx",
                                                               "concurrency",
                                                               "prompt_tokens",
                                                               "gen_tokens",
                                                               "tps_stddev",
                                                               "prefill_tps_stddev",
                                                               "provenance",
                                                               "measured_on_model",
                                                               "context_extension",
                                                               "offload",
                                                               "gpus",
                                                               "parallelism",
                                                               "speculative_decoding",
                                                               "throughput_side",
                                                               "prefix_cached",
                                                               "warm",
                                                               "cached_prefix_ttft_ms",
                                                               "cached_prefix_prefill_tps",
                                                               "derived_tps_at_ctx",
                                                               "derived_ttft_ms_at_ctx",
                                                               "derived_prefill_tps_at_ctx",
                                                               "derived_total_tps_at_ctx",
                                                               "written_kv_cache_dtype",
                                                               "methodology",
                                                               "notes",
                                                               "file"});

constexpr auto kQuality = table_columns(
    "quality", {"record_id", "position", "benchmark", "metric", "value", "unit", "higher_is_better", "comparison",
                "baseline_kv_cache_dtype", "baseline_value", "context_length", "recovery_percent", "file"});

constexpr auto kEngines = table_columns("engines", {"name", "upstream", "description"});

constexpr auto kSources = table_columns("sources", {"record_id", "position", "name", "detail", "url", "date"});

constexpr auto kColumnInfo = table_columns("column_info", {"name", "type", "unit", "derived", "description"});

constexpr auto kAllocations = table_columns(
    "allocations", {"id", "model", "engine", "engine_version", "kv_cache_dtype", "v_cache_dtype", "context", "seqs",
                    "tokens", "tensor_parallel", "printed", "computed", "parts", "log_lines", "url", "notes", "file"});

constexpr auto kFiles =
    table_columns("files", {"path", "id", "kind", "size", "mtime_ns", "hash", "id_line", "id_column"});

constexpr auto kLintFindings =
    table_columns("lint_findings", {"file", "line", "column", "severity", "rule", "message", "stated", "computed"});

constexpr auto kBuildMeta = table_columns("build_meta", {"key", "value"});

/// The body of `CREATE TABLE table (...)` in catalog.sql, between its parentheses.
constexpr std::string_view schema_table_body(std::string_view sql, std::string_view table) {
    constexpr std::string_view head = "CREATE TABLE ";
    for (auto at = sql.find(head); at != std::string_view::npos; at = sql.find(head, at + 1)) {
        std::string_view rest = sql.substr(at + head.size());
        if (rest.starts_with(table) && rest.substr(table.size()).starts_with(" (")) {
            rest = rest.substr(table.size() + 2);
            return rest.substr(0, rest.find("\n)"));
        }
    }
    return {};
}

/// True when catalog.sql declares exactly these columns for the table, in this order: a
/// column added, dropped or moved in the schema stops the build until the writer follows.
template <std::size_t N>
consteval bool matches_schema(const TableColumns<N>& t) {
    std::string_view body = schema_table_body(kCatalogSql, t.table);
    if (body.empty()) return false;
    std::size_t next = 0;
    while (!body.empty()) {
        std::size_t eol = body.find('\n');
        std::string_view line = body.substr(0, eol);
        body = eol == std::string_view::npos ? std::string_view{} : body.substr(eol + 1);
        line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
        if (line.empty() || line.starts_with("--")) continue;
        std::string_view word = line.substr(0, line.find_first_of(" ,"));
        if (word == "PRIMARY" || word == "UNIQUE" || word == "FOREIGN" || word == "CHECK" || word == "CONSTRAINT") {
            continue;  // a table constraint, not a column
        }
        if (word.size() >= 2 && word.front() == '"' && word.back() == '"') word = word.substr(1, word.size() - 2);
        if (next == N || t.columns[next] != word) return false;
        ++next;
    }
    return next == N;
}

static_assert(matches_schema(kModels), "models: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kAccelerators), "accelerators: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kKvEfficiency), "kv_efficiency: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kQuality), "quality: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kEngines), "engines: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kSources), "sources: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kColumnInfo), "column_info: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kAllocations), "allocations: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kFiles), "files: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kLintFindings), "lint_findings: the writer's columns differ from catalog.sql");
static_assert(matches_schema(kBuildMeta), "build_meta: the writer's columns differ from catalog.sql");

template <typename T>
void bind_at(SQLite::Statement& st, int index, const T& value) {
    if constexpr (std::is_convertible_v<T, std::string_view> && !std::is_same_v<T, std::string>) {
        st.bind(index, std::string(value));
    } else {
        st.bind(index, value);
    }
}

void insert_quality(SQLite::Statement& st, const Record& r) {
    constexpr const auto& t = kQuality;
    int position = 0;
    for (const auto& q : r.kv->quality) {
        st.reset();
        st.clearBindings();
        st.bind(t["record_id"], r.id);
        st.bind(t["position"], position++);
        st.bind(t["benchmark"], q.benchmark);
        st.bind(t["metric"], q.metric);
        bind_optional(st, t["value"], q.value);
        st.bind(t["unit"], q.unit);
        st.bind(t["higher_is_better"], q.higher_is_better.value_or(false) ? 1 : 0);
        st.bind(t["comparison"], std::string(q.comparison()));
        if (!q.baseline_kv_cache_dtype.empty()) {
            st.bind(t["baseline_kv_cache_dtype"], catalog_dtype(r.kv->engine, q.baseline_kv_cache_dtype));
        }
        bind_optional(st, t["baseline_value"], q.baseline_value);
        bind_optional(st, t["context_length"], q.context_length);
        if (q.recovery_percent) {
            st.bind(t["recovery_percent"], q.recovery_percent->to_double());
        } else if (q.value_exact && q.baseline_value_exact && !q.baseline_value_exact->is_zero()) {
            st.bind(t["recovery_percent"], (*q.value_exact * Rational(100) / *q.baseline_value_exact).to_double());
        }
        st.bind(t["file"], r.file);
        st.exec();
    }
}

std::string notes_of(const Record& r) {
    return r.node("notes") ? r.node("notes")->value : "";
}

void insert_model(SQLite::Statement& st, const Record& r) {
    constexpr const auto& t = kModels;
    const Model& m = *r.model;
    std::string ignored;
    auto layers = kv_layer_count(m, &ignored);
    st.reset();
    st.clearBindings();
    st.bind(t["id"], r.id);
    st.bind(t["name"], m.name);
    st.bind(t["config_source"], m.config_source);
    st.bind(t["config_verified"], m.config_verified ? 1 : 0);
    bind_optional(st, t["total_params_b"], m.total_params_b);
    bind_optional(st, t["active_params_b"], m.active_params_b);
    bind_optional(st, t["native_context"], m.native_context);
    bind_optional(st, t["num_layers"], m.num_layers);
    st.bind(t["attention_variant"], m.attention_variant);
    bind_optional(st, t["attention_heads"], m.attention_heads);
    bind_optional(st, t["kv_heads"], m.kv_heads);
    bind_optional(st, t["head_dim"], m.head_dim);
    st.bind(t["kv_layers"], static_cast<std::int64_t>(layers.count));
    bind_optional(st, t["kv_lora_rank"], m.mla ? std::optional<std::int64_t>(m.mla->kv_lora_rank) : std::nullopt);
    bind_optional(st, t["qk_rope_head_dim"],
                  m.mla ? std::optional<std::int64_t>(m.mla->qk_rope_head_dim) : std::nullopt);
    bind_optional(st, t["indexer_bytes"],
                  m.indexer ? std::optional<std::int64_t>(indexer_bytes_per_token_layer(*m.indexer)) : std::nullopt);
    bind_optional(st, t["sliding_window"], m.sliding ? std::optional<std::int64_t>(m.sliding->window) : std::nullopt);
    bind_optional(st, t["sliding_layers"], m.sliding ? std::optional<std::int64_t>(m.sliding->layers) : std::nullopt);
    if (m.linear) {
        st.bind(t["linear_kind"], std::string(name_of(m.linear->kind)));
        st.bind(t["linear_layers"], static_cast<std::int64_t>(m.linear->layers));
    }
    bind_rational(st, t["fixed_state_bytes"], fixed_state_bytes(m));
    bind_text_or_null(st, t["notes"], notes_of(r));
    st.bind(t["file"], r.file);
    st.exec();
}

void insert_accelerator(SQLite::Statement& st, const Record& r) {
    constexpr const auto& t = kAccelerators;
    const Accelerator& a = *r.accelerator;
    st.reset();
    st.clearBindings();
    st.bind(t["id"], r.id);
    st.bind(t["vendor"], a.vendor);
    st.bind(t["name"], a.name);
    bind_optional(st, t["memory_gb"], a.memory_gb);
    st.bind(t["memory_type"], a.memory_type);
    bind_optional(st, t["memory_bus_bits"], a.memory_bus_bits);
    bind_optional(st, t["memory_bandwidth_gb_s"], a.memory_bandwidth_gb_s);
    bind_text_or_null(st, t["notes"], notes_of(r));
    st.bind(t["file"], r.file);
    st.exec();
}

void insert_sources(SQLite::Statement& st, const Record& r) {
    constexpr const auto& t = kSources;
    int position = 0;
    for (const auto& s : r.sources) {
        st.reset();
        st.clearBindings();
        st.bind(t["record_id"], r.id);
        st.bind(t["position"], position++);
        st.bind(t["name"], s.name);
        bind_text_or_null(st, t["detail"], s.detail);
        bind_text_or_null(st, t["url"], s.url);
        bind_text_or_null(st, t["date"], s.date);
        st.exec();
    }
}

/// A YAML tree as JSON, every scalar kept as its text: a printed "2176.00" stays that.
nlohmann::json yaml_as_json(const YamlNode& n) {
    switch (n.kind) {
        case YamlNode::Kind::scalar:
            return n.value;
        case YamlNode::Kind::sequence: {
            nlohmann::json a = nlohmann::json::array();
            for (const auto& item : n.items) a.push_back(yaml_as_json(item));
            return a;
        }
        case YamlNode::Kind::mapping: {
            nlohmann::json o = nlohmann::json::object();
            for (const auto& [key, value] : n.entries) o[key.value] = yaml_as_json(value);
            return o;
        }
        case YamlNode::Kind::null:
            break;
    }
    return nullptr;
}

std::string scalar_or_empty(const Record& r, std::string_view key) {
    const YamlNode* n = r.node(key);
    return n && n->is_scalar() ? n->value : std::string();
}

void bind_integer_or_null(SQLite::Statement& st, int index, std::optional<std::int64_t> value) {
    if (value) st.bind(index, *value);
}

/// The columns a reader compares allocation records by, from the record's settings and the
/// engine-allocation rule's recomputation (allocation_check.h).
void bind_allocation_summary(SQLite::Statement& st, const Record& r, const RecordSet& refs) {
    constexpr const auto& t = kAllocations;
    const Record* model = refs.find(scalar_or_empty(r, "model"));
    if (!model || !model->model) return;  // a lint error: this build is not committed
    AllocationSummary a = summarise_allocation(r, check_allocation(r, *model->model));
    bind_text_or_null(st, t["kv_cache_dtype"], a.kv_cache_dtype);
    bind_text_or_null(st, t["v_cache_dtype"], a.v_cache_dtype);
    bind_integer_or_null(st, t["context"], a.context);
    bind_integer_or_null(st, t["seqs"], a.seqs);
    bind_integer_or_null(st, t["tokens"], a.tokens);
    bind_integer_or_null(st, t["tensor_parallel"], a.tensor_parallel);
    bind_text_or_null(st, t["printed"], a.printed);
    bind_text_or_null(st, t["computed"], a.computed);
}

void insert_allocation(SQLite::Statement& st, const Record& r, const RecordSet& refs) {
    constexpr const auto& t = kAllocations;
    st.reset();
    st.clearBindings();
    st.bind(t["id"], r.id);
    st.bind(t["model"], scalar_or_empty(r, "model"));
    st.bind(t["engine"], scalar_or_empty(r, "engine"));
    bind_text_or_null(st, t["engine_version"], scalar_or_empty(r, "engine_version"));
    bind_allocation_summary(st, r, refs);
    nlohmann::json parts = nlohmann::json::object();
    for (const char* part : {"kv_cache", "swa_cache", "recurrent", "vllm", "sglang"}) {
        if (const YamlNode* n = r.node(part); n && n->is_mapping()) parts[part] = yaml_as_json(*n);
    }
    st.bind(t["parts"], parts.dump());
    std::string lines;
    if (const YamlNode* n = r.node("log_lines"); n && n->is_sequence()) {
        for (const auto& item : n->items) lines += item.value + "\n";
    }
    st.bind(t["log_lines"], lines);
    bind_text_or_null(st, t["url"], scalar_or_empty(r, "url"));
    st.bind(t["notes"], scalar_or_empty(r, "notes"));
    st.bind(t["file"], r.file);
    st.exec();
}

}  // namespace

std::span<const WrittenTable> written_tables() {
    static const std::array<WrittenTable, 11> tables = {{
        {kModels.table, kModels.columns},
        {kAccelerators.table, kAccelerators.columns},
        {kKvEfficiency.table, kKvEfficiency.columns},
        {kQuality.table, kQuality.columns},
        {kEngines.table, kEngines.columns},
        {kSources.table, kSources.columns},
        {kColumnInfo.table, kColumnInfo.columns},
        {kAllocations.table, kAllocations.columns},
        {kFiles.table, kFiles.columns},
        {kLintFindings.table, kLintFindings.columns},
        {kBuildMeta.table, kBuildMeta.columns},
    }};
    return tables;
}

CatalogWriter::CatalogWriter(fs::path db_path, std::optional<fs::path> previous) : db_path_(std::move(db_path)) {
    require_replaceable_catalog_file(db_path_);
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
    try {
        file_ = std::make_unique<ReplacementFile>(db_path_, fmt::format(".tmp-{}-", ::getpid()));
    } catch (const ReplaceError& e) {
        throw CatalogError(e.what());
    }
    tmp_path_ = file_->path();
    try {
        // The file was created new and empty; an incremental build fills it with the previous
        // catalog's bytes and changes only what changed. SQLite opens that very name and no link,
        // without its own lock around every call: every use of the connection holds mutex_.
        if (previous) copy_into(*file_, *previous);
        db_ = std::make_unique<SQLite::Database>(tmp_path_.string(),
                                                 SQLite::OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX);
        // The file is private until the rename, so no journal is needed: a failure discards it.
        db_->exec("PRAGMA journal_mode = OFF");
        db_->exec("PRAGMA synchronous = OFF");
        if (!previous) {
            // Rows carry their record's methodology and notes, a few kilobytes each: at 16 KiB
            // a page holds them whole instead of chaining each onto overflow pages.
            db_->exec("PRAGMA page_size = 16384");
        }
        transaction_ = std::make_unique<SQLite::Transaction>(*db_);
        if (previous) {
            has_previous_ = true;
            clear_all_but_rows();
        } else {
            db_->exec(kCatalogSql);
        }
        row_insert_ = std::make_unique<SQLite::Statement>(*db_, kKvEfficiency.insert_sql());
        quality_insert_ = std::make_unique<SQLite::Statement>(*db_, kQuality.insert_sql());
        source_insert_ = std::make_unique<SQLite::Statement>(*db_, kSources.insert_sql());
        file_insert_ = std::make_unique<SQLite::Statement>(*db_, kFiles.insert_sql());
    } catch (...) {
        abandon();
        file_.reset();  // removes the new file
        throw;
    }
}

void CatalogWriter::clear_all_but_rows() {
    // What begin(), set_findings(), set_meta() and commit() write again in full: the records
    // every row refers to, and the build's own tables. Rows stay until copy_unchanged().
    const std::string row_kind(kind_name(RecordKind::kv_efficiency));
    SQLite::Statement sources(*db_, "DELETE FROM sources WHERE record_id IN (SELECT id FROM files WHERE kind != ?1)");
    sources.bind(1, row_kind);
    sources.exec();
    SQLite::Statement files(*db_, "DELETE FROM files WHERE kind != ?1");
    files.bind(1, row_kind);
    files.exec();
    for (const char* table :
         {"models", "accelerators", "allocations", "engines", "column_info", "lint_findings", "build_meta"}) {
        db_->exec(fmt::format("DELETE FROM {}", table));
    }
}

CatalogWriter::~CatalogWriter() {
    if (committed_) return;
    abandon();
    file_.reset();
}

void CatalogWriter::abandon() noexcept {
    // Statements first, then the transaction, then the connection: each needs the next.
    // Neither destructor throws. The transaction's rollback writes nothing worth keeping
    // (the journal is off), and the temporary file it was writing is removed next.
    row_insert_.reset();
    quality_insert_.reset();
    source_insert_.reset();
    file_insert_.reset();
    transaction_.reset();
    db_.reset();
}

void CatalogWriter::insert_file(const Record& r, RecordKind kind) {
    constexpr const auto& t = kFiles;
    auto stamp = r.source && r.source->stamp() ? r.source->stamp() : stamp_of(r.file);
    Position id_pos = r.where("id");
    SQLite::Statement& st = *file_insert_;
    st.reset();
    st.clearBindings();
    st.bind(t["path"], r.file);
    st.bind(t["id"], r.id);
    st.bind(t["kind"], std::string(kind_name(kind)));
    st.bind(t["size"], stamp ? stamp->size : std::int64_t{-1});  // -1 never matches: read again next time
    st.bind(t["mtime_ns"], stamp ? stamp->mtime_ns : std::int64_t{-1});
    st.bind(t["hash"], content_hash_hex(r.source ? r.source->content_hash() : 0));
    st.bind(t["id_line"], id_pos.line);
    st.bind(t["id_column"], id_pos.column);
    st.exec();
}

void CatalogWriter::begin(const RecordSet& refs) {
    std::lock_guard lock(mutex_);
    SQLite::Statement engine_insert(*db_, kEngines.insert_sql());
    for (const auto& e : engine_names()) {
        engine_insert.reset();
        engine_insert.clearBindings();
        engine_insert.bind(kEngines["name"], std::string(e.name));
        if (!e.upstream.empty()) engine_insert.bind(kEngines["upstream"], std::string(e.upstream));
        engine_insert.bind(kEngines["description"], std::string(e.what));
        engine_insert.exec();
    }
    SQLite::Statement model_insert(*db_, kModels.insert_sql());
    SQLite::Statement accel_insert(*db_, kAccelerators.insert_sql());
    SQLite::Statement allocation_insert(*db_, kAllocations.insert_sql());
    for (const auto& r : refs.records()) {
        if (r.model) {
            insert_model(model_insert, r);
            ++stats_.models;
        } else if (r.accelerator) {
            insert_accelerator(accel_insert, r);
            ++stats_.accelerators;
        } else if (r.kind == RecordKind::allocation && r.root) {
            insert_allocation(allocation_insert, r, refs);
            ++stats_.allocations;
            insert_file(r, r.kind);
            continue;  // its source is its url, in the row
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
        fixed = fixed_state_bytes(m, k);  // in the row's state dtypes when it states them
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
        constexpr const auto& t = kKvEfficiency;
        bind_at(st, t["id"], point_row_id(r.id, point));
        bind_at(st, t["record_id"], r.id);
        bind_at(st, t["model"], k.model);
        bind_optional(st, t["accelerator"], k.accelerator);
        bind_optional(st, t["accelerator_named"], k.accelerator_named);
        bind_at(st, t["engine"], k.engine);
        bind_optional(st, t["engine_version"], k.engine_version);
        bind_at(st, t["kv_cache_dtype"], catalog_dtype(k.engine, k.kv_cache_dtype));
        bind_at(st, t["written_kv_cache_dtype"], k.kv_cache_dtype);
        if (k.v_cache_dtype) bind_at(st, t["v_cache_dtype"], catalog_dtype(k.engine, *k.v_cache_dtype));
        bind_optional(st, t["weight_quant"], k.weight_quant);
        bind_at(st, t["attention_variant"], k.attention_variant);
        bind_at(st, t["context_length"], point.context_length);
        bind_rational(st, t["kv_bytes_per_token"], per_token);
        bind_at(st, t["kv_bytes_per_token_exact"], per_token.to_string());
        bind_at(st, t["bytes_per_element"], bpe.to_string());
        bind_rational(st, t["kv_bytes_at_context"], figures[i].at_context);
        bind_rational(st, t["fixed_state_bytes"], fixed);
        bind_rational_or_null(st, t["gqa_baseline_bytes_per_token"], derived.gqa_baseline);
        bind_rational_or_null(st, t["mha_baseline_bytes_per_token"], derived.mha_baseline);
        bind_ratio(st, t["gqa_reduction"], derived.gqa_baseline, per_token);
        bind_ratio(st, t["mha_reduction"], derived.mha_baseline, per_token);
        bind_rational_or_null(st, t["weight_bytes"], derived.weight_bytes);
        if (derived.weight_bytes) bind_at(st, t["weight_bytes_source"], k.weight_bytes ? "stated" : "derived");
        bind_rational_or_null(st, t["roofline_tps"], derived.roofline_tps);
        PointSpeeds speeds = point_speeds(k, point);
        if (derived.roofline_tps && point.tps_exact && !derived.roofline_tps->is_zero() && speeds.measured_tps) {
            bind_at(st, t["roofline_fraction"], (*point.tps_exact / *derived.roofline_tps).to_double());
        }
        bind_optional(st, t["measured_tps_at_ctx"], speeds.measured_tps);
        bind_optional(st, t["measured_ttft_ms_at_ctx"], speeds.measured_ttft_ms);
        bind_optional(st, t["measured_prefill_tps_at_ctx"], speeds.measured_prefill_tps);
        bind_optional(st, t["measured_total_tps_at_ctx"], speeds.measured_total_tps);
        bind_optional(st, t["cached_prefix_ttft_ms"], speeds.cached_prefix_ttft_ms);
        bind_optional(st, t["cached_prefix_prefill_tps"], speeds.cached_prefix_prefill_tps);
        bind_optional(st, t["derived_tps_at_ctx"], speeds.derived_tps);
        bind_optional(st, t["derived_ttft_ms_at_ctx"], speeds.derived_ttft_ms);
        bind_optional(st, t["derived_prefill_tps_at_ctx"], speeds.derived_prefill_tps);
        bind_optional(st, t["derived_total_tps_at_ctx"], speeds.derived_total_tps);
        if (k.gpus_stated || !k.unstated_gpus) bind_at(st, t["gpus"], k.gpus);
        bind_optional(st, t["parallelism"], parallelism_text(k));
        bind_optional(st, t["speculative_decoding"], speculative_text(k));
        bind_optional(st, t["throughput_side"], k.throughput_side);
        if (point.prefix_cached) bind_at(st, t["prefix_cached"], std::int64_t{*point.prefix_cached ? 1 : 0});
        if (point.warm) bind_at(st, t["warm"], std::int64_t{*point.warm ? 1 : 0});
        bind_at(st, t["concurrency"], point.concurrency);
        bind_optional(st, t["prompt_tokens"], point.prompt_tokens);
        bind_optional(st, t["gen_tokens"], point.gen_tokens);
        bind_optional(st, t["tps_stddev"], point.tps_stddev);
        bind_optional(st, t["prefill_tps_stddev"], point.prefill_tps_stddev);
        bind_optional(st, t["provenance"], k.provenance);
        bind_optional(st, t["measured_on_model"], k.measured_on_model);
        bind_optional(st, t["context_extension"], k.context_extension);
        bind_optional(st, t["offload"], k.offload);
        // The prose is most of a row's bytes: bound in place, not copied, and unbound as soon
        // as the row is written, so SQLite never holds a pointer past this record's life.
        st.bindNoCopy(t["basis_statement"], k.basis.statement);
        st.bindNoCopy(t["methodology"], k.methodology);
        st.bindNoCopy(t["notes"], k.notes);
        bind_at(st, t["file"], r.file);
        try {
            st.exec();
        } catch (...) {
            st.clearBindings();
            throw;
        }
        st.clearBindings();
        ++stats_.rows;
    }
    insert_quality(*quality_insert_, r);
    insert_sources(*source_insert_, r);
    insert_file(r, RecordKind::kv_efficiency);
}

void CatalogWriter::copy_unchanged(const BuildPlan& plan) {
    if (!has_previous_) return;
    std::lock_guard lock(mutex_);
    if (stats_.rows > 0) throw std::logic_error("copy_unchanged() must come before the first row");
    // The previous catalog's rows are already here: the plan says which files' rows go
    // (changed, removed, or naming a changed model) and which kept ones get today's stamps.
    SQLite::Statement drop_rows(*db_, "DELETE FROM kv_efficiency WHERE record_id = ?1");
    SQLite::Statement drop_quality(*db_, "DELETE FROM quality WHERE record_id = ?1");
    SQLite::Statement drop_sources(*db_, "DELETE FROM sources WHERE record_id = ?1");
    SQLite::Statement drop_file(*db_, "DELETE FROM files WHERE path = ?1");
    SQLite::Statement restamp(*db_, "UPDATE files SET size = ?2, mtime_ns = ?3 WHERE path = ?1");
    for (const auto& [path, id] : plan.dropped) {
        for (SQLite::Statement* st : {&drop_rows, &drop_quality, &drop_sources}) {
            st->reset();
            st->bind(1, id);
            st->exec();
        }
        drop_file.reset();
        drop_file.bind(1, path);
        drop_file.exec();
    }
    for (const auto& [path, stamp] : plan.restamped) {
        // Touched but unchanged: not hashed again next time.
        restamp.reset();
        restamp.bind(1, path);
        restamp.bind(2, stamp.size);
        restamp.bind(3, stamp.mtime_ns);
        restamp.exec();
    }
    auto copied = static_cast<std::size_t>(db_->execAndGet("SELECT count(*) FROM kv_efficiency").getInt64());
    stats_.rows += copied;
    stats_.rows_copied += copied;
}

void CatalogWriter::set_findings(const std::vector<Diagnostic>& warnings, const std::vector<Diagnostic>& ignored) {
    constexpr const auto& t = kLintFindings;
    std::lock_guard lock(mutex_);
    SQLite::Statement st(*db_, t.insert_sql());
    for (const auto* list : {&warnings, &ignored}) {
        for (const auto& d : *list) {
            if (d.severity == Severity::error) continue;  // a catalog is only written without errors
            st.reset();
            st.clearBindings();
            st.bind(t["file"], d.pos.file);
            st.bind(t["line"], d.pos.line);
            st.bind(t["column"], d.pos.column);
            st.bind(t["severity"], std::string(to_string(d.severity)));
            st.bind(t["rule"], d.rule);
            st.bind(t["message"], d.message);
            bind_optional(st, t["stated"], d.stated);
            bind_optional(st, t["computed"], d.computed);
            st.exec();
        }
    }
}

void CatalogWriter::set_meta(const std::string& key, const std::string& value) {
    constexpr const auto& t = kBuildMeta;
    std::lock_guard lock(mutex_);
    SQLite::Statement st(*db_, t.insert_sql("INSERT OR REPLACE"));
    st.bind(t["key"], key);
    st.bind(t["value"], value);
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
    built_from_ = resolved_root(records_root);
    set_meta("records_root", shown);
    set_meta(std::string(kMetaResolvedRoot), built_from_);
    set_meta(std::string(kMetaRecordSet), fingerprint.text());
}

BuildStats CatalogWriter::commit() {
    std::lock_guard lock(mutex_);
    {
        constexpr const auto& t = kColumnInfo;
        SQLite::Statement column_insert(*db_, t.insert_sql());
        for (const auto& c : kv_row_columns()) {
            column_insert.reset();
            column_insert.bind(t["name"], std::string(c.name));
            column_insert.bind(t["type"], std::string(c.type));
            column_insert.bind(t["unit"], std::string(c.unit));
            column_insert.bind(t["derived"], c.derived ? 1 : 0);
            column_insert.bind(t["description"], std::string(c.description));
            column_insert.exec();
        }
    }
    db_->exec(fmt::format("PRAGMA user_version = {}", kCatalogSchemaVersion));
    row_insert_.reset();
    quality_insert_.reset();
    source_insert_.reset();
    file_insert_.reset();
    transaction_->commit();
    transaction_.reset();
    db_.reset();
    try {
        file_->commit();  // sync, the replaced catalog's mode, rename, sync the folder
    } catch (const ReplaceError& e) {
        throw CatalogError(e.what());
    }
    committed_ = true;
    // Only a catalog built from one records root is sealed: only such a one is built again
    // incrementally. Without a seal the next build reads every record, which is safe.
    if (!built_from_.empty()) {
        if (auto why = seal_catalog(db_path_, built_from_)) {
            spdlog::debug("{}: no seal kept ({}); the next build reads every record", db_path_.string(), *why);
        }
    }
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

}  // namespace kvcat
