#include "output/report_planner.h"

#include <fmt/format.h>

#include "engines/checkpoint_layers.h"
#include "engines/engine_memory.h"
#include "engines/engine_rules.h"
#include "engines/llamacpp/llamacpp_allocation.h"
#include "engines/llamacpp/llamacpp_card_held.h"
#include "engines/llamacpp/llamacpp_compute.h"
#include "engines/llamacpp/llamacpp_fit.h"
#include "engines/llamacpp/llamacpp_graph.h"
#include "engines/llamacpp/llamacpp_quant.h"
#include "engines/sglang/sglang_allocation.h"
#include "engines/vllm/vllm_allocation.h"
#include "engines/vllm/vllm_budget.h"
#include "model/physics.h"
#include "predict/speed_answer.h"
#include "vocab/dtype.h"
#include "vocab/weight_mix.h"
#include "vocab/weight_quant.h"

namespace kvcat {

namespace {

using json = nlohmann::json;

/// An exact figure as the page reads it: "4096" or "34/32" (BigInt-friendly, no rounding).
json exact(const Rational& r) {
    return r.is_integer() ? std::to_string(r.num()) : fmt::format("{}/{}", r.num(), r.den());
}

/// The per-sequence terms fit_context works out for this model, dtype and card count, before
/// the batch, the card's memory, the weights and the reserve enter: those the page applies.
/// The accelerator is a stand-in large enough that the fit never stops early; none of the
/// exported terms depends on its memory.
json textbook_terms(const Model& model, const CacheDtype& dtype, std::int64_t cards) {
    Accelerator roomy;
    roomy.memory_gb_exact = Rational(1000000000);
    FitSetup setup;
    setup.batch = 1;
    setup.gpus = cards;
    setup.reserve = Rational(0);
    setup.weight_bytes = Rational(0);
    try {
        FitTerms t = fit_context(model, roomy, nullptr, dtype, setup);
        return {{"growing", exact(t.growing_per_token)},
                {"sliding", exact(t.sliding_per_token)},
                {"window", t.window},
                {"fixed", exact(t.fixed_state)},
                {"overhead", "0"},
                {"kv_split", t.kv_split_how}};
    } catch (const std::exception& e) {
        return {{"error", e.what()}};
    }
}

/// llama.cpp's allocation as coefficients per KV dtype (llamacpp_coefficients): the page pads
/// the cells as llamacpp_cells and llamacpp_swa_cells do and multiplies, for any -c and -np.
json llamacpp_terms(const Model& m) {
    // The compute buffer's bound (engines/llamacpp/llamacpp_compute.h) with llama-server's defaults
    // (flash attention on, one output a slot): the output stage's bytes per output and the
    // feed-forward stage's per token, beside its f16 mask of 2 bytes a cell and token.
    json compute = nullptr;
    if (auto c = llamacpp_compute_coefficients(m)) {
        compute = {{"output_per_output", c->output_per_output},
                   {"ff_per_token", c->ff_per_token ? json(*c->ff_per_token) : json(nullptr)}};
    }
    // Where llama.cpp's own graph is built (engines/llamacpp/llamacpp_graph.h), the page builds it
    // too, from these widths, and places it as ggml-alloc does (report_graph.js): the buffer itself.
    json graph = nullptr;
    if (auto g = llamacpp_graph_dims(m)) {
        graph = {{"arch", g->arch},
                 {"n_embd", g->n_embd},
                 {"n_vocab", g->n_vocab},
                 {"n_layer", g->n_layer},
                 {"n_head", g->n_head},
                 {"n_head_kv", g->n_head_kv},
                 {"hd_k", g->hd_k},
                 {"hd_v", g->hd_v},
                 {"n_ff", g->n_ff},
                 {"n_expert", g->n_expert},
                 {"n_expert_used", g->n_expert_used},
                 {"n_ff_exp", g->n_ff_exp},
                 {"qk_norm", g->qk_norm},
                 {"qkv_bias", g->qkv_bias},
                 {"rope_freqs", g->rope_freqs},
                 {"gpt_oss", g->gpt_oss},
                 {"glm4", g->glm4},
                 {"gemma3", g->gemma3},
                 {"llama4", g->llama4},
                 {"swa_period", g->swa_period},
                 {"deltanet", g->deltanet},
                 {"granite", g->granite},
                 {"lfm2", g->lfm2},
                 {"qwen3next", g->qwen3next},
                 {"attends", g->attends},
                 {"ssm_conv", g->ssm_conv},
                 {"ssm_groups", g->ssm_groups},
                 {"ssm_state", g->ssm_state},
                 {"ssm_heads", g->ssm_heads},
                 {"ssm_head_v", g->ssm_head_v},
                 {"n_ff_shexp", g->n_ff_shexp}};
    }
    json by_dtype = json::object();
    for (const auto& d : cache_dtypes()) {
        try {
            LlamaCoefficients c = llamacpp_coefficients(m, d);
            json with_graph = compute;
            if (!compute.is_null()) {
                with_graph["graph"] = nullptr;
                if (!graph.is_null() && llamacpp_graph_takes_cache(std::string(d.name))) {
                    with_graph["graph"] = graph;
                    with_graph["graph"]["cache"] = std::string(d.name);
                }
            }
            by_dtype[std::string(d.name)] = {{"base_per_cell", exact(c.base_per_cell)},
                                             {"swa_per_cell", exact(c.swa_per_cell)},
                                             {"swa_window", c.swa_window},
                                             {"state_per_sequence", exact(c.state_per_sequence)},
                                             {"compute", with_graph}};
        } catch (const std::exception& e) {
            by_dtype[std::string(d.name)] = {{"error", e.what()}};
        }
    }
    return by_dtype;
}

std::string_view rule_kind_name(VllmPoolRule::Kind k) {
    switch (k) {
        case VllmPoolRule::Kind::full:
            return "full";
        case VllmPoolRule::Kind::sliding:
            return "sliding";
        case VllmPoolRule::Kind::chunked:
            return "chunked";
        case VllmPoolRule::Kind::state:
            return "state";
    }
    return "";
}

/// vLLM's pool per KV dtype and card count, with its defaults (newest rules, block size 16 or as
/// raised, the hybrid manager as vLLM decides): vllm_pool_rule, which the page evaluates with the
/// card's --max-num-batched-tokens, and one request's state (vllm_allocation's state_bytes).
json vllm_terms(const Model& m, const CacheDtype& d, std::int64_t cards) {
    EngineSettings s;
    s.gpus = cards;
    s.max_model_len = 4096;  // the state does not depend on it; the rule does not read it
    try {
        VllmPoolRule r = vllm_pool_rule(m, d, s);
        if (r.terms.empty() || r.divisor <= 0) return {{"error", "the model has no layer vLLM caches"}};
        json terms = json::array();
        for (const auto& t : r.terms)
            terms.push_back(json::array({std::string(rule_kind_name(t.kind)), t.page, t.layers, t.weight, t.window}));
        EngineAnswer a = vllm_allocation(m, d, s);
        return {
            {"block_size", r.block_size}, {"divisor", r.divisor}, {"terms", terms}, {"state", exact(a.state_bytes)}};
    } catch (const std::exception& e) {
        return {{"error", e.what()}};
    }
}

/// SGLang's pool per KV dtype and card count: the bytes one token costs on each card
/// (sglang_cell_bytes), which the pool divides the memory by and multiplies its slots with.
json sglang_terms(const Model& m, const CacheDtype& d, std::int64_t cards) {
    if (m.sliding && m.sliding->layers > 0) {
        return {{"error",
                 "the planner holds SGLang's one pool, not the full and SWA pools of a model with sliding "
                 "layers; kvcat fit --engine sglang gives those"}};
    }
    if (m.linear && m.linear->layers > 0) {
        return {{"error",
                 "the planner holds SGLang's one pool, not the Mamba pool a hybrid keeps beside it; kvcat fit "
                 "--engine sglang gives both"}};
    }
    if (sglang_dsa(m)) {
        return {{"error",
                 "the planner holds SGLang's pool of one-token pages, not the DSA pool of DeepSeek's sparse "
                 "attention (pages of 64, the indexer's keys beside the latent); kvcat fit --engine sglang gives it"}};
    }
    try {
        return {{"cell", exact(sglang_cell_bytes(m, d, cards))}};
    } catch (const std::exception& e) {
        return {{"error", e.what()}};
    }
}

/// Each engine's figures per KV dtype (and card count where the engine splits over cards).
json engine_terms(const Model& m) {
    json vllm = json::object(), sglang = json::object();
    for (const auto& d : cache_dtypes()) {
        json v = json::object(), g = json::object();
        for (std::int64_t cards : kPlannerCardCounts) {
            v[std::to_string(cards)] = vllm_terms(m, d, cards);
            g[std::to_string(cards)] = sglang_terms(m, d, cards);
        }
        vllm[std::string(d.name)] = std::move(v);
        sglang[std::string(d.name)] = std::move(g);
    }
    return {{"llama.cpp", llamacpp_terms(m)}, {"vllm", vllm}, {"sglang", sglang}};
}

/// vLLM's sampler peak (newest rules) as the page takes it: N x per_token + n x per_request for N
/// batched tokens and n = min(max_num_seqs, N) requests, both the card's defaults.
/// vllm_sampler_peak at one token and request and at two tokens and one request gives the two
/// parts, so that the page adds the same bytes; null without the model's widths.
json vllm_sampler_terms(const Model& m, std::string_view model_dtype) {
    if (!m.tensors) return nullptr;
    FitTerms t = model_terms(m);
    EngineSettings s;
    s.model_dtype = model_dtype;
    s.max_num_seqs = 1;
    s.max_num_batched_tokens = 1;
    auto one = vllm_sampler_peak(s, t);
    s.max_num_batched_tokens = 2;
    auto two = vllm_sampler_peak(s, t);
    if (!one || !two) return nullptr;
    Rational per_token = *two - *one;
    return {{"per_token", exact(per_token)}, {"per_request", exact(*one - per_token)}};
}

/// vLLM's rotary table (vllm_rotary_table) on each card, in bytes; null where kvcat does not size it.
json vllm_rotary_bytes(const Model& m, std::string_view model_dtype) {
    EngineSettings s;
    s.model_dtype = model_dtype;
    auto rotary = vllm_rotary_table(s, model_terms(m));
    if (!rotary) return nullptr;
    return exact(*rotary);
}

/// Whether a model's experts may be divided whole among the cards (--enable-expert-parallel): a
/// mixture of experts whose record lists its tensors.
bool expert_parallel_choice(const Model& m) {
    return m.tensors && m.tensors->experts > 0;
}

/// One engine's layers for a format on `cards` cards into `out` under `key`: the bytes on each card
/// and how, or the engine's refusal in its words; nothing where it holds no rule.
void add_loaded_weights(json& out, const std::string& key, const EngineRules& rules, const Model& m,
                        const std::string& format, std::int64_t cards, bool expert_parallel) {
    EngineSettings s;
    s.gpus = cards;
    s.expert_parallel = expert_parallel;
    try {
        if (auto w = rules.loaded_weights(m, format, s)) out[key] = {{"bytes", exact(w->bytes)}, {"how", w->how}};
    } catch (const EngineRefusal& e) {
        out[key] = {{"refused", e.what()}};
    } catch (const OverflowError&) {
        // Widths whose layers pass 64 bits: the page keeps all parameters x bits.
    }
}

/// The weights each engine loads for a format where it holds a rule for them
/// (EngineRules::loaded_weights: vLLM's layers), by engine, format and card count ("8"; "8+ep"
/// with --enable-expert-parallel, for a mixture of experts over several cards): the bytes on each
/// card and how, or the engine's refusal in its words; only the engines and formats that have one.
json loaded_weights_entry(const Model& m, const std::vector<std::pair<std::string, WeightQuant>>& formats) {
    json out = json::object();
    for (const EngineRules* rules : all_engine_rules()) {
        json by_format = json::object();
        for (const auto& [name, q] : formats) {
            json by_cards = json::object();
            for (std::int64_t cards : kPlannerCardCounts) {
                const std::string key = std::to_string(cards);
                add_loaded_weights(by_cards, key, *rules, m, name, cards, false);
                if (cards < 2 || !expert_parallel_choice(m)) continue;
                // Only where the engine's layers differ with it (SGLang's take no such setting).
                json ep = json::object();
                add_loaded_weights(ep, key, *rules, m, name, cards, true);
                if (ep.contains(key) && (!by_cards.contains(key) || ep[key] != by_cards[key]))
                    by_cards[key + "+ep"] = std::move(ep[key]);
            }
            if (!by_cards.empty()) by_format[name] = std::move(by_cards);
        }
        if (!by_format.empty()) out[std::string(rules->name)] = std::move(by_format);
    }
    return out;
}

/// The workspace vLLM's fused experts keep (vllm_moe_workspace, newest rules), by format, card count
/// ("8", "8+ep") and batched tokens (the cards' defaults, 2,048 and 8,192): only where kvcat derives
/// it (a float checkpoint of a mixture of experts).
json vllm_moe_workspace_entry(const Model& m, const std::vector<std::pair<std::string, WeightQuant>>& formats) {
    json out = json::object();
    FitTerms t = model_terms(m);
    for (const auto& [name, q] : formats) {
        if (!checkpoint_float_dtype(name)) continue;
        t.weight_format = name;
        json by_cards = json::object();
        for (std::int64_t cards : kPlannerCardCounts) {
            for (bool ep : {false, true}) {
                if (ep && (cards < 2 || !expert_parallel_choice(m))) continue;
                EngineSettings s;
                s.gpus = cards;
                s.expert_parallel = ep;
                json by_tokens = json::object();
                for (std::int64_t tokens : {kVllmMaxNumBatchedTokens, kVllmLargeCardMaxNumBatchedTokens}) {
                    s.max_num_batched_tokens = tokens;
                    if (auto w = vllm_moe_workspace(s, t)) by_tokens[std::to_string(tokens)] = exact(*w);
                }
                if (!by_tokens.empty()) by_cards[std::to_string(cards) + (ep ? "+ep" : "")] = std::move(by_tokens);
            }
        }
        if (!by_cards.empty()) out[name] = std::move(by_cards);
    }
    return out;
}

/// The weight formats the page offers: the exact ones, then llama.cpp's mixes, each a mix at its
/// base type (its lower bound, as kvcat fit takes a mix of a model without a tensors mapping).
std::vector<std::pair<std::string, WeightQuant>> planner_weight_formats() {
    std::vector<std::pair<std::string, WeightQuant>> out;
    for (const auto& q : weight_quants()) out.emplace_back(std::string(q.name), q);
    for (const auto& m : weight_mixes()) out.emplace_back(std::string(m.name), mix_base(m));
    return out;
}

/// llama-quantize's mixes with no single base type (MXFP4_MOE: MXFP4 experts, Q8_0 elsewhere),
/// which the page offers too, sized as kvcat fit sizes them: only from the model's tensors.
std::vector<std::string> planner_plan_only_mixes() {
    std::vector<std::string> out;
    for (const LlamaMix& m : llama_mixes()) {
        if (!find_weights(m.name)) out.emplace_back(m.name);
    }
    return out;
}

json model_entry(const Record& r) {
    const Model& m = *r.model;
    json weights = json::object();
    json active = json::object();
    // Beside each format, llama-quantize's bytes of a GGUF mix when the record lists the model's
    // tensors (the page takes them as kvcat fit does: without an engine or with llama.cpp, F16 and
    // BF16 with llama.cpp only).
    json gguf = json::object();
    const bool inventory = has_tensor_inventory(m);
    std::vector<std::string> names;
    for (const auto& [name, q] : planner_weight_formats()) {
        names.push_back(name);
        try {
            weights[name] = exact(resident_weight_bytes(m, q));
            active[name] = exact(active_weight_bytes(m, q));
        } catch (const std::exception&) {
            // No parameter count: this model's weights can only be given as bytes.
        }
    }
    for (const auto& name : planner_plan_only_mixes()) names.push_back(name);
    for (const auto& name : names) {
        auto mix = inventory ? find_llama_mix(name) : std::nullopt;
        if (!mix) continue;
        QuantPlan plan = llamacpp_quant_plan(m, *mix);
        gguf[name] = {{"bytes", std::to_string(plan.bytes)},
                      {"how", quant_plan_how(plan)},
                      {"off_card_bytes", std::to_string(llamacpp_off_card_bytes(plan))},
                      {"host_how", llamacpp_host_bytes_how(plan)},
                      {"float", mix->name == "F16" || mix->name == "BF16"}};
    }
    json share = nullptr;  // active / total parameters, for weights given as bytes (row_weights does the same)
    if (m.total_params_b_exact && m.active_params_b_exact && !m.total_params_b_exact->is_zero())
        share = exact(*m.active_params_b_exact / *m.total_params_b_exact);
    json by_dtype = json::object();
    for (const auto& d : cache_dtypes()) {
        json by_cards = json::object();
        for (std::int64_t cards : kPlannerCardCounts) by_cards[std::to_string(cards)] = textbook_terms(m, d, cards);
        by_dtype[std::string(d.name)] = std::move(by_cards);
    }
    return {{"id", r.id},
            {"name", m.name},
            {"native_context", m.native_context.value_or(0)},
            {"active_share", share},
            {"weights", weights},
            {"active_weights", active},
            {"gguf_weights", gguf},
            {"terms", {{"textbook", by_dtype}}},
            {"engines", engine_terms(m)},
            // vLLM runs an f32 checkpoint in float32 (checkpoint_float_dtype), every other in 2 bytes.
            {"vllm_sampler", vllm_sampler_terms(m, "bfloat16")},
            {"vllm_rotary", vllm_rotary_bytes(m, "bfloat16")},
            {"vllm_sampler_f32", vllm_sampler_terms(m, "float32")},
            {"vllm_rotary_f32", vllm_rotary_bytes(m, "float32")},
            {"loaded_weights", loaded_weights_entry(m, planner_weight_formats())},
            {"vllm_moe_workspace", vllm_moe_workspace_entry(m, planner_weight_formats())},
            {"expert_parallel", expert_parallel_choice(m)}};
}

json quality_entries(const ReportInput& input) {
    json out = json::array();
    if (!input.quality) return out;
    const Table& t = *input.quality;
    auto column = [&](const char* name) -> int {
        for (std::size_t i = 0; i < t.columns.size(); ++i) {
            if (t.columns[i] == name) return static_cast<int>(i);
        }
        return -1;
    };
    int model = column("model");
    int dtype = column("kv_cache_dtype");
    if (model < 0 || dtype < 0) return out;  // a bare quality table: no model to sort it under
    auto cell = [&](const std::vector<Cell>& row, const char* name) -> json {
        int i = column(name);
        if (i < 0 || static_cast<std::size_t>(i) >= row.size()) return nullptr;
        const Cell& c = row[static_cast<std::size_t>(i)];
        if (const auto* v = std::get_if<std::int64_t>(&c)) return *v;
        if (const auto* v = std::get_if<double>(&c)) return *v;
        if (const auto* v = std::get_if<std::string>(&c)) return *v;
        return nullptr;
    };
    for (const auto& row : t.rows) {
        json file = cell(row, "file");
        json link = file.is_string() && input.link ? json(input.link(file.get<std::string>())) : json(nullptr);
        out.push_back({{"model", cell(row, "model")},
                       {"kv_cache_dtype", cell(row, "kv_cache_dtype")},
                       {"comparison", cell(row, "comparison")},
                       {"baseline_kv_cache_dtype", cell(row, "baseline_kv_cache_dtype")},
                       {"benchmark", cell(row, "benchmark")},
                       {"metric", cell(row, "metric")},
                       {"value", cell(row, "value")},
                       {"baseline_value", cell(row, "baseline_value")},
                       {"unit", cell(row, "unit")},
                       {"higher_is_better", cell(row, "higher_is_better")},
                       {"recovery_percent", cell(row, "recovery_percent")},
                       {"context_length", cell(row, "context_length")},
                       {"record", cell(row, "record_id")},
                       {"link", link}});
    }
    return out;
}

}  // namespace

json planner_content(const ReportInput& input, const std::vector<const Record*>& models,
                     const std::vector<const Record*>& accelerators) {
    json formats = json::array();
    for (const auto& [name, q] : planner_weight_formats()) {
        auto mix = find_weight_mix(name);
        auto model_dtype = checkpoint_float_dtype(name);
        formats.push_back({{"name", name},
                           {"bits_per_weight", exact(q.bits_per_weight())},
                           {"mix", mix.has_value()},
                           {"base", std::string(q.name)},
                           {"model_dtype", model_dtype ? json(std::string(*model_dtype)) : json(nullptr)}});
    }
    for (const auto& name : planner_plan_only_mixes()) {
        formats.push_back(
            {{"name", name}, {"bits_per_weight", nullptr}, {"mix", true}, {"base", nullptr}, {"model_dtype", nullptr}});
    }
    json dtypes = json::array();
    for (const auto& d : cache_dtypes())
        dtypes.push_back({{"name", std::string(d.name)}, {"bytes_per_element", exact(d.bytes_per_element())}});
    json model_list = json::array();
    for (const Record* m : models) model_list.push_back(model_entry(*m));
    json accelerator_list = json::array();
    for (const Record* a : accelerators) {
        const Accelerator& acc = *a->accelerator;
        if (!acc.memory_gb_exact) continue;
        auto held = llamacpp_card_held(acc.memory_reported ? acc.memory_reported->by : "");
        EngineSettings vllm;  // vLLM's batch defaults on this card, as fit takes them
        vllm_card_defaults(vllm, memory_bytes(acc), acc.name);
        FitTerms card;  // the total vLLM and SGLang take their share of, as fit takes it
        card.memory = memory_bytes(acc);
        card.memory_how = memory_how(acc);
        card.memory_by = acc.memory_reported ? acc.memory_reported->by : "";
        card.runtime_memory = runtime_memory_bytes(acc);
        card.runtime_memory_how = runtime_memory_how(acc);
        RuntimeTotal runtime = runtime_total(card);
        accelerator_list.push_back({{"id", a->id},
                                    {"name", acc.name},
                                    {"memory", exact(memory_bytes(acc))},
                                    {"memory_how", memory_how(acc)},
                                    {"runtime_total", exact(runtime.bytes)},
                                    {"runtime_total_how", runtime.how},
                                    {"runtime_total_recorded", acc.memory_runtime_total.has_value()},
                                    {"llama_held", held ? exact(held->bytes) : json(nullptr)},
                                    {"llama_held_how", held ? held->how : std::string()},
                                    {"llama_held_least", held && held->least ? exact(*held->least) : json(nullptr)},
                                    {"llama_held_most", held && held->most ? exact(*held->most) : json(nullptr)},
                                    {"vllm_max_num_seqs", vllm.max_num_seqs.value_or(0)},
                                    {"vllm_cuda_graphs", exact(vllm_cuda_graph_estimate(vllm).value_or(Rational(0)))},
                                    {"vllm_max_num_batched_tokens", vllm.max_num_batched_tokens},
                                    {"bandwidth", acc.memory_bandwidth_gb_s_exact
                                                      ? exact(*acc.memory_bandwidth_gb_s_exact * Rational(1000000000))
                                                      : json(nullptr)}});
    }
    json sources = json::object();
    for (const auto& [id, names] : input.sources) {
        if (names.empty()) continue;
        auto url = input.source_urls.find(id);
        sources[id] = {{"name", names.front()},
                       {"url", url == input.source_urls.end() ? json(nullptr) : json(url->second)}};
    }
    json card_counts = json::array();
    for (std::int64_t n : kPlannerCardCounts) card_counts.push_back(n);
    json speeds = nullptr;
    if (input.records) {  // predictions stand on every measured point, whatever the report shows
        SpeedPhysics physics(*input.records);
        SpeedPredictor predictor(speed_points(*input.records), physics);
        speeds = speed_model_json(predictor, SpeedIntervals(predictor), *input.records);
    }
    return {
        {"reserve", exact(kDefaultReserveBytes)},
        {"speeds", speeds},
        {"card_counts", card_counts},
        {"engines",
         {{{"id", "textbook"},
           {"name", "textbook"},
           {"how",
            "what the model's design needs, as kvcat fit works it out: KV of the growing layers per "
            "token, the sliding layers up to their window, the linear layers' fixed state, and a "
            "1 GiB runtime reserve"}},
          {{"id", "llama.cpp"},
           {"name", "llama.cpp"},
           {"how",
            fmt::format("what llama-server allocates (kvcat fit --engine llama.cpp): -c context x batch and -np "
                        "batch, its cells padded to 256, one stream per sequence, the sliding layers' window plus a "
                        "ubatch of 512, the recurrent state in f32, beside its compute buffer (sized by its graph "
                        "allocator where kvcat builds the graph, a lower bound elsewhere) and what "
                        "the card holds before it starts ({} MiB on an NVIDIA card, the median of {} public "
                        "starts; none on an Apple one); one card (llama.cpp spreads layers, not heads, over cards, "
                        "which kvcat does not model)",
                        kNvidiaSmiHeldMiB, kNvidiaSmiHeldStarts)},
           {"cell_pad", kLlamaCellPad},
           {"ubatch", EngineSettings().ubatch},
           {"fit_target", exact(llamacpp_fit_target_bytes(EngineSettings()))},
           {"cards", json::array({1})}},
          {{"id", "vllm"},
           {"name", "vLLM"},
           {"how",
            "vLLM V1's pool (kvcat fit --engine vllm, the newest rules held): --max-model-len the context, "
            "blocks of 16 tokens (raised for a Mamba hybrid), vLLM's defaults for the card (--max-num-seqs "
            "1024 and --max-num-batched-tokens 8192 on 70 GiB or more but an A100, else 256 and 2048), the "
            "hybrid manager as vLLM decides; tensor parallel, every figure one card's. vLLM gives its pool the card x "
            "--gpu-memory-utilization (0.92, the default of its newest releases) less the weights (its layers as "
            "its model files build them, for 16-bit, f32 and fp8 checkpoints of the Llama and Qwen models whose "
            "files kvcat read), the rotary table it loads beside them and what its profiling run measures; "
            "kvcat takes that last as the sampler's peak it derives (FlashInfer's sampler, vLLM's default from "
            "0.20.2, when the model record gives its vocabulary), on several cards with 1.82 GiB a card for NCCL "
            "(fitted to real starts), the CUDA graphs' estimate its newest releases take off (fitted) and an "
            "allowance for the rest (fitted), or the 1 GiB "
            "reserve for all of it without a vocabulary, or the '" +
                std::string(kVllmAvailableMemoryWords) +
                "' vLLM printed when you give it. The card's total is CUDA's, as vLLM reads it, where the card's "
                "record gives it"},
           {"gpu_memory_utilization", exact(vllm_default_gpu_memory_utilization(""))},
           {"tensor_parallel_non_torch", exact(Rational(kTensorParallelNonTorchBytes))},
           {"allowance", exact(Rational(kVllmAllowanceBytes))},
           {"refusal_words", kVllmRefusalWords},
           {"mamba_words", kVllmMambaBlocksWords},
           {"estimate_words", kVllmEstimateWords},
           {"cards", card_counts}},
          {{"id", "sglang"},
           {"name", "SGLang"},
           {"how",
            "SGLang's token pool (kvcat fit --engine sglang): the memory left for the pool divided by the "
            "bytes a token costs in every layer, plus one padding slot; page size 1; tensor parallel, every "
            "figure one card's. The memory is CUDA's total x --mem-fraction-static less the weights, the CUDA "
            "context (fitted) and 1.82 GiB a card for NCCL over several (fitted to real starts) when you give it, "
            "otherwise the card less the weights and the 1 GiB reserve"},
           {"page_size", EngineSettings().page_size},
           {"tensor_parallel_non_torch", exact(Rational(kTensorParallelNonTorchBytes))},
           {"context", exact(Rational(kTorchContextBytes))},
           {"cards", card_counts}}}},
        {"weight_formats", formats},
        {"dtypes", dtypes},
        {"models", model_list},
        {"accelerators", accelerator_list},
        {"sources", sources},
        {"quality", quality_entries(input)}};
}

}  // namespace kvcat
