#include "output/engine_render.h"

#include <array>
#include <cstdio>

#include <fmt/format.h>

#include "engines/engine_rules.h"
#include "engines/vllm/vllm_allocation.h"

namespace kvcat {

namespace {

std::string bytes_text(const Rational& r) {
    if (r.is_integer()) return group_thousands(r.num());
    return fmt::format("{} ({})", group_thousands(r.floor()), r.to_string());
}

/// The memory the engine sized its cache from (vLLM's and SGLang's pool, llama.cpp's -c when it
/// was not given), term by term, and what is left.
std::string budget_text(const std::vector<BudgetTerm>& budget) {
    if (budget.empty()) return "";
    std::string out = "  the memory it sizes its cache from:\n";
    Rational left(0);
    for (std::size_t i = 0; i < budget.size(); ++i) {
        const BudgetTerm& t = budget[i];
        left = left + t.bytes;
        char sign = i == 0 ? ' ' : t.bytes.is_negative() ? '-' : '+';
        out += fmt::format("    {} {:<38} {:>22} bytes  ({})\n", sign, t.name,
                           group_thousands((t.bytes.is_negative() ? Rational(0) - t.bytes : t.bytes).ceil()), t.how);
    }
    out += fmt::format("    = {:<38} {:>22} bytes  ({:.2f} GiB)\n", "for the cache and state",
                       group_thousands(left.floor()), left.to_double() / static_cast<double>(1LL << 30));
    return out;
}

}  // namespace

std::string engine_text(const EngineAnswer& a, const Model& m) {
    std::string out = fmt::format("  engine: {}\n", a.rule);
    if (a.refusal && a.parts.empty()) {
        return out + budget_text(a.budget) + "  the engine refuses to start, in its words:\n    " + *a.refusal + "\n";
    }
    if (a.per_card) out += "  (every engine figure below is one card's)\n";
    if (a.hybrid_manager) out += fmt::format("  hybrid KV-cache manager: {}\n", a.hybrid_manager_why);
    if (a.other_manager_bytes_per_token) {
        out += fmt::format("  with the hybrid manager {}: {} cache bytes per token{}\n",
                           *a.hybrid_manager ? "off" : "on", bytes_text(*a.other_manager_bytes_per_token),
                           a.other_manager_tokens ? fmt::format(", \"{}\", maximum concurrency {:.2f}x",
                                                                vllm_cache_size_line(*a.other_manager_tokens),
                                                                a.other_manager_concurrency.value_or(0))
                                                  : "");
    }
    if (a.block_size > 0) {
        out += fmt::format("  block size: {} tokens; one request of {} tokens takes:\n", a.block_size,
                           group_thousands(a.context));
    }
    for (const auto& p : a.parts) {
        out +=
            fmt::format("    {:<16} {:>22} bytes  ({})\n", std::string(name_of(p.kind)), bytes_text(p.bytes()), p.how);
    }
    out += fmt::format("  cache bytes per token: {} in the engine, {} in the textbook\n",
                       bytes_text(a.engine_bytes_per_token), bytes_text(a.textbook_bytes_per_token));
    out += fmt::format("  engine cache {} bytes, state {} bytes; textbook cache {} bytes, state {} bytes\n",
                       bytes_text(a.kv_bytes), bytes_text(a.state_bytes), bytes_text(a.textbook_kv_bytes),
                       bytes_text(a.textbook_state_bytes));
    out += budget_text(a.budget);
    if (!a.context_how.empty()) out += fmt::format("  context: {}\n", a.context_how);
    if (a.tokens) out += fmt::format("  tokens held: {}\n", group_thousands(*a.tokens));
    if (a.compute_buffer) {
        if (a.compute_buffer->exact) {
            out += fmt::format("  compute buffer: {} bytes, the whole graph ({})\n",
                               group_thousands(a.compute_buffer->bytes), a.compute_buffer->how);
        } else {
            out +=
                fmt::format("  compute buffer: at least {} bytes, the {} stage ({})\n",
                            group_thousands(a.compute_buffer->bytes), a.compute_buffer->stage, a.compute_buffer->how);
        }
    }
    if (a.host_compute) {
        out += fmt::format("  host compute buffer: {} bytes in the host's memory, the graph's inputs ({})\n",
                           group_thousands(a.host_compute->bytes), a.host_compute->how);
    }
    if (a.card_held) {
        out += fmt::format("  held by the card before llama.cpp starts: {} bytes ({})\n",
                           group_thousands(a.card_held->bytes.ceil()), a.card_held->how);
    }
    if (a.runtime_bytes) {
        out += fmt::format("  runtime on the card: {} bytes ({})\n", group_thousands(a.runtime_bytes->ceil()),
                           a.runtime_how);
    }
    if (a.fit_target_bytes > Rational(0)) {
        out += fmt::format(
            "  kept free by --fit: {} bytes (--fit-target {} MiB: with less left beside the start, llama.cpp moves "
            "layers off the card; common/fit.cpp at 80fb11ac)\n",
            bytes_text(a.fit_target_bytes), bytes_text(a.fit_target_bytes / Rational(std::int64_t{1} << 20)));
    }
    if (a.swa_tokens) out += fmt::format("  tokens held by the SWA pool: {}\n", group_thousands(*a.swa_tokens));
    if (a.mamba_slots) out += fmt::format("  requests held by the Mamba pool: {}\n", group_thousands(*a.mamba_slots));
    auto lines = engine_log_lines(a, m);
    if (!lines.empty()) {
        out += "  as the engine prints it:\n";
        for (const auto& l : lines) out += "    " + l + "\n";
    }
    if (a.refusal) {
        out += "  the engine refuses to start, in its words:\n";
        out += "    " + *a.refusal + "\n";
    }
    if (!a.differences.empty()) {
        out += "  where the engine differs from the textbook:\n";
        for (const auto& d : a.differences) out += fmt::format("    - {}: {}\n", d.name, d.detail);
    }
    return out;
}

nlohmann::json engine_json(const EngineAnswer& a, const Model& m) {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& p : a.parts) {
        parts.push_back({{"part", std::string(name_of(p.kind))},
                         {"layers", p.layers},
                         {"cells", p.cells},
                         {"streams", p.streams},
                         {"k_bytes", p.k_bytes.ceil()},
                         {"v_bytes", p.v_bytes.ceil()},
                         {"k_type", p.k_type},
                         {"v_type", p.v_type},
                         {"how", p.how}});
    }
    nlohmann::json diffs = nlohmann::json::array();
    for (const auto& d : a.differences) diffs.push_back({{"name", d.name}, {"detail", d.detail}});
    nlohmann::json j = {
        {"engine", std::string(name_of(a.engine))},
        {"rule", a.rule},
        {"parts", parts},
        {"engine_kv_bytes", a.kv_bytes.ceil()},
        {"engine_state_bytes", a.state_bytes.ceil()},
        {"engine_tokens", a.tokens ? nlohmann::json(*a.tokens) : nlohmann::json(nullptr)},
        {"engine_bytes_per_token", a.engine_bytes_per_token.to_string()},
        {"textbook_bytes_per_token", a.textbook_bytes_per_token.to_string()},
        {"textbook_kv_bytes", a.textbook_kv_bytes.ceil()},
        {"textbook_state_bytes", a.textbook_state_bytes.ceil()},
        {"context", a.context},
        {"differences", diffs},
        {"log_lines", engine_log_lines(a, m)},
    };
    if (a.hybrid_manager) {
        j["hybrid_manager"] = *a.hybrid_manager;
        j["hybrid_manager_why"] = a.hybrid_manager_why;
    }
    if (a.compute_buffer) {
        j["compute_buffer_bytes"] = a.compute_buffer->bytes;
        j["compute_buffer_stage"] = a.compute_buffer->stage;
        j["compute_buffer_how"] = (a.compute_buffer->exact ? "" : "at least: ") + a.compute_buffer->how;
    }
    if (a.host_compute) {
        j["host_compute_buffer_bytes"] = a.host_compute->bytes;
        j["host_compute_buffer_how"] = a.host_compute->how;
    }
    if (a.card_held) {
        j["card_held_bytes"] = a.card_held->bytes.ceil();
        j["card_held_how"] = a.card_held->how;
    }
    if (a.runtime_bytes) {
        j["runtime_bytes"] = a.runtime_bytes->ceil();
        j["runtime_how"] = a.runtime_how;
    }
    if (a.engine == Engine::llamacpp) j["fit_target_bytes"] = a.fit_target_bytes.ceil();
    if (!a.context_how.empty()) j["context_how"] = a.context_how;
    if (a.block_size > 0) j["block_size"] = a.block_size;
    if (a.blocks) j["engine_blocks"] = *a.blocks;
    if (a.swa_tokens) j["engine_swa_tokens"] = *a.swa_tokens;
    if (a.mamba_slots) j["engine_mamba_slots"] = *a.mamba_slots;
    if (a.max_concurrency) j["max_concurrency"] = *a.max_concurrency;
    if (a.refusal) j["refusal"] = *a.refusal;
    if (a.estimated_max_context) j["estimated_max_context"] = *a.estimated_max_context;
    if (a.other_manager_bytes_per_token) {
        j["other_manager_bytes_per_token"] = a.other_manager_bytes_per_token->to_string();
        if (a.other_manager_tokens) j["other_manager_tokens"] = *a.other_manager_tokens;
        if (a.other_manager_concurrency) j["other_manager_concurrency"] = *a.other_manager_concurrency;
    }
    if (!a.budget.empty()) {
        nlohmann::json terms = nlohmann::json::array();
        Rational left(0);
        for (const BudgetTerm& t : a.budget) {
            left = left + t.bytes;
            terms.push_back({{"term", t.name}, {"bytes", t.bytes.ceil()}, {"how", t.how}});
        }
        j["budget"] = terms;
        j["budget_bytes"] = left.floor();
    }
    j["per_card"] = a.per_card;
    return j;
}

}  // namespace kvcat
