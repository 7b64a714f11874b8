#include "import/bench_import.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "import/bench_formats.h"
#include "support/bounded_read.h"
#include "support/hidden_text.h"
#include "support/json_input.h"
#include "support/rational.h"

namespace kvcat {

namespace {

using nlohmann::json;

/// 1-based line and column of a byte offset in `text`.
std::pair<int, int> line_column(const std::string& text, std::size_t offset) {
    offset = std::min(offset, text.size());
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return {line, static_cast<int>(offset - line_start) + 1};
}

[[noreturn]] void fail(const std::string& file, int line, int column, const std::string& what) {
    throw BenchError(fmt::format("{}:{}:{}: {}", file, line, column, what));
}

[[noreturn]] void fail_at(const std::string& file, const std::string& text, std::size_t offset,
                          const std::string& what) {
    auto [line, column] = line_column(text, offset);
    fail(file, line, column, what);
}

/// Arrays and objects nested deeper than this are refused before parsing: a benchmark result
/// nests three levels (an array of results, a result, its samples), and the JSON parser
/// recurses once per level, so a file of a million '[' would exhaust the stack.
constexpr int kMaxJsonDepth = 64;

/// Calls `on_bracket(offset, c, depth)` for each bracket of JSON text outside its strings,
/// `depth` being the nesting before an opening bracket or after a closing one.
template <typename OnBracket>
void each_bracket(std::string_view text, OnBracket on_bracket) {
    int depth = 0;
    bool in_string = false;
    bool escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            on_bracket(i, c, depth);
            ++depth;
        } else if (c == ']' || c == '}') {
            --depth;
            on_bracket(i, c, depth);
        }
    }
}

/// Fails at the first bracket past kMaxJsonDepth levels.
void check_depth(const std::string& file, const std::string& text) {
    each_bracket(text, [&](std::size_t i, char c, int depth) {
        if ((c == '[' || c == '{') && depth + 1 > kMaxJsonDepth) {
            fail_at(file, text, i,
                    fmt::format("nested deeper than {} levels; a benchmark result nests three", kMaxJsonDepth));
        }
    });
}

/// Where each object of a top-level JSON array starts (offsets of its '{').
std::vector<std::size_t> array_object_offsets(const std::string& text) {
    std::vector<std::size_t> out;
    each_bracket(text, [&](std::size_t i, char c, int depth) {
        if (c == '{' && depth == 1) out.push_back(i);
    });
    return out;
}

std::string trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return "";
    auto e = s.find_last_not_of(" \t\r\n");
    return std::string(s.substr(b, e - b + 1));
}

/// One benchmark entry with where it starts, for messages.
struct Entry {
    json value;
    int line = 0;
    int column = 0;
    std::size_t index = 0;  ///< 1-based
};

std::string where(const std::string& file, const Entry& e) {
    return fmt::format("{}:{}:{}", file, e.line, e.column);
}

