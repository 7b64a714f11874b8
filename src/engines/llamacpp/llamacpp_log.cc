#include "engines/llamacpp/llamacpp_log.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

namespace kvcat {

namespace {

const LogPattern kLlamaMarker(R"((llama_kv_cache\w*: +size =|llama_memory_recurrent: +size =|KV self size))");
const LogPattern kLlamaCache(
    R"(llama_kv_cache\w*: +size = +([0-9][0-9.,]*) MiB \( *(\d+) cells, +(\d+) layers, +(\d+)(?:/(\d+))? seqs\)(?:, K \((\w+)\): +([0-9][0-9.,]*) MiB, V \((\w+)\): +([0-9][0-9.,]*) MiB)?\s*$)");
const LogPattern kLlamaRecurrent(
    R"(llama_memory_recurrent: +size = +([0-9][0-9.,]*) MiB \( *(\d+) cells, +(\d+) layers, +(\d+) seqs(?: +\d+ rs_seq)?\)(?:, R \((\w+)\): +([0-9][0-9.,]*) MiB, S \((\w+)\): +([0-9][0-9.,]*) MiB(?:, P \(\w+\): +0\.00 MiB)?)?\s*$)");
const LogPattern kSelfSize(
    R"(KV self size += +([0-9][0-9.,]*) MiB, ([A-Za-z^]+) \((\w+)\): +([0-9][0-9.,]*) MiB, ([A-Za-z^]+)(?: \((\w+)\): +([0-9][0-9.,]*) MiB|: not used)\s*$)");
const LogPattern kIswa(R"(llama_kv_cache\w*: creating +(non-SWA|SWA) KV cache, size = (\d+) cells)");
// ik_llama.cpp's context line "mla_attn   = 0" on a model whose metadata prints a latent
// ("n_lora_kv = 512"): the cache holds every head's K and V.
const LogPattern kMlaAttn(R"(\bmla_attn += (\d+))");
const LogPattern kLoraKv(R"(\bn_lora_kv += (\d+))");
// The KV heads as print_info prints them: an MLA model's GGUF converted for the latent says 1; one
// converted before b5137 says every head (128 for DeepSeek-V3), and every head's K and V is cached.
const LogPattern kHeadKv(R"((?:print_info|llm_load_print_meta): n_head_kv += (\d+)\s*$)");
const LogPattern kKvSize(R"(\bkv_size = (\d+))");
// "<function>: <device> [model |compute |output ]buffer size = X MiB"; a device name may hold
// spaces and brackets ("AMD Radeon RX 7900 XTX (RADV NAVI31)"), so it runs from the colon.
const LogPattern kBuffer(R"((?:^|:)\s*([^:\s][^:]*?)\s+(model |compute |output |)buffer size += *([0-9.,]+) MiB)");
const LogPattern kUbatch(R"(\bn_ubatch += (\d+))");
const LogPattern kFusedGdnChunked(R"(fused Gated Delta Net \(chunked\) (enabled|disabled))");
const LogPattern kFlashAttn(R"(\bflash_attn += (\w+)|Flash Attention was auto, set to (enabled|disabled))");
// "offloaded 18/33 layers to GPU": a start whose other layers run on the CPU.
const LogPattern kOffloaded(R"(\boffloaded (\d+)/(\d+) layers to GPU)");
const LogPattern kFileType(R"((?:print_info: file type|llm_load_print_meta: model ftype) += (.+)$)");
const LogPattern kNctx(R"((?:llama_new_context_with_model|llama_context|llama_init_from_model): n_ctx += (\d+))");
// -c N on a llama.cpp command line pasted at the top of a log (llama-server, llama-cli, main).
const LogPattern kCliCtx(R"((?:llama|main|server)\S*\s.*(?:^|\s)(?:-c|--ctx-size|--ctx_size)[= ](\d+)(?:\s|$))");
// llama.cpp's build as it prints it: "build: 5192 (f2c9d2b4)", "build_info: b8999-b97ebdc98", and
// llama-server's (and ik_llama.cpp's) "build info ... build=3748 commit="066ed4fd"".
const LogPattern kLlamaBuild(
    R"re(\bbuild: (\d+) \(([0-9a-f]+)\)|\bbuild_info: (b\d+)-|\bbuild=(\d+) commit="([0-9a-f]+)")re");

class LlamaLogReader final : public LogReader {
  public:
    explicit LlamaLogReader(LogText kind) : kind_(kind) {}

