#include "cmd/skeleton_output.h"

#include "check/record_ref.h"
#include "load/yaml_loader.h"

#include <filesystem>
#include <iostream>

#include <spdlog/spdlog.h>

#include "cmd/commands.h"
#include "cmd/write_file.h"

namespace kvcat::cmd {

namespace fs = std::filesystem;

std::optional<LintResult> load_records_for_skeleton(const std::string& records) {
    std::error_code ec;
    if (!fs::is_directory(records, ec)) {
        spdlog::error("{}: no such records folder (give --records DIR)", records);
        return std::nullopt;
    }
    return lint_paths({fs::path(records)});
}

int emit_skeleton(const LintResult& catalog, SkeletonOptions options, const std::string& out, bool force) {
    // A file written into a kv-efficiency/ folder is named by its id, so the one decides the other.
    // A folder (one that exists, or a path ending in /) takes the file named by the id.
    fs::path out_path(out);
    std::error_code ec;
    bool folder = !out.empty() && (out.ends_with('/') || fs::is_directory(out_path, ec));
    bool into_folder = !out.empty() && !folder && out_path.parent_path().filename() == "kv-efficiency";
    if (into_folder && !options.id) options.id = "kv-efficiency/" + out_path.stem().string();

    // A short name or a unique prefix stands for its record; anything else is left for the
    // skeleton to refuse with its did-you-mean.
    if (RecordRef m = resolve_record(catalog.records, options.model, RecordKind::model); m.record) {
        options.model = m.record->id;
    }
    if (options.accelerator) {
        if (RecordRef a = resolve_record(catalog.records, *options.accelerator, RecordKind::accelerator); a.record) {
            options.accelerator = a.record->id;
        }
    }
    Skeleton skeleton = make_kv_skeleton(catalog, options);
    if (!skeleton.ok()) {
        for (const auto& p : skeleton.problems) spdlog::error("{}", p);
        return ExitCode::failure;
    }
    // A record past the loader's size limit could never be linted or built: refuse it here
    // rather than write a file that every later command reports as too large.
    if (std::size_t limit = LoadLimits{}.max_bytes; skeleton.text.size() > limit) {
        spdlog::error(
            "the record would be {} bytes with {} points, past the {} bytes a record may hold; import "
            "the points in several records",
            skeleton.text.size(), options.points.size(), limit);
        return ExitCode::failure;
    }
    std::string expected_stem = skeleton.id.substr(skeleton.id.find('/') + 1);
    if (folder) out_path = out_path / (expected_stem + ".yaml");
    std::string written = out_path.string();
    if (!generated_record_is_printable(skeleton.text, out.empty() ? std::string("stdout") : written)) {
        return ExitCode::failure;
    }
    if (out.empty()) {
        std::cout << skeleton.text;
        std::cout.flush();
        return ExitCode::ok;
    }
    if (into_folder && out_path.stem().string() != expected_stem) {
        spdlog::error("--out {} would hold a record whose id is {}; name the file {}.yaml or drop --id", out,
                      skeleton.id, expected_stem);
        return ExitCode::failure;
    }
    if (!write_whole_file(out_path, skeleton.text, force)) return ExitCode::failure;
    std::string fill;
    for (const auto& k : skeleton.to_fill) fill += (fill.empty() ? "" : ", ") + k;
    spdlog::info("wrote {} ({}); write {}, then: kvcat lint {}", written, skeleton.id, fill, written);
    return ExitCode::ok;
}

}  // namespace kvcat::cmd
