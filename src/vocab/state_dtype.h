// The dtypes a fixed state (the recurrent and convolution state of linear-attention, Mamba and
// short-convolution layers) is kept in, as records name them: the one list the schema's enum,
// the state arithmetic and import-config read.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kvcat {

/// Every state dtype a record may name, in the schema's order.
inline constexpr std::array<std::string_view, 4> kStateDtypeNames = {"float32", "bfloat16", "float16", "fp32"};

/// The bytes of one element of a state kept in `name`: 4 for float32 (fp32), 2 for bfloat16 and
/// float16. Throws std::invalid_argument for a name outside kStateDtypeNames (the schema refuses
/// such a record before any arithmetic).
std::int64_t state_dtype_bytes(std::string_view name);

/// The record's name for a dtype as configs and engines spell it ("torch.float32", "fp32",
/// "bf16", "fp16"): float32, bfloat16 or float16; nullopt for any other.
std::optional<std::string> state_dtype_from(std::string_view spelled);

/// "float32, bfloat16 and float16": the dtypes state_dtype_from knows, for a message.
std::string state_dtypes_known();

}  // namespace kvcat
