#include "engines/llamacpp/llamacpp_card_held.h"

#include <fmt/format.h>

namespace kvcat {

std::optional<CardHeld> llamacpp_card_held(std::string_view memory_by) {
    if (memory_by == "metal") {
        return CardHeld{
            Rational(0),
            "none: llama.cpp's free memory on Metal is recommendedMaxWorkingSetSize less what is allocated, "
            "the card record's total (ggml-metal-device.m at 80fb11ac)"};
    }
    if (memory_by == "nvidia-smi") {
        return CardHeld{
            Rational(kNvidiaSmiHeldMiB * (std::int64_t{1} << 20)),
            fmt::format("{} MiB, fitted: nvidia-smi's total less the \"MiB free\" llama.cpp printed as it "
                        "started, the median of {} starts, which ranged from {} to {} MiB (the driver, "
                        "the CUDA context, a desktop); --reserve-gib gives your own",
                        kNvidiaSmiHeldMiB, kNvidiaSmiHeldStarts, kNvidiaSmiHeldLeastMiB, kNvidiaSmiHeldMostMiB)};
    }
    return std::nullopt;
}

}  // namespace kvcat