    bool read_settings(LogCursor& cur, ParsedLog& out) override {
        std::smatch m;
        if (cur.search(m, kKvSize, {"kv_size"})) kv_size_ = cur.count(m[1], "kv_size");
        if (cur.search(m, kNctx, {"n_ctx"})) n_ctx_ = cur.count(m[1], "n_ctx");
        if (!cli_ctx_ && cur.search(m, kCliCtx, {" -c ", " -c=", "--ctx-size", "--ctx_size"}))
            cli_ctx_ = cur.count(m[1], "-c");
        if (cur.search(m, kMlaAttn, {"mla_attn"})) mla_attn_ = cur.whole(m[1], "mla_attn");
        if (cur.search(m, kLoraKv, {"n_lora_kv"})) lora_kv_ = cur.whole(m[1], "n_lora_kv");
        if (cur.search(m, kHeadKv, {"n_head_kv"})) head_kv_ = cur.whole(m[1], "n_head_kv");
        if (cur.search(m, kIswa, {"KV cache, size"})) {
            pending_scope_ = m[1] == "SWA" ? "swa" : "base";
            cur.count(m[2], "cells");
            out.lines.push_back(cur.line.substr(static_cast<std::size_t>(m.position(0))));
            seen = true;
            return true;
        }
        if (out.version.empty() && cur.search(m, kLlamaBuild, {"build"})) {
            if (m[1].matched) out.version = "b" + m[1].str();
            if (m[3].matched) out.version = m[3];
            if (m[4].matched) out.version = fmt::format("build {} ({})", m[4].str(), m[5].str());
        }
        return read_start(cur, out);
    }

    std::optional<std::size_t> figure_start(const LogCursor& cur) const override {
        return cur.position(kLlamaMarker, {"llama_kv_cache", "llama_memory_recurrent", "KV self size"});
    }

    bool read_figure(LogCursor& cur, const std::string& figure, ParsedLog& out) override {
        std::smatch m;
        if (std::regex_search(figure, m, kLlamaCache.get())) {
            read_cache(cur, figure, m, out);
        } else if (std::regex_search(figure, m, kLlamaRecurrent.get())) {
            read_recurrent(cur, figure, m, out);
        } else if (std::regex_search(figure, m, kSelfSize.get())) {
            read_self_size(cur, figure, m, out);
        } else {
            return false;
        }
        seen = true;
        return true;
    }

    void finish(const std::string& /*file*/, LogText /*kind*/, ParsedLog& out) const override {
        if (out.buffers.empty()) {
            out.offloaded_layers.clear();
        } else if (!offload_line_.empty()) {
            out.lines.insert(out.lines.begin() + static_cast<std::ptrdiff_t>(offload_at_), offload_line_);
        }
    }

  private:
    /// llama.cpp's whole start: the settings that size its buffers, and a buffer line (kept with
    /// the lines read, and true: the line holds nothing else).
    bool read_start(LogCursor& cur, ParsedLog& out) {
        std::smatch m;
        if (cur.search(m, kUbatch, {"n_ubatch"})) cur.once("n_ubatch", out.n_ubatch, cur.count(m[1], "n_ubatch"));
        if (cur.search(m, kFlashAttn, {"flash_attn", "Flash Attention was auto"}))
            out.flash_attn = either_group(m, 1, 2);
        if (cur.search(m, kFusedGdnChunked, {"fused Gated Delta Net (chunked)"})) out.fused_gdn_chunked = m[1];
        if (cur.search(m, kFileType, {"file type", "model ftype"})) out.file_type = trim_line(m[1]);
        if (cur.search(m, kOffloaded, {"offloaded"})) {
            std::string layers = fmt::format("{}/{}", cur.whole(m[1], "offloaded layers"), cur.count(m[2], "layers"));
            cur.once("offloaded layers", out.offloaded_layers, layers);
            // Kept with the start's buffers: a log of the cache's lines alone keeps none of it.
            offload_line_ = cur.line.substr(static_cast<std::size_t>(m.position(0)));
            offload_at_ = out.lines.size();
            return true;
        }
        // Builds of early 2024 printed an input buffer (the host's inputs), which kvcat does not model.
        // The KV and RS (recurrent state) buffers are the cache's, read from their size lines.
        for (const char* cache : {"KV buffer size", "RS buffer size", "input buffer size"}) {
            if (cur.line.find(cache) != std::string::npos) return false;
        }
        if (!cur.search(m, kBuffer, {"buffer size"})) return false;
        add_buffer(cur, out, m[1], m[2].length() == 0 ? "model" : trim_line(m[2]), cur.decimal(m[3], "buffer size"));
        out.lines.push_back(cur.line.substr(static_cast<std::size_t>(m.position(1))));
        return true;
    }

