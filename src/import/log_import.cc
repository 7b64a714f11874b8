#include "import/log_import.h"

#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace kvcat {

namespace {

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    std::size_t start = s.find_first_not_of(" \t");
    return start == std::string::npos ? "" : s.substr(start);
}

std::int64_t whole(const std::string& text) {
    std::string digits;
    for (char c : text) {
        if (c != ',') digits += c;
    }
    return std::stoll(digits);
}

/// What a line that carries an allocation figure starts its figure with; a line holding one of
/// these must read in full, or the import stops at it.
const std::regex kMarker(
    R"((llama_kv_cache\w*: +size =|llama_memory_recurrent: +size =|KV self size|GPU KV cache size:|Available KV cache memory:|Maximum concurrency for|KV Cache is allocated\.|Mamba Cache is allocated\.|max_total_num_tokens=))");

// llama.cpp
const std::regex kLlamaCache(
    R"(llama_kv_cache\w*: +size = +([0-9.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+)(?:/(\d+))? seqs\)(?:, K \((\w+)\): +([0-9.]+) MiB, V \((\w+)\): +([0-9.]+) MiB)?\s*$)");
const std::regex kLlamaRecurrent(
    R"(llama_memory_recurrent: +size = +([0-9.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+) seqs(?: +\d+ rs_seq)?\)(?:, R \((\w+)\): +([0-9.]+) MiB, S \((\w+)\): +([0-9.]+) MiB)?\s*$)");
const std::regex kSelfSize(
    R"(KV self size += +([0-9.]+) MiB, ([A-Za-z^]+) \((\w+)\): +([0-9.]+) MiB, ([A-Za-z^]+)(?: \((\w+)\): +([0-9.]+) MiB|: not used)\s*$)");
const std::regex kIswa(R"(llama_kv_cache\w*: creating +(non-SWA|SWA) KV cache, size = (\d+) cells)");
// ik_llama.cpp's context line "mla_attn   = 0" on a model whose metadata prints a latent
// ("n_lora_kv = 512"): the cache holds every head's K and V.
const std::regex kMlaAttn(R"(\bmla_attn += (\d+))");
const std::regex kLoraKv(R"(\bn_lora_kv += (\d+))");
const std::regex kKvSize(R"(\bkv_size = (\d+))");
const std::regex kNctx(R"((?:llama_new_context_with_model|llama_context|llama_init_from_model): n_ctx += (\d+))");
// vLLM
const std::regex kAvailable(R"(Available KV cache memory: ([0-9.]+) GiB\s*$)");
const std::regex kTokens(R"(GPU KV cache size: ([0-9,]+) tokens\s*$)");
const std::regex kConcurrency(R"(Maximum concurrency for ([0-9,]+) tokens per request: ([0-9.]+)x\s*$)");
const std::regex kVllmVersion(R"(V1 LLM engine \(v([0-9][0-9.a-z+]*)\)|vLLM API server version ([0-9][0-9.a-z+]*))");
const std::regex kMaxSeqLen(R"(max_seq_len=(\d+)|'max_model_len': (\d+))");
const std::regex kTp(R"(tensor_parallel_size=(\d+)|'tensor_parallel_size': (\d+))");
// The launch command, where a log starts with it: vLLM's --tensor-parallel-size, SGLang's --tp/--tp-size.
const std::regex kCliTp(R"((?:^|\s)--(?:tensor-parallel-size|tp-size|tp)[= ](\d+)\b)");
// llama.cpp's build as it prints it: "build: 5192 (f2c9d2b4)", "build_info: b8999-b97ebdc98", and
// llama-server's (and ik_llama.cpp's) "build info ... build=3748 commit="066ed4fd"".
const std::regex kLlamaBuild(
    R"re(\bbuild: (\d+) \(([0-9a-f]+)\)|\bbuild_info: (b\d+)-|\bbuild=(\d+) commit="([0-9a-f]+)")re");
