#include "engines/engine_log.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <regex>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engines/engine_rules.h"

namespace kvcat {

namespace {

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    std::size_t start = s.find_first_not_of(" \t");
    return start == std::string::npos ? "" : s.substr(start);
}

/// A number as the engine printed it ("1,048,576" with vLLM's thousands separators), read whole
/// or not at all: what is wrong with it, or "" and the value in `value`.
std::string read_whole(const std::string& text, std::int64_t& value) {
    std::string digits;
    for (char c : text) {
        if (c != ',') digits += c;
    }
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range) return fmt::format("{} is beyond 2^63 - 1", text);
    if (ec != std::errc{} || end != digits.data() + digits.size())
        return fmt::format("'{}' is not a whole number", text);
    return "";
}

/// A printed size or ratio ("512.00", or "512,00" where the engine ran under a locale with a
/// decimal comma): digits, then at most one decimal separator followed by digits. The figure as a
/// record keeps it (with a point), or "" when the text is not one.
std::string decimal_figure(const std::string& text) {
    std::string out = text;
    std::size_t sep = out.find_first_of(".,");
    if (sep != std::string::npos) out[sep] = '.';
    bool digits_before = sep != 0, digits_after = sep == std::string::npos || sep + 1 < out.size();
    bool only_digits = std::all_of(out.begin(), out.end(), [&](char c) { return (c >= '0' && c <= '9') || c == '.'; });
    if (out.empty() || !digits_before || !digits_after || !only_digits || std::count(out.begin(), out.end(), '.') > 1) {
        return "";
    }
    return out;
}

