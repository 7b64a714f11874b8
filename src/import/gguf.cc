#include "import/gguf.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "support/rational.h"

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

/// Where a header's bytes come from: a local file or a remote one read by range requests.
class Bytes {
  public:
    virtual ~Bytes() = default;
    virtual std::uint64_t size() const = 0;
    /// Copies [pos, pos + n) to `out`; throws when they cannot be read.
    virtual void read(std::uint64_t pos, char* out, std::size_t n) = 0;
    /// How much to read at once: a request costs far more than a read.
    virtual std::size_t block() const = 0;
};

class FileBytes final : public Bytes {
  public:
    explicit FileBytes(const std::string& path) {
        std::error_code ec;
        size_ = std::filesystem::file_size(path, ec);
        if (ec) throw std::runtime_error(fmt::format("cannot read {}: {}", path, ec.message()));
        in_.open(path, std::ios::binary);
        if (!in_) throw std::runtime_error(fmt::format("cannot read {}", path));
    }
    std::uint64_t size() const override { return size_; }
    void read(std::uint64_t pos, char* out, std::size_t n) override {
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(pos));
        in_.read(out, static_cast<std::streamsize>(n));
        if (!in_) throw GgufError(fmt::format("cannot read bytes {} to {} of the file", pos, pos + n));
    }
    std::size_t block() const override { return std::size_t{1} << 16; }

  private:
    std::ifstream in_;
    std::uint64_t size_ = 0;
};

constexpr std::size_t kRemoteBlock = std::size_t{1} << 20;

class RemoteBytes final : public Bytes {
  public:
    RemoteBytes(const std::string& url, const HttpLimits& limits) : file_(url, kRemoteBlock, limits) {}
    std::uint64_t size() const override { return file_.size(); }
    void read(std::uint64_t pos, char* out, std::size_t n) override {
        std::string got = file_.read(pos, n);
        std::copy_n(got.data(), n, out);
    }
    std::size_t block() const override { return kRemoteBlock; }
    const HttpRangeFile& file() const { return file_; }

  private:
    HttpRangeFile file_;
};

/// Every length in a header is checked against what is left of the file before it is used. The
/// file is read in blocks: a skip moves the position only, so reading a header costs one read
/// a block, however many fields it holds (a seek a field made a 1 GB header take minutes).
class Reader {
  public:
    explicit Reader(Bytes& in) : in_(in), size_(in.size()) {}

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
    /// Copies the next `n` bytes (at most a key's length) to `out`, reading a new block when
    /// they are not all in the one held.
    void copy(char* out, std::size_t n, const char* what) {
        need(n, what);
        if (pos_ < block_start_ || pos_ + n > block_start_ + block_.size()) {
            block_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(in_.block(), size_ - pos_)));
            in_.read(pos_, block_.data(), block_.size());
            block_start_ = pos_;
        }
        std::copy_n(block_.data() + (pos_ - block_start_), n, out);
        pos_ += n;
    }

    Bytes& in_;
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

/// The most tensors whose extents are kept (a model has some thousands).
constexpr std::uint64_t kMaxExtents = 1 << 20;

/// Each tensor's bytes: from its offset to the next one's, the last to the data's end.
void measure_extents(std::vector<GgufTensorExtent>& extents, std::uint64_t data_bytes) {
    std::vector<std::uint64_t> starts;
    starts.reserve(extents.size());
    for (const auto& e : extents) starts.push_back(e.offset);
    std::sort(starts.begin(), starts.end());
    for (auto& e : extents) {
        auto next = std::upper_bound(starts.begin(), starts.end(), e.offset);
        e.bytes = (next == starts.end() ? data_bytes : *next) - e.offset;
    }
}

/// The header; its metadata kept as JSON only when `keep` (the weights need none of it, and
/// skipping reads nothing into memory).
GgufHeader read_header(Bytes& in, bool keep) {
    GgufHeader out;
    std::uint64_t size = in.size();
    Reader r(in);
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
            if (keep && !key.starts_with("tokenizer.") && key != "general.alignment" && key != "general.file_type" &&
                !key.starts_with("split.")) {
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
        } else if (key == "split.no" && value) {
            w.split_no = *value;
        } else if (key == "split.count" && value) {
            w.split_count = *value;
        }
    }
    std::uint64_t last_end = 0;
    for (std::uint64_t i = 0; i < w.tensors; ++i) {
        std::string name = r.string("a tensor name");
        auto dims = r.get<std::uint32_t>("a tensor's dimensions");
        if (dims > 8) throw GgufError(fmt::format("a tensor with {} dimensions", dims));
        r.skip(std::uint64_t{dims} * 8, "a tensor's shape");
        r.get<std::uint32_t>("a tensor's type");
        auto offset = r.get<std::uint64_t>("a tensor's offset");
        if (offset % w.alignment != 0) throw GgufError("a tensor's offset is not aligned");
        last_end = std::max(last_end, offset);
        if (i < kMaxExtents) w.extents.push_back({std::move(name), offset, 0});
    }
    if (w.tensors > kMaxExtents) w.extents.clear();  // past any model's count: no extent is kept
    std::uint64_t header = r.pos();
    w.data_offset = (header + w.alignment - 1) / w.alignment * w.alignment;
    if (w.data_offset > size || last_end > size - w.data_offset) {
        throw GgufError("the tensor data is cut short: the file ends before the last tensor starts");
    }
    w.data_bytes = size - w.data_offset;
    measure_extents(w.extents, w.data_bytes);
    return out;
}

}  // namespace

