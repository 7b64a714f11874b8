#include "vocab/weight_quant.h"

#include <array>

#include "support/suggest.h"

namespace kvcat {

namespace {

constexpr std::array kQuants = {
    WeightQuant{"f32", 1, 4},        WeightQuant{"fp32", 1, 4},      WeightQuant{"f16", 1, 2},
    WeightQuant{"fp16", 1, 2},       WeightQuant{"bf16", 1, 2},      WeightQuant{"fp8", 1, 1},
    WeightQuant{"fp8_e4m3", 1, 1},   WeightQuant{"fp8_block", 1, 1}, WeightQuant{"int8", 1, 1},
    WeightQuant{"Q8_0", 32, 34},     WeightQuant{"Q6_K", 256, 210},  WeightQuant{"Q5_K", 256, 176},
    WeightQuant{"Q5_1", 32, 24},     WeightQuant{"Q5_0", 32, 22},    WeightQuant{"Q4_K", 256, 144},
    WeightQuant{"Q4_1", 32, 20},     WeightQuant{"Q4_0", 32, 18},    WeightQuant{"IQ4_NL", 32, 18},
    WeightQuant{"IQ4_XS", 256, 136}, WeightQuant{"Q3_K", 256, 110},  WeightQuant{"Q2_K", 256, 84},
};

}  // namespace

std::span<const WeightQuant> weight_quants() {
    return kQuants;
}

std::optional<WeightQuant> find_weight_quant(std::string_view name) {
    for (const auto& q : kQuants) {
        if (equal_ignoring_case(q.name, name)) return q;
    }
    return std::nullopt;
}

}  // namespace kvcat
