#include "import/bench_llama_bench.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "support/json_input.h"

namespace kvcat::bench {

namespace {

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

}  // namespace

bool llama_bench_json_claims(BenchInput& in) {
    return in.body.front() == '[';
}

BenchRun read_llama_bench_json(BenchInput& in) {
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
}

bool llama_bench_jsonl_claims(BenchInput& in) {
    return in.body.front() == '{';
}

BenchRun read_llama_bench_jsonl(BenchInput& in) {
    return sorted(read_llama_bench(in.file, std::move(in.lines()), "llama-bench JSONL", in.options));
}

}  // namespace kvcat::bench
