// A GGUF header written for a test with the metadata a test gives it, in the layout of ggml's
// GGUF specification (docs/gguf.md): magic, version 3, tensor and metadata counts, the
// key/values, no tensors. kvcat's import reads the metadata only. Header-only.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "test_util.h"

namespace kvcat::test {

class GgufHeader {
  public:
    /// An array whose items are arrays (one empty array of u32), which GGUF readers refuse.
    struct ArrayOfArrays {};
    using Value = std::variant<std::uint32_t, std::int32_t, float, bool, std::string, std::vector<std::int32_t>,
                               std::vector<bool>, std::uint64_t, ArrayOfArrays>;

    /// Makes the header claim `n` metadata keys, whatever it holds.
    GgufHeader& claim_keys(std::uint64_t n) {
        claimed_keys_ = n;
        return *this;
    }

    GgufHeader& set(const std::string& key, Value value) {
        entries_.emplace_back(key, std::move(value));
        return *this;
    }

    /// Writes the header to `path` and returns it.
    std::string write(const std::string& path) const {
        std::string b;
        put32(b, 0x46554747u);  // "GGUF"
        put32(b, 3);
        put64(b, 0);  // tensors
        put64(b, claimed_keys_ ? *claimed_keys_ : entries_.size());
        for (const auto& [key, value] : entries_) {
            str(b, key);
            if (auto* u = std::get_if<std::uint32_t>(&value)) {
                put32(b, 4);
                put32(b, *u);
            } else if (auto* i = std::get_if<std::int32_t>(&value)) {
                put32(b, 5);
                put32(b, static_cast<std::uint32_t>(*i));
            } else if (auto* f = std::get_if<float>(&value)) {
                put32(b, 6);
                b.append(reinterpret_cast<const char*>(f), 4);
            } else if (auto* t = std::get_if<bool>(&value)) {
                put32(b, 7);
                b.push_back(*t ? 1 : 0);
            } else if (auto* s = std::get_if<std::string>(&value)) {
                put32(b, 8);
                str(b, *s);
            } else if (auto* a = std::get_if<std::vector<std::int32_t>>(&value)) {
                put32(b, 9);
                put32(b, 5);
                put64(b, a->size());
                for (auto x : *a) put32(b, static_cast<std::uint32_t>(x));
            } else if (auto* u64 = std::get_if<std::uint64_t>(&value)) {
                put32(b, 10);
                put64(b, *u64);
            } else if (std::holds_alternative<ArrayOfArrays>(value)) {
                put32(b, 9);
                put32(b, 9);
                put64(b, 1);
                put32(b, 4);
                put64(b, 0);
            } else if (auto* bs = std::get_if<std::vector<bool>>(&value)) {
                put32(b, 9);
                put32(b, 7);
                put64(b, bs->size());
                for (bool x : *bs) b.push_back(x ? 1 : 0);
            }
        }
        while (b.size() % 32 != 0) b.push_back(0);
        std::ofstream(path, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
        return path;
    }

  private:
    static void put32(std::string& b, std::uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }
    static void put64(std::string& b, std::uint64_t v) { b.append(reinterpret_cast<const char*>(&v), 8); }
    static void str(std::string& b, const std::string& s) {
        put64(b, s.size());
        b += s;
    }
    std::vector<std::pair<std::string, Value>> entries_;
    std::optional<std::uint64_t> claimed_keys_;
};

}  // namespace kvcat::test
