// What import-config knows about each config.json key: which it reads, which it knowingly
// ignores (and why), and which it knows change the cache but does not model (and so refuses).
//
// The rule is "right or refused": a figure kvcat writes is one it can stand behind. A key in
// this table as `refused` fails the import with its reason; a key not in the table at all
// fails it too when its name says it may bear on the cache or the state (layers, heads,
// windows, chunks, SSM and conv sizes, sharing, indexers); any other unknown key is named in
// the record's notes. A test runs every config fixture and fails on a key missing here.
#pragma once

#include <span>
#include <string_view>

namespace kvcat {

enum class KeyUse {
    read,     ///< import-config reads it (it shapes the cache, the state or the record)
    ignored,  ///< known not to change the KV cache or the fixed state
    refused,  ///< known to change the cache or the state in a way kvcat does not model
};

struct ConfigKey {
    std::string_view name;
    KeyUse use;
    std::string_view why;  ///< for ignored and refused keys: what the key is
};

/// Every key the table knows, sorted by name.
std::span<const ConfigKey> config_keys();

/// The table's entry for a key, or nullptr when kvcat does not know it.
const ConfigKey* find_config_key(std::string_view name);

/// Whether an unknown key's name says it may bear on the cache or the state.
bool looks_cache_relevant(std::string_view name);

}  // namespace kvcat
