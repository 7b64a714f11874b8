// The grid of llama.cpp settings the oracle test tries on every model: contexts (with -c 0,
// the model's own), -np 1 and 4, unified or not, -ub, K and V types (mixed ones too),
// --swa-full where a model has sliding layers, flash attention on and off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kvcat::oracle {

struct Setting {
    std::int64_t context = 4096;  ///< -c; 0 is the model's own context
    std::int64_t parallel = 1;    ///< -np
    bool kv_unified = false;      ///< --kv-unified
    std::int64_t ubatch = 512;    ///< -ub
    std::string k_dtype = "f16";  ///< -ctk
    std::string v_dtype = "f16";  ///< -ctv
    bool swa_full = false;        ///< --swa-full
    bool flash_attn = true;       ///< -fa on / off
};

/// Every setting tried on a model (`sliding`: it has sliding layers; `state`: it keeps a
/// recurrent state, which llama.cpp allocates and clears at every try even with no_alloc, so
/// such a model gets 12 tries, with at most two sequences).
std::vector<Setting> oracle_settings(bool sliding, bool state, std::int64_t native_context);

/// "-c 4096 -np 4 --kv-unified -ub 512 -ctk q8_0 -ctv q8_0 -fa on", as a person would type it.
std::string describe(const Setting& s);

}  // namespace kvcat::oracle
