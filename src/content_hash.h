// A fingerprint of a file's bytes, for noticing that a record changed.
//
// FNV-1a over 64 bits: fast, dependency-free and stable across runs and machines. It
// detects edits, not tampering; the catalog is not a security boundary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kvcat {

inline std::uint64_t content_hash(std::string_view bytes) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

/// The hash as 16 hex digits, as the catalog stores it.
std::string content_hash_hex(std::uint64_t hash);

}  // namespace kvcat
