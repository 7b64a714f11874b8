// Invariant checks shared by the fuzz targets: a broken invariant prints what broke and
// aborts, so libFuzzer keeps the input as a crash reproducer like any other crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kvcat::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "\nkvcat fuzz invariant broken: %s\n", what.c_str());
    std::abort();
}

inline void check(bool ok, const std::string& what) {
    if (!ok) fail(what);
}

}  // namespace kvcat::fuzz
