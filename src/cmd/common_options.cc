#include "cmd/common_options.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "check/rule_list.h"
#include "import/skeleton.h"
#include "output/diagnostic_render.h"
#include "output/render.h"

namespace kvcat::cmd {

CLI::Validator token_count(bool zero_means_default) {
    return CLI::Validator(
        [zero_means_default](std::string& text) -> std::string {
            if (zero_means_default && text == "0") return "";
            auto tokens = parse_context(text);
            if (!tokens) return fmt::format("'{}' is not a number of tokens such as 32768, 32k or 1M", text);
            text = std::to_string(*tokens);
            return "";
        },
        "TOKENS");
}

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        std::size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!part.empty()) out.push_back(part);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

CLI::Option* add_reserve_option(CLI::App& sub, ReserveOption& reserve) {
    // Parsed once, by the check that refuses it: the option's value is the number itself, so no
    // later reader can meet text the check never saw.
    return sub
        .add_option_function<std::string>(
            "--reserve-gib", [&reserve](const std::string& text) { reserve.gib = Rational::parse(text); },
            "Memory held back on each card for the runtime, GiB (default 1; with --engine llama.cpp, what the card "
            "holds beside llama.cpp's own buffers, which kvcat otherwise takes from the card's driver; with --engine "
            "vllm, all vLLM takes beside the weights, in place of the sampler's peak kvcat derives and the 1 GiB)")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                auto value = Rational::parse(text);
                if (!value || value->is_negative()) {
                    return fmt::format("'{}' is not a number of GiB such as 1 or 0.5", text);
                }
                return "";
            },
            "GIB"));
}

CLI::Validator lower_case() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return "";
        },
        "");
}

namespace {

std::vector<std::string> strings_of(std::span<const std::string_view> names) {
    return {names.begin(), names.end()};
}

}  // namespace

CLI::Option* add_db_option(CLI::App& sub, Common& common, DbUse use) {
    const char* help = "";
    switch (use) {
        case DbUse::read:
            help = "The catalog file";
            break;
        case DbUse::write:
            help = "The catalog file to write";
            break;
    }
    return sub.add_option("--db", common.db, help)
        ->capture_default_str()
        ->check(CLI::Validator(
            [](std::string& db) -> std::string {
                std::error_code ec;
                std::filesystem::path p(db);
                if (std::filesystem::is_directory(p, ec)) {
                    return fmt::format("{} is a folder; give the catalog's file, such as --db {}", db,
                                       (p / "kvcat.db").string());
                }
                std::filesystem::path folder = p.parent_path();
                if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) {
                    return fmt::format(
                        "the folder {} does not exist; make it (mkdir -p {}) or give a --db in a folder "
                        "that exists",
                        folder.string(), folder.string());
                }
                return "";
            },
            "FILE"))
        ->each([&common](const std::string&) { common.db_given = true; });
}

CLI::Option* add_records_option(CLI::App& sub, Common& common, RecordsUse use) {
    const char* help = "";
    switch (use) {
        case RecordsUse::read:
            help = "Where the records are";
            break;
        case RecordsUse::rebuild:
            help = "Where the records are; a missing or stale catalog is rebuilt from them";
            break;
    }
    // A records folder of one's own goes with a catalog of its own here, not the installed
    // records' cached one.
    return sub.add_option("--records", common.records, help)
        ->capture_default_str()
        ->each([&common](const std::string&) {
            if (!common.db_given) common.db = default_db_path("records");
        });
}

CLI::Option* add_format_option(CLI::App& sub, Common& common, FormatFamily family) {
    switch (family) {
        case FormatFamily::table:
            common.format = "table";
            sub.add_flag("--no-formula-guard", common.no_formula_guard,
                         "CSV and TSV: write a cell that begins with = + - @ (or a tab or CR) as stored, without "
                         "the ' that keeps a spreadsheet from running it as a formula");
            return sub.add_option("--format", common.format, "Output format")
                ->check(CLI::IsMember(strings_of(table_format_names())))
                ->capture_default_str();
        case FormatFamily::document:
            common.format = "text";
            return sub.add_option("--format", common.format, "Output format: text or json")
                ->check(CLI::IsMember({"text", "json"}))
                ->capture_default_str();
        case FormatFamily::diagnostics: {
            common.format.clear();
            // The lint's findings, or with --list-rules the rule list (markdown, ids).
            std::vector<std::string> names = strings_of(diagnostic_format_names());
            for (std::string_view f : rule_list_format_names()) {
                if (std::find(names.begin(), names.end(), f) == names.end()) names.emplace_back(f);
            }
            return sub
                .add_option("--format", common.format,
                            "Output format: text, github (workflow commands), json or sarif; "
                            "default github when GITHUB_ACTIONS=true, else text. "
                            "With --list-rules: text, json, markdown or ids")
                ->check(CLI::IsMember(names));
        }
    }
    return nullptr;
}

}  // namespace kvcat::cmd
