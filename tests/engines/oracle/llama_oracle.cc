// The oracle test: kvcat's llama.cpp rules against the real llama.cpp, at the pinned release
// (cmake/llama_engine_pin.cmake). For every model record it can write as a GGUF
// (oracle_models.h), it loads that file in libllama without allocating weights and, for a
// grid of settings, creates a context and keeps the cache lines llama.cpp prints (or the
// error it refuses with); kvcat's engine model (engine_allocation, engine_log_lines: what
// `kvcat fit --engine llama.cpp` prints) must give the same lines, text for text, or refuse
// with the same reason. Prints each disagreement with the setting and both lines, then
// "N of N settings agree, M refusals agree"; exit 1 on any disagreement.
//
// Usage: kvcat_llama_oracle RECORDS_ROOT WORK_DIR LIB_DIR [--only MODEL_ID] [--kind state|attention]
//                           [--kvcat BINARY] [--plant]
//   --kind   only the models that keep a recurrent state, or only the others (two ctest entries
//            that run side by side)
//   --plant  changes one figure of kvcat's first line in every setting (one cell more), so a
//            test can see the comparison fail.
//   --kvcat BINARY  also runs `kvcat fit --engine llama.cpp ... --format json` for the middle
//            setting of each model (and the last of a model with a state) and holds the lines
//            the command prints to llama.cpp's too: the command, not only the library.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engines/engine_memory.h"
#include "engines/engine_rules.h"
#include "engines/oracle/oracle_load.h"
#include "engines/oracle/oracle_models.h"
#include "engines/oracle/oracle_settings.h"
#include "ggml-backend.h"
#include "llama.h"
#include "load/records.h"
#include "vocab/dtype.h"

namespace fs = std::filesystem;
using namespace kvcat;
using namespace kvcat::oracle;

