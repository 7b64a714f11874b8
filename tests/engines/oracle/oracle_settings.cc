#include "engines/oracle/oracle_settings.h"

#include <utility>

#include <fmt/format.h>

namespace kvcat::oracle {

std::vector<Setting> oracle_settings(bool sliding, std::int64_t native_context) {
    // A context below, at and past a power of two (padding), the model's own (-c 0), and one
    // that is not a multiple of any block.
    const std::vector<std::int64_t> contexts = {0, 4096, 10000, 33000, std::min<std::int64_t>(native_context, 131072)};
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
