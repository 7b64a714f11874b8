#include "engines/llamacpp/llamacpp_card_held.h"

#include <fmt/format.h>

namespace kvcat {

namespace {

const Rational kMiB(std::int64_t{1} << 20);

std::int64_t mib_of(const Rational& bytes) {
    return (bytes / kMiB).floor();
}

}  // namespace

std::optional<CardHeld> llamacpp_card_held(std::string_view memory_by) {
    if (memory_by == "metal") {
        return CardHeld{
            Rational(0),
            "none: llama.cpp's free memory on Metal is recommendedMaxWorkingSetSize less what is allocated, "
            "the card record's total (ggml-metal-device.m at 80fb11ac)",
            std::nullopt, std::nullopt};
    }
    if (memory_by == "nvidia-smi") {
        return CardHeld{
            Rational(kNvidiaSmiHeldMiB) * kMiB,
            fmt::format("{} MiB, fitted: nvidia-smi's total less the \"MiB free\" llama.cpp printed as it "
                        "started, the median of {} starts, which ranged from {} to {} MiB (the driver, "
                        "the CUDA context, a desktop); --reserve-gib gives your own",
                        kNvidiaSmiHeldMiB, kNvidiaSmiHeldStarts, kNvidiaSmiHeldLeastMiB, kNvidiaSmiHeldMostMiB),
            Rational(kNvidiaSmiHeldLeastMiB) * kMiB, Rational(kNvidiaSmiHeldMostMiB) * kMiB};
    }
    return std::nullopt;
}

std::optional<std::string> llamacpp_held_edge(const CardHeld& held, const Rational& spare) {
    if (!held.least || !held.most) return std::nullopt;
    const Rational edge = held.bytes + spare;  // the held memory at which the start just fits
    const std::string fitted = fmt::format("kvcat takes {} MiB; the starts it is fitted to held {} to {}",
                                           mib_of(held.bytes), mib_of(*held.least), mib_of(*held.most));
    if (!spare.is_negative() && edge < *held.most) {
        return fmt::format("a card that holds more than {} MiB before llama.cpp starts would not fit it ({})",
                           mib_of(edge), fitted);
    }
    if (spare.is_negative() && edge > *held.least) {
        return fmt::format("a card that holds at most {} MiB before llama.cpp starts would fit it ({})", mib_of(edge),
                           fitted);
    }
    return std::nullopt;
}

}  // namespace kvcat
