#include "import/gguf.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

namespace kvcat {

namespace {

// GGUF metadata value types (the GGUF specification in ggml's docs/gguf.md).
enum : std::uint32_t {
    kU8 = 0,
    kI8 = 1,
    kU16 = 2,
    kI16 = 3,
    kU32 = 4,
    kI32 = 5,
    kF32 = 6,
    kBool = 7,
    kString = 8,
    kArray = 9,
    kU64 = 10,
    kI64 = 11,
    kF64 = 12,
};

/// Every length in a header is checked against what is left of the file before it is used. The
/// file is read in blocks of kBlock bytes: a skip moves the position only, so reading a header
/// costs one read a block, however many fields it holds (a seek a field made a 1 GB header take
/// minutes).
class Reader {
  public:
    Reader(std::ifstream& in, std::uint64_t size) : in_(in), size_(size) {}

    std::uint64_t pos() const { return pos_; }

    void need(std::uint64_t n, const char* what) const {
        if (n > size_ - pos_) {
            throw GgufError(fmt::format("the header is cut short at byte {} (reading {})", pos_, what));
        }
    }
    void skip(std::uint64_t n, const char* what) {
        need(n, what);
        pos_ += n;
    }
    template <typename T>
    T get(const char* what) {
        T v{};
        copy(reinterpret_cast<char*>(&v), sizeof(T), what);  // GGUF is little-endian, as every host kvcat builds for
        return v;
    }
    /// A string kvcat looks at: a key. One longer than any key kvcat knows is skipped and
    /// read as empty, so a length field of 2^40 never becomes an allocation.
    std::string string(const char* what) {
        auto n = get<std::uint64_t>(what);
        need(n, what);
        if (n > kLongestKey) {
            skip(n, what);
            return {};
        }
        std::string s(static_cast<std::size_t>(n), '\0');
        copy(s.data(), static_cast<std::size_t>(n), what);
        return s;
    }
    /// A string kvcat does not need (a value, a tensor name): its length checked, then passed.
    void skip_string(const char* what) {
        auto n = get<std::uint64_t>(what);
        skip(n, what);
    }
    static constexpr std::uint64_t kLongestKey = 256;

  private:
    static constexpr std::size_t kBlock = 1u << 16;

    /// Copies the next `n` bytes (at most a key's length) to `out`, reading a new block when
    /// they are not all in the one held.
    void copy(char* out, std::size_t n, const char* what) {
        need(n, what);
        if (pos_ < block_start_ || pos_ + n > block_start_ + block_.size()) {
            block_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, size_ - pos_)));
            in_.clear();
            in_.seekg(static_cast<std::streamoff>(pos_));
            in_.read(block_.data(), static_cast<std::streamsize>(block_.size()));
            if (!in_) throw GgufError(fmt::format("cannot read {} at byte {}", what, pos_));
            block_start_ = pos_;
        }
        std::copy_n(block_.data() + (pos_ - block_start_), n, out);
        pos_ += n;
    }

    std::ifstream& in_;
    std::uint64_t size_;
    std::uint64_t pos_ = 0;
    std::vector<char> block_;
    std::uint64_t block_start_ = 0;
};

std::uint64_t scalar_size(std::uint32_t type) {
    switch (type) {
        case kU8:
        case kI8:
        case kBool:
            return 1;
        case kU16:
        case kI16:
            return 2;
        case kU32:
        case kI32:
        case kF32:
            return 4;
        case kU64:
        case kI64:
        case kF64:
            return 8;
        default:
            return 0;
    }
}

/// One scalar as JSON, read (not skipped).
nlohmann::json read_scalar(Reader& r, std::uint32_t type) {
    switch (type) {
        case kU8:
            return r.get<std::uint8_t>("a value");
        case kI8:
            return r.get<std::int8_t>("a value");
        case kU16:
            return r.get<std::uint16_t>("a value");
        case kI16:
            return r.get<std::int16_t>("a value");
        case kU32:
            return r.get<std::uint32_t>("a value");
        case kI32:
            return r.get<std::int32_t>("a value");
        case kU64:
            return r.get<std::uint64_t>("a value");
        case kI64:
            return r.get<std::int64_t>("a value");
        case kF32:
            return r.get<float>("a value");
        case kF64:
            return r.get<double>("a value");
        case kBool:
            return r.get<std::uint8_t>("a value") != 0;
        case kString:
            return r.string("a string value");
        default:
            throw GgufError(fmt::format("a metadata value of unknown type {}", type));
    }
}

/// One value as JSON; an array holds at most kMaxKeptItems items (a longer one throws). A
/// per-layer array has one item a layer, and the tokenizer's long arrays are never kept.
constexpr std::uint64_t kMaxKeptItems = 1 << 17;
nlohmann::json read_json_value(Reader& r, std::uint32_t type) {
    if (type != kArray) return read_scalar(r, type);
    auto item = r.get<std::uint32_t>("an array's type");
    auto count = r.get<std::uint64_t>("an array's length");
    if (item == kArray) throw GgufError("an array of arrays in the metadata");
    if (count > kMaxKeptItems) {
        throw GgufError(
            fmt::format("an array of {} items, where kvcat keeps at most {} (one a layer)", count, kMaxKeptItems));
    }
    if (std::uint64_t each = scalar_size(item); each && count > (UINT64_MAX / each)) {
        throw GgufError("an array too long for the file");
    }
    nlohmann::json out = nlohmann::json::array();
    for (std::uint64_t i = 0; i < count; ++i) out.push_back(read_scalar(r, item));
    return out;
}