/// A field as printed in a message: strings without quotes.
std::string shown(const json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

/// A whole number field, or nullopt when absent; an error when present and not a whole number.
std::optional<std::int64_t> whole(const std::string& file, const Entry& e, const char* key) {
    auto it = e.value.find(key);
    if (it == e.value.end() || it->is_null()) return std::nullopt;
    if (it->is_number_unsigned() &&
        it->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(file, e.line, e.column,
             fmt::format("entry {}: '{}' is {}, past the largest whole number kvcat keeps (2^63 - 1)", e.index, key,
                         it->get<std::uint64_t>()));
    }
    if (it->is_number_integer()) return it->get<std::int64_t>();
    if (it->is_number_float()) {
        double d = it->get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<std::int64_t>(d);
    }
    fail(file, e.line, e.column,
         fmt::format("entry {}: '{}' must be a whole number, found {}", e.index, key, shown(*it)));
}

/// A number field, or nullopt when absent; an error when present and not a finite number.
std::optional<double> number(const std::string& file, const Entry& e, const char* key) {
    auto it = e.value.find(key);
    if (it == e.value.end() || it->is_null()) return std::nullopt;
    if (it->is_number() && std::isfinite(it->get<double>())) return it->get<double>();
    fail(file, e.line, e.column, fmt::format("entry {}: '{}' must be a number, found {}", e.index, key, shown(*it)));
}

std::optional<std::string> text_field(const Entry& e, const char* key) {
    auto it = e.value.find(key);
    if (it == e.value.end() || it->is_null()) return std::nullopt;
    return shown(*it);
}

/// A speed must be a positive number to be a measurement.
double positive(const std::string& file, const Entry& e, const char* key, double v) {
    if (!(v > 0)) {
        fail(file, e.line, e.column, fmt::format("entry {}: '{}' is {}, not a speed above zero", e.index, key, v));
    }
    return v;
}

// ---------------------------------------------------------------------------------
// llama-bench
// ---------------------------------------------------------------------------------

/// The fields that make two llama-bench entries one configuration.
constexpr const char* kConfigurationKeys[] = {
    "build_commit", "build_number", "gpu_info",
    "backends",     "devices",      "model_filename",
    "model_type",   "model_size",   "type_k",
    "type_v",       "n_gpu_layers", "n_cpu_moe",
    "flash_attn",   "n_batch",      "n_ubatch",
    "split_mode",   "tensor_split", "no_kv_offload",
    "use_mmap",     "embeddings",   "tensor_buft_overrides",
};

void check_one_configuration(const std::string& file, const std::vector<Entry>& entries) {
    const Entry& first = entries.front();
    for (const Entry& e : entries) {
        if (!e.value.is_object()) {
            fail(file, e.line, e.column, fmt::format("entry {} is not a llama-bench result object", e.index));
        }
        for (const char* key : kConfigurationKeys) {
            auto a = first.value.find(key);
            auto b = e.value.find(key);
            bool has_a = a != first.value.end();
            bool has_b = b != e.value.end();
            if (has_a != has_b || (has_a && *a != *b)) {
                fail(file, e.line, e.column,
                     fmt::format("entry {} has {} {} where entry 1 ({}) has {}: a record holds one configuration, so "
                                 "import the entries of each configuration separately (--select {}={})",
                                 e.index, key, has_b ? shown(*b) : "nothing", where(file, first),
                                 has_a ? shown(*a) : "nothing", key, has_a ? shown(*a) : "VALUE"));
            }
        }
    }
}

/// Whether entry `e` is kept by `s` (see BenchSelect).
bool selected(const Entry& e, const BenchSelect& s) {
    if (!e.value.is_object()) return true;  // refused as not a result by check_one_configuration
    if (s.key == "n_prompt" || s.key == "n_gen") {
        auto it = e.value.find(s.key);
        if (it == e.value.end() || (it->is_number_integer() && it->get<std::int64_t>() == 0)) return true;
    }
    auto it = e.value.find(s.key);
    if (it == e.value.end() || it->is_null()) return false;
    std::string v = shown(*it);
    if (v == s.value) return true;
    return s.key == "model_filename" && std::filesystem::path(v).filename().string() == s.value;
}

/// The entries every --select keeps; an error naming the values the file holds when one
/// keeps none.
std::vector<Entry> select_entries(const std::string& file, std::vector<Entry> entries,
                                  const std::vector<BenchSelect>& select, std::vector<std::string>& facts) {
    std::size_t before = entries.size();
    for (const auto& s : select) {
        std::vector<std::string> values;
        for (const auto& e : entries) {
            if (!e.value.is_object()) continue;
            auto it = e.value.find(s.key);
            if (it == e.value.end() || it->is_null()) continue;
            std::string v = shown(*it);
            if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
        }
        if (values.empty()) {
            fail(file, 1, 1, fmt::format("--select {}={}: no entry has the field '{}'", s.key, s.value, s.key));
        }
        std::vector<Entry> kept;
        for (auto& e : entries) {
            if (selected(e, s)) kept.push_back(std::move(e));
        }
        bool any = std::any_of(kept.begin(), kept.end(), [&](const Entry& e) {
            auto it = e.value.is_object() ? e.value.find(s.key) : e.value.end();
            return it != e.value.end() && !it->is_null();
        });
        if (!any) {
            std::string list;
            for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
            fail(file, 1, 1,
                 fmt::format("--select {}={} keeps no entry; the file's {} values: {}", s.key, s.value, s.key, list));
        }
        entries = std::move(kept);
    }
    if (!select.empty()) {
        std::string what;
        for (const auto& s : select) what += (what.empty() ? "" : " ") + s.key + "=" + s.value;
        facts.push_back(
            fmt::format("{} of the file's {} entries, picked with --select {}", entries.size(), before, what));
    }
    return entries;
}

BenchRun read_llama_bench(const std::string& file, std::vector<Entry> entries, std::string format,
                          const BenchOptions& options) {
    if (entries.empty()) fail(file, 1, 1, "holds no llama-bench result");
    std::vector<std::string> picked;
    entries = select_entries(file, std::move(entries), options.select, picked);
    check_one_configuration(file, entries);
    BenchRun run;
    run.format = std::move(format);
    run.engine = "llama.cpp";
    const Entry& first = entries.front();
    auto commit = text_field(first, "build_commit");
    auto build = text_field(first, "build_number");
    if (commit || build) {
        run.engine_version = commit && build ? fmt::format("{} ({})", *commit, *build) : commit ? *commit : *build;
    }
    auto type_k = text_field(first, "type_k");
    auto type_v = text_field(first, "type_v");
    if (type_k) run.kv_dtype = *type_k;
    if (type_k && type_v && *type_k != *type_v) run.v_dtype = *type_v;  // -ctk and -ctv differ
    if (auto model_type = text_field(first, "model_type")) run.weight_quant = weight_quant_of_model_type(*model_type);
    run.weight_bytes = whole(file, first, "model_size");
    run.model_params = whole(file, first, "model_n_params");
    if (auto gpu = text_field(first, "gpu_info"); gpu && gpu->find_first_not_of(" \t") != std::string::npos) {
        run.gpu_info = *gpu;
    }
    if (run.weight_bytes && *run.weight_bytes <= 0) {
        fail(file, first.line, first.column,
             fmt::format("entry {}: 'model_size' is {}, not a size above zero", first.index, *run.weight_bytes));
    }

    std::vector<std::string> facts;
    auto fact = [&](const char* key, const char* label) {
        if (auto v = text_field(first, key)) facts.push_back(fmt::format("{} {}", label, *v));
    };
    fact("gpu_info", "gpu_info");
    fact("backends", "backends");
    fact("devices", "devices");
    fact("model_filename", "model file");
    fact("model_type", "model_type");
    fact("model_size", "model_size (bytes)");
    fact("model_n_params", "model_n_params");
    fact("type_k", "type_k");
    fact("type_v", "type_v");
    fact("n_gpu_layers", "n_gpu_layers");
    fact("n_cpu_moe", "n_cpu_moe");
    fact("flash_attn", "flash_attn");
    fact("n_batch", "n_batch");
    fact("n_ubatch", "n_ubatch");
    fact("n_threads", "n_threads");
    fact("no_kv_offload", "no_kv_offload");
    for (auto& p : picked) facts.push_back(std::move(p));
    run.facts = std::move(facts);

    std::map<std::int64_t, MeasurementPoint> by_depth;
    std::map<std::int64_t, std::pair<const Entry*, const Entry*>> seen;  // depth -> (pp entry, tg entry)
    std::size_t combined = 0;
    for (const Entry& e : entries) {
        std::int64_t prompt = whole(file, e, "n_prompt").value_or(0);
        std::int64_t gen = whole(file, e, "n_gen").value_or(0);
        std::int64_t depth = whole(file, e, "n_depth").value_or(0);
        auto avg = number(file, e, "avg_ts");
        if (!avg) fail(file, e.line, e.column, fmt::format("entry {} has no avg_ts", e.index));
        if (depth < 0 || prompt < 0 || gen < 0) {
            fail(file, e.line, e.column,
                 fmt::format("entry {}: n_prompt, n_gen and n_depth must not be negative", e.index));
        }
        if (prompt > 0 && gen > 0) {
            ++combined;  // a pg test times prompt and generation together: neither speed alone
            continue;
        }
        if (prompt == 0 && gen == 0) {
            fail(file, e.line, e.column, fmt::format("entry {} has neither n_prompt nor n_gen", e.index));
        }
        MeasurementPoint& p = by_depth[depth];
        p.context_length = depth;
        p.listed = true;
        auto& [pp_entry, tg_entry] = seen[depth];
        // One prompt test and one generation test make a point: a second of either is an error.
        auto take = [&](const Entry*& earlier, const char* test, const char* speed, std::optional<double>& tps,
                        std::optional<double>& stddev, std::optional<std::int64_t>& tokens, std::int64_t count) {
            if (earlier) {
                fail(file, e.line, e.column,
                     fmt::format("entry {} is a second {} test at depth {} (entry {} at {} is the first): a point "
                                 "holds one {} speed",
                                 e.index, test, depth, earlier->index, where(file, *earlier), speed));
            }
            earlier = &e;
            tps = positive(file, e, "avg_ts", *avg);
            stddev = number(file, e, "stddev_ts");
            tokens = count;
        };
        if (prompt > 0) {
            take(pp_entry, "prompt", "prefill", p.prefill_tps, p.prefill_tps_stddev, p.prompt_tokens, prompt);
        } else {
            take(tg_entry, "generation", "decode", p.tps, p.tps_stddev, p.gen_tokens, gen);
        }
    }
    if (combined > 0) {
        run.facts.push_back(
            fmt::format("{} combined prompt-and-generation (pg) test{} left out: {} time both phases "
                        "together, so neither speed alone",
                        combined, combined == 1 ? "" : "s", combined == 1 ? "it" : "they"));
    }
    if (by_depth.empty()) fail(file, first.line, first.column, "holds no prompt or generation test to import");
    for (auto& [depth, p] : by_depth) run.points.push_back(p);
    return run;
}

// ---------------------------------------------------------------------------------
// vLLM bench serve
// ---------------------------------------------------------------------------------

bool looks_like_vllm(const json& j) {
    return j.is_object() && (j.contains("median_tpot_ms") || j.contains("mean_ttft_ms")) && j.contains("completed");
}

BenchRun read_vllm(const std::string& file, const std::string& text, const json& j, const BenchOptions& options) {
    Entry e{j, 1, 1, 1};
    auto [line, column] = line_column(text, text.find('{'));
    e.line = line;
    e.column = column;
    BenchRun run;
    run.format = "vLLM bench serve JSON";
    run.engine = "vLLM";
    MeasurementPoint p;
    p.listed = true;
    // The context: --context when given; else an input length the file holds (a key saved
    // with --metadata, e.g. random_input_len=8192, which vLLM writes as a string); else the
    // mean input length, total_input_tokens / completed. A saved result names no input
    // length of its own, so which of these was used is said in the methodology.
    std::optional<std::int64_t> context = options.context;
    if (context) {
        run.derivations.push_back(fmt::format("context_length {} was given with --context", *context));
    }
    for (const char* key : {"random_input_len", "input_len", "sharegpt_input_len"}) {
        if (context) break;
        auto it = j.find(key);
        if (it == j.end() || it->is_null()) continue;
        std::optional<std::int64_t> v;
        if (it->is_string()) {
            const std::string& s = it->get_ref<const std::string&>();
            std::int64_t n = 0;
            auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
            if (ec == std::errc() && ptr == s.data() + s.size()) v = n;
        } else {
            v = whole(file, e, key);
        }
        if (!v || *v < 0) {
            fail(file, line, column, fmt::format("'{}' is {}, not a whole number of tokens", key, shown(*it)));
        }
        context = v;
        run.derivations.push_back(fmt::format("context_length {} is the file's {}", *v, key));
    }
    if (!context) {
        auto input = whole(file, e, "total_input_tokens");
        auto done = whole(file, e, "completed");
        if (input && done && *done > 0 && *input >= 0) {
            // Rounded half up: the mean input length in whole tokens.
            context = (*input + *done / 2) / *done;
            run.derivations.push_back(
                fmt::format("context_length {} is the mean input length, total_input_tokens {} / completed {}, "
                            "rounded to a whole token",
                            *context, *input, *done));
        }
    }
    if (!context) {
        fail(file, line, column,
             "the result holds no input length (no random_input_len saved with --metadata, no total_input_tokens "
             "and completed); give the context with --context, e.g. the run's --random-input-len");
    }
    p.context_length = *context;
    auto concurrency = whole(file, e, "max_concurrency");
    if (!concurrency) concurrency = options.concurrency;
    if (!concurrency || *concurrency < 1) {
        fail(file, line, column,
             "the result has no max_concurrency (the run set no --max-concurrency); give the requests in flight "
             "with --concurrency");
    }
    p.concurrency = *concurrency;
    if (auto tpot = number(file, e, "median_tpot_ms")) {
        positive(file, e, "median_tpot_ms", *tpot);
        p.tps = std::round(100000.0 / *tpot) / 100.0;  // 1000 / TPOT, to 0.01 token/s
        if (!(p.tps > 0)) {
            fail(file, e.line, e.column,
                 fmt::format("'median_tpot_ms' is {} ms a token, a decode speed of 1000 / {} that is 0.00 "
                             "tokens/s at two decimals: no speed kvcat can record",
                             *tpot, *tpot));
        }
        run.facts.push_back(fmt::format("median_tpot_ms {} (decode speed per request = 1000 / it, to 0.01)", *tpot));
    }
    if (auto ttft = number(file, e, "median_ttft_ms")) {
        p.ttft_ms = positive(file, e, "median_ttft_ms", *ttft);
        run.facts.push_back(fmt::format("median_ttft_ms {}", *ttft));
    }
    if (auto total = number(file, e, "output_throughput")) {
        p.total_tps = positive(file, e, "output_throughput", *total);
        run.facts.push_back(fmt::format("output_throughput {} tokens/s over all requests", *total));
    }
    for (const char* key : {"model_id", "backend", "num_prompts", "completed", "total_input_tokens",
                            "total_output_tokens", "request_rate", "max_concurrency", "date"}) {
        if (auto v = text_field(e, key)) run.facts.push_back(fmt::format("{} {}", key, *v));
    }
    run.points.push_back(p);
    return run;
}

// ---------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------

std::vector<std::string> split_csv_line(std::string_view line) {
    std::vector<std::string> cells;
    std::size_t start = 0;
    while (true) {
        auto comma = line.find(',', start);
        cells.push_back(
            trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return cells;
}

BenchRun read_csv(const std::string& file, const std::string& text) {
    BenchRun run;
    run.format = "CSV";
    std::istringstream in(text);
    std::string line;
    int line_no = 0;
    std::vector<std::string> header;
    static const std::vector<std::string> kColumns = {"context_length", "tps",       "prefill_tps",
                                                      "ttft_ms",        "total_tps", "concurrency"};
    std::map<std::pair<std::int64_t, std::int64_t>, int> seen;
    while (std::getline(in, line)) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (trim(line).empty()) continue;
        auto cells = split_csv_line(line);
        if (header.empty()) {
            header = cells;
            for (std::size_t i = 0; i < header.size(); ++i) {
                if (std::find(kColumns.begin(), kColumns.end(), header[i]) == kColumns.end()) {
                    fail(file, line_no, 1,
                         fmt::format("unknown column '{}' in the header; the columns are context_length, tps, "
                                     "prefill_tps, ttft_ms, total_tps and concurrency",
                                     escape_for_terminal(header[i])));
                }
                // Every column before this one is known, so this loop is over six names at most.
                for (std::size_t k = 0; k < i; ++k) {
                    if (header[k] == header[i]) {
                        fail(file, line_no, 1,
                             fmt::format("the column '{}' is named twice in the header, as columns {} and {}; a "
                                         "reader would keep one and drop the other: remove one",
                                         escape_for_terminal(header[i]), k + 1, i + 1));
                    }
                }
            }
            if (std::find(header.begin(), header.end(), "context_length") == header.end()) {
                fail(file, line_no, 1, "the header must name context_length");
            }
            continue;
        }
        if (cells.size() != header.size()) {
            fail(file, line_no, 1, fmt::format("{} cells where the header has {}", cells.size(), header.size()));
        }
        MeasurementPoint p;
        p.listed = true;
        int column = 1;
        for (std::size_t i = 0; i < cells.size(); column += static_cast<int>(cells[i].size()) + 1, ++i) {
            const std::string& cell = cells[i];
            const std::string& name = header[i];
            if (cell.empty()) {
                if (name == "context_length") fail(file, line_no, column, "context_length is empty");
                continue;
            }
            if (name == "context_length" || name == "concurrency") {
                std::int64_t v = 0;
                auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
                if (ec != std::errc() || ptr != cell.data() + cell.size() || v < 0 ||
                    (name == "concurrency" && v < 1)) {
                    fail(file, line_no, column,
                         fmt::format("{} must be a whole number{}, found '{}'", name,
                                     name == "concurrency" ? " of at least 1" : " of tokens", cell));
                }
                (name == "context_length" ? p.context_length : p.concurrency) = v;
                continue;
            }
            auto r = Rational::parse(cell);
            double v = 0;
            auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
            if (!r || ec != std::errc() || ptr != cell.data() + cell.size() || !std::isfinite(v) || !(v > 0)) {
                fail(file, line_no, column, fmt::format("{} must be a number above zero, found '{}'", name, cell));
            }
            if (name == "tps") p.tps = v;
            if (name == "prefill_tps") p.prefill_tps = v;
            if (name == "ttft_ms") p.ttft_ms = v;
            if (name == "total_tps") p.total_tps = v;
        }
        auto key = std::make_pair(p.context_length, p.concurrency);
        if (auto it = seen.find(key); it != seen.end()) {
            fail(file, line_no, 1,
                 fmt::format("repeats the point at line {} (context {}, concurrency {})", it->second, p.context_length,
                             p.concurrency));
        }
        seen[key] = line_no;
        run.points.push_back(p);
    }
    if (header.empty()) fail(file, 1, 1, "is empty: a CSV needs a header naming context_length");
    if (run.points.empty()) fail(file, line_no, 1, "has a header but no point");
    return run;
}

void sort_points(BenchRun& run) {
    std::stable_sort(run.points.begin(), run.points.end(), [](const MeasurementPoint& a, const MeasurementPoint& b) {
        return std::tie(a.context_length, a.concurrency) < std::tie(b.context_length, b.concurrency);
    });
}

}  // namespace

std::optional<std::string> weight_quant_of_model_type(const std::string& model_type) {
    // "<arch> <size> <format...>": the format follows the size token (7B, 30B.A3B, 0.5B).
    std::istringstream in(model_type);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    std::size_t i = 0;
    while (i < words.size()) {
        const std::string& w = words[i++];
        if (!w.empty() && std::isdigit(static_cast<unsigned char>(w.front())) &&
            (w.back() == 'B' || w.find("B.") != std::string::npos)) {
            break;
        }
    }
    if (i >= words.size()) return std::nullopt;
    if (words[i] == "mostly" && i + 1 < words.size()) ++i;
    std::string format = words[i];
    std::string rest;
    for (std::size_t j = i + 1; j < words.size(); ++j) rest += (rest.empty() ? "" : " ") + words[j];
    if (rest == "- Medium") return format + "_M";
    if (rest == "- Small") return format + "_S";
    if (rest == "- Large") return format + "_L";
    if (rest == "- Extra Large") return format + "_XL";
    if (format == "F16") return std::string("f16");
    if (format == "BF16") return std::string("bf16");
    if (format == "F32") return std::string("f32");
    if (rest.empty() || rest == "MoE") return format;
    return std::nullopt;
}

namespace {

/// A benchmark file as the readers see it: its text, read once, and parsed as each reader asks.
class BenchInput {
  public:
    BenchInput(const std::string& file_name, const std::string& file_text, const BenchOptions& given)
        : file(file_name), text(file_text), options(given), body(trim(file_text)) {
        if (body.empty()) fail(file, 1, 1, "is empty: expected llama-bench JSON or JSONL, a vLLM result or a CSV");
        start = text.find(body.front());
        if (body.front() == '[' || body.front() == '{') check_depth(file, text);
        if (body.front() == '{') read_document();
    }

    const std::string& file;
    const std::string& text;
    const BenchOptions& options;
    std::string body;              ///< the text without the white space around it
    std::size_t start = 0;         ///< where its first character is
    std::optional<json> document;  ///< the file as one JSON object, when it is one

    /// The file as JSONL, one object a line, read on the first call: a line that is not JSON
    /// fails there, naming its line.
    std::vector<Entry>& lines() {
        if (!lines_read_) read_lines();
        return lines_;
    }

  private:
    void read_document() {
        try {
            document = parse_json_input(text);
        } catch (const JsonInputError& e) {
            // Read line by line then, where a bad line is named; a repeated key is the same
            // mistake either way, and named here.
            if (std::string_view(e.what()).find("appears twice") != std::string_view::npos) {
                fail(file, e.line(), e.column(), e.what());
            }
        }
    }

    void read_lines() {
        lines_read_ = true;
        std::istringstream in(text);
        std::string line;
        int line_no = 0;
        while (std::getline(in, line)) {
            ++line_no;
            if (trim(line).empty()) continue;
            if (auto d = first_duplicate_key(line)) {
                fail(file, line_no, d->second_column,
                     fmt::format("the key \"{}\" appears twice in this line's object, at columns {} and {}; a reader "
                                 "would keep one and drop the other without a word: remove one",
                                 escape_for_terminal(d->key), d->first_column, d->second_column));
            }
            try {
                lines_.push_back(Entry{parse_json_input(line), line_no, 1, lines_.size() + 1});
            } catch (const JsonInputError& e) {
                // Python's json writes an unbounded request rate as the bare word Infinity.
                if (auto python = parse_python_json_line(line); python && is_sglang_serving_line(*python)) {
                    lines_.push_back(Entry{std::move(*python), line_no, 1, lines_.size() + 1});
                    continue;
                }
                fail(file, line_no, e.column(),
                     fmt::format("not a JSON object on this line (JSONL holds one result a line): {}", e.what()));
            }
        }
    }

    bool lines_read_ = false;
    std::vector<Entry> lines_;
};

std::vector<JsonLine> json_lines(std::vector<Entry>& entries) {
    std::vector<JsonLine> lines;
    for (auto& e : entries) lines.push_back(JsonLine{std::move(e.value), e.line});
    return lines;
}

BenchRun sorted(BenchRun run) {
    sort_points(run);
    return run;
}

/// One benchmark format: whether a file is in it, and its reader.
struct BenchReader {
    std::string_view name;  ///< "a GuideLLM report", for --select's refusal
    bool selects;           ///< --select picks its entries (llama-bench's own)
    bool (*claims)(BenchInput& in);
    BenchRun (*read)(BenchInput& in);
};

/// The formats import-bench reads, in the order they are tried; the first that claims a file
/// reads it. An SGLang bench_serving line holds the keys of a vLLM result too, so vLLM's claim
/// leaves it to the SGLang reader; llama-bench's JSONL and the CSV take what no other claims.
constexpr BenchReader kReaders[] = {
    {"llama-bench JSON", true, [](BenchInput& in) { return in.body.front() == '['; },
     [](BenchInput& in) {
         json j;
         try {
             j = parse_json_input(in.text);
         } catch (const JsonInputError& e) {
             fail(in.file, e.line(), e.column(), e.what());
         }
         if (!j.is_array()) fail_at(in.file, in.text, in.start, "expected an array of llama-bench results");
         auto offsets = array_object_offsets(in.text);
         std::vector<Entry> entries;
         for (std::size_t i = 0; i < j.size(); ++i) {
             std::size_t at = i < offsets.size() ? offsets[i] : in.start;
             auto [line, column] = line_column(in.text, at);
             entries.push_back(Entry{j[i], line, column, i + 1});
         }
         return sorted(read_llama_bench(in.file, std::move(entries), "llama-bench JSON", in.options));
     }},
    {"a GuideLLM report", false, [](BenchInput& in) { return in.document && is_guidellm_report(*in.document); },
     [](BenchInput& in) { return sorted(read_guidellm(in.file, in.text, *in.document, in.options)); }},
    {"a vLLM result", false,
     [](BenchInput& in) {
         return in.document && looks_like_vllm(*in.document) && !is_sglang_serving_line(*in.document);
     },
     [](BenchInput& in) { return read_vllm(in.file, in.text, *in.document, in.options); }},
    {"a profile export", false, [](BenchInput& in) { return in.document && is_profile_export(*in.document); },
     [](BenchInput& in) {
         auto [line, column] = line_column(in.text, in.start);
         return sorted(read_profile_export(in.file, line, column, *in.document, in.options));
     }},
    {"SGLang bench_serving output", false,
     [](BenchInput& in) {
         return in.body.front() == '{' && !in.lines().empty() && is_sglang_serving_line(in.lines().front().value);
     },
     [](BenchInput& in) {
         auto lines = json_lines(in.lines());
         return sorted(read_sglang_serving(in.file, lines, in.options));
     }},
    {"llama-batched-bench output", false,
     [](BenchInput& in) {
         return in.body.front() == '{' && !in.lines().empty() && is_batched_bench_line(in.lines().front().value);
     },
     [](BenchInput& in) {
         auto lines = json_lines(in.lines());
         return sorted(read_batched_bench(in.file, lines));
     }},
    {"llama-bench JSONL", true, [](BenchInput& in) { return in.body.front() == '{'; },
     [](BenchInput& in) {
         return sorted(read_llama_bench(in.file, std::move(in.lines()), "llama-bench JSONL", in.options));
     }},
    {"a CSV", false, [](BenchInput&) { return true; },
     [](BenchInput& in) { return sorted(read_csv(in.file, in.text)); }},
};

}  // namespace

BenchRun parse_bench_text(const std::string& file, const std::string& text, const BenchOptions& options) {
    BenchInput in(file, text, options);
    for (const BenchReader& reader : kReaders) {
        if (!reader.claims(in)) continue;
        if (!reader.selects && !options.select.empty()) {
            fail(file, 1, 1, fmt::format("--select picks llama-bench entries; this is {}", reader.name));
        }
        return reader.read(in);
    }
    throw std::logic_error("no benchmark reader claimed the file; the CSV reader claims every one");
}

BenchRun read_bench_files(const std::vector<std::string>& files, const BenchOptions& options) {
    if (files.empty()) throw BenchError("no benchmark file given");
    std::optional<BenchRun> merged;
    std::string first_file;
    for (const auto& file : files) {
        // Bounded: a FIFO or a device is refused, and no more than 16 MiB is ever read.
        std::string why;
        auto bytes = read_bounded(file, 16u << 20, why);
        if (!bytes) throw BenchError(fmt::format("{}: cannot be read: {}", file, why));
        std::string text = std::move(*bytes);
        BenchRun run = parse_bench_text(file, text, options);
        // In the methodology a file is named by its name alone: where it sat on the machine
        // that imported it says nothing of the run.
        const std::string name = std::filesystem::path(file).filename().string();
        if (files.size() > 1) {
            for (auto& d : run.derivations) d += fmt::format(" ({})", name);
        }
        if (!merged) {
            merged = std::move(run);
            first_file = file;
            continue;
        }
        // Several files make one run only when they agree on what they say of it.
        auto agree = [&](const char* what, const std::optional<std::string>& a, const std::optional<std::string>& b) {
            if (a != b) {
                throw BenchError(fmt::format("{}: its {} is {} where {} has {}: one record holds one configuration",
                                             file, what, b.value_or("unstated"), first_file, a.value_or("unstated")));
            }
        };
        agree("format", merged->format, run.format);
        agree("engine", merged->engine, run.engine);
        agree("cache type", merged->kv_dtype, run.kv_dtype);
        agree("V cache type", merged->v_dtype, run.v_dtype);
        agree("weight format", merged->weight_quant, run.weight_quant);
        agree("build", merged->engine_version, run.engine_version);
        for (auto& p : run.points) {
            for (const auto& q : merged->points) {
                if (q.context_length == p.context_length && q.concurrency == p.concurrency) {
                    throw BenchError(fmt::format("{}: repeats the point at context {} and concurrency {} of {}", file,
                                                 p.context_length, p.concurrency, first_file));
                }
            }
            merged->points.push_back(p);
        }
        for (auto& f : run.facts) {
            if (std::find(merged->facts.begin(), merged->facts.end(), f) == merged->facts.end()) {
                merged->facts.push_back(fmt::format("{} ({})", f, name));
            }
        }
        for (auto& d : run.derivations) merged->derivations.push_back(d);
    }
    sort_points(*merged);
    return *merged;
}

}  // namespace kvcat
