// A small GGUF file written for a test, in the layout llama.cpp's gguf.h describes: the
// fit tests read its weights, and the help examples give it to `kvcat fit --weight-file`.
// Header-only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_util.h"

namespace kvcat::test {

/// A small GGUF v3 file: metadata (an alignment, a string, an array of strings), two tensor
/// descriptions and `data` bytes of tensor data after the aligned header.
class GgufFile {
  public:
    GgufFile(std::uint64_t data, std::uint32_t magic = 0x46554747u) : GgufFile(data, magic, 0, 0, "model.gguf") {}

    /// Part `split_no` (from 0) of `split_count` of a split model, as llama.cpp's gguf-split
    /// writes one (split.no and split.count, u16), in a file called `name`.
    /// `second` names the second tensor: a file without "output.weight" ties its embeddings.
    GgufFile(std::uint64_t data, std::uint32_t magic, std::uint16_t split_no, std::uint16_t split_count,
             std::string name, const std::string& second = "output.weight")
        : name_(std::move(name)) {
        put32(magic);
        put32(3);
        put64(2);                        // tensors
        put64(split_count > 0 ? 5 : 3);  // metadata entries
        if (split_count > 0) {
            key("split.no");
            put32(2);  // u16
            bytes_.append(reinterpret_cast<const char*>(&split_no), 2);
            key("split.count");
            put32(2);
            bytes_.append(reinterpret_cast<const char*>(&split_count), 2);
        }
        key("general.alignment");
        put32(4);  // u32
        put32(64);
        key("general.name");
        put32(8);
        str("test-model");
        key("tokenizer.ggml.tokens");
        put32(9);  // array
        put32(8);  // of strings
        put64(2);
        str("a");
        str("bc");
        tensor("token_embd.weight", 0);
        tensor(second, 64);
        while (bytes_.size() % 64 != 0) bytes_.push_back(0);
        header_ = bytes_.size();
        bytes_.resize(bytes_.size() + data, 7);
        std::ofstream(path(), std::ios::binary).write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
    }
    std::string path() const { return (dir_.path() / name_).string(); }
    const std::string& bytes() const { return bytes_; }
    std::uint64_t header() const { return header_; }
    std::uint64_t size() const { return bytes_.size(); }
    void truncate(std::uint64_t to) const { fs::resize_file(path(), to); }

  private:
    void put32(std::uint32_t v) { bytes_.append(reinterpret_cast<const char*>(&v), 4); }
    void put64(std::uint64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), 8); }
    void str(const std::string& s) {
        put64(s.size());
        bytes_ += s;
    }
    void key(const std::string& k) { str(k); }
    void tensor(const std::string& name, std::uint64_t offset) {
        str(name);
        put32(2);
        put64(8);
        put64(4);
        put32(12);  // Q4_K; its size per block does not matter to kvcat
        put64(offset);
    }
    std::string name_;
    TempDir dir_;
    std::string bytes_;
    std::uint64_t header_ = 0;
};

}  // namespace kvcat::test