    /// A buffer added to `out`; the same device and kind printed again with another size is a
    /// second start (printed again with the same size, as a retried reserve does, it is one). A
    /// model split over files maps each file as a buffer of its own: a device's model buffers
    /// printed while the weights load, before any compute or output buffer, are all kept.
    static void add_buffer(const LogCursor& cur, ParsedLog& out, const std::string& device, const std::string& kind,
                           const std::string& mib) {
        bool loading = std::none_of(out.buffers.begin(), out.buffers.end(),
                                    [](const LoggedBuffer& b) { return b.kind != "model"; });
        if (kind == "model" && loading) {
            out.buffers.push_back({device, kind, mib, cur.n});
            return;
        }
        for (const auto& b : out.buffers) {
            if (b.device != device || b.kind != kind) continue;
            if (b.mib != mib) {
                cur.fail(cur.line, fmt::format("a second {} {} buffer, where line {} gave another: the log holds more "
                                               "than one start; give the lines of one",
                                               device, kind, b.line));
            }
            return;
        }
        out.buffers.push_back({device, kind, mib, cur.n});
    }

    /// A cache added to `out`, unless one of its scope is there already.
    static void add_cache(const LogCursor& cur, ParsedLog& out, const LoggedCache& c, const std::string& shown) {
        for (const auto& other : out.caches) {
            if ((other.scope == "swa") == (c.scope == "swa")) {  // both would be the record's one kv_cache or swa_cache
                cur.fail(shown, fmt::format("a second cache of scope {}, after the one on line {}: the log holds more "
                                            "than one start, or a cache kvcat does not model; give the lines of one "
                                            "start",
                                            c.scope, other.line));
            }
        }
        out.caches.push_back(c);
    }

    void read_cache(const LogCursor& cur, const std::string& figure, const std::smatch& m, ParsedLog& out) {
        LoggedCache c;
        c.line = cur.n;
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
        if (!pending_scope_.empty()) {
            c.scope = pending_scope_;
            pending_scope_.clear();
        }
        add_cache(cur, out, c, figure);
    }

    static void read_recurrent(const LogCursor& cur, const std::string& figure, const std::smatch& m, ParsedLog& out) {
        LoggedRecurrent r;
        r.line = cur.n;
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
            cur.fail(figure, fmt::format("a second recurrent state, after the one on line {}: the log holds more than "
                                         "one start; give the lines of one",
                                         out.recurrent->line));
        }
        out.recurrent = r;
    }

