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

#include "import/bench_batched_bench.h"
#include "import/bench_csv.h"
#include "import/bench_guidellm.h"
#include "import/bench_input.h"
#include "import/bench_llama_bench.h"
#include "import/bench_profile_export.h"
#include "import/bench_sglang_serving.h"
#include "import/bench_vllm.h"
#include "support/bounded_read.h"
#include "support/hidden_text.h"
#include "support/json_input.h"
#include "support/rational.h"

namespace kvcat {

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

/// One benchmark format (a file pair bench_<format>.{h,cc}): whether a file is in it, and its reader.
struct BenchReader {
    std::string_view name;  ///< "a GuideLLM report", for --select's refusal
    bool selects;           ///< --select picks its entries (llama-bench's own)
    bool (*claims)(bench::BenchInput& in);
    BenchRun (*read)(bench::BenchInput& in);
};

/// The formats import-bench reads, in the order they are tried; the first that claims a file
/// reads it. An SGLang bench_serving line holds the keys of a vLLM result too, so vLLM's claim
/// leaves it to the SGLang reader; llama-bench's JSONL and the CSV take what no other claims.
constexpr BenchReader kReaders[] = {
    {"llama-bench JSON", true, bench::llama_bench_json_claims, bench::read_llama_bench_json},
    {"a GuideLLM report", false, bench::guidellm_claims, bench::read_guidellm_report},
    {"a vLLM result", false, bench::vllm_claims, bench::read_vllm_result},
    {"a profile export", false, bench::profile_export_claims, bench::read_profile_export_file},
    {"SGLang bench_serving output", false, bench::sglang_serving_claims, bench::read_sglang_serving_lines},
    {"llama-batched-bench output", false, bench::batched_bench_claims, bench::read_batched_bench_lines},
    {"llama-bench JSONL", true, bench::llama_bench_jsonl_claims, bench::read_llama_bench_jsonl},
    {"a CSV", false, bench::csv_claims, bench::read_csv_points},
};

}  // namespace

BenchRun parse_bench_text(const std::string& file, const std::string& text, const BenchOptions& options) {
    bench::BenchInput in(file, text, options);
    for (const BenchReader& reader : kReaders) {
        if (!reader.claims(in)) continue;
        if (!reader.selects && !options.select.empty()) {
            bench::fail(file, 1, 1, fmt::format("--select picks llama-bench entries; this is {}", reader.name));
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
    return bench::sorted(std::move(*merged));
}

}  // namespace kvcat