/// Colour and cursor sequences (ESC [ ... a final letter) that a terminal-coloured log keeps when
/// it is pasted; they are no part of what the engine printed.
std::string without_colour(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            std::size_t j = i + 2;
            while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';' || s[j] == '?')) ++j;
            if (j < s.size() && ((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= 'a' && s[j] <= 'z'))) {
                i = j;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

/// What a line that carries an allocation figure starts its figure with; a line holding one of
/// these must read in full, or the import stops at it.
const std::regex kMarker(
    R"((llama_kv_cache\w*: +size =|llama_memory_recurrent: +size =|KV self size|GPU KV cache size:|Available KV cache memory:|Maximum concurrency for|KV Cache is allocated\.|Mamba Cache is allocated\.|max_total_num_tokens=))");

// llama.cpp
const std::regex kLlamaCache(
    R"(llama_kv_cache\w*: +size = +([0-9][0-9.,]*) MiB \( *(\d+) cells, +(\d+) layers, +(\d+)(?:/(\d+))? seqs\)(?:, K \((\w+)\): +([0-9][0-9.,]*) MiB, V \((\w+)\): +([0-9][0-9.,]*) MiB)?\s*$)");
const std::regex kLlamaRecurrent(
    R"(llama_memory_recurrent: +size = +([0-9][0-9.,]*) MiB \( *(\d+) cells, +(\d+) layers, +(\d+) seqs(?: +\d+ rs_seq)?\)(?:, R \((\w+)\): +([0-9][0-9.,]*) MiB, S \((\w+)\): +([0-9][0-9.,]*) MiB(?:, P \(\w+\): +0\.00 MiB)?)?\s*$)");
const std::regex kSelfSize(
    R"(KV self size += +([0-9][0-9.,]*) MiB, ([A-Za-z^]+) \((\w+)\): +([0-9][0-9.,]*) MiB, ([A-Za-z^]+)(?: \((\w+)\): +([0-9][0-9.,]*) MiB|: not used)\s*$)");
const std::regex kIswa(R"(llama_kv_cache\w*: creating +(non-SWA|SWA) KV cache, size = (\d+) cells)");
// ik_llama.cpp's context line "mla_attn   = 0" on a model whose metadata prints a latent
// ("n_lora_kv = 512"): the cache holds every head's K and V.
const std::regex kMlaAttn(R"(\bmla_attn += (\d+))");
const std::regex kLoraKv(R"(\bn_lora_kv += (\d+))");
const std::regex kKvSize(R"(\bkv_size = (\d+))");
// "<function>: <device> [model |compute |output ]buffer size = X MiB"; a device name may hold
// spaces and brackets ("AMD Radeon RX 7900 XTX (RADV NAVI31)"), so it runs from the colon.
const std::regex kBuffer(R"((?:^|:)\s*([^:\s][^:]*?)\s+(model |compute |output |)buffer size += *([0-9.,]+) MiB)");
const std::regex kUbatch(R"(\bn_ubatch += (\d+))");
const std::regex kFlashAttn(R"(\bflash_attn += (\w+)|Flash Attention was auto, set to (enabled|disabled))");
const std::regex kFileType(R"((?:print_info: file type|llm_load_print_meta: model ftype) += (.+)$)");
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
// -c N on a llama.cpp command line pasted at the top of a log (llama-server, llama-cli, main).
const std::regex kCliCtx(R"((?:llama|main|server)\S*\s.*(?:^|\s)(?:-c|--ctx-size|--ctx_size)[= ](\d+)(?:\s|$))");
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

/// Where parse_engine_log is in the log, and the checks each figure read there goes through;
/// every failure names the file and line.
struct LogCursor {
    const std::string& file;
    int n = 0;
    std::string line;  ///< the line being read, trimmed and without colour
    std::map<std::string, int> first_line;

    [[noreturn]] void fail(const std::string& shown, const std::string& why) const {
        throw LogError(
            fmt::format("{}:{}: {}: '{}'", file, n, why, shown.size() > 200 ? shown.substr(0, 200) + "..." : shown));
    }
    std::int64_t whole(const std::string& printed, const char* what) const {
        std::int64_t value = 0;
        std::string wrong = read_whole(printed, value);
        if (!wrong.empty()) fail(line, fmt::format("the {} figure {}", what, wrong));
        return value;
    }
    /// A count an engine prints (cells, layers, tokens, ...) is at least one: no engine
    /// allocates for none, and a record holding 0 would not lint.
    std::int64_t count(const std::string& printed, const char* what) const {
        std::int64_t value = whole(printed, what);
        if (value < 1) fail(line, fmt::format("{} {}, where an engine prints at least 1", printed, what));
        return value;
    }
    std::string decimal(const std::string& printed, const char* what) const {
        std::string read = decimal_figure(printed);
        if (read.empty()) fail(line, fmt::format("the {} '{}' is not a number", what, printed));
        return read;
    }
    /// A figure given twice with two values: two starts in one log (a restart, two runs pasted
    /// together). Which one the record should hold is not for kvcat to guess.
    template <typename Field, typename Value>
    void once(const std::string& key, Field& field, const Value& value) {
        auto [it, fresh] = first_line.emplace(key, n);
        if (!fresh && field != value) {
            fail(line, fmt::format("a second {} figure, where line {} gave another: the log holds more than one "
                                   "start; give the lines of one",
                                   key, it->second));
        }
        field = value;
    }
    /// Most lines of a log hold none of what is read: a regex is tried on a line only when the
    /// line holds a word it needs, which keeps a 16 MiB log to a second rather than to a quarter
    /// minute.
    bool search(std::smatch& found, const std::regex& re, std::initializer_list<std::string_view> needles) const {
        bool any = std::any_of(needles.begin(), needles.end(),
                               [&](std::string_view needle) { return line.find(needle) != std::string::npos; });
        return any && std::regex_search(line, found, re);
    }
    /// SGLang's sliding-window pool (SWAKVPool) prints its two pools' tokens, then a "KV Cache is
    /// allocated" line for each; kvcat models one pool, so the pair is refused rather than read
    /// as one (the lines as sgl-project/sglang pull request 18039 shows them).
    void refuse_unmodelled_pools() const {
        if (line.find("Use sliding window memory pool.") != std::string::npos) {
            fail(line,
                 "SGLang's sliding-window memory pool keeps two pools (full-attention and sliding layers), which "
                 "kvcat does not model; the log is refused rather than read as one pool");
        }
    }
    /// The cells of an older "KV self size" line whose log prints no kv_size or n_ctx: -c of the
    /// command line pasted above it, when no build pads it further (a multiple of 256; builds pad
    /// n_ctx to 32 or 256 cells); otherwise unknown, which a whole log may not leave them.
    std::optional<std::int64_t> cells_from_command(const std::optional<std::int64_t>& cli_ctx, LogText kind,
                                                   ParsedLog& out, const std::string& figure) const {
        if (cli_ctx && *cli_ctx % 256 == 0) {
            out.cells_from_command_line = true;
            return cli_ctx;
        }
        if (cli_ctx) {
            fail(figure, fmt::format("the log gives no kv_size or n_ctx line, and its command line's -c {} is not a "
                                     "multiple of 256, so the cells depend on how this build pads n_ctx (to 32 or 256 "
                                     "cells)",
                                     *cli_ctx));
        }
        if (kind == LogText::whole_log) {
            fail(figure, "the log gives no kv_size or n_ctx line before this size line, so its cells are unknown");
        }
        return std::nullopt;
    }
    /// llama.cpp's whole start: the settings that size its buffers, and a buffer line (kept with
    /// the lines read, and true: the line holds nothing else).
    bool read_start(ParsedLog& out) {
        std::smatch m;
        if (search(m, kUbatch, {"n_ubatch"})) once("n_ubatch", out.n_ubatch, count(m[1], "n_ubatch"));
        if (search(m, kFlashAttn, {"flash_attn", "Flash Attention was auto"})) out.flash_attn = group(m, 1, 2);
        if (search(m, kFileType, {"file type", "model ftype"})) out.file_type = trim(m[1]);
        // Builds of early 2024 printed an input buffer (the host's inputs), which kvcat does not model.
        // The KV and RS (recurrent state) buffers are the cache's, read from their size lines.
        for (const char* cache : {"KV buffer size", "RS buffer size", "input buffer size"}) {
            if (line.find(cache) != std::string::npos) return false;
        }
        if (!search(m, kBuffer, {"buffer size"})) return false;
        add_buffer(out, m[1], m[2].length() == 0 ? "model" : trim(m[2]), decimal(m[3], "buffer size"));
        out.lines.push_back(line.substr(static_cast<std::size_t>(m.position(1))));
        return true;
    }
    /// A buffer added to `out`; the same device and kind printed again with another size is a
    /// second start (printed again with the same size, as a retried reserve does, it is one).
    void add_buffer(ParsedLog& out, const std::string& device, const std::string& kind, const std::string& mib) const {
        for (const auto& b : out.buffers) {
            if (b.device != device || b.kind != kind) continue;
            if (b.mib != mib) {
                fail(line, fmt::format("a second {} {} buffer, where line {} gave another: the log holds more than "
                                       "one start; give the lines of one",
                                       device, kind, b.line));
            }
            return;
        }
        out.buffers.push_back({device, kind, mib, n});
    }
    /// A cache added to `out`, unless one of its scope is there already.
    void add_cache(ParsedLog& out, const LoggedCache& c, const std::string& shown) const {
        for (const auto& other : out.caches) {
            if ((other.scope == "swa") == (c.scope == "swa")) {  // both would be the record's one kv_cache or swa_cache
                fail(shown, fmt::format("a second cache of scope {}, after the one on line {}: the log holds more "
                                        "than one start, or a cache kvcat does not model; give the lines of one start",
                                        c.scope, other.line));
            }
        }
        out.caches.push_back(c);
    }
};

}  // namespace