namespace {

/// What libllama printed while one context was made.
struct Captured {
    std::vector<std::string> cache_lines;  ///< "llama_kv_cache: size = ..." and the recurrent line
    std::vector<std::string> errors;       ///< its error lines
    std::string pending;                   ///< a line still being written in pieces
};

Captured* g_capture = nullptr;
bool g_plant = false;
std::string g_kvcat;  ///< the kvcat binary, when the command is checked too
fs::path g_records;   ///< the records root it reads
fs::path g_work;

void take_line(std::string line, ggml_log_level level) {
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (!g_capture || line.empty()) return;
    bool cache = (line.rfind("llama_kv_cache: size =", 0) == 0 || line.rfind("llama_memory_recurrent: size =", 0) == 0);
    if (cache) g_capture->cache_lines.push_back(line);
    if (level == GGML_LOG_LEVEL_ERROR) g_capture->errors.push_back(line);
}

void on_log(ggml_log_level level, const char* text, void*) {
    if (!g_capture) return;
    g_capture->pending += text;
    if (!g_capture->pending.empty() && g_capture->pending.back() == '\n') {
        std::string line = std::move(g_capture->pending);
        g_capture->pending.clear();
        take_line(std::move(line), level);
    }
}

ggml_type engine_type(const std::string& name) {
    if (name == "f32") return GGML_TYPE_F32;
    if (name == "f16") return GGML_TYPE_F16;
    if (name == "bf16") return GGML_TYPE_BF16;
    if (name == "q8_0") return GGML_TYPE_Q8_0;
    if (name == "q4_0") return GGML_TYPE_Q4_0;
    if (name == "q4_1") return GGML_TYPE_Q4_1;
    if (name == "q5_0") return GGML_TYPE_Q5_0;
    if (name == "q5_1") return GGML_TYPE_Q5_1;
    if (name == "iq4_nl") return GGML_TYPE_IQ4_NL;
    throw std::runtime_error("no ggml type for " + name);
}

/// llama.cpp's answer: its cache lines, or its refusal (the first error line).
Captured engine_answer(llama_model* model, const Setting& s) {
    Captured c;
    llama_context_params p = llama_context_default_params();
    p.n_ctx = static_cast<std::uint32_t>(s.context);
    p.n_seq_max = static_cast<std::uint32_t>(s.parallel);
    p.kv_unified = s.kv_unified;
    p.n_ubatch = static_cast<std::uint32_t>(s.ubatch);
    p.n_batch = std::max<std::uint32_t>(2048, p.n_ubatch);
    p.type_k = engine_type(s.k_dtype);
    p.type_v = engine_type(s.v_dtype);
    p.swa_full = s.swa_full;
    p.flash_attn_type = s.flash_attn ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    p.n_threads = 1;
    p.n_threads_batch = 1;
    p.no_perf = true;
    g_capture = &c;
    llama_context* ctx = llama_init_from_model(model, p);
    g_capture = nullptr;
    if (ctx) {
        llama_free(ctx);
        c.errors.clear();
    } else if (c.errors.empty()) {
        c.errors.push_back("llama_init_from_model failed without an error line");
    }
    return c;
}

/// kvcat's answer for the same setting: the lines `kvcat fit --engine llama.cpp` prints, or
/// the refusal it gives.
Captured kvcat_answer(const Model& model, const Setting& s) {
    Captured c;
    EngineSettings e;
    e.context = s.context;
    e.parallel = s.parallel;
    e.kv_unified = s.kv_unified;
    e.ubatch = s.ubatch;
    e.swa_full = s.swa_full;
    e.flash_attn = s.flash_attn;
    if (s.v_dtype != s.k_dtype) e.v_dtype = s.v_dtype;
    auto dtype = find_cache_dtype(s.k_dtype);
    if (!dtype) throw std::runtime_error("kvcat has no cache dtype " + s.k_dtype);
    try {
        EngineAnswer a = engine_allocation(model, *dtype, Engine::llamacpp, e);
        c.cache_lines = engine_log_lines(a, model);
        if (g_plant && !c.cache_lines.empty()) {
            auto at = c.cache_lines[0].find(" cells");
            if (at != std::string::npos) c.cache_lines[0].insert(at, "1");
        }
    } catch (const EngineRefusal& refusal) {
        c.errors.push_back(refusal.what());
    }
    return c;
}

struct Tally {
    int commands = 0;  ///< settings answered by the kvcat command rather than the library
    int settings = 0;
    int agree = 0;
    int refusals = 0;
    int refusals_agree = 0;
};

/// True when both refuse and kvcat's reason carries llama.cpp's words.
bool same_refusal(const Captured& engine, const Captured& ours) {
    if (engine.errors.empty() || ours.errors.empty()) return false;
    for (const auto& line : engine.errors) {
        auto colon = line.find(": ");
        std::string words = colon == std::string::npos ? line : line.substr(colon + 2);
        if (ours.errors.front().find(words) != std::string::npos) return true;
    }
    return false;
}

/// A records folder of the model's file and the card's alone: all that `kvcat fit` needs for the
/// engine's lines. fit reads every record of the folder it is given (and judges the model and the
/// card), and with the whole shipped one the sanitized binary (CI's) took over a second a run,
/// when fit still linted all of it: llama_engine_oracle_state took 64 s with it and 16 s with
/// these two files.
fs::path fit_records(const std::string& id) {
    fs::path root = g_work / "fit-records";
    fs::remove_all(root);
    for (const std::string& file : {id + ".yaml", std::string("accelerators/nvidia-b200.yaml")}) {
        fs::create_directories((root / file).parent_path());
        fs::copy_file(g_records / file, root / file);
    }
    return root;
}

/// What `kvcat fit --engine llama.cpp` prints for the setting: its engine lines, or its refusal.
/// The card is the largest on record and the weights one byte, so only the engine can refuse.
Captured command_answer(const std::string& id, const Setting& s) {
    std::string cmd = fmt::format(
        "'{}' fit --records '{}' --model '{}' --accelerator nvidia-b200 --weight-bytes 1 --kv-dtype {} --v-dtype {} "
        "--engine llama.cpp --ctx-size {} --parallel {} --ubatch {} --flash-attn {}{}{} --format json",
        g_kvcat, fit_records(id).string(), id, s.k_dtype, s.v_dtype, s.context, s.parallel, s.ubatch,
        s.flash_attn ? "on" : "off", s.kv_unified ? " --kv-unified" : "", s.swa_full ? " --swa-full" : "");
    fs::path out = g_work / "fit.json";
    Captured c;
    int status = std::system((cmd + " > '" + out.string() + "' 2>/dev/null").c_str());
    std::ifstream in(out);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
        auto j = nlohmann::json::parse(text);
        if (j.contains("engine_refusal") && j["engine_refusal"].is_string()) {
            c.errors.push_back(j["engine_refusal"].get<std::string>());
        } else {
            for (const auto& line : j.at("engine").at("log_lines")) c.cache_lines.push_back(line.get<std::string>());
        }
    } catch (const std::exception& e) {
        c.errors.push_back(fmt::format("kvcat fit gave no answer (status {}): {}", status, e.what()));
    }
    return c;
}