const std::regex kKvDtype(R"(kv_cache_dtype=(\w+)|'kv_cache_dtype': '(\w+)')");
const std::regex kBatched(R"(max_num_batched_tokens=(\d+)|'max_num_batched_tokens': (\d+))");
const std::regex kBlockSize(R"('block_size': (\d+)|Setting attention block size to (\d+) tokens)");
const std::regex kModelDtype(R"(dtype=torch\.(\w+))");
// SGLang
const std::regex kSglangKv(
    R"(KV Cache is allocated\. (?:dtype: torch\.\w+, )?#tokens: (\d+), (?:K size: ([0-9.]+) GB, V size: ([0-9.]+) GB|KV size: ([0-9.]+) GB)\s*$)");
// SGLang's Mamba pool (a hybrid's conv and SSM state): "GB" with or without a space before it. The
// speculative pool's line adds two intermediate caches, which are matched so that the import can
// refuse that line by name.
const std::regex kSglangMamba(
    R"(Mamba Cache is allocated\. max_mamba_cache_size: (\d+), conv_state size: ([0-9.]+) ?GB, ssm_state size: ([0-9.]+) ?GB(?: intermediate_ssm_state_cache size: ([0-9.]+) ?GB intermediate_conv_window_cache size: ([0-9.]+) ?GB)?\s*$)");
// SGLang names the KV cache's dtype in a line of its own, and newer releases in the pool's line.
const std::regex kSglangKvDtype(R"((?:Using KV cache dtype: |KV Cache is allocated\. dtype: )torch\.(\w+))");
const std::regex kSglangSsmDtype(R"(mamba_ssm_dtype='(\w+)')");
const std::regex kSglangTotal(R"(max_total_num_tokens=(\d+))");
const std::regex kSglangPage(R"(page_size=(\d+))");
const std::regex kSglangTp(R"(tp_size=(\d+))");
const std::regex kSglangDtype(R"(kv_cache_dtype='(\w+)')");

std::string group(const std::smatch& m, int a, int b = -1) {
    if (m[a].matched) return m[a].str();
    if (b >= 0 && m[b].matched) return m[b].str();
    return "";
}

}  // namespace

/// The longest line parse_engine_log searches, bytes.
constexpr std::size_t kLongestLogLine = 8192;