/// The longest line parse_engine_log searches, bytes.
constexpr std::size_t kLongestLogLine = 8192;

void add_logged(std::vector<LoggedFigure>& out, const std::string& key, const std::optional<std::int64_t>& value) {
    if (value) out.push_back({key, std::to_string(*value), true});
}

void add_logged(std::vector<LoggedFigure>& out, const std::string& key, const std::string& value, bool decimal) {
    if (!value.empty()) out.push_back({key, value, decimal});
}

std::vector<LoggedFigure> logged_figures(const ParsedLog& log) {
    std::vector<LoggedFigure> out;
    rules_of(log.engine).logged_figures(log, out);
    return out;
}

ParsedLog parse_engine_log(const std::string& text, const std::string& file, LogText kind) {
    ParsedLog out;
    bool llama = false, vllm = false, sglang = false;
    std::optional<std::int64_t> kv_size, n_ctx, mla_attn, lora_kv, cli_ctx;
    std::string pending_scope;
    std::optional<std::int64_t> pending_cells;
    std::istringstream in(text);
    std::string raw;
    LogCursor cur{file, 0, {}, {}};
    int& n = cur.n;
    std::string& line = cur.line;
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
        line = trim(without_colour(raw));
        std::smatch m;
        if (cur.search(m, kKvSize, {"kv_size"})) kv_size = cur.count(m[1], "kv_size");
        if (cur.search(m, kNctx, {"n_ctx"})) n_ctx = cur.count(m[1], "n_ctx");
        if (!cli_ctx && cur.search(m, kCliCtx, {" -c ", " -c=", "--ctx-size", "--ctx_size"}))
            cli_ctx = cur.count(m[1], "-c");
        if (cur.search(m, kMlaAttn, {"mla_attn"})) mla_attn = cur.whole(m[1], "mla_attn");
        if (cur.search(m, kLoraKv, {"n_lora_kv"})) lora_kv = cur.whole(m[1], "n_lora_kv");
        if (cur.search(m, kIswa, {"KV cache, size"})) {
            pending_scope = m[1] == "SWA" ? "swa" : "base";
            pending_cells = cur.count(m[2], "cells");
            out.lines.push_back(line.substr(static_cast<std::size_t>(m.position(0))));
            llama = true;
            continue;
        }
        if (cur.search(m, kVllmVersion, {"LLM engine (v", "server version"})) {
            out.version = group(m, 1, 2);
            vllm = true;
        }
        if (cur.search(m, kMaxSeqLen, {"max_seq_len=", "'max_model_len'"}))
            out.max_model_len = cur.count(group(m, 1, 2), "max_model_len");
        if (cur.search(m, kTp, {"tensor_parallel_size"}))
            out.tensor_parallel = cur.count(group(m, 1, 2), "tensor_parallel_size");
        if (!out.tensor_parallel && cur.search(m, kCliTp, {"--t"}))
            out.tensor_parallel = cur.count(m[1], "tensor-parallel size");
        if (out.version.empty() && cur.search(m, kLlamaBuild, {"build"})) {
            if (m[1].matched) out.version = "b" + m[1].str();
            if (m[3].matched) out.version = m[3];
            if (m[4].matched) out.version = fmt::format("build {} ({})", m[4].str(), m[5].str());
        }
        if (cur.search(m, kKvDtype, {"kv_cache_dtype"})) out.kv_cache_dtype = group(m, 1, 2);
        if (cur.search(m, kBatched, {"max_num_batched_tokens"}))
            out.max_num_batched_tokens = cur.count(group(m, 1, 2), "max_num_batched_tokens");
        if (cur.search(m, kBlockSize, {"block_size", "block size"}))
            out.block_size = cur.count(group(m, 1, 2), "block_size");
        if (cur.search(m, kModelDtype, {"dtype=torch."})) out.model_dtype = m[1];
        if (cur.search(m, kSglangPage, {"page_size="})) out.page_size = cur.count(m[1], "page_size");
        if (cur.search(m, kSglangTp, {"tp_size="})) out.tensor_parallel = cur.count(m[1], "tp_size");
        if (cur.search(m, kSglangDtype, {"kv_cache_dtype='"})) out.kv_cache_dtype = m[1];
        if (cur.search(m, kSglangSsmDtype, {"mamba_ssm_dtype='"})) out.mamba_ssm_dtype = m[1];
        if (cur.search(m, kSglangKvDtype, {"KV cache dtype: ", "KV Cache is allocated. dtype: "}))
            out.kv_cache_dtype = m[1];
        if (cur.read_start(out)) continue;
        cur.refuse_unmodelled_pools();
        std::smatch marker;
        if (!cur.search(marker, kMarker,
                        {"llama_kv_cache", "llama_memory_recurrent", "KV self size",
                         "GPU KV cache size:", "Available KV cache memory:", "Maximum concurrency for",
                         "KV Cache is allocated.", "Mamba Cache is allocated.", "max_total_num_tokens="}))
            continue;
        std::string figure = line.substr(static_cast<std::size_t>(marker.position(0)));
        if (std::regex_search(figure, m, kLlamaCache)) {
            LoggedCache c;
            c.line = n;
            c.size_mib = cur.decimal(m[1], "size");
            c.cells = cur.count(m[2], "cells");
            c.layers = cur.count(m[3], "layers");
            c.seqs = cur.count(m[4], "seqs");
            c.streams = m[5].matched ? cur.count(m[5], "streams") : 1;
            if (m[6].matched) {
                c.k_type = m[6];
                c.k_mib = cur.decimal(m[7], "K size");
                c.v_type = m[8];
                c.v_mib = cur.decimal(m[9], "V size");
            }
            if (!pending_scope.empty()) {
                c.scope = pending_scope;
                pending_scope.clear();
            }
            cur.add_cache(out, c, figure);
            llama = true;
        } else if (std::regex_search(figure, m, kLlamaRecurrent)) {
            LoggedRecurrent r;
            r.line = n;
            r.size_mib = cur.decimal(m[1], "size");
            r.cells = cur.count(m[2], "cells");
            r.layers = cur.count(m[3], "layers");
            r.seqs = cur.count(m[4], "seqs");
            if (m[5].matched) {
                r.r_type = m[5];
                r.r_mib = cur.decimal(m[6], "R size");
                r.s_type = m[7];
                r.s_mib = cur.decimal(m[8], "S size");
            }
            if (out.recurrent) {
                cur.fail(figure, fmt::format("a second recurrent state, after the one on line {}: the log holds more "
                                             "than one start; give the lines of one",
                                             out.recurrent->line));
            }
            out.recurrent = r;
            llama = true;
        } else if (std::regex_search(figure, m, kSelfSize)) {
            LoggedCache c;
            c.line = n;
            c.size_mib = cur.decimal(m[1], "size");
            std::string first = m[2], second = m[5];
            if (first == "K" && second == "V") {
                c.mla_off = mla_attn == 0 && lora_kv.value_or(0) > 0;
                c.k_type = m[3];
                c.k_mib = cur.decimal(m[4], "K size");
                c.v_type = m[6];
                c.v_mib = cur.decimal(m[7], "V size");
            } else if (first == "c^KV" && second == "kv^T") {
                // ik_llama.cpp's MLA cache: the latent, and under -mla 1 without flash attention
                // the latent's first kv_lora_rank values again, transposed (kv^T).
                c.mla_latent = true;
                c.k_type = m[3];
                c.k_mib = cur.decimal(m[4], "c^KV size");
                if (m[6].matched) {
                    c.v_type = m[6];
                    c.v_mib = cur.decimal(m[7], "kv^T size");
                }
            } else {
                cur.fail(figure, fmt::format("a KV cache of {} and {} parts is not one kvcat reads (it reads K and V, "
                                             "or ik_llama.cpp's c^KV and kv^T)",
                                             first, second));
            }
            c.cells = kv_size ? kv_size : n_ctx ? n_ctx : cur.cells_from_command(cli_ctx, kind, out, figure);
            c.streams = 1;
            cur.add_cache(out, c, figure);
            llama = true;
        } else if (std::regex_search(figure, m, kAvailable)) {
            cur.once("available", out.available_gib, cur.decimal(m[1], "available KV cache memory"));
            vllm = true;
        } else if (std::regex_search(figure, m, kTokens)) {
            cur.once("tokens", out.tokens, cur.count(m[1], "GPU KV cache size"));
            vllm = true;
        } else if (std::regex_search(figure, m, kConcurrency)) {
            cur.once("concurrency", out.concurrency, cur.decimal(m[2], "maximum concurrency"));
            if (!out.max_model_len) out.max_model_len = cur.count(m[1], "tokens per request");
            vllm = true;
        } else if (std::regex_search(figure, m, kSglangKv)) {
            cur.once("tokens", out.tokens, cur.count(m[1], "#tokens"));
            if (m[2].matched) cur.once("k_gb", out.k_gb, cur.decimal(m[2], "K size"));
            if (m[3].matched) cur.once("v_gb", out.v_gb, cur.decimal(m[3], "V size"));
            if (m[4].matched) cur.once("kv_gb", out.kv_gb, cur.decimal(m[4], "KV size"));
            sglang = true;
        } else if (std::regex_search(figure, m, kSglangMamba)) {
            if (m[4].matched) {
                cur.fail(figure,
                         "SGLang's Mamba pool with speculative decoding keeps intermediate caches that kvcat does not "
                         "model");
            }
            cur.once("mamba_slots", out.mamba_slots, cur.count(m[1], "max_mamba_cache_size"));
            cur.once("conv_state_gb", out.conv_state_gb, cur.decimal(m[2], "conv_state size"));
            cur.once("ssm_state_gb", out.ssm_state_gb, cur.decimal(m[3], "ssm_state size"));
            sglang = true;
        } else if (std::regex_search(figure, m, kSglangTotal)) {
            if (!out.tokens) out.tokens = cur.count(m[1], "max_total_num_tokens");
            sglang = true;
        } else {
            cur.fail(figure, "this line carries an allocation figure but does not read as one kvcat knows");
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
    if (out.engine == Engine::vllm && !out.tokens && kind == LogText::whole_log) {
        throw LogError(
            fmt::format("{}: a vLLM log without a 'GPU KV cache size' line (vLLM's V0 engine prints GPU "
                        "blocks instead, which kvcat does not model)",
                        file));
    }
    return out;
}

namespace {

std::string yaml_quoted(const std::string& s) {
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
    t += fmt::format("engine: {}\n", log.engine_name.empty() ? std::string(name_of(log.engine)) : log.engine_name);
    std::string version = engine_version.empty() ? log.version : engine_version;
    t += fmt::format("engine_version: {}\n", version.empty() ? "null" : yaml_quoted(version));
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
    if (log.cells_from_command_line) {
        t += "# kv_cache.cells: the log prints no kv_size or n_ctx; the cells are -c of the command line it\n"
             "# starts with (a multiple of 256, which no build pads further).\n";
    }
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
    if (!log.buffers.empty()) {
        t += "start:\n";
        opt_text(t, "file_type", log.file_type.empty() ? "" : yaml_quoted(log.file_type));
        opt_int(t, "n_ubatch", log.n_ubatch);
        opt_text(t, "flash_attn", log.flash_attn.empty() ? "" : yaml_quoted(log.flash_attn));
        t += "  buffers:\n";
        for (const auto& b : log.buffers) {
            t += fmt::format("    - device: {}\n      kind: {}\n      mib: {}\n      log_line: {}\n",
                             yaml_quoted(b.device), b.kind, b.mib, b.line);
        }
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
    for (const auto& l : log.lines) t += fmt::format("  - {}\n", yaml_quoted(l));
    if (url.empty()) {
        t += "# url: the address of the issue, page or file the log was copied from\n";
    } else {
        t += fmt::format("url: {}\n", url);
    }
    if (notes.empty()) {
        t += "# notes: |\n#   The settings the log leaves unsaid (cache type, ubatch, build) and what was assumed.\n";
    } else {
        t += fmt::format("notes: {}\n", yaml_quoted(notes));
    }
    return t;
}

std::string_view engine_log_formats() {
    return "Reads llama.cpp (llama_kv_cache, llama_kv_cache_unified, llama_kv_cache_iswa, llama_memory_recurrent,\n"
           "KV self size), vLLM (Available KV cache memory, GPU KV cache size, Maximum concurrency and its config\n"
           "line) and SGLang (KV Cache is allocated, max_total_num_tokens) lines.";
}

}  // namespace kvcat