namespace {

/// The header of a local path or a remote address, and the bytes read to get it (0 for a file).
GgufHeader read_any(const std::string& where, bool keep, const HttpLimits& limits) {
    if (!is_http_url(where)) {
        if (where.find("://") != std::string::npos) {
            throw std::runtime_error("kvcat reads a GGUF from a path, or from an http:// or https:// address");
        }
        FileBytes in(where);
        return read_header(in, keep);
    }
    RemoteBytes in(where, limits);
    GgufHeader h = read_header(in, keep);
    h.weights.fetched_bytes = in.file().bytes_fetched();
    h.weights.requests = in.file().requests();
    return h;
}

/// The name of part `no` (from 1) of `count`, given the first part's: llama.cpp's
/// llama_split_path() writes PREFIX-00001-of-00003.gguf. Empty when `first` is not so named.
std::string part_name(const std::string& first, std::uint64_t no, std::uint64_t count) {
    std::string tail = fmt::format("-00001-of-{:05d}.gguf", count);
    if (first.size() <= tail.size() || first.compare(first.size() - tail.size(), tail.size(), tail) != 0) return {};
    return fmt::format("{}-{:05d}-of-{:05d}.gguf", first.substr(0, first.size() - tail.size()), no, count);
}

}  // namespace

GgufWeights read_gguf_weights(const std::string& path, const HttpLimits& limits) {
    GgufWeights w = read_any(path, false, limits).weights;
    if (w.split_count <= 1) return w;
    if (w.split_no != 0) {
        throw GgufError(fmt::format("this is part {} of {} of a split model; give the first part, which names the rest",
                                    w.split_no + 1, w.split_count));
    }
    if (w.split_count > 1000)
        throw GgufError(fmt::format("split.count is {}; kvcat reads at most 1000 parts", w.split_count));
    if (part_name(path, 1, w.split_count).empty()) {
        throw GgufError(
            fmt::format("this is the first of {} parts, but its name does not end in -00001-of-{:05d}.gguf, "
                        "so kvcat cannot find the others",
                        w.split_count, w.split_count));
    }
    for (std::uint64_t no = 2; no <= w.split_count; ++no) {
        std::string name = part_name(path, no, w.split_count);
        GgufWeights p;
        try {
            p = read_any(name, false, limits).weights;
        } catch (const std::exception& e) {
            throw GgufError(fmt::format("part {} of {}, {}: {}", no, w.split_count, name, e.what()));
        }
        if (p.split_count != w.split_count || p.split_no != no - 1) {
            throw GgufError(fmt::format("{} says it is part {} of {}, where part {} of {} was expected", name,
                                        p.split_no + 1, p.split_count, no, w.split_count));
        }
        w.tensors += p.tensors;
        w.file_size += p.file_size;
        w.data_offset += p.data_offset;
        w.data_bytes += p.data_bytes;
        w.fetched_bytes += p.fetched_bytes;
        w.requests += p.requests;
        w.extents.insert(w.extents.end(), p.extents.begin(), p.extents.end());
    }
    return w;
}

std::string gguf_weights_how(const std::string& where, const GgufWeights& w) {
    auto n = [](std::uint64_t v) { return group_thousands(static_cast<std::int64_t>(v)); };
    std::string tensors = fmt::format("{} tensor{}", n(w.tensors), w.tensors == 1 ? "" : "s");
    std::string how = w.split_count > 1
                          ? fmt::format(
                                "the tensor data of {} and its {} other parts: {}, the files' {} bytes less their "
                                "{} bytes of headers",
                                where, w.split_count - 1, tensors, n(w.file_size), n(w.data_offset))
                          : fmt::format("the tensor data of {}: {}, the file's {} bytes less its {}-byte header", where,
                                        tensors, n(w.file_size), n(w.data_offset));
    if (w.requests > 0) {
        how += fmt::format(" (its header read by {} range request{}, {} bytes)", w.requests, w.requests == 1 ? "" : "s",
                           n(w.fetched_bytes));
    }
    return how;
}

GgufHeader read_gguf_header(const std::string& path, const HttpLimits& limits) {
    return read_any(path, true, limits);
}

}  // namespace kvcat
