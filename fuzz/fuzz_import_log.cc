// libFuzzer target: bytes -> kvcat::parse_engine_log and allocation_record_text, as
// `kvcat import-log` reads a log and writes its record.
//
// A log kvcat cannot read throws LogError, and only LogError, whose message starts with the
// log's name (and, for a line, its number). A log that is read gives counts of at least one,
// figures that are decimal numbers, at most one cache of each scope, and a record that reads
// back as YAML without a key given twice, unless it holds a control character (the command
// refuses that record by name).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "engines/engine_log.h"
#include "fuzz_check.h"
#include "load/yaml_loader.h"

using kvcat::fuzz::check;

namespace {

void count_or_absent(const std::optional<std::int64_t>& v, const char* what) {
    check(!v || *v >= 1, std::string(what) + " below 1");
}

void decimal_or_empty(const std::string& s, const char* what) {
    if (s.empty()) return;
    bool point = false, ok = s.front() != '.' && s.back() != '.';
    for (char c : s) {
        if (c == '.') {
            ok = ok && !point;
            point = true;
        } else {
            ok = ok && c >= '0' && c <= '9';
        }
    }
    check(ok, std::string(what) + " is not a decimal number: " + s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    kvcat::ParsedLog log;
    try {
        log = kvcat::parse_engine_log(text, "fuzz.log");
    } catch (const kvcat::LogError& e) {
        check(std::string(e.what()).rfind("fuzz.log:", 0) == 0,
              std::string("a LogError without the log's name: ") + e.what());
        return 0;
    }
    std::set<std::string> scopes;
    for (const auto& c : log.caches) {
        check(scopes.insert(c.scope).second, "two caches of one scope: " + c.scope);
        count_or_absent(c.cells, "cells");
        count_or_absent(c.layers, "layers");
        count_or_absent(c.seqs, "seqs");
        count_or_absent(c.streams, "streams");
        decimal_or_empty(c.size_mib, "size_mib");
        decimal_or_empty(c.k_mib, "k_mib");
        decimal_or_empty(c.v_mib, "v_mib");
    }
    count_or_absent(log.tokens, "tokens");
    count_or_absent(log.block_size, "block_size");
    count_or_absent(log.max_model_len, "max_model_len");
    decimal_or_empty(log.available_gib, "available_kv_gib");
    decimal_or_empty(log.concurrency, "concurrency");
    std::string record = kvcat::allocation_record_text(log, "allocations/fuzz", "models/fuzz", "", "", "", "fuzz.log");
    kvcat::LoadedYaml loaded = kvcat::load_yaml("fuzz.yaml", record);
    bool hidden = false;
    for (const auto& d : loaded.diagnostics) hidden = hidden || d.rule == "yaml-encoding";
    if (hidden) return 0;
    for (const auto& d : loaded.diagnostics) {
        check(d.rule.rfind("yaml-", 0) != 0, "the written record does not read back: " + d.rule + " " + d.message);
    }
    return 0;
}
