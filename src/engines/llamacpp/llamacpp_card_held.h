// The memory a card does not have free when llama.cpp starts, beside what llama.cpp itself
// allocates: what the driver keeps back (nvidia-smi's total is above the total CUDA reports), the
// CUDA context of llama.cpp's own process, and any other process on the card (a desktop).
//
// llama.cpp asks the card for its free memory (ggml/src/ggml-cuda/ggml-cuda.cu,
// ggml_backend_cuda_device_get_memory: cudaMemGetInfo after the device is set, so with its own
// context made), prints it as it loads the model (src/llama.cpp: "using device CUDA0 (...) - N MiB
// free") and keeps --fit's target free of that figure beside its projected buffers (common/fit.cpp).
// All at ggml-org/llama.cpp 80fb11ac73e66d89eae2c6a91d8a77428fa733ed. On Metal the free memory is
// recommendedMaxWorkingSetSize less what is allocated (ggml/src/ggml-metal/ggml-metal-device.m,
// ggml_metal_device_get_memory), and recommendedMaxWorkingSetSize is the total an Apple card record
// gives: nothing more is held.
//
// The figure for a card whose total is nvidia-smi's is not derived: it is taken from real starts,
// each "MiB free" line against that card's record (tests/fixtures/card-held/), and its spread over
// them is the error stated with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "support/rational.h"

namespace kvcat {

struct CardHeld {
    Rational bytes;
    std::string how;  ///< where the figure comes from, for an answer
    /// The least and most the starts it was fitted to held; unset for a figure that is not fitted.
    std::optional<Rational> least;
    std::optional<Rational> most;
};

/// The MiB an NVIDIA card whose total is nvidia-smi's holds before llama.cpp allocates: the median
/// of the starts in tests/fixtures/card-held/, and their least and most.
inline constexpr std::int64_t kNvidiaSmiHeldMiB = 986;
inline constexpr std::int64_t kNvidiaSmiHeldLeastMiB = 705;
inline constexpr std::int64_t kNvidiaSmiHeldMostMiB = 3358;
inline constexpr int kNvidiaSmiHeldStarts = 13;

/// What a card whose total memory was reported by `memory_by` (an accelerator record's
/// memory_reported.by: nvidia-smi, metal, ...) holds when llama.cpp starts; nullopt for a report
/// kvcat has no figure for (cuda, rocm-smi, hip, or the vendor's GB).
std::optional<CardHeld> llamacpp_card_held(std::string_view memory_by);

/// Where a fitted figure leaves the verdict: `spare` is the card's memory less the whole start
/// (negative when it does not fit). When the starts' spread reaches past the edge, the sentence that
/// says what held memory would turn the verdict; nullopt when no start in the spread would, or the
/// figure is not fitted.
std::optional<std::string> llamacpp_held_edge(const CardHeld& held, const Rational& spare);

}  // namespace kvcat
