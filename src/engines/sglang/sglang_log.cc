#include "engines/sglang/sglang_log.h"

#include <regex>

#include <fmt/format.h>

namespace kvcat {

namespace {

const LogPattern kSglangMarker(R"((KV Cache is allocated\.|Mamba Cache is allocated\.|max_total_num_tokens=))");
const LogPattern kSglangKv(
    R"(KV Cache is allocated\. (?:dtype: torch\.\w+, )?#tokens: (\d+), (?:K size: ([0-9.]+) GB, V size: ([0-9.]+) GB|KV size: ([0-9.]+) GB)\s*$)");
// SGLang's Mamba pool (a hybrid's conv and SSM state): "GB" with or without a space before it. The
// speculative pool's line adds two intermediate caches, which are matched so that the import can
// refuse that line by name.
const LogPattern kSglangMamba(
    R"(Mamba Cache is allocated\. max_mamba_cache_size: (\d+), conv_state size: ([0-9.]+) ?GB, ssm_state size: ([0-9.]+) ?GB(?: intermediate_ssm_state_cache size: ([0-9.]+) ?GB intermediate_conv_window_cache size: ([0-9.]+) ?GB)?\s*$)");
// SGLang names the KV cache's dtype in a line of its own, and newer releases in the pool's line.
const LogPattern kSglangKvDtype(R"((?:Using KV cache dtype: |KV Cache is allocated\. dtype: )torch\.(\w+))");
const LogPattern kSglangSsmDtype(R"(mamba_ssm_dtype='(\w+)')");
const LogPattern kSglangTotal(R"(max_total_num_tokens=(\d+))");
const LogPattern kSglangPage(R"(page_size=(\d+))");
const LogPattern kSglangTp(R"(tp_size=(\d+))");
const LogPattern kSglangDtype(R"(kv_cache_dtype='(\w+)')");

class SglangLogReader final : public LogReader {
  public:
    bool read_settings(LogCursor& cur, ParsedLog& out) override {
        std::smatch m;
        if (cur.search(m, kSglangPage, {"page_size="})) out.page_size = cur.count(m[1], "page_size");
        if (cur.search(m, kSglangTp, {"tp_size="})) out.tensor_parallel = cur.count(m[1], "tp_size");
        if (cur.search(m, kSglangDtype, {"kv_cache_dtype='"})) out.kv_cache_dtype = m[1];
        if (cur.search(m, kSglangSsmDtype, {"mamba_ssm_dtype='"})) out.mamba_ssm_dtype = m[1];
        if (cur.search(m, kSglangKvDtype, {"KV cache dtype: ", "KV Cache is allocated. dtype: "}))
            out.kv_cache_dtype = m[1];
        // SGLang's sliding-window pool (SWAKVPool) prints its two pools' tokens, then a "KV Cache
        // is allocated" line for each; kvcat models one pool, so the pair is refused rather than
        // read as one (the lines as sgl-project/sglang pull request 18039 shows them).
        if (cur.line.find("Use sliding window memory pool.") != std::string::npos) {
            cur.fail(cur.line,
                     "SGLang's sliding-window memory pool keeps two pools (full-attention and sliding layers), which "
                     "kvcat does not model; the log is refused rather than read as one pool");
        }
        return false;
    }

    std::optional<std::size_t> figure_start(const LogCursor& cur) const override {
        return cur.position(kSglangMarker,
                            {"KV Cache is allocated.", "Mamba Cache is allocated.", "max_total_num_tokens="});
    }

    bool read_figure(LogCursor& cur, const std::string& figure, ParsedLog& out) override {
        std::smatch m;
        if (std::regex_search(figure, m, kSglangKv.get())) {
            cur.once("tokens", out.tokens, cur.count(m[1], "#tokens"));
            if (m[2].matched) cur.once("k_gb", out.k_gb, cur.decimal(m[2], "K size"));
            if (m[3].matched) cur.once("v_gb", out.v_gb, cur.decimal(m[3], "V size"));
            if (m[4].matched) cur.once("kv_gb", out.kv_gb, cur.decimal(m[4], "KV size"));
        } else if (std::regex_search(figure, m, kSglangMamba.get())) {
            if (m[4].matched) {
                cur.fail(figure,
                         "SGLang's Mamba pool with speculative decoding keeps intermediate caches that kvcat does not "
                         "model");
            }
            cur.once("mamba_slots", out.mamba_slots, cur.count(m[1], "max_mamba_cache_size"));
            cur.once("conv_state_gb", out.conv_state_gb, cur.decimal(m[2], "conv_state size"));
            cur.once("ssm_state_gb", out.ssm_state_gb, cur.decimal(m[3], "ssm_state size"));
        } else if (std::regex_search(figure, m, kSglangTotal.get())) {
            if (!out.tokens) out.tokens = cur.count(m[1], "max_total_num_tokens");
        } else {
            return false;
        }
        seen = true;
        return true;
    }

    void finish(const std::string& /*file*/, LogText /*kind*/, ParsedLog& /*out*/) const override {}
};

}  // namespace

std::unique_ptr<LogReader> sglang_log_reader(LogText /*kind*/) {
    return std::make_unique<SglangLogReader>();
}

void sglang_record_block(const ParsedLog& log, std::string& t) {
    t += "sglang:\n";
    yaml_optional(t, "tokens", log.tokens);
    yaml_optional(t, "k_gb", log.k_gb);
    yaml_optional(t, "v_gb", log.v_gb);
    yaml_optional(t, "kv_gb", log.kv_gb);
    yaml_optional(t, "page_size", log.page_size);
    yaml_optional(t, "tensor_parallel", log.tensor_parallel);
    yaml_optional(t, "kv_cache_dtype", log.kv_cache_dtype);
    yaml_optional(t, "mamba_slots", log.mamba_slots);
    yaml_optional(t, "conv_state_gb", log.conv_state_gb);
    yaml_optional(t, "ssm_state_gb", log.ssm_state_gb);
    yaml_optional(t, "mamba_ssm_dtype", log.mamba_ssm_dtype);
}

}  // namespace kvcat
