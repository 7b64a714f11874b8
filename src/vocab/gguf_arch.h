// The llama.cpp architectures whose converted GGUF tensors kvcat can list from a model record
// (engines/llamacpp/llamacpp_tensors): the one list the schema's enum for a record's tensors.llama_arch
// and the inventory read. A model of another architecture carries no tensors mapping, and its
// weights in a llama.cpp mix stay a lower bound.
#pragma once

#include <array>
#include <string_view>

namespace kvcat {

/// Every architecture a record's tensors.llama_arch may name, as llama.cpp spells it
/// (general.architecture in a GGUF).
inline constexpr std::array<std::string_view, 14> kGgufArchNames = {
    "llama",   "qwen2",  "qwen3",     "qwen3moe",      "gemma3", "glm4",      "llama4",
    "gpt-oss", "qwen35", "qwen35moe", "granitehybrid", "lfm2",   "deepseek2", "qwen3next"};

}  // namespace kvcat