ParsedLog parse_engine_log(const std::string& text, const std::string& file) {
    ParsedLog out;
    bool llama = false, vllm = false, sglang = false;
    std::optional<std::int64_t> kv_size, n_ctx, mla_attn, lora_kv;
    std::string pending_scope;
    std::optional<std::int64_t> pending_cells;
    std::istringstream in(text);
    std::string raw;
    int n = 0;
    auto fail = [&](const std::string& line, const std::string& why) {
        throw LogError(
            fmt::format("{}:{}: {}: '{}'", file, n, why, line.size() > 200 ? line.substr(0, 200) + "..." : line));
    };
    while (std::getline(in, raw)) {
        ++n;
        // std::regex recurses once a character: a line of some 30 KB overflowed the stack. No
        // engine prints an allocation or setting line near this long (vLLM's argument dump, the
        // longest, stays within a few KB), so a longer line is passed over, and said so.
        if (raw.size() > kLongestLogLine) {
            spdlog::warn(
                "{}:{}: a line of {} bytes, longer than any engine line kvcat reads ({} bytes), is passed over", file,
                n, raw.size(), kLongestLogLine);
            continue;
        }
        std::string line = trim(raw);
        std::smatch m;
        if (std::regex_search(line, m, kKvSize)) kv_size = whole(m[1]);
        if (std::regex_search(line, m, kNctx)) n_ctx = whole(m[1]);
        if (std::regex_search(line, m, kMlaAttn)) mla_attn = whole(m[1]);
        if (std::regex_search(line, m, kLoraKv)) lora_kv = whole(m[1]);
        if (std::regex_search(line, m, kIswa)) {
            pending_scope = m[1] == "SWA" ? "swa" : "base";
            pending_cells = whole(m[2]);
            out.lines.push_back(line.substr(static_cast<std::size_t>(m.position(0))));
            llama = true;
            continue;
        }
        if (std::regex_search(line, m, kVllmVersion)) {
            out.version = group(m, 1, 2);
            vllm = true;
        }
        if (std::regex_search(line, m, kMaxSeqLen)) out.max_model_len = whole(group(m, 1, 2));
        if (std::regex_search(line, m, kTp)) out.tensor_parallel = whole(group(m, 1, 2));
        if (!out.tensor_parallel && std::regex_search(line, m, kCliTp)) out.tensor_parallel = whole(m[1]);
        if (out.version.empty() && std::regex_search(line, m, kLlamaBuild)) {
            if (m[1].matched) out.version = "b" + m[1].str();
            if (m[3].matched) out.version = m[3];
            if (m[4].matched) out.version = fmt::format("build {} ({})", m[4].str(), m[5].str());
        }
        if (std::regex_search(line, m, kKvDtype)) out.kv_cache_dtype = group(m, 1, 2);
        if (std::regex_search(line, m, kBatched)) out.max_num_batched_tokens = whole(group(m, 1, 2));
        if (std::regex_search(line, m, kBlockSize)) out.block_size = whole(group(m, 1, 2));
        if (std::regex_search(line, m, kModelDtype)) out.model_dtype = m[1];
        if (std::regex_search(line, m, kSglangPage)) out.page_size = whole(m[1]);
        if (std::regex_search(line, m, kSglangTp)) out.tensor_parallel = whole(m[1]);
        if (std::regex_search(line, m, kSglangDtype)) out.kv_cache_dtype = m[1];
        if (std::regex_search(line, m, kSglangSsmDtype)) out.mamba_ssm_dtype = m[1];
        if (std::regex_search(line, m, kSglangKvDtype)) out.kv_cache_dtype = m[1];
        std::smatch marker;
        if (!std::regex_search(line, marker, kMarker)) continue;
        std::string figure = line.substr(static_cast<std::size_t>(marker.position(0)));
        if (std::regex_search(figure, m, kLlamaCache)) {
            LoggedCache c;
            c.line = n;
            c.size_mib = m[1];
            c.cells = whole(m[2]);
            c.layers = whole(m[3]);
            c.seqs = whole(m[4]);
            c.streams = m[5].matched ? whole(m[5]) : 1;
            if (m[6].matched) {
                c.k_type = m[6];
                c.k_mib = m[7];
                c.v_type = m[8];
                c.v_mib = m[9];
            }
            if (!pending_scope.empty()) {
                c.scope = pending_scope;
                pending_scope.clear();
            }
            out.caches.push_back(c);
            llama = true;
        } else if (std::regex_search(figure, m, kLlamaRecurrent)) {
            LoggedRecurrent r;
            r.line = n;
            r.size_mib = m[1];
            r.cells = whole(m[2]);
            r.layers = whole(m[3]);
            r.seqs = whole(m[4]);
            if (m[5].matched) {
                r.r_type = m[5];
                r.r_mib = m[6];
                r.s_type = m[7];
                r.s_mib = m[8];
            }
            out.recurrent = r;
            llama = true;
        } else if (std::regex_search(figure, m, kSelfSize)) {
            LoggedCache c;
            c.line = n;
            c.size_mib = m[1];
            std::string first = m[2], second = m[5];
            if (first == "K" && second == "V") {
                c.mla_off = mla_attn == 0 && lora_kv.value_or(0) > 0;
                c.k_type = m[3];
                c.k_mib = m[4];
                c.v_type = m[6];
                c.v_mib = m[7];
            } else if (first == "c^KV" && second == "kv^T") {
                // ik_llama.cpp's MLA cache: the latent, and under -mla 1 without flash attention
                // the latent's first kv_lora_rank values again, transposed (kv^T).
                c.mla_latent = true;
                c.k_type = m[3];
                c.k_mib = m[4];
                if (m[6].matched) {
                    c.v_type = m[6];
                    c.v_mib = m[7];
                }
            } else {
                fail(figure, fmt::format("a KV cache of {} and {} parts is not one kvcat reads (it reads K and V, "
                                         "or ik_llama.cpp's c^KV and kv^T)",
                                         first, second));
            }
            if (kv_size) {
                c.cells = kv_size;
            } else if (n_ctx) {
                c.cells = n_ctx;
            } else {
                fail(figure, "the log gives no kv_size or n_ctx line before this size line, so its cells are unknown");
            }
            c.streams = 1;
            out.caches.push_back(c);
            llama = true;
        } else if (std::regex_search(figure, m, kAvailable)) {
            out.available_gib = m[1];
            vllm = true;
        } else if (std::regex_search(figure, m, kTokens)) {
            out.tokens = whole(m[1]);
            vllm = true;
        } else if (std::regex_search(figure, m, kConcurrency)) {
            out.concurrency = m[2];
            if (!out.max_model_len) out.max_model_len = whole(m[1]);
            vllm = true;
        } else if (std::regex_search(figure, m, kSglangKv)) {
            out.tokens = whole(m[1]);
            out.k_gb = group(m, 2);
            out.v_gb = group(m, 3);
            out.kv_gb = group(m, 4);
            sglang = true;
        } else if (std::regex_search(figure, m, kSglangMamba)) {
            if (m[4].matched) {
                fail(figure,
                     "SGLang's Mamba pool with speculative decoding keeps intermediate caches that kvcat does not "
                     "model");
            }
            out.mamba_slots = whole(m[1]);
            out.conv_state_gb = m[2];
            out.ssm_state_gb = m[3];
            sglang = true;
        } else if (std::regex_search(figure, m, kSglangTotal)) {
            if (!out.tokens) out.tokens = whole(m[1]);
            sglang = true;
        } else {
            fail(figure, "this line carries an allocation figure but does not read as one kvcat knows");
        }
        out.lines.push_back(figure);
    }
    if (llama + vllm + sglang == 0) {
        throw LogError(fmt::format("{}: no line of llama.cpp's, vLLM's or SGLang's allocation is in this log", file));
    }
    if (llama + vllm + sglang > 1) {
        throw LogError(fmt::format("{}: this log has the allocation lines of more than one engine", file));
    }
    out.engine = llama ? Engine::llamacpp : vllm ? Engine::vllm : Engine::sglang;
    if (out.engine == Engine::vllm && !out.tokens) {
        throw LogError(
            fmt::format("{}: a vLLM log without a 'GPU KV cache size' line (vLLM's V0 engine prints GPU "
                        "blocks instead, which kvcat does not model)",
                        file));
    }
    return out;
}

