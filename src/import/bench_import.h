// Reading a benchmark's own output into measured points, for `kvcat import-bench`.
//
// Each format is a file pair src/import/bench_<format>.{h,cc} (llama-bench JSON and JSONL,
// vLLM's bench serve result, SGLang's bench_serving JSONL, llama-batched-bench, GuideLLM, the
// AIPerf and genai-perf profile exports, and a plain CSV of kvcat's columns), which says what it
// reads and how; bench_import.cc tries them in the order of its table, and the first that
// claims a file reads it.
// Every entry of a run must describe the same configuration (model file, cache types,
// offload, flash attention, build, card): an entry that differs is an error naming it and
// its line, since a record holds one configuration. Nothing here guesses: a value the
// file does not hold stays empty, and bad input is a BenchError with file:line:column.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "load/records.h"

namespace kvcat {

/// A benchmark file that cannot be read as one run; the message starts with file:line:column.
class BenchError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// What one or more benchmark files say about one configuration.
struct BenchRun {
    std::string format;                 ///< "llama-bench JSON", "llama-bench JSONL", "vLLM bench serve JSON", "CSV"
    std::optional<std::string> engine;  ///< llama.cpp, vLLM; none for a CSV
    std::optional<std::string> engine_version;  ///< "8cf427ff (5163)"
    std::optional<std::string> kv_dtype;        ///< type_k
    std::optional<std::string> v_dtype;         ///< type_v when it differs from type_k
    std::optional<std::string> weight_quant;    ///< from llama-bench's model_type: "Q4_K - Medium" -> Q4_K_M
    std::optional<std::int64_t> weight_bytes;   ///< llama-bench's model_size: the model's tensor bytes
    std::optional<std::string> gpu_info;        ///< llama-bench's gpu_info: the card it ran on, as the driver names it
    std::optional<std::int64_t> model_params;   ///< llama-bench's model_n_params: the model file's parameters
    std::vector<std::string> facts;             ///< what the file says of the run, for the methodology
    std::vector<std::string> derivations;       ///< how a figure the file does not state was worked out
    /// What one point of the file is and which of its figures fill which column, for the
    /// methodology; empty for the formats whose wording the importer keeps itself.
    std::string layout;
    std::vector<MeasurementPoint> points;  ///< by context, then concurrency
};

/// One --select KEY=VALUE: the llama-bench entries whose field KEY is VALUE (as printed:
/// strings without quotes, numbers as written; model_filename also by its file name alone).
/// A selection on n_prompt leaves the tg tests (n_prompt 0) in, and one on n_gen the pp tests.
struct BenchSelect {
    std::string key;
    std::string value;
};

struct BenchOptions {
    std::optional<std::int64_t> context;      ///< the context of a vLLM result, over what the file holds
    std::optional<std::int64_t> concurrency;  ///< of a vLLM result run without --max-concurrency
    std::vector<BenchSelect> select;          ///< keep only the llama-bench entries these all match
};

/// Reads the files (each shown in messages by its path) as one run. Throws BenchError.
BenchRun read_bench_files(const std::vector<std::string>& files, const BenchOptions& options = {});

/// Reads one file's text; `file` names it in messages. Throws BenchError.
BenchRun parse_bench_text(const std::string& file, const std::string& text, const BenchOptions& options = {});

/// The weight format llama-bench's model_type names: "qwen2 7B Q4_K - Medium" -> "Q4_K_M",
/// "gpt-oss 20B MXFP4 MoE" -> "MXFP4", "llama 7B mostly Q4_0" -> "Q4_0"; nullopt when unclear.
std::optional<std::string> weight_quant_of_model_type(const std::string& model_type);

}  // namespace kvcat
