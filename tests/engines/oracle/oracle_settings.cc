#include "engines/oracle/oracle_settings.h"

#include <utility>

#include <fmt/format.h>

namespace kvcat::oracle {

namespace {

/// A model with a recurrent state: llama.cpp allocates and clears the state of every sequence at
/// every try (no_alloc or not), a few hundred MB for the largest, so these get fewer tries. The
/// state does not depend on the context or the cache types, the cache does not depend on the
/// state: one sequence at the model's own context, 4096 and 33000 with both type pairs, flash
/// attention off at 4096 (the refusal of a quantized V), and two sequences split and unified.
std::vector<Setting> state_settings(std::int64_t native_context) {
    std::vector<Setting> out;
    const std::int64_t own = native_context <= (std::int64_t{1} << 20) ? 0 : 131072;
    for (std::int64_t c : {own, std::int64_t{4096}, std::int64_t{33000}}) {
        out.push_back(Setting{c, 1, false, 512, "f16", "f16", false, true});
        out.push_back(Setting{c, 1, false, 512, "q8_0", "q4_0", false, true});
    }
    out.push_back(Setting{4096, 1, false, 512, "f16", "f16", false, false});
    out.push_back(Setting{4096, 1, false, 512, "q8_0", "q4_0", false, false});
    for (std::int64_t c : {4096, 33000}) {
        out.push_back(Setting{c, 2, false, 512, "f16", "f16", false, true});
        out.push_back(Setting{c, 2, true, 512, "q8_0", "q8_0", false, true});
    }
    return out;
}

}  // namespace

std::vector<Setting> oracle_settings(bool sliding, bool state, std::int64_t native_context) {
    if (state) return state_settings(native_context);
    // A context below, at and past a power of two (padding), the model's own (-c 0), and one
    // that is not a multiple of any block.
    std::vector<std::int64_t> contexts = {4096, 10000, 33000, std::min<std::int64_t>(native_context, 131072)};
    // -c 0 takes the model's own context; past 1M tokens (Llama 4 Scout's 10M) the engine's
    // bookkeeping of that many cells costs hundreds of MB a try, so such a model is not tried at 0.
    if (native_context <= (std::int64_t{1} << 20)) contexts.insert(contexts.begin(), 0);
    const std::vector<std::pair<std::string, std::string>> types = {
        {"f16", "f16"}, {"q8_0", "q8_0"}, {"q4_0", "q4_0"}, {"q8_0", "q4_0"}, {"f32", "f16"}, {"bf16", "bf16"}};
    struct Streams {
        std::int64_t parallel;
        bool unified;
    };
    const std::vector<Streams> streams = {{1, false}, {4, false}, {4, true}};
    std::vector<Setting> out;
    for (auto c : contexts) {
        for (const auto& st : streams) {
            for (const auto& [k, v] : types) {
                for (bool fa : {true, false}) {
                    for (std::int64_t ub :
                         sliding ? std::vector<std::int64_t>{512, 1024} : std::vector<std::int64_t>{512}) {
                        for (bool full : sliding ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
                            out.push_back(Setting{c, st.parallel, st.unified, ub, k, v, full, fa});
                        }
                    }
                }
            }
        }
    }
    return out;
}

std::string describe(const Setting& s) {
    std::string out = fmt::format("-c {} -np {}", s.context, s.parallel);
    if (s.kv_unified) out += " --kv-unified";
    out += fmt::format(" -ub {} -ctk {} -ctv {}", s.ubatch, s.k_dtype, s.v_dtype);
    if (s.swa_full) out += " --swa-full";
    out += s.flash_attn ? " -fa on" : " -fa off";
    return out;
}

}  // namespace kvcat::oracle
