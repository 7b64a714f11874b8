#include "catalog/catalog.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "catalog/catalog_file.h"
#include "catalog_sql.h"
#include "check/rules/rules.h"
#include "load/records_root.h"
#include "model/kv_math.h"
#include "model/physics.h"
#include "vocab/dtype.h"
#include "vocab/weight_quant.h"

namespace kvcat {

namespace fs = std::filesystem;

namespace {

constexpr std::array kColumns = {
    ColumnInfo{"id", "text", "", false, "the row id: the record id, or <record id>@<context> for a point of a curve"},
    ColumnInfo{"record_id", "text", "", false, "the record the row comes from, kv-efficiency/NAME"},
    ColumnInfo{"model", "text", "", false, "the model record's id"},
    ColumnInfo{"model_name", "text", "", false, "the model's published name"},
    ColumnInfo{"accelerator", "text", "", false, "the accelerator record's id; empty when not tied to hardware"},
    ColumnInfo{"accelerator_name", "text", "", false, "the accelerator's product name"},
    ColumnInfo{"card", "text", "", false,
               "the card the run used: the accelerator's product name, else the card as the source names it "
               "(accelerator_named) when no one record applies"},
    ColumnInfo{"accelerator_named", "text", "", false,
               "the card as the source names it, when no one accelerator record applies (an edition or memory "
               "size left unsaid)"},
    ColumnInfo{"engine", "text", "", false, "the inference engine"},
    ColumnInfo{"engine_version", "text", "", false, "the engine's version or build, when published"},
    ColumnInfo{"kv_cache_dtype", "text", "", false, "the KV cache element type (K's, when V's differs)"},
    ColumnInfo{"v_cache_dtype", "text", "", false, "the V cache's element type when it differs from K's"},
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
               "resident weights: the record's weight_bytes, else derived from weight_quant; empty when neither "
               "is known"},
    ColumnInfo{"roofline_tps", "number", "tokens/s", true,
               "decode ceiling per request: bandwidth / (active weights + concurrency x (KV at context + fixed "
               "state))"},
    ColumnInfo{"roofline_fraction", "number", "ratio", true, "measured_tps_at_ctx / roofline_tps"},
    ColumnInfo{"measured_tps_at_ctx", "number", "tokens/s", false,
               "decode speed of one request at context_length; empty when the source did not report it"},
    ColumnInfo{"measured_ttft_ms_at_ctx", "number", "ms", false,
               "time to first token at context_length; empty when the source did not report it"},
    ColumnInfo{"measured_prefill_tps_at_ctx", "number", "tokens/s", false,
               "prompt-processing speed at context_length; empty when the source did not report it"},
    ColumnInfo{"measured_total_tps_at_ctx", "number", "tokens/s", false,
               "decode speed summed over the requests in flight (concurrency); empty when the source did not "
               "report it"},
    ColumnInfo{"concurrency", "integer", "requests", false, "requests in flight while measuring"},
    ColumnInfo{"prompt_tokens", "integer", "tokens", false, "the prompt length of the prefill test"},
    ColumnInfo{"gen_tokens", "integer", "tokens", false, "tokens generated in the decode test"},
    ColumnInfo{"tps_stddev", "number", "tokens/s", false, "standard deviation printed beside the decode speed"},
    ColumnInfo{"prefill_tps_stddev", "number", "tokens/s", false,
               "standard deviation printed beside the prefill speed"},
    ColumnInfo{"weight_bytes_source", "text", "", false, "stated (the record's weight_bytes) or derived"},
    ColumnInfo{"provenance", "text", "", false, "measured, third-party-measured, derived or joined"},
    ColumnInfo{"measured_on_model", "text", "", false, "the model the measurement was taken on, when another"},
    ColumnInfo{"context_extension", "text", "", false, "how a context above the native one was reached"},
    ColumnInfo{"offload", "text", "", false, "what was kept off the accelerator, when anything was"},
    ColumnInfo{"gpus", "integer", "cards", false,
               "cards of `accelerator` the run used; the roofline and memory figures count them all. NULL when the "
               "source does not say how many ran (the record's unstated.gpus); the figures then count one"},
    ColumnInfo{"parallelism", "text", "", false, "the split over the cards as stated: tensor 4, tensor 2 x pipeline 2"},
    ColumnInfo{"speculative_decoding", "text", "", false,
               "the speculative decoding used (its decode speeds count accepted tokens); off when the source says "
               "none; empty when unsaid"},
    ColumnInfo{"speculative", "text", "", true,
               "on when the row's speeds were taken with speculative decoding (a draft or MTP head: several tokens "
               "a step), off when the source says none, NULL when it does not say"},
    ColumnInfo{"throughput_side", "text", "", false,
               "server (the engine's own metric) or client (the benchmark's clock); empty when unsaid"},
    ColumnInfo{"prefix_cached", "integer", "", false,
               "1 when the prompt's prefix was cached (its TTFT is in cached_prefix_ttft_ms), 0 when the source "
               "says not; empty when unsaid"},
    ColumnInfo{"warm", "integer", "", false, "1 when measured after warm-up runs, 0 for a cold first run"},
    ColumnInfo{"cached_prefix_ttft_ms", "number", "ms", false,
               "time to first token with the prefix already cached: not a prefill of context_length, so kept out "
               "of measured_ttft_ms_at_ctx"},
    ColumnInfo{"cached_prefix_prefill_tps", "number", "tokens/s", false,
               "prompt speed over a cached prefix, kept out of measured_prefill_tps_at_ctx"},
    ColumnInfo{"derived_tps_at_ctx", "number", "tokens/s", false,
               "a derived record's decode speed (a fit, provenance derived), kept out of measured_tps_at_ctx"},
    ColumnInfo{"derived_ttft_ms_at_ctx", "number", "ms", false, "a derived record's time to first token"},
    ColumnInfo{"derived_prefill_tps_at_ctx", "number", "tokens/s", false, "a derived record's prefill speed"},
    ColumnInfo{"derived_total_tps_at_ctx", "number", "tokens/s", false,
               "a derived record's decode speed summed over the requests in flight"},
    ColumnInfo{"written_kv_cache_dtype", "text", "", false,
               "the cache dtype as the record (the engine) spells it; kv_cache_dtype is the catalog's name for it "
               "(vLLM's fp8 is fp8_e4m3)"},
    ColumnInfo{"total_params_b", "number", "billions", false, "the model's total parameters"},
    ColumnInfo{"active_params_b", "number", "billions", false, "the model's parameters active per token"},
    ColumnInfo{"memory_gb", "number", "GB", false, "the accelerator's memory, 10^9 bytes"},
    ColumnInfo{"memory_bandwidth_gb_s", "number", "GB/s", false, "the accelerator's memory bandwidth"},
    ColumnInfo{"file", "text", "", false, "the record file"},
};

// Worked out by `kvcat query --predicted` from the records after the catalog answers: never a
// column of the catalog, so never read as a measurement.
constexpr std::array kPredictedColumns = {
    ColumnInfo{"predicted_tps_at_ctx", "number", "tokens/s", true,
               "predicted, not measured: one request's decode speed at context_length as the rest of the catalog "
               "predicts it (kvcat predict); a row that measured its decode speed is predicted with that point "
               "left out. Shown by query --predicted, worked out from the records, not stored in the catalog"},
    ColumnInfo{"predicted_tps_low", "number", "tokens/s", true,
               "predicted: the low end of predicted_tps_at_ctx's 80% interval (query --predicted)"},
    ColumnInfo{"predicted_tps_high", "number", "tokens/s", true,
               "predicted: the high end of predicted_tps_at_ctx's 80% interval (query --predicted)"},
    ColumnInfo{"predicted_basis", "text", "", true,
               "how predicted_tps_at_ctx was reached: curve-inside, curve-outside, other-build, same-card, "
               "other-card or engine-efficiency (docs/prediction.md; query --predicted)"},
    ColumnInfo{"predicted_from", "text", "", true,
               "the records predicted_tps_at_ctx stood on, comma-separated; empty for engine-efficiency, an engine's "
               "median share over many (query --predicted)"},
};

/// What `kvcat query --predicted` shows unless asked for other columns.
constexpr std::array<std::string_view, 13> kDefaultPredictedView = {
    "id",
    "card",
    "gpus",
    "engine",
    "weight_quant",
    "kv_cache_dtype",
    "context_length",
    "concurrency",
    "measured_tps_at_ctx",
    "predicted_tps_at_ctx",
    "predicted_tps_low",
    "predicted_tps_high",
    "predicted_basis",
};

constexpr std::array<std::string_view, 17> kDefaultColumns = {
    "id",
    "model",
    "card",
    "gpus",
    "engine",
    "weight_quant",
    "kv_cache_dtype",
    "attention_variant",
    "context_length",
    "kv_bytes_per_token",
    "kv_bytes_at_context",
    "concurrency",  // the speeds after it are at this many requests in flight, not one
    "speculative",  // and with a draft model or MTP head when on: several tokens a step
    "measured_tps_at_ctx",
    "measured_prefill_tps_at_ctx",
    "measured_ttft_ms_at_ctx",
    "provenance",
};

/// The allocations table's columns that `kvcat query --allocations` filters and shows
/// (schema/catalog.sql; parts and log_lines are JSON and lines, for `kvcat sql`).
constexpr std::array kAllocationColumns = {
    ColumnInfo{"id", "text", "", false, "the record id, allocations/NAME"},
    ColumnInfo{"model", "text", "", false, "the model record's id"},
    ColumnInfo{"engine", "text", "", false, "llama.cpp, vllm or sglang"},
    ColumnInfo{"engine_version", "text", "", false, "the engine's build or release, when the log or source says"},
    ColumnInfo{"kv_cache_dtype", "text", "", false,
               "the cache element type: llama.cpp's K type as printed, vLLM's and SGLang's kv_cache_dtype (auto "
               "read as the model dtype when the log shows it)"},
    ColumnInfo{"v_cache_dtype", "text", "", false, "llama.cpp's V type when it differs from K's"},
    ColumnInfo{"context", "integer", "tokens", false,
               "the tokens one sequence can hold: llama.cpp's cells per stream, vLLM's max_model_len"},
    ColumnInfo{"seqs", "integer", "", false, "the sequences llama.cpp sized its cache for (n_seq_max), as printed"},
    ColumnInfo{"tokens", "integer", "tokens", false,
               "the tokens the cache holds: llama.cpp's cells x streams, vLLM's GPU KV cache size, SGLang's #tokens"},
    ColumnInfo{"tensor_parallel", "integer", "cards", false, "vLLM's and SGLang's tensor-parallel size"},
    ColumnInfo{"printed", "text", "", false,
               "the engine's figure as printed: llama.cpp's sizes in MiB (cache + SWA cache + recurrent state), "
               "vLLM's tokens, SGLang's K + V GB"},
    ColumnInfo{"computed", "text", "", true,
               "kvcat's figure for the same from the model record and the logged settings (vLLM: the range the "
               "printed GiB allows); empty when the log printed too little to recompute it"},
    ColumnInfo{"url", "text", "", false, "where the log was published"},
    ColumnInfo{"notes", "text", "", false, "what the log leaves unsaid"},
    ColumnInfo{"file", "text", "", false, "the record file"},
};

constexpr std::array<std::string_view, 10> kDefaultAllocationColumns = {
    "id", "model", "engine", "engine_version", "kv_cache_dtype", "context", "seqs", "printed", "computed", "url",
};

/// The quality_rows view's columns that `kvcat query --quality` filters and shows: one row per
/// quality result of a kv-efficiency record (perplexity, KL divergence, recovery at context).
constexpr std::array kQualityColumns = {
    ColumnInfo{"record_id", "text", "", false, "the kv-efficiency record the result belongs to"},
    ColumnInfo{"model", "text", "", false, "the model record's id"},
    ColumnInfo{"accelerator", "text", "", false, "the accelerator record's id"},
    ColumnInfo{"engine", "text", "", false, "the inference engine"},
    ColumnInfo{"weight_quant", "text", "", false, "the weights' format"},
    ColumnInfo{"kv_cache_dtype", "text", "", false, "K's cache element type"},
    ColumnInfo{"v_cache_dtype", "text", "", false,
               "V's cache element type: the same as K's unless the record quantises one of them only"},
    ColumnInfo{"comparison", "text", "", true,
               "score: this cache's own result, no baseline run; beside-baseline: the baseline run's score is "
               "printed beside it; against-baseline: the value is measured against that run (a divergence, a share)"},
    ColumnInfo{"baseline_kv_cache_dtype", "text", "", false,
               "the cache dtype of the baseline run the result is compared with; NULL for a plain score"},
    ColumnInfo{"benchmark", "text", "", false, "what was run: wikitext-2, MRCR, RULER, ..."},
    ColumnInfo{"metric", "text", "", false, "perplexity, kld, accuracy, ..."},
    ColumnInfo{"value", "real", "", false, "the result with this cache dtype, as the source prints it"},
    ColumnInfo{"baseline_value", "real", "", false, "the result with the baseline dtype, as printed"},
    ColumnInfo{"unit", "text", "", false, "the result's unit"},
    ColumnInfo{"higher_is_better", "integer", "", false, "1 when a higher value is better (accuracy), 0 else"},
    ColumnInfo{"recovery_percent", "real", "", true,
               "value / baseline_value x 100 when higher is better: as stated, else derived when both are given"},
    ColumnInfo{"context_length", "integer", "tokens", false, "the context the result was measured at"},
    ColumnInfo{"file", "text", "", false, "the record file"},
};

constexpr std::array<std::string_view, 12> kDefaultQualityColumns = {
    "record_id", "model",          "kv_cache_dtype", "v_cache_dtype",  "comparison", "baseline_kv_cache_dtype",
    "value",     "baseline_value", "unit",           "context_length", "benchmark",  "metric",
};

/// True when `path` holds a SQLite database with kvcat's tables; sets `version`.
bool is_kvcat_catalog_impl(const fs::path& path, int* version, std::string* why) {
    try {
        require_readable_catalog_file(path);
    } catch (const CatalogError& e) {
        *why = e.what();
        return false;
    }
    try {
        auto opened = open_catalog_readonly(path);
        SQLite::Database& db = *opened;
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

/// The SQL functions a read-only statement may call: SQLite's core scalar, aggregate,
/// window, date and time, math and JSON functions (zeroblob and randomblob make values no
/// longer than the value limit allows). Anything else (fts3_tokenizer, which
/// hands out and takes native pointers; load_extension; the shell's readfile, writefile and
/// edit; whatever a build of SQLite adds) is refused, named in the error.
constexpr std::array<std::string_view, 116> kReaderFunctions = {
    // core scalar functions
    "abs", "char", "coalesce", "concat", "concat_ws", "format", "glob", "hex", "ifnull", "iif", "instr", "length",
    "like", "likelihood", "likely", "lower", "ltrim", "max", "min", "nullif", "octet_length", "printf", "quote",
    "random", "replace", "round", "rtrim", "sign", "sqlite_version", "substr", "substring", "trim", "typeof", "unhex",
    "unicode", "unlikely", "upper", "changes", "total_changes", "last_insert_rowid", "zeroblob", "randomblob",
    // aggregates
    "avg", "count", "group_concat", "string_agg", "sum", "total",
    // window functions
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
    "last_value", "nth_value",
    // date and time
    "date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff", "current_date", "current_time",
    "current_timestamp",
    // math
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh", "degrees", "exp",
    "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians", "sin", "sinh", "sqrt", "tan", "tanh",
    "trunc",
    // JSON, and its -> and ->> operators, which SQLite runs as functions
    "json", "json_array", "json_array_length", "json_error_position", "json_extract", "json_insert", "json_object",
    "json_patch", "json_remove", "json_replace", "json_set", "json_type", "json_valid", "json_quote",
    "json_group_array", "json_group_object", "->", "->>"};

bool is_reader_function(std::string_view name) {
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return std::find(kReaderFunctions.begin(), kReaderFunctions.end(), lower) != kReaderFunctions.end();
}

/// What the authorizer refused last, for the error message.
struct Refusal {
    std::string function;
};

int authorize(void* data, int action, const char* arg1, const char* arg2, const char*, const char*) {
    switch (action) {
        case SQLITE_SELECT:
        case SQLITE_READ:
        case SQLITE_RECURSIVE:
            return SQLITE_OK;
        case SQLITE_FUNCTION: {
            std::string_view name = arg2 ? arg2 : "";
            if (is_reader_function(name)) return SQLITE_OK;
            if (data) static_cast<Refusal*>(data)->function = std::string(name);
            return SQLITE_DENY;
        }
        case SQLITE_PRAGMA: {
            // Reading pragmas that describe the schema are allowed; none that sets a value.
            static constexpr std::array<std::string_view, 8> kReadable = {
                "table_info", "table_xinfo", "table_list",   "index_list",
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

/// Holds SQLite's heap to a limit while a statement runs, and puts the previous limit back.
class HeapLimit {
  public:
    explicit HeapLimit(std::size_t bytes)
        : previous_(bytes > 0 ? sqlite3_hard_heap_limit64(static_cast<sqlite3_int64>(bytes)) : -1) {}
    HeapLimit(const HeapLimit&) = delete;
    HeapLimit& operator=(const HeapLimit&) = delete;
    ~HeapLimit() {
        if (previous_ >= 0) sqlite3_hard_heap_limit64(previous_);
    }

  private:
    sqlite3_int64 previous_;
};

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

std::span<const ColumnInfo> kv_row_columns() {
    return kColumns;
}

bool is_kvcat_catalog(const fs::path& path, int* version, std::string* why) {
    return is_kvcat_catalog_impl(path, version, why);
}

std::string_view table_name(QueryTable table) {
    switch (table) {
        case QueryTable::kv_rows:
            return "kv_rows";
        case QueryTable::allocations:
            return "allocations";
        case QueryTable::quality:
            return "quality_rows";
    }
    return "kv_rows";
}

std::span<const ColumnInfo> query_columns(QueryTable table) {
    switch (table) {
        case QueryTable::kv_rows:
            return kColumns;
        case QueryTable::allocations:
            return kAllocationColumns;
        case QueryTable::quality:
            return kQualityColumns;
    }
    return kColumns;
}

const ColumnInfo* find_column(std::string_view name, QueryTable table) {
    for (const auto& c : query_columns(table)) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

std::span<const ColumnInfo> predicted_columns() {
    return kPredictedColumns;
}

const ColumnInfo* find_predicted_column(std::string_view name) {
    for (const auto& c : kPredictedColumns) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

std::span<const std::string_view> default_predicted_view() {
    return kDefaultPredictedView;
}

std::span<const std::string_view> default_query_columns(QueryTable table) {
    switch (table) {
        case QueryTable::kv_rows:
            return kDefaultColumns;
        case QueryTable::allocations:
            return kDefaultAllocationColumns;
        case QueryTable::quality:
            return kDefaultQualityColumns;
    }
    return kDefaultColumns;
}

/// What a reader of the headline query needs last: the row, its cache dtype and context, the
/// bytes per token and the speed. So the columns that qualify a row go first, then the ones
/// that say again what the id already says (model, card), then the derived bytes.
constexpr std::array<std::string_view, 16> kDropOrder = {
    "provenance",
    "speculative",
    "measured_ttft_ms_at_ctx",
    "measured_prefill_tps_at_ctx",
    "attention_variant",
    "gpus",
    "engine",
    "card",
    "weight_quant",
    "model",
    "kv_bytes_at_context",
    "concurrency",
    "measured_tps_at_ctx",
    "context_length",
    "kv_cache_dtype",
    "kv_bytes_per_token",
};

/// The record and its figures, printed and recomputed, go last; the address first, since it
/// is the longest and a reader follows it from csv or --format vertical.
constexpr std::array<std::string_view, 12> kAllocationDropOrder = {
    "url",     "tensor_parallel", "tokens", "v_cache_dtype",  "engine_version", "seqs",
    "context", "model",           "engine", "kv_cache_dtype", "computed",       "printed",
};

/// The result and what it is compared with go last, with its unit and dtypes; the long prose of
/// the benchmark and metric first (csv or --format vertical shows them whole).
constexpr std::array<std::string_view, 12> kQualityDropOrder = {
    "benchmark", "metric",         "model", "context_length", "baseline_kv_cache_dtype", "record_id",
    "unit",      "baseline_value", "value", "v_cache_dtype",  "kv_cache_dtype",          "comparison",
};

std::span<const std::string_view> default_query_drop_order(QueryTable table) {
    switch (table) {
        case QueryTable::kv_rows:
            return kDropOrder;
        case QueryTable::allocations:
            return kAllocationDropOrder;
        case QueryTable::quality:
            return kQualityDropOrder;
    }
    return kDropOrder;
}

std::map<std::string, std::string> catalog_meta(const fs::path& db_path) {
    std::map<std::string, std::string> meta;
    try {
        auto db = open_catalog_readonly(db_path);
        SQLite::Statement q(*db, "SELECT key, value FROM build_meta");
        while (q.executeStep()) meta.emplace(q.getColumn(0).getString(), q.getColumn(1).getString());
    } catch (const std::exception&) {
        // No build_meta: a catalog older than it, or not a catalog (said elsewhere).
    }
    return meta;
}

std::int64_t catalog_record_files(const fs::path& db_path) {
    try {
        return open_catalog_readonly(db_path)->execAndGet("SELECT count(*) FROM files").getInt64();
    } catch (const std::exception&) {
        return 0;
    }
}

Freshness catalog_freshness(const fs::path& db_path, const fs::path& records_root) {
    Freshness f;
    std::error_code ec;
    if (!fs::exists(db_path, ec)) {
        f.state = Freshness::State::missing;
        f.why = fmt::format("{} does not exist yet", db_path.string());
        return f;
    }
    int version = 0;
    std::string why;
    if (!is_kvcat_catalog_impl(db_path, &version, &why)) {
        throw CatalogError(fmt::format("{}: {}; refusing to use or replace it", db_path.string(), why));
    }
    auto meta = catalog_meta(db_path);
    // The root the lint would take for this folder (a kind folder names its parent).
    const fs::path walk_root = fs::is_directory(records_root, ec) ? records_root_for(records_root) : records_root;
    const std::string root = resolved_root(walk_root);
    auto built_from = meta.find(std::string(kMetaResolvedRoot));
    // A catalog of another root that holds no record has nothing to lose: it may be rebuilt.
    if (built_from != meta.end() && built_from->second != root && catalog_record_files(db_path) == 0) {
        f.state = Freshness::State::stale;
        f.why = fmt::format("{} was built from {}, which held no record", db_path.string(), built_from->second);
        return f;
    }
    if (built_from != meta.end() && built_from->second != root) {
        f.state = Freshness::State::other_root;
        f.built_from = built_from->second;
        f.why = fmt::format("{} was built from the records in {}, not {}", db_path.string(), built_from->second, root);
        return f;
    }
    if (version != kCatalogSchemaVersion) {
        f.state = Freshness::State::stale;
        f.why = fmt::format("{} has schema version {}; this kvcat writes version {}", db_path.string(), version,
                            kCatalogSchemaVersion);
        return f;
    }
    if (built_from == meta.end()) {
        // A catalog from before the resolved root was kept names its root as it was spelled.
        auto spelled = meta.find("records_root");
        std::string given = walk_root.lexically_normal().generic_string();
        if (spelled != meta.end() && spelled->second != given) {
            f.state = Freshness::State::other_root;
            f.built_from = spelled->second;
            f.why =
                fmt::format("{} was built from the records in {}, not {}", db_path.string(), spelled->second, given);
            return f;
        }
    }
    auto recorded = meta.find(std::string(kMetaRecordSet));
    if (built_from == meta.end() || recorded == meta.end()) {
        f.state = Freshness::State::stale;
        f.why = fmt::format("{} does not say which records it was built from", db_path.string());
        return f;
    }
    RecordSetFingerprint now = fingerprint_on_disk(walk_root);
    if (now.text() != recorded->second) {
        auto colon = recorded->second.find(':');
        std::string before = recorded->second.substr(0, colon);
        f.state = Freshness::State::stale;
        f.why = before == std::to_string(now.files)
                    ? fmt::format("a record under {} changed since the catalog was built", walk_root.string())
                    : fmt::format("{} holds {} record files; the catalog was built from {}", walk_root.string(),
                                  now.files, before);
        return f;
    }
    f.state = Freshness::State::fresh;
    return f;
}

std::optional<std::string> catalog_staleness(const fs::path& db_path, const fs::path& records_root) {
    Freshness f = catalog_freshness(db_path, records_root);
    if (f.state == Freshness::State::fresh) return std::nullopt;
    return f.why;
}

std::optional<std::chrono::steady_clock::time_point> QueryLimits::deadline() const {
    if (!timeout) return std::nullopt;
    return started.value_or(std::chrono::steady_clock::now()) + *timeout;
}

namespace {

/// Throws the error of a statement that failed: CatalogDamaged when the catalog's pages are.
[[noreturn]] void throw_sql_failure(const fs::path& db_path, sqlite3* raw) {
    int code = sqlite3_errcode(raw) & 0xff;
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) {
        throw CatalogDamaged(fmt::format("{} is damaged: {}", db_path.string(), sqlite3_errmsg(raw)));
    }
    throw CatalogError(fmt::format("SQL error: {}", sqlite3_errmsg(raw)));
}

}  // namespace

Table run_read_only(const fs::path& db_path, const std::string& sql, const std::vector<Cell>& parameters,
                    const QueryLimits& limits) {
    require_readable_catalog_file(db_path);
    std::error_code ec;
    if (!fs::exists(db_path, ec)) {
        throw CatalogError(fmt::format("{}: no catalog here; run 'kvcat build' first", db_path.string()));
    }
    std::unique_ptr<SQLite::Database> db;
    try {
        db = open_catalog_readonly(db_path);
    } catch (const std::exception& e) {
        throw CatalogError(fmt::format("{}: cannot open the catalog: {}", db_path.string(), e.what()));
    }
    sqlite3* raw = db->getHandle();
    sqlite3_db_config(raw, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_exec(raw, "PRAGMA query_only = ON", nullptr, nullptr, nullptr);
    HeapLimit heap(limits.max_memory_bytes);
    if (limits.max_memory_bytes > 0) {
        // Sorts and temporary tables in memory, inside the heap limit, not in /var/tmp.
        sqlite3_exec(raw, "PRAGMA temp_store = MEMORY", nullptr, nullptr, nullptr);
    }
    Refusal refusal;
    sqlite3_set_authorizer(raw, authorize, &refusal);
    Deadline deadline;
    auto ends = limits.deadline();
    auto past_time_limit = [&] {
        return CatalogError(fmt::format("the command ran past its time limit of {} ms (--timeout)",
                                        limits.timeout ? limits.timeout->count() : 0));
    };
    if (ends) {
        deadline.at = *ends;
        sqlite3_progress_handler(raw, 1000, progress, &deadline);
        if (std::chrono::steady_clock::now() > *ends) throw past_time_limit();
    }
    if (limits.max_value_bytes > 0) {
        sqlite3_limit(raw, SQLITE_LIMIT_LENGTH,
                      static_cast<int>(std::min<std::size_t>(limits.max_value_bytes, 0x7fffffff)));
    }

    // The raw statement rather than SQLite::Statement: a user's SQL needs the tail the
    // prepare leaves (one statement at a time), SQLITE_AUTH and SQLITE_TOOBIG told apart from
    // other errors, and sqlite3_stmt_readonly; the handle is raw above for the authorizer,
    // progress handler and limits anyway.
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v2(raw, sql.c_str(), static_cast<int>(sql.size()), &stmt, &tail);
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> guard(stmt, sqlite3_finalize);
    if (rc != SQLITE_OK && !refusal.function.empty()) {  // SQLite says "not authorized to use function"
        throw CatalogError(
            fmt::format("the function {}() may not run here: a read-only statement may call SQLite's core, aggregate, "
                        "window, date, math and JSON functions",
                        refusal.function));
    }
    if (rc == SQLITE_AUTH || (rc != SQLITE_OK && sqlite3_errcode(raw) == SQLITE_AUTH)) {
        throw CatalogError(
            "the catalog is read-only here: only SELECT (and schema-reading PRAGMAs) may run; writes, ATTACH, "
            "load_extension and pragmas that change settings are refused");
    }
    if (rc != SQLITE_OK) {
        throw_sql_failure(db_path, raw);
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
    std::size_t result_bytes = 0;
    for (const auto& name : table.columns) result_bytes += name.size();
    while (true) {
        rc = sqlite3_step(stmt);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) {
            if (rc == SQLITE_INTERRUPT) throw past_time_limit();
            if (rc == SQLITE_NOMEM || sqlite3_errcode(raw) == SQLITE_NOMEM) {
                throw CatalogError(fmt::format(
                    "the statement needs more than the {} MiB of memory a read-only statement may use; narrow it "
                    "with WHERE or LIMIT",
                    limits.max_memory_bytes >> 20));
            }
            if (rc == SQLITE_TOOBIG || sqlite3_errcode(raw) == SQLITE_TOOBIG) {
                throw CatalogError(fmt::format(
                    "a value would be larger than the limit of {} bytes on a single value (--max-value-bytes)",
                    limits.max_value_bytes > 0
                        ? limits.max_value_bytes
                        : static_cast<std::size_t>(sqlite3_limit(raw, SQLITE_LIMIT_LENGTH, -1))));
            }
            throw_sql_failure(db_path, raw);
        }
        if (ends && std::chrono::steady_clock::now() > *ends) throw past_time_limit();
        std::vector<Cell> row;
        row.reserve(static_cast<std::size_t>(columns));
        for (int c = 0; c < columns; ++c) {
            switch (sqlite3_column_type(stmt, c)) {
                case SQLITE_NULL:
                    row.emplace_back(std::monostate{});
                    break;
                case SQLITE_INTEGER:
                    row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(stmt, c)));
                    break;
                case SQLITE_FLOAT:
                    row.emplace_back(sqlite3_column_double(stmt, c));
                    break;
                default: {
                    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
                    int bytes = sqlite3_column_bytes(stmt, c);
                    result_bytes += static_cast<std::size_t>(bytes);
                    if (limits.max_result_bytes > 0 && result_bytes > limits.max_result_bytes) break;
                    row.emplace_back(std::string(text ? text : "", static_cast<std::size_t>(bytes)));
                }
            }
            result_bytes += sizeof(Cell);  // what holding the cell costs, whatever it holds
        }
        if (limits.max_result_bytes > 0 && result_bytes > limits.max_result_bytes) {
            throw CatalogError(fmt::format(
                "the result is larger than the output limit of {} bytes (--max-output-bytes); narrow it with WHERE "
                "or LIMIT, or raise the limit",
                limits.max_result_bytes));
        }
        table.rows.push_back(std::move(row));
    }
    return table;
}

}  // namespace kvcat
