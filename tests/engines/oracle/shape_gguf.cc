#include "engines/oracle/shape_gguf.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace kvcat::oracle {

namespace {

// GGUF value types (gguf.h): the ones written here.
constexpr std::uint32_t kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7, kString = 8, kArray = 9;
constexpr std::uint64_t kAlignment = 32;

template <typename T>
void put(std::string& out, T v) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    out.append(bytes, sizeof(T));
}

void put_string(std::string& out, const std::string& s) {
    put<std::uint64_t>(out, s.size());
    out += s;
}

std::uint64_t aligned(std::uint64_t n) {
    return (n + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

void ShapeGguf::key(const std::string& k, std::uint32_t type) {
    put_string(kv_, k);
    put<std::uint32_t>(kv_, type);
    ++n_kv_;
}

ShapeGguf& ShapeGguf::u32(const std::string& k, std::uint32_t v) {
    key(k, kU32);
    put(kv_, v);
    return *this;
}

ShapeGguf& ShapeGguf::f32(const std::string& k, float v) {
    key(k, kF32);
    put(kv_, v);
    return *this;
}

ShapeGguf& ShapeGguf::boolean(const std::string& k, bool v) {
    key(k, kBool);
    put<std::uint8_t>(kv_, v ? 1 : 0);
    return *this;
}

ShapeGguf& ShapeGguf::str(const std::string& k, const std::string& v) {
    key(k, kString);
    put_string(kv_, v);
    return *this;
}

ShapeGguf& ShapeGguf::i32s(const std::string& k, const std::vector<std::int32_t>& v) {
    key(k, kArray);
    put(kv_, kI32);
    put<std::uint64_t>(kv_, v.size());
    for (auto x : v) put(kv_, x);
    return *this;
}

ShapeGguf& ShapeGguf::u32s(const std::string& k, const std::vector<std::uint32_t>& v) {
    key(k, kArray);
    put(kv_, kU32);
    put<std::uint64_t>(kv_, v.size());
    for (auto x : v) put(kv_, x);
    return *this;
}

ShapeGguf& ShapeGguf::bools(const std::string& k, const std::vector<bool>& v) {
    key(k, kArray);
    put(kv_, kBool);
    put<std::uint64_t>(kv_, v.size());
    for (bool x : v) put<std::uint8_t>(kv_, x ? 1 : 0);
    return *this;
}

ShapeGguf& ShapeGguf::strs(const std::string& k, const std::vector<std::string>& v) {
    key(k, kArray);
    put(kv_, kString);
    put<std::uint64_t>(kv_, v.size());
    for (const auto& x : v) put_string(kv_, x);
    return *this;
}

ShapeGguf& ShapeGguf::f32s(const std::string& k, const std::vector<float>& v) {
    key(k, kArray);
    put(kv_, kF32);
    put<std::uint64_t>(kv_, v.size());
    for (float x : v) put(kv_, x);
    return *this;
}

ShapeGguf& ShapeGguf::tensor(const std::string& name, std::vector<std::uint64_t> dims) {
    std::uint64_t elements = 1;
    for (auto d : dims) elements *= d;
    tensors_.push_back(Tensor{name, std::move(dims), data_bytes_});
    data_bytes_ = aligned(data_bytes_ + elements * 4);
    return *this;
}

void ShapeGguf::write(const std::filesystem::path& path) const {
    std::string out;
    put<std::uint32_t>(out, 0x46554747u);  // "GGUF"
    put<std::uint32_t>(out, 3);
    put<std::uint64_t>(out, tensors_.size());
    put<std::uint64_t>(out, n_kv_);
    out += kv_;
    for (const auto& t : tensors_) {
        put_string(out, t.name);
        put<std::uint32_t>(out, static_cast<std::uint32_t>(t.dims.size()));
        for (auto d : t.dims) put(out, d);
        put<std::uint32_t>(out, 0);  // GGML_TYPE_F32
        put(out, t.offset);
    }
    out.resize(aligned(out.size()), '\0');
    {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f.write(out.data(), static_cast<std::streamsize>(out.size()));
        if (!f) throw std::runtime_error("cannot write " + path.string());
    }
    // The tensor data: a hole of the right length.
    if (::truncate(path.c_str(), static_cast<off_t>(out.size() + data_bytes_)) != 0) {
        throw std::runtime_error("cannot extend " + path.string());
    }
}

void write_mla_attention_keys(ShapeGguf& g, const std::string& arch, std::uint64_t rank, std::uint64_t rope,
                              std::uint64_t k_mla, std::uint64_t v_mla) {
    auto u = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
    g.u32(arch + ".attention.key_length", u(rank + rope))
        .u32(arch + ".attention.value_length", u(rank))
        .u32(arch + ".attention.key_length_mla", u(k_mla))
        .u32(arch + ".attention.value_length_mla", u(v_mla))
        .u32(arch + ".attention.kv_lora_rank", u(rank))
        .u32(arch + ".rope.dimension_count", u(rope));
}

}  // namespace kvcat::oracle
