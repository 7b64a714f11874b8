// llama.cpp's --fit (on unless -fit off): before it loads, it projects each device's model, KV
// and compute buffers and keeps --fit-target MiB (1024 by default) free beside them; when less
// would be left it shortens a -c that was not given, then moves layers to the CPU. It refuses
// nothing. common/fit.cpp (common_params_fit_impl) and common/common.h at
// 80fb11ac73e66d89eae2c6a91d8a77428fa733ed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engines/engine_budget.h"
#include "engines/engine_memory.h"
#include "model/physics.h"
#include "support/rational.h"

namespace kvcat {

/// --fit-ctx's default: the shortest context --fit sets per stream (common.h fit_params_min_ctx).
inline constexpr std::int64_t kLlamaFitMinContext = 4096;

/// The last build a log shows starting without --fit (records/allocations/llamacpp-b7342-...: no
/// "fitting params to device memory" line before the model loads, where b7772's logs print it).
/// --fit came with pull 16653; its build is not pinned, so a build after b7342 is taken to have it.
inline constexpr std::int64_t kLastBuildWithoutFit = 7342;

/// What --fit keeps free on the card, bytes: --fit-target's MiB (0 with -fit off, and for a build
/// at or before kLastBuildWithoutFit).
Rational llamacpp_fit_target_bytes(const EngineSettings& settings);

/// What llama.cpp's start takes on the card beside its weights, cache and state: with the compute
/// buffer known (a model with a tensors mapping) and what the card holds known (settings.card_held),
/// the two together, as its --fit projects them (common/fit.cpp); otherwise the reserve, or the
/// compute buffer where it is above the reserve. `how` says which.
struct LlamaRuntime {
    Rational bytes;
    std::string how;
    bool derived = false;  ///< the compute buffer and the card's held memory, not the reserve
};
LlamaRuntime llamacpp_runtime(const std::optional<LlamaComputeBuffer>& compute, const EngineSettings& settings);

/// llama.cpp's defaults from the fit's card: what the card holds before it starts
/// (llamacpp_card_held, or --reserve-gib when given), and the fit's reserve.
void llamacpp_card_defaults(EngineSettings& settings, const FitTerms& terms);

/// The memory llama.cpp's cache and state have on the fit's card: the card, less the weights it
/// holds (its input layer stays on the host: FitTerms::weights_off_card), what the card holds
/// before it starts (or the reserve, when that is not known), and what --fit keeps free. The
/// compute buffer grows with the cells, so llamacpp_allocation takes it with the cache.
EngineBudget llamacpp_budget(const EngineSettings& settings, const FitTerms& terms);

/// The -c that --fit gives a start whose -c was not given, as llama.cpp works it out.
struct LlamaFitContext {
    std::int64_t context = 0;  ///< n_ctx, every stream's cells together
    bool fits = true;          ///< false: even the shortest leaves less than the target, so layers move
    std::string how;           ///< what it did, in a sentence
};

/// `trained` is the model's context (n_ctx_train), `streams` the cache's streams (-np unless
/// --kv-unified), `available` the memory for the cache and state (llamacpp_budget), `bytes_at`
/// the cache and state at n_ctx. llama.cpp's step: with the trained context x streams fitting,
/// that; else the context linearly between 4096 x streams and it where the projection meets the
/// target, in whole bytes and integer steps as common_params_fit_impl takes them, less its
/// remainder of 256 x streams, at least 4096 x streams.
LlamaFitContext llamacpp_fit_context(std::int64_t trained, std::int64_t streams, const Rational& available,
                                     const std::function<Rational(std::int64_t)>& bytes_at);

}  // namespace kvcat
