#include "vocab/vocabulary.h"

#include <array>

#include "support/suggest.h"

namespace kvcat {

namespace {

constexpr std::array<std::string_view, 5> kLlamaCpp = {"llamacpp", "llama-cpp", "llama_cpp", "ggml", "llama-server"};
constexpr std::array<std::string_view, 5> kIkLlama = {"ik-llama.cpp", "ik_llamacpp", "ik-llamacpp", "ik_llama",
                                                      "ik-llama"};
constexpr std::array<std::string_view, 2> kVllm = {"vllm-project", "vllm serve"};
constexpr std::array<std::string_view, 1> kSglang = {"sgl"};
constexpr std::array<std::string_view, 4> kTrtLlm = {"TensorRT LLM", "trt-llm", "trtllm", "tensorrt_llm"};
constexpr std::array<std::string_view, 2> kMlx = {"mlx-lm", "mlx_lm"};
constexpr std::array<std::string_view, 1> kDs4 = {"ds4-bench"};
constexpr std::array<std::string_view, 2> kLmStudio = {"lm-studio", "lmstudio"};
constexpr std::array<std::string_view, 0> kNone = {};

constexpr std::array kEngines = {
    EngineName{"llama.cpp", "", "ggml-org/llama.cpp: llama-bench, llama-server, llama-batched-bench", kLlamaCpp},
    EngineName{"ik_llama.cpp", "llama.cpp", "ikawrakow/ik_llama.cpp, a fork of llama.cpp (llama-sweep-bench)",
               kIkLlama},
    EngineName{"vLLM", "", "vllm-project/vllm: vllm serve, vllm bench serve", kVllm},
    EngineName{"SGLang", "", "sgl-project/sglang", kSglang},
    EngineName{"TensorRT-LLM", "", "NVIDIA/TensorRT-LLM: trtllm-serve, trtllm-bench", kTrtLlm},
    EngineName{"MLX", "", "ml-explore/mlx and mlx-lm on Apple silicon", kMlx},
    EngineName{"ds4", "", "antirez/ds4, an engine for DeepSeek V4 models", kDs4},
    EngineName{"ollama", "llama.cpp", "ollama, built on llama.cpp's ggml", kNone},
    EngineName{"ExLlamaV2", "", "turboderp-org/exllamav2", kNone},
    EngineName{"LM Studio", "llama.cpp", "LM Studio's llama.cpp and MLX runtimes", kLmStudio},
};

constexpr std::array kWeightFormats = {
    // Exact sizes (src/vocab/weight_quant.cc knows their bytes per weight).
    WeightFormatName{"f32", "32-bit float"},
    WeightFormatName{"fp32", "32-bit float"},
    WeightFormatName{"f16", "16-bit float"},
    WeightFormatName{"fp16", "16-bit float"},
    WeightFormatName{"bf16", "bfloat16"},
    WeightFormatName{"fp8", "8-bit float (e4m3 unless said)"},
    WeightFormatName{"fp8_block", "8-bit float scaled per 128 x 128 block (Qwen's and DeepSeek's FP8 releases)"},
    WeightFormatName{"fp8_e4m3", "8-bit float, e4m3"},
    WeightFormatName{"int8", "8-bit integer"},
    WeightFormatName{"Q8_0", "ggml: 32 weights in 34 bytes"},
    WeightFormatName{"Q6_K", "ggml k-quant, 6.5625 bits"},
    WeightFormatName{"Q5_K", "ggml k-quant, 5.5 bits"},
    WeightFormatName{"Q5_1", "ggml: 32 weights in 24 bytes"},
    WeightFormatName{"Q5_0", "ggml: 32 weights in 22 bytes"},
    WeightFormatName{"Q4_K", "ggml k-quant, 4.5 bits"},
    WeightFormatName{"Q4_1", "ggml: 32 weights in 20 bytes"},
    WeightFormatName{"Q4_0", "ggml: 32 weights in 18 bytes"},
    WeightFormatName{"IQ4_NL", "ggml: 32 weights in 18 bytes"},
    WeightFormatName{"Q3_K", "ggml k-quant, 3.4375 bits"},
    WeightFormatName{"Q2_K", "ggml k-quant, 2.625 bits"},
    // Recipes that mix formats by tensor: no exact nominal size (state weight_bytes).
    WeightFormatName{"Q6_K_XL", "mixed recipe"},
    WeightFormatName{"Q5_K_M", "mixed recipe around Q5_K"},
    WeightFormatName{"Q5_K_S", "mixed recipe around Q5_K"},
    WeightFormatName{"Q5_K_XL", "mixed recipe around Q5_K"},
    WeightFormatName{"Q4_K_M", "mixed recipe around Q4_K"},
    WeightFormatName{"Q4_K_S", "mixed recipe around Q4_K"},
    WeightFormatName{"Q4_K_XL", "mixed recipe around Q4_K"},
    WeightFormatName{"Q3_K_M", "mixed recipe around Q3_K"},
    WeightFormatName{"Q3_K_S", "mixed recipe around Q3_K"},
    WeightFormatName{"Q3_K_L", "mixed recipe around Q3_K"},
    WeightFormatName{"Q3_K_XL", "mixed recipe around Q3_K"},
    WeightFormatName{"Q2_K_XL", "mixed recipe around Q2_K"},
    WeightFormatName{"UD-Q4_K_XL", "Unsloth dynamic recipe around Q4_K"},
    WeightFormatName{"UD-Q5_K_XL", "Unsloth dynamic recipe around Q5_K"},
    WeightFormatName{"UD-Q6_K_XL", "Unsloth dynamic recipe around Q6_K"},
    WeightFormatName{"UD-Q8_K_XL", "Unsloth dynamic recipe around Q8_0"},
    WeightFormatName{"UD-IQ4_XS", "Unsloth dynamic recipe around IQ4_XS"},
    WeightFormatName{"UD-IQ2_XXS", "Unsloth dynamic recipe around IQ2_XXS"},
    WeightFormatName{"IQ4_XS", "ggml i-quant, about 4.25 bits"},
    WeightFormatName{"IQ3_XXS", "ggml i-quant"},
    WeightFormatName{"IQ3_S", "ggml i-quant"},
    WeightFormatName{"IQ2_XXS", "ggml i-quant"},
    WeightFormatName{"IQ2_XS", "ggml i-quant"},
    WeightFormatName{"IQ1_S", "ggml i-quant"},
    WeightFormatName{"IQ4_K", "ik_llama.cpp i-quant, 4.5 bits as its loader prints"},
    WeightFormatName{"IQ3_K", "ik_llama.cpp i-quant, 3.4325 bits as its loader prints"},
    WeightFormatName{"IQ4_KS", "ik_llama.cpp i-quant, 4.25 bits (ik_llama.cpp pull request 83)"},
    WeightFormatName{"IQ4_KSS", "ik_llama.cpp i-quant, 4.0 bits (ik_llama.cpp pull request 89)"},
    WeightFormatName{"MXFP4", "OCP microscaling 4-bit float (gpt-oss experts)"},
    WeightFormatName{"NVFP4", "NVIDIA 4-bit float with block scales"},
    WeightFormatName{"AWQ-INT4", "activation-aware 4-bit integer weights"},
    WeightFormatName{"GPTQ-INT4", "GPTQ 4-bit integer weights"},
    WeightFormatName{"AutoRound-INT4", "Intel AutoRound 4-bit integer weights"},
    WeightFormatName{"INT4", "4-bit integer weights, recipe unstated"},
    WeightFormatName{"W8A8", "8-bit weights and activations"},
    WeightFormatName{"FP8-W8A8", "fp8 weights and activations"},
};

}  // namespace

std::span<const EngineName> engine_names() {
    return kEngines;
}
std::span<const WeightFormatName> weight_format_names() {
    return kWeightFormats;
}

const EngineName* find_engine(std::string_view name) {
    for (const auto& e : kEngines) {
        if (e.name == name) return &e;
    }
    return nullptr;
}

const EngineName* engine_spelled(std::string_view spelling) {
    for (const auto& e : kEngines) {
        if (equal_ignoring_case(e.name, spelling)) return &e;
        for (auto s : e.spellings) {
            if (equal_ignoring_case(s, spelling)) return &e;
        }
    }
    return nullptr;
}

const WeightFormatName* find_weight_format(std::string_view name) {
    for (const auto& w : kWeightFormats) {
        if (w.name == name) return &w;
    }
    return nullptr;
}

const WeightFormatName* weight_format_spelled(std::string_view spelling) {
    for (const auto& w : kWeightFormats) {
        if (equal_ignoring_case(w.name, spelling)) return &w;
    }
    return nullptr;
}

}  // namespace kvcat