/// Skips one value, returning it as an unsigned number when it is an integer scalar.
std::optional<std::uint64_t> read_value(Reader& r, std::uint32_t type, int depth = 0) {
    if (type == kString) {
        r.skip_string("a string value");
        return std::nullopt;
    }
    if (type == kArray) {
        if (depth > 0) throw GgufError("an array of arrays in the metadata");
        auto item = r.get<std::uint32_t>("an array's type");
        auto count = r.get<std::uint64_t>("an array's length");
        if (std::uint64_t each = scalar_size(item)) {
            if (count > UINT64_MAX / each) throw GgufError("an array too long for the file");
            r.skip(count * each, "an array");
        } else if (item == kString) {
            for (std::uint64_t i = 0; i < count; ++i) r.skip_string("a string in an array");
        } else {
            throw GgufError(item == kArray ? std::string("an array of arrays, which kvcat does not read")
                                           : fmt::format("an array of unknown type {}", item));
        }
        return std::nullopt;
    }
    switch (type) {
        case kU8:
            return r.get<std::uint8_t>("a value");
        case kU16:
            return r.get<std::uint16_t>("a value");
        case kU32:
            return r.get<std::uint32_t>("a value");
        case kU64:
            return r.get<std::uint64_t>("a value");
        case kI8:
        case kBool:
            r.skip(1, "a value");
            return std::nullopt;
        case kI16:
            r.skip(2, "a value");
            return std::nullopt;
        case kI32: {
            auto v = r.get<std::int32_t>("a value");
            return v >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(v)) : std::nullopt;
        }
        case kF32:
            r.skip(4, "a value");
            return std::nullopt;
        case kI64:
        case kF64:
            r.skip(8, "a value");
            return std::nullopt;
        default:
            throw GgufError(fmt::format("a metadata value of unknown type {}", type));
    }
}

}  // namespace

namespace {

/// The most metadata keys a header may claim.
constexpr std::uint64_t kMaxKeys = 1 << 16;

/// The header; its metadata kept as JSON only when `keep` (the weights need none of it, and
/// skipping reads nothing into memory).
GgufHeader read_header(const std::string& path, bool keep) {
    GgufHeader out;
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot read {}: {}", path, ec.message()));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(fmt::format("cannot read {}", path));
    Reader r(in, size);
    GgufWeights& w = out.weights;
    w.file_size = size;
    auto magic = r.get<std::uint32_t>("the magic");
    if (magic != 0x46554747u) throw GgufError("not a GGUF file: it does not start with GGUF");
    w.version = r.get<std::uint32_t>("the version");
    if (w.version < 2 || w.version > 3) throw GgufError(fmt::format("GGUF version {}; kvcat reads 2 and 3", w.version));
    w.tensors = r.get<std::uint64_t>("the tensor count");
    auto kvs = r.get<std::uint64_t>("the metadata count");
    if (kvs > kMaxKeys) {
        throw GgufError(
            fmt::format("the header claims {} metadata keys; kvcat reads at most {} (a model's header "
                        "holds some dozens)",
                        kvs, kMaxKeys));
    }
    std::unordered_set<std::string> seen;
    for (std::uint64_t i = 0; i < kvs; ++i) {
        std::uint64_t at = r.pos();
        std::string key = r.string("a metadata key");
        // llama.cpp's reader refuses a file that gives a key twice; keeping either value would be a guess.
        if (!key.empty() && !seen.insert(key).second) {
            throw GgufError(fmt::format("the key {} is given twice (the second at byte {})", key, at));
        }
        auto type = r.get<std::uint32_t>("a metadata type");
        std::optional<std::uint64_t> value;
        try {
            if (keep && !key.starts_with("tokenizer.") && key != "general.alignment" && key != "general.file_type") {
                out.metadata[key] = read_json_value(r, type);
                continue;
            }
            value = read_value(r, type);
        } catch (const GgufError& e) {
            throw GgufError(fmt::format("{}: {}", key.empty() ? "a key longer than any kvcat reads" : key, e.what()));
        }
        if (key == "general.alignment") {
            if (!value || *value == 0 || (*value & (*value - 1)) != 0) {
                throw GgufError("general.alignment is not a power of two");
            }
            w.alignment = *value;
        } else if (key == "general.file_type" && value) {
            w.file_type = std::to_string(*value);
        }
    }
    std::uint64_t last_end = 0;
    for (std::uint64_t i = 0; i < w.tensors; ++i) {
        r.skip_string("a tensor name");
        auto dims = r.get<std::uint32_t>("a tensor's dimensions");
        if (dims > 8) throw GgufError(fmt::format("a tensor with {} dimensions", dims));
        r.skip(std::uint64_t{dims} * 8, "a tensor's shape");
        r.get<std::uint32_t>("a tensor's type");
        auto offset = r.get<std::uint64_t>("a tensor's offset");
        if (offset % w.alignment != 0) throw GgufError("a tensor's offset is not aligned");
        last_end = std::max(last_end, offset);
    }
    std::uint64_t header = r.pos();
    w.data_offset = (header + w.alignment - 1) / w.alignment * w.alignment;
    if (w.data_offset > size || last_end > size - w.data_offset) {
        throw GgufError("the tensor data is cut short: the file ends before the last tensor starts");
    }
    w.data_bytes = size - w.data_offset;
    return out;
}

}  // namespace

GgufWeights read_gguf_weights(const std::string& path) {
    return read_header(path, false).weights;
}

GgufHeader read_gguf_header(const std::string& path) {
    return read_header(path, true);
}

}  // namespace kvcat