void check_model(llama_model* engine_model, const OracleModel& which, const Model& model, Tally& t) {
    const auto settings = oracle_settings(which.sliding, which.state, model.native_context.value_or(4096));
    for (std::size_t i = 0; i < settings.size(); ++i) {
        const Setting& s = settings[i];
        Captured engine = engine_answer(engine_model, s);
        // One setting a model through the command (the middle one), and for a model with a
        // state, whose settings are few, its last (two sequences, unified) as well: each is a
        // whole kvcat run, the sanitized binary's in CI.
        bool by_command = !g_kvcat.empty() && (i == settings.size() / 2 || (which.state && i + 1 == settings.size()));
        Captured ours = by_command ? command_answer(which.id, s) : kvcat_answer(model, s);
        if (by_command) ++t.commands;
        ++t.settings;
        bool refused = !engine.errors.empty();
        if (refused) ++t.refusals;
        bool agree =
            refused ? same_refusal(engine, ours) : (ours.errors.empty() && engine.cache_lines == ours.cache_lines);
        if (agree) {
            ++t.agree;
            if (refused) ++t.refusals_agree;
            continue;
        }
        std::cout << fmt::format("DISAGREE {} {}\n    llama.cpp:{}{}\n    kvcat:{}{}\n", which.id, describe(s),
                                 joined(engine.cache_lines), joined(engine.errors), joined(ours.cache_lines),
                                 joined(ours.errors));
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: kvcat_llama_oracle RECORDS_ROOT WORK_DIR LIB_DIR [--only MODEL_ID] [--kind "
                     "state|attention] [--kvcat BINARY] [--plant]\n";
        return 2;
    }
    const fs::path records = argv[1];
    const fs::path work = argv[2];
    const std::string lib_dir = argv[3];
    std::optional<std::string> only;
    std::string kind;
    for (int i = 4; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--only" && i + 1 < argc) {
            only = argv[++i];
        } else if (arg == "--kind" && i + 1 < argc) {
            kind = argv[++i];
            if (kind != "state" && kind != "attention") {
                std::cerr << "kvcat_llama_oracle: --kind takes state or attention\n";
                return 2;
            }
        } else if (arg == "--kvcat" && i + 1 < argc) {
            // The suite's binary, unless CI hands the tests a sanitized one (tools/sanitizer-env).
            const char* chosen = std::getenv("KVCAT_TEST_BINARY");
            g_kvcat = chosen && *chosen ? chosen : argv[i + 1];
            ++i;
        } else if (arg == "--plant") {
            g_plant = true;
        } else {
            std::cerr << "kvcat_llama_oracle: unknown option " << arg << "\n";
            return 2;
        }
    }
    fs::create_directories(work);
    g_records = records;
    g_work = work;

    std::vector<Record> models = load_model_records(records);
    std::vector<Unchecked> skipped;
    auto checked = oracle_models(models, skipped);

    llama_log_set(on_log, nullptr);
    ggml_backend_load_all_from_path(lib_dir.c_str());
    llama_backend_init();

    Tally t;
    int architectures = 0;
    int models_run = 0;
    std::vector<std::string> seen;
    for (const auto& which : checked) {
        if (only && which.id != *only) continue;
        if (!kind.empty() && which.state != (kind == "state")) continue;
        const Record* r = nullptr;
        for (const auto& m : models)
            if (m.id == which.id) r = &m;
        fs::path gguf = work / (which.id.substr(which.id.find('/') + 1) + ".gguf");
        try {
            write_model_gguf(which, *r->model, gguf);
        } catch (const std::exception& e) {
            std::cout << fmt::format("DISAGREE {}: no GGUF written: {}\n", which.id, e.what());
            ++t.settings;
            continue;
        }
        ++models_run;
        llama_model_params mp = shapes_only_params();
        Captured load;
        g_capture = &load;
        llama_model* engine_model = llama_model_load_from_file(gguf.c_str(), mp);
        g_capture = nullptr;
        if (!engine_model) {
            std::cout << fmt::format("DISAGREE {}: llama.cpp does not load the GGUF written from it:{}\n", which.id,
                                     joined(load.errors));
            ++t.settings;
            continue;
        }
        if (std::find(seen.begin(), seen.end(), which.arch) == seen.end()) seen.push_back(which.arch);
        Tally before = t;
        check_model(engine_model, which, *r->model, t);
        std::cout << fmt::format("{} ({}): {} of {} settings agree\n", which.id, which.arch, t.agree - before.agree,
                                 t.settings - before.settings);
        llama_model_free(engine_model);
        fs::remove(gguf);
    }
    architectures = static_cast<int>(seen.size());
    for (const auto& s : skipped) std::cout << fmt::format("not checked: {}: {}\n", s.id, s.why);
    std::cout << fmt::format(
        "{} of {} settings agree, {} of {} refusals agree ({} model records, {} architectures, "
        "llama.cpp {}; {} settings through the kvcat command)\n",
        t.agree, t.settings, t.refusals_agree, t.refusals, models_run, architectures, KVCAT_LLAMA_RELEASE, t.commands);
    llama_backend_free();
    return t.agree == t.settings && t.settings > 0 ? 0 : 1;
}
