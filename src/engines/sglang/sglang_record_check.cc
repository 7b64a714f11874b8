#include "engines/sglang/sglang_record_check.h"

#include <algorithm>

#include <fmt/format.h>

#include "engines/allocation_fields.h"
#include "engines/sglang/sglang_allocation.h"
#include "vocab/dtype_spelling.h"

namespace kvcat {

namespace {

using namespace allocation_fields;  // NOLINT(google-build-using-namespace): the record readers every check shares

/// SGLang's Mamba pool as printed: the conv and SSM state of the printed requests and the padded
/// slot, each judged to the printed hundredth of a GB.
void sglang_mamba(const Record& r, const Model& m, AllocationCheck& out) {
    auto slots = integer(r, "sglang.mamba_slots");
    if (!slots) return;
    AllocationPartCheck part;
    part.what = "Mamba pool";
    read_part(r, "sglang", {"mamba_slots", "conv_state_gb", "ssm_state_gb"}, part);
    // The KV pool's figures are its own part's; of the settings only the SSM dtype is this pool's.
    std::erase_if(part.settings, [](const auto& kv) { return kv.first != "mamba_ssm_dtype"; });
    std::int64_t tp = integer(r, "sglang.tensor_parallel").value_or(1);
    std::string ssm_type = sglang_ssm_dtype(m, text(r, "sglang.mamba_ssm_dtype"));
    try {
        SglangMambaBytes b = sglang_mamba_bytes(m, *slots, tp, std::string(kSglangConvDtype), ssm_type);
        part.terms.push_back(fmt::format("rows: {} requests + the padded slot = {}", group_thousands(*slots),
                                         group_thousands(*slots + 1)));
        part.terms.push_back(fmt::format("conv state: {} bytes = {} GB ({} layers, {}{})", bytes_words(b.conv),
                                         python_gib_text(b.conv), b.layers, kSglangConvDtype,
                                         tp > 1 ? ", one card's" : ""));
        part.terms.push_back(fmt::format("SSM state: {} bytes = {} GB ({} layers, {}{})", bytes_words(b.ssm),
                                         python_gib_text(b.ssm), b.layers, ssm_type, tp > 1 ? ", one card's" : ""));
        auto judge = [&](const std::string& key, const Rational& bytes, std::string_view what) {
            decimal_figure(r, key, python_gib_text(bytes), "GB",
                           fmt::format("SGLang's {} of {} requests and the padded slot is {} bytes", what,
                                       group_thousands(*slots), group_thousands(bytes.floor())),
                           part);
        };
        judge("sglang.conv_state_gb", b.conv, "conv state");
        judge("sglang.ssm_state_gb", b.ssm, "SSM state");
        part.bytes = b.conv + b.ssm;
    } catch (const EngineError& e) {
        out.problems.push_back({"sglang.mamba_slots", "this Mamba pool", "a shape kvcat models", e.what()});
    }
    out.parts.push_back(std::move(part));
}

void sglang(const Record& r, const Model& m, AllocationCheck& out) {
    if (!r.node("sglang")) return;
    sglang_mamba(r, m, out);
    AllocationPartCheck part;
    part.what = "pool";
    read_part(r, "sglang", {"tokens", "k_gb", "v_gb", "kv_gb"}, part);
    std::erase_if(part.settings, [](const auto& kv) {
        return kv.first == "mamba_slots" || kv.first == "conv_state_gb" || kv.first == "ssm_state_gb" ||
               kv.first == "mamba_ssm_dtype";
    });
    auto finish = [&] { out.parts.push_back(std::move(part)); };
    auto tokens = integer(r, "sglang.tokens");
    if (!tokens) return finish();
    auto dtype = torch_cache_dtype(text(r, "sglang.kv_cache_dtype"), "");
    if (!dtype) {
        out.not_judged.push_back(
            {"sglang.kv_cache_dtype", "kvcat has no size for the cache dtype " + text(r, "sglang.kv_cache_dtype")});
        return finish();
    }
    EngineSettings s;
    s.version = text(r, "engine_version");
    s.page_size = sglang_page_size(m, integer(r, "sglang.page_size").value_or(1));
    s.gpus = integer(r, "sglang.tensor_parallel").value_or(1);
    s.context = *tokens;
    s.mamba_slots = integer(r, "sglang.mamba_slots");
    s.mamba_ssm_cache_dtype = text(r, "sglang.mamba_ssm_dtype");
    try {
        SglangPoolBytes b = sglang_pool_bytes(m, *dtype, *tokens, s.page_size, s.gpus);
        Rational cell = sglang_cell_bytes(m, *dtype, s.gpus);
        part.terms.push_back(fmt::format("slots: {} tokens + {} padding slot{} = {}", group_thousands(*tokens),
                                         s.page_size, s.page_size == 1 ? "" : "s",
                                         group_thousands(*tokens + s.page_size)));
        part.terms.push_back(
            fmt::format("{}: {} bytes = {} GB", b.mla ? "KV" : "K", bytes_words(b.k), python_gib_text(b.k)));
        if (!b.indexer.is_zero()) {
            part.terms.push_back(fmt::format(
                "indexer keys: {} bytes in pages of {}; KV size with them: {} bytes = {} GB", bytes_words(b.indexer),
                s.page_size, bytes_words(b.k + b.indexer), python_gib_text(b.k + b.indexer)));
        }
        if (!b.mla) {
            part.terms.push_back(fmt::format("V: {} bytes = {} GB", bytes_words(b.v), python_gib_text(b.v)));
        }
        part.terms.push_back(fmt::format("{} bytes per token over every layer{} (GB = 2^30 bytes)", cell.to_display(),
                                         s.gpus > 1 ? ", one card's" : ""));
        auto judge = [&](const std::string& key, const Rational& bytes) {
            decimal_figure(r, key, python_gib_text(bytes), "GB",
                           fmt::format("SGLang's pool of {} tokens and its padding page is {} bytes",
                                       group_thousands(*tokens), group_thousands(bytes.floor())),
                           part);
        };
        judge("sglang.k_gb", b.k);
        judge("sglang.v_gb", b.v);
        judge("sglang.kv_gb", b.k + b.v + b.indexer);
        part.bytes = b.k + b.v + b.indexer;
        out.answer = sglang_allocation(m, *dtype, s);
    } catch (const EngineError& e) {
        out.problems.push_back({"sglang", "this pool", "a shape kvcat models", e.what()});
    }
    finish();
}

}  // namespace

void sglang_check_record(const Record& r, const Model& m, AllocationCheck& out) {
    sglang(r, m, out);
}

void sglang_summarise(const Record& r, const AllocationCheck& c, AllocationSummary& out, AllocationHeadline& headline) {
    // auto is the model's dtype, named only when the log shows it; else auto as written.
    std::string written = text(r, "sglang.kv_cache_dtype");
    std::string model_dtype = text(r, "sglang.model_dtype");
    bool named = !written.empty() && written != "auto";
    auto d = named || !model_dtype.empty() ? torch_cache_dtype(written, model_dtype) : std::nullopt;
    out.kv_cache_dtype = d ? catalog_dtype("SGLang", d->name) : written;
    out.tokens = integer(r, "sglang.tokens");
    out.tensor_parallel = integer(r, "sglang.tensor_parallel").value_or(1);
    // A hybrid's Mamba pool first (its part comes first), then the KV pool.
    for (const auto& p : c.parts) {
        for (const char* name : {"conv_state_gb", "ssm_state_gb", "k_gb", "v_gb", "kv_gb"}) headline.add(c, p, name);
    }
    headline.unit = "GB";
}

void sglang_logged_figures(const ParsedLog& log, std::vector<LoggedFigure>& out) {
    add_logged(out, "sglang.tokens", log.tokens);
    add_logged(out, "sglang.k_gb", log.k_gb, true);
    add_logged(out, "sglang.v_gb", log.v_gb, true);
    add_logged(out, "sglang.kv_gb", log.kv_gb, true);
    add_logged(out, "sglang.mamba_slots", log.mamba_slots);
    add_logged(out, "sglang.conv_state_gb", log.conv_state_gb, true);
    add_logged(out, "sglang.ssm_state_gb", log.ssm_state_gb, true);
}

}  // namespace kvcat
