// id-dtype-tag: a cache dtype that a kv-efficiency id names is the record's. An id such as
// "llamacpp-qwen3.5-27b-rtx3090-q4_k_m-f16-64k" over a run whose cache was q8_0 tells every
// reader of a table the wrong cache, and the byte figures beside it the right one. The id's
// words that are cache dtypes (fp8 for fp8_e4m3, f16 for fp16, "kq8_0" and "vf16" for K and
// V), less the one that names the weights, must include K's or V's dtype.
#include <cctype>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/records.h"
#include "vocab/dtype.h"

namespace kvcat::rules {

namespace {

/// A dtype as an id may spell it: "fp16" is f16, every fp8 is fp8; lower case.
std::string canonical_dtype(std::string_view name) {
    std::string s;
    for (char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (s == "fp16") return "f16";
    if (s == "fp32") return "f32";
    if (s.starts_with("fp8")) return "fp8";
    return s;
}

/// The cache dtype a word of an id names ("q8_0", "fp8", "kq8_0", "vf16"), or "".
std::string dtype_of_word(std::string_view word) {
    if (find_cache_dtype(word)) return canonical_dtype(word);
    if (word.size() > 1 && (word[0] == 'k' || word[0] == 'v') && find_cache_dtype(word.substr(1))) {
        return canonical_dtype(word.substr(1));
    }
    return "";
}

void id_dtype_tag(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv || r.id.empty() || r.kv->kv_cache_dtype.empty()) return;
    std::string_view name = id_name(r.id);
    std::vector<std::string> named;
    for (std::size_t start = 0; start <= name.size();) {
        std::size_t end = name.find_first_of("-@", start);
        if (end == std::string_view::npos) end = name.size();
        if (std::string d = dtype_of_word(name.substr(start, end - start)); !d.empty()) named.push_back(d);
        start = end + 1;
    }
    // One of them may be the weights' format (q8_0 weights, bf16 weights).
    if (r.kv->weight_quant) {
        auto weights = std::find(named.begin(), named.end(), canonical_dtype(*r.kv->weight_quant));
        if (weights != named.end()) named.erase(weights);
    }
    if (named.empty()) return;
    std::string k = canonical_dtype(r.kv->kv_cache_dtype);
    std::string v = r.kv->v_cache_dtype ? canonical_dtype(*r.kv->v_cache_dtype) : k;
    for (const auto& d : named) {
        if (d == k || d == v) return;
    }
    out.push_back(diag::finding(
        "id-dtype-tag", r.where("kv_cache_dtype"),
        fmt::format("the id names the cache dtype {}, but kv_cache_dtype is {}{}; rename the record (its id and file) "
                    "or correct the dtype",
                    named.front(), r.kv->kv_cache_dtype,
                    r.kv->v_cache_dtype ? fmt::format(" and v_cache_dtype {}", *r.kv->v_cache_dtype) : "")));
}

}  // namespace

KVCAT_RULES(id_dtype_tag) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"id-dtype-tag", Severity::error,
                 "a cache dtype a kv-efficiency id names is neither `kv_cache_dtype` nor `v_cache_dtype`",
                 RuleStage::record, id_dtype_tag},
    };
    return kRules;
}

}  // namespace kvcat::rules
