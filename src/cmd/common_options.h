// The options several subcommands share: --db, --records and --format. Each is added by
// one function here, so its name, help, default and allowed values are the same in every
// command that takes it; a command says only what it does with the option.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "load/data_dirs.h"
#include "support/rational.h"

namespace kvcat::cmd {

/// The values of the shared options, held in a command's options struct.
struct Common {
    /// records/ here, else the installed records (data_dirs.h); the catalog to match.
    std::string records = default_records_dir();
    std::string db = default_db_path(records);
    std::string format;             ///< the default of its format family, set by add_format_option
    bool no_formula_guard = false;  ///< table formats: CSV/TSV cells as stored (RenderOptions::formula_guard)
    bool db_given = false;          ///< --db was written
};

/// What a command does with --db.
enum class DbUse { read, write };

/// What a command does with --records: reads records, or rebuilds a stale catalog from them.
enum class RecordsUse { read, rebuild };

/// The formats a command prints in.
enum class FormatFamily {
    table,        ///< query's table formats (table, csv, json, ...); default table
    document,     ///< text or json; default text
    diagnostics,  ///< the lint's formats; no default: the environment decides
};

CLI::Option* add_db_option(CLI::App& sub, Common& common, DbUse use);
CLI::Option* add_records_option(CLI::App& sub, Common& common, RecordsUse use);
CLI::Option* add_format_option(CLI::App& sub, Common& common, FormatFamily family);

/// A number of tokens as every option that takes one reads it: 32768, 32k, 32K or 1M (1,024-based
/// k and M, as --contexts and the filters read them); anything else is refused with an example.
/// With `zero_means_default`, 0 is taken too (llama.cpp's -c 0: the model's own context).
CLI::Validator token_count(bool zero_means_default = false);
/// The non-empty parts of a comma list: "a,,b" is {"a", "b"} (--accelerator a,b, --sort k,-j).
std::vector<std::string> split_commas(const std::string& text);

/// --reserve-gib, as fit and plan read it: the memory held back on each card for the runtime.
struct ReserveOption {
    /// The GiB given, as add_reserve_option read it once its check passed; none when not given.
    std::optional<Rational> gib;
    /// Whether it was given: an engine that works out its runtime (llama.cpp) takes it only then.
    [[nodiscard]] bool given() const { return gib.has_value(); }
    /// The bytes: what was given, or 1 GiB.
    [[nodiscard]] Rational bytes() const { return gib.value_or(Rational(1)) * Rational(1LL << 30); }
};
/// Adds --reserve-gib; a value that is not a non-negative number of GiB is refused when parsed.
CLI::Option* add_reserve_option(CLI::App& sub, ReserveOption& reserve);

/// A dtype name as the catalog spells it, in lower case: Q8_0 and q8_0 are the same choice.
CLI::Validator lower_case();

}  // namespace kvcat::cmd
