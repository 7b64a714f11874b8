// Where kvcat looks for records and its catalog when it is not run in a checkout.
//
// In a checkout, records/ and kvcat.db in the current folder, as always. Elsewhere (kvcat
// installed from the .deb and run from any folder) the records are those installed with the
// program: $KVCAT_RECORDS when set, else PREFIX/share/kvcat/records beside the binary
// (/usr/share/kvcat/records for the package), and the catalog built from them is kept in
// $KVCAT_DB when set, else $XDG_CACHE_HOME/kvcat/kvcat.db (~/.cache/kvcat/kvcat.db).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kvcat {

/// The records kvcat reads when --records is not given: "records" when that folder exists
/// here or nothing else is found, else the installed records.
std::string default_records_dir();

/// The catalog for `records` when --db is not given: "kvcat.db" for a checkout's records,
/// else the per-user cache file (its folder is made when missing).
std::string default_db_path(const std::string& records);

/// The records installed with the program ($KVCAT_RECORDS, else PREFIX/share/kvcat/records
/// beside the binary), when that folder exists.
std::optional<std::filesystem::path> installed_records();

/// What to do when there are no records here: a sentence for an error message.
std::string no_records_advice(const std::string& records);

}  // namespace kvcat