namespace {

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

void opt_int(std::string& t, const char* key, const std::optional<std::int64_t>& v, const char* indent = "  ") {
    if (v) t += fmt::format("{}{}: {}\n", indent, key, *v);
}

void opt_text(std::string& t, const char* key, const std::string& v, const char* indent = "  ") {
    if (!v.empty()) t += fmt::format("{}{}: {}\n", indent, key, v);
}

}  // namespace

std::string allocation_record_text(const ParsedLog& log, const std::string& id, const std::string& model_id,
                                   const std::string& engine_version, const std::string& url, const std::string& notes,
                                   const std::string& log_name) {
    std::string t;
    t += "# yaml-language-server: $schema=../../schema/allocation.schema.json\n";
    t += fmt::format("# Written by `kvcat import-log` from {}. The figures are as the engine printed\n", log_name);
    t += "# them; `kvcat lint` recomputes each from the model record and the settings (engine-allocation).\n";
    if (url.empty() || notes.empty()) {
        t += "# The lint fails on this file (schema-missing-key) until url and notes, at the end, are written.\n";
    }
    t += fmt::format("id: {}\n", id);
    t += fmt::format("model: {}\n", model_id);
    t += fmt::format("engine: {}\n", name_of(log.engine));
    std::string version = engine_version.empty() ? log.version : engine_version;
    t += fmt::format("engine_version: {}\n", version.empty() ? "null" : quoted(version));
    auto cache = [&](const char* key, const LoggedCache& c) {
        t += fmt::format("{}:\n", key);
        t += fmt::format("  log_line: {}\n", c.line);
        t += fmt::format("  scope: {}\n", c.scope);
        opt_int(t, "cells", c.cells);
        opt_int(t, "streams", c.streams);
        opt_int(t, "seqs", c.seqs);
        opt_int(t, "layers", c.layers);
        opt_text(t, "size_mib", c.size_mib);
        if (c.mla_latent) t += "  mla_latent: true\n";
        if (c.mla_off) t += "  mla_off: true\n";
        opt_text(t, "k_type", c.k_type);
        opt_text(t, "k_mib", c.k_mib);
        opt_text(t, "v_type", c.v_type);
        opt_text(t, "v_mib", c.v_mib);
    };
    for (const auto& c : log.caches) cache(c.scope == "swa" ? "swa_cache" : "kv_cache", c);
    if (log.recurrent) {
        const LoggedRecurrent& r = *log.recurrent;
        t += "recurrent:\n";
        t += fmt::format("  log_line: {}\n", r.line);
        opt_int(t, "cells", r.cells);
        opt_int(t, "seqs", r.seqs);
        opt_int(t, "layers", r.layers);
        opt_text(t, "size_mib", r.size_mib);
        opt_text(t, "r_type", r.r_type);
        opt_text(t, "r_mib", r.r_mib);
        opt_text(t, "s_type", r.s_type);
        opt_text(t, "s_mib", r.s_mib);
    }
    if (log.engine == Engine::vllm) {
        t += "vllm:\n";
        opt_text(t, "available_kv_gib", log.available_gib);
        opt_int(t, "tokens", log.tokens);
        opt_int(t, "max_model_len", log.max_model_len);
        opt_text(t, "concurrency", log.concurrency);
        opt_int(t, "block_size", log.block_size);
        opt_int(t, "max_num_batched_tokens", log.max_num_batched_tokens);
        opt_int(t, "tensor_parallel", log.tensor_parallel);
        opt_text(t, "kv_cache_dtype", log.kv_cache_dtype);
        opt_text(t, "model_dtype", log.model_dtype);
    }
    if (log.engine == Engine::sglang) {
        t += "sglang:\n";
        opt_int(t, "tokens", log.tokens);
        opt_text(t, "k_gb", log.k_gb);
        opt_text(t, "v_gb", log.v_gb);
        opt_text(t, "kv_gb", log.kv_gb);
        opt_int(t, "page_size", log.page_size);
        opt_int(t, "tensor_parallel", log.tensor_parallel);
        opt_text(t, "kv_cache_dtype", log.kv_cache_dtype);
        opt_int(t, "mamba_slots", log.mamba_slots);
        opt_text(t, "conv_state_gb", log.conv_state_gb);
        opt_text(t, "ssm_state_gb", log.ssm_state_gb);
        opt_text(t, "mamba_ssm_dtype", log.mamba_ssm_dtype);
    }
    t += "log_lines:\n";
    for (const auto& l : log.lines) t += fmt::format("  - {}\n", quoted(l));
    if (url.empty()) {
        t += "# url: the address of the issue, page or file the log was copied from\n";
    } else {
        t += fmt::format("url: {}\n", url);
    }
    if (notes.empty()) {
        t += "# notes: |\n#   The settings the log leaves unsaid (cache type, ubatch, build) and what was assumed.\n";
    } else {
        t += fmt::format("notes: {}\n", quoted(notes));
    }
    return t;
}

}  // namespace kvcat
