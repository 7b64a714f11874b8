// Reading an engine's start-up log into one allocation record (import-log), and an allocation
// record's log_lines again (the lint's allocation-log-lines).
//
// A llama.cpp, vLLM or SGLang server prints what it allocated when it starts; people paste
// those lines into issues. This reads a whole log, or the pasted lines, and keeps what the
// engine printed (each figure as its text, so the lint can compare it digit for digit) and the
// settings the log shows. Lines that carry an allocation figure but do not read as one are an
// error naming the file and line: a figure is never guessed.
//
// Each engine's folder reads its own lines (engines/<engine>/<engine>_log.h says which) through
// the interface of engines/log_reading.h; this file hands them every line and files the log under
// the engine whose lines it holds.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engines/engine_memory.h"

namespace kvcat {

/// A line the reader could not read, or a log with nothing to read; the message names the
/// file and line.
class LogError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// One llama.cpp cache as printed.
struct LoggedCache {
    std::string scope = "all";  ///< base (ISWA's non-SWA cache), swa, or all
    std::optional<std::int64_t> cells, layers, seqs, streams;
    std::string k_type, v_type;
    std::string size_mib, k_mib, v_mib;  ///< as printed; "" when the line has none
    bool mla_latent = false;             ///< ik_llama.cpp's "c^KV" line: the latent as K, no V
    bool mla_off = false;                ///< ik_llama.cpp's "mla_attn = 0": an MLA model's every head's K and V
    int line = 0;
};

struct LoggedRecurrent {
    std::optional<std::int64_t> cells, layers, seqs;
    std::string r_type, s_type;
    std::string size_mib, r_mib, s_mib;
    int line = 0;
};

/// One buffer llama.cpp printed at start-up, besides its cache: "CUDA0 model buffer size = X MiB"
/// (the weights on a device), "compute buffer size", "output buffer size".
struct LoggedBuffer {
    std::string device;  ///< as printed: CUDA0, CPU_Mapped, CUDA_Host, Metal, CPU, ...
    std::string kind;    ///< model, compute or output
    std::string mib;     ///< as printed
    int line = 0;
};

/// vLLM V1's memory profile as its worker prints it once the CUDA graphs are captured (one line,
/// "Free memory on device (F/T GiB) on startup. Desired GPU memory utilization is (U, R GiB).
/// Actual usage is ..."), and the CUDA graphs' estimate line; every figure as printed, "" when
/// the log has none.
struct LoggedVllmProfile {
    std::string free_gib, total_gib, requested_gib;  ///< CUDA's free and total at start, and total x U
    std::string weights_gib;                         ///< "X GiB for weight"
    std::string consumed_gib;                        ///< "X GiB for consumed memory (weights + non-torch)"
    std::string activation_gib, non_torch_gib, cudagraph_gib;
    std::optional<std::int64_t> fit_bytes;     ///< "--kv-cache-memory=N" ... "to fit into requested memory"
    std::optional<std::int64_t> full_bytes;    ///< "--kv-cache-memory=N" ... "to fully utilize gpu memory"
    std::string in_use_gib;                    ///< "Current kv cache memory in use is X GiB."
    std::optional<std::int64_t> in_use_bytes;  ///< "... is N bytes." (the releases that print bytes)
    std::string estimate_gib;                  ///< "CUDA graph pool memory: A GiB (actual), E GiB (estimated)"
};

struct ParsedLog {
    Engine engine = Engine::llamacpp;
    /// The engine as the record names it when it is not `engine` itself: a fork or an application
    /// built on it (ik_llama.cpp, LM Studio, ollama print llama.cpp's lines). Empty: name_of(engine).
    std::string engine_name;
    std::string version;              ///< as the log prints it, when it does
    std::vector<std::string> lines;   ///< every line that was read, as printed (trimmed)
    std::vector<LoggedCache> caches;  ///< llama.cpp
    std::optional<LoggedRecurrent> recurrent;
    // llama.cpp's whole start: its buffers and the settings that size them
    std::vector<LoggedBuffer> buffers;
    std::optional<std::int64_t> n_ubatch;
    std::string flash_attn;  ///< as printed: enabled, disabled, auto, 1, 0
    /// "fused Gated Delta Net (chunked) enabled" or "disabled": how a Gated DeltaNet layer runs the
    /// prompt's micro-batch (src/llama-context.cpp, sched_reserve), as printed; "" when not.
    std::string fused_gdn_chunked;
    std::string file_type;         ///< "Q4_K - Medium", as llama.cpp names the file's type
    std::string offloaded_layers;  ///< "18/33": the layers on the GPU of all, as printed
    /// The cells of an older "KV self size" line were read from -c on the command line the log
    /// starts with (it prints no kv_size or n_ctx), which the record says.
    bool cells_from_command_line = false;
    // vLLM
    std::string available_gib;  ///< "45.32"
    std::optional<std::int64_t> tokens;
    std::optional<std::int64_t> max_model_len;
    std::string concurrency;  ///< "284.25"
    std::optional<std::int64_t> block_size, max_num_batched_tokens, tensor_parallel;
    std::string kv_cache_dtype;          ///< "auto", "fp8", ...
    std::string model_dtype;             ///< "bfloat16"
    std::string gpu_memory_utilization;  ///< "0.25", when the launch's arguments show it
    std::string model_loading_gib;       ///< "14.2488": "Model loading took X GiB", the weights as loaded
    std::string quantization;            ///< "None", "fp8": the config line's quantization, as printed
    bool expert_parallel = false;        ///< the engine's arguments enable expert parallel
    LoggedVllmProfile profile;
    // SGLang
    std::string k_gb, v_gb, kv_gb;
    std::optional<std::int64_t> page_size;
    std::optional<std::int64_t> mamba_slots;  ///< a hybrid's "max_mamba_cache_size"
    std::string conv_state_gb, ssm_state_gb;  ///< its "conv_state size" and "ssm_state size"
    std::string mamba_ssm_dtype;              ///< server args' mamba_ssm_dtype, when shown
};

/// What parse_engine_log reads: a whole log (or the lines pasted from one), or an allocation
/// record's log_lines, which keep only the lines that carry a figure. In the record's lines a
/// "KV self size" line may stand without the kv_size line that gives its cells, and a vLLM
/// record without its tokens line; those are read for what they do give.
enum class LogText { whole_log, record_lines };

/// Reads `text` (the log); `file` names it in errors. Throws LogError.
ParsedLog parse_engine_log(const std::string& text, const std::string& file, LogText kind = LogText::whole_log);

/// The allocation record for `log`: id, model, engine, what it printed, the settings it shows,
/// and `url` / `notes` when given; otherwise both are left as comments for a person to fill.
std::string allocation_record_text(const ParsedLog& log, const std::string& id, const std::string& model_id,
                                   const std::string& engine_version, const std::string& url, const std::string& notes,
                                   const std::string& log_name);

/// One figure a log's lines give: the record's key for it, and the value as import-log writes it.
struct LoggedFigure {
    std::string key;
    std::string value;
    bool decimal = false;  ///< compared as a number ("45.3" and "45.30" alike), else as text
};
/// Adds the figure when the log gave it.
void add_logged(std::vector<LoggedFigure>& out, const std::string& key, const std::optional<std::int64_t>& value);
void add_logged(std::vector<LoggedFigure>& out, const std::string& key, const std::string& value, bool decimal);

/// Every figure the parsed lines give, under the record keys allocation_record_text writes (the
/// lint's allocation-log-lines compares them with the record's).
std::vector<LoggedFigure> logged_figures(const ParsedLog& log);

/// The lines import-log reads, engine by engine, one engine a line, for its help.
std::string engine_log_formats();

}  // namespace kvcat
