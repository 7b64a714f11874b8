// A GGUF file with a model's real attention and state geometry and no weights: the oracle
// test writes one per model record and hands it to the pinned libllama, which reads the
// shapes and never the data (the model is loaded with no_alloc). Layout: ggml's GGUF v3
// (docs/gguf.md of ggml-org/llama.cpp): magic, version, counts, key/values, tensor infos, the
// data aligned to 32 bytes. The data is a hole: the file is extended with ftruncate, so a
// 70B model's tensors take no disk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kvcat::oracle {

class ShapeGguf {
  public:
    ShapeGguf& u32(const std::string& key, std::uint32_t v);
    ShapeGguf& f32(const std::string& key, float v);
    ShapeGguf& boolean(const std::string& key, bool v);
    ShapeGguf& str(const std::string& key, const std::string& v);
    ShapeGguf& i32s(const std::string& key, const std::vector<std::int32_t>& v);
    ShapeGguf& u32s(const std::string& key, const std::vector<std::uint32_t>& v);
    ShapeGguf& bools(const std::string& key, const std::vector<bool>& v);
    ShapeGguf& strs(const std::string& key, const std::vector<std::string>& v);
    ShapeGguf& f32s(const std::string& key, const std::vector<float>& v);
    /// A tensor of F32 elements with ggml's dimension order (ne[0] first).
    ShapeGguf& tensor(const std::string& name, std::vector<std::uint64_t> dims);

    /// Writes the file; throws std::runtime_error naming the path when it cannot.
    void write(const std::filesystem::path& path) const;

  private:
    void key(const std::string& k, std::uint32_t type);
    std::string kv_;
    std::uint64_t n_kv_ = 0;
    struct Tensor {
        std::string name;
        std::vector<std::uint64_t> dims;
        std::uint64_t offset;
    };
    std::vector<Tensor> tensors_;
    std::uint64_t data_bytes_ = 0;
};

/// deepseek2's attention keys as conversion/deepseek.py writes them: the cache holds the latent
/// and the decoupled key (key_length rank + rope, value_length rank), and the heads the latent
/// expands to are key_length_mla and value_length_mla wide.
void write_mla_attention_keys(ShapeGguf& g, const std::string& arch, std::uint64_t rank, std::uint64_t rope,
                              std::uint64_t k_mla, std::uint64_t v_mla);

}  // namespace kvcat::oracle
