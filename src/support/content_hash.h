// A fingerprint of a file's bytes, for noticing that a record changed.
//
// Eight bytes a step, read little-endian so that every machine gets the same figure. Each
// step (xor the word, multiply by an odd constant, rotate) is a bijection of the running
// value, so changing any one word of a file always changes the result; the length and a
// final mix (splitmix64's) do the rest. It detects edits, not tampering: the catalog is
// not a security boundary. A full build hashes every record, so this runs at memory
// speed rather than at the byte-at-a-time pace of FNV-1a, which it replaced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kvcat {

inline std::uint64_t content_hash(std::string_view bytes) {
    constexpr std::uint64_t kOdd = 0x9e3779b97f4a7c15ULL;
    auto byte = [&](std::size_t i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])); };
    std::uint64_t h = 0xcbf29ce484222325ULL ^ (static_cast<std::uint64_t>(bytes.size()) * kOdd);
    std::size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
        std::uint64_t word = 0;
        for (std::size_t k = 0; k < 8; ++k) word |= byte(i + k) << (8 * k);
        h = (h ^ word) * kOdd;
        h = (h << 29) | (h >> 35);
    }
    for (; i < bytes.size(); ++i) {
        h = (h ^ byte(i)) * 0x100000001b3ULL;
    }
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

/// The hash as 16 hex digits, as the catalog stores it.
std::string content_hash_hex(std::uint64_t hash);

}  // namespace kvcat