    void read_self_size(const LogCursor& cur, const std::string& figure, const std::smatch& m, ParsedLog& out) const {
        LoggedCache c;
        c.line = cur.n;
        c.size_mib = cur.decimal(m[1], "size");
        std::string first = m[2], second = m[5];
        if (first == "K" && second == "V") {
            // ik_llama.cpp's -mla 0, or mainline llama.cpp caching every head of a GGUF without the
            // latent's one head (a build before b5137, or a file converted before it).
            c.mla_off = lora_kv_.value_or(0) > 0 && (mla_attn_ == 0 || head_kv_.value_or(1) > 1);
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
        c.cells = kv_size_ ? kv_size_ : n_ctx_ ? n_ctx_ : cells_from_command(cur, out, figure);
        c.streams = 1;
        add_cache(cur, out, c, figure);
    }

    /// The cells of an older "KV self size" line whose log prints no kv_size or n_ctx: -c of the
    /// command line pasted above it, when no build pads it further (a multiple of 256; builds pad
    /// n_ctx to 32 or 256 cells); otherwise unknown, which a whole log may not leave them.
    std::optional<std::int64_t> cells_from_command(const LogCursor& cur, ParsedLog& out,
                                                   const std::string& figure) const {
        if (cli_ctx_ && *cli_ctx_ % 256 == 0) {
            out.cells_from_command_line = true;
            return cli_ctx_;
        }
        if (cli_ctx_) {
            cur.fail(figure,
                     fmt::format("the log gives no kv_size or n_ctx line, and its command line's -c {} is not a "
                                 "multiple of 256, so the cells depend on how this build pads n_ctx (to 32 or 256 "
                                 "cells)",
                                 *cli_ctx_));
        }
        if (kind_ == LogText::whole_log) {
            cur.fail(figure, "the log gives no kv_size or n_ctx line before this size line, so its cells are unknown");
        }
        return std::nullopt;
    }

    LogText kind_;
    std::optional<std::int64_t> kv_size_, n_ctx_, mla_attn_, lora_kv_, head_kv_, cli_ctx_;
    std::string pending_scope_;
    std::string offload_line_;    ///< "offloaded 18/33 layers to GPU", as printed
    std::size_t offload_at_ = 0;  ///< where it stands among the lines read
};

}  // namespace

std::unique_ptr<LogReader> llamacpp_log_reader(LogText kind) {
    return std::make_unique<LlamaLogReader>(kind);
}

void llamacpp_record_block(const ParsedLog& log, std::string& t) {
    auto cache = [&](const char* key, const LoggedCache& c) {
        t += fmt::format("{}:\n", key);
        t += fmt::format("  log_line: {}\n", c.line);
        t += fmt::format("  scope: {}\n", c.scope);
        yaml_optional(t, "cells", c.cells);
        yaml_optional(t, "streams", c.streams);
        yaml_optional(t, "seqs", c.seqs);
        yaml_optional(t, "layers", c.layers);
        yaml_optional(t, "size_mib", c.size_mib);
        if (c.mla_latent) t += "  mla_latent: true\n";
        if (c.mla_off) t += "  mla_off: true\n";
        yaml_optional(t, "k_type", c.k_type);
        yaml_optional(t, "k_mib", c.k_mib);
        yaml_optional(t, "v_type", c.v_type);
        yaml_optional(t, "v_mib", c.v_mib);
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
        yaml_optional(t, "cells", r.cells);
        yaml_optional(t, "seqs", r.seqs);
        yaml_optional(t, "layers", r.layers);
        yaml_optional(t, "size_mib", r.size_mib);
        yaml_optional(t, "r_type", r.r_type);
        yaml_optional(t, "r_mib", r.r_mib);
        yaml_optional(t, "s_type", r.s_type);
        yaml_optional(t, "s_mib", r.s_mib);
    }
    if (!log.buffers.empty()) {
        t += "start:\n";
        yaml_optional(t, "file_type", log.file_type.empty() ? "" : yaml_quoted(log.file_type));
        yaml_optional(t, "n_ubatch", log.n_ubatch);
        yaml_optional(t, "flash_attn", log.flash_attn.empty() ? "" : yaml_quoted(log.flash_attn));
        yaml_optional(t, "fused_gdn_chunked", log.fused_gdn_chunked.empty() ? "" : yaml_quoted(log.fused_gdn_chunked));
        yaml_optional(t, "offloaded_layers", log.offloaded_layers.empty() ? "" : yaml_quoted(log.offloaded_layers));
        t += "  buffers:\n";
        for (const auto& b : log.buffers) {
            t += fmt::format("    - device: {}\n      kind: {}\n      mib: {}\n      log_line: {}\n",
                             yaml_quoted(b.device), b.kind, b.mib, b.line);
        }
    }
}

bool llamacpp_host_buffer(std::string_view device) {
    return device.starts_with("CPU") || device.ends_with("_Host") || device == "AMX";
}

bool llamacpp_repack_buffer(std::string_view device) {
    return device == "AMX" || device == "CPU_AARCH64" || device == "CPU_REPACK" || device == "CPU_KLEIDIAI";
}

}  // namespace kvcat
