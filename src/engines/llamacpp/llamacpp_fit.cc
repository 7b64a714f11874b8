#include "engines/llamacpp/llamacpp_fit.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "engines/llamacpp/llamacpp_allocation.h"

namespace kvcat {

Rational llamacpp_fit_target_bytes(const EngineSettings& settings) {
    if (auto build = llamacpp_build(settings.version); build && *build <= kLastBuildWithoutFit) return Rational(0);
    return Rational(checked_mul(settings.fit_target_mib, std::int64_t{1} << 20));
}

LlamaRuntime llamacpp_runtime(const std::optional<LlamaComputeBuffer>& compute, const EngineSettings& settings) {
    const char* least = compute && compute->exact ? "" : " (at least)";
    if (compute && settings.card_held) {
        return {Rational(compute->bytes) + settings.card_held->bytes,
                fmt::format("the compute buffer, {} bytes{}, and what the card holds before llama.cpp "
                            "starts, {} bytes ({})",
                            group_thousands(compute->bytes), least, group_thousands(settings.card_held->bytes.ceil()),
                            settings.card_held->how),
                true};
    }
    if (compute && Rational(compute->bytes) > settings.reserve) {
        return {Rational(compute->bytes), fmt::format("the compute buffer, {} bytes{}, above the reserve",
                                                      group_thousands(compute->bytes), least)};
    }
    return {settings.reserve,
            fmt::format("the reserve, {} bytes (--reserve-gib){}", group_thousands(settings.reserve.ceil()),
                        compute ? "" : ": the model record has no tensors mapping, so kvcat has no compute buffer")};
}

void llamacpp_card_defaults(EngineSettings& settings, const FitTerms& terms) {
    settings.reserve = terms.reserve;
    if (terms.reserve_given) {
        settings.card_held = CardHeld{terms.reserve, "--reserve-gib", std::nullopt, std::nullopt};
    } else {
        settings.card_held = llamacpp_card_held(terms.memory_by);
    }
}

EngineBudget llamacpp_budget(const EngineSettings& settings, const FitTerms& terms) {
    EngineBudget b;
    if (settings.card_held) {
        b = share_less_weights_and_reserve(
            {"the card's memory", terms.memory, terms.memory_how},
            {"held by the card before llama.cpp starts", settings.card_held->bytes, settings.card_held->how}, terms);
    } else {
        b = card_less_weights_and_reserve(settings, terms);
    }
    if (terms.weights_off_card > Rational(0)) {
        b.available = b.available + terms.weights_off_card;
        b.terms.push_back({"weights on the host", terms.weights_off_card, terms.weights_off_card_how});
    }
    Rational target = llamacpp_fit_target_bytes(settings);
    if (target > Rational(0)) {
        b.available = b.available - target;
        b.terms.push_back({"kept free by --fit", Rational(0) - target,
                           fmt::format("--fit-target {} MiB (common/fit.cpp at 80fb11ac)", settings.fit_target_mib)});
    }
    return b;
}

LlamaFitContext llamacpp_fit_context(std::int64_t trained, std::int64_t streams, const Rational& available,
                                     const std::function<Rational(std::int64_t)>& bytes_at) {
    const std::int64_t most = checked_mul(trained, streams);
    const std::int64_t least = checked_mul(kLlamaFitMinContext, streams);
    const std::int64_t target = available.floor();
    const std::int64_t used_most = bytes_at(most).ceil();
    if (used_most <= target) {
        return {most, true,
                fmt::format("-c not given: the trained context{}, {}, leaves --fit its target, so llama.cpp keeps it",
                            streams > 1 ? " x streams" : "", group_thousands(most))};
    }
    // Too long for the target, and no shorter context helps: layers move to the CPU.
    auto layers_move = [&](std::int64_t context, std::string_view why) {
        return LlamaFitContext{context, false,
                               fmt::format("-c not given: {}, so llama.cpp {} and moves layers to the CPU (every "
                                           "token is slower)",
                                           why, context == most ? "keeps it" : "sets it")};
    };
    if (most <= least) {
        return layers_move(most, fmt::format("the trained context, {}, is no longer than --fit's shortest ({})",
                                             group_thousands(most), group_thousands(least)));
    }
    const std::int64_t used_least = bytes_at(least).ceil();
    if (target <= used_least) {
        return layers_move(least, fmt::format("even --fit's shortest context, {}, leaves less than its target",
                                              group_thousands(least)));
    }
    // n_ctx += (n_ctx_max - n_ctx_min) * (target - used_min) / (used_max - used_min), in int64.
    Rational step = Rational(most - least) * Rational(target - used_least) / Rational(used_most - used_least);
    std::int64_t context = checked_add(least, step.floor());
    const std::int64_t align = checked_mul(256, streams);
    context = std::max(context - context % align, least);
    return {
        context, true,
        fmt::format("-c not given: the trained context, {}, leaves less than --fit's target, so llama.cpp "
                    "shortens it to {}, where its projection meets the target between {} and {} "
                    "(common/fit.cpp at 80fb11ac)",
                    group_thousands(most), group_thousands(context), group_thousands(least), group_thousands(most))};
}

}  // namespace kvcat
