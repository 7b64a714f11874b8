#include <algorithm>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/load_findings.h"
#include "model/kv_math.h"
#include "vocab/dtype.h"

namespace kvcat::rules {

void kv_dtype_bytes(const Record& r, const RecordSet& /*set*/, std::vector<Diagnostic>& out) {
    if (!r.kv || !r.kv->basis.bytes_per_element) return;
    auto dtype = find_cache_dtype(r.kv->kv_cache_dtype);
    if (!dtype) return;  // the schema reports an unknown dtype
    auto value = r.kv->v_cache_dtype ? find_cache_dtype(*r.kv->v_cache_dtype) : dtype;
    if (!value) return;
    Rational expected = *element_bytes(dtype->name, std::string(value->name));
    Rational stated = *r.kv->basis.bytes_per_element;
    if (stated == expected) return;
    std::string expected_text = expected.to_display();
    std::string note;
    std::string named(dtype->name);
    if (value->name != dtype->name) {
        // K and V at different types: the basis carries their mean, so x 2 (K and V) is exact.
        named = fmt::format("K at {} and V at {}", dtype->name, value->name);
        expected_text = fmt::format("({} + {}) / 2 = {}", dtype->bytes_per_element().to_display(),
                                    value->bytes_per_element().to_display(), expected.to_display());
        note = " on average, which is what multiplies the 2 (K and V) of the basis";
    } else if (dtype->block_values > 1) {
        expected_text = fmt::format("{}/{} = {}", dtype->block_bytes, dtype->block_values, expected.to_display());
        note = fmt::format(" (a block of {} values and its scale takes {} bytes)", dtype->block_values,
                           dtype->block_bytes);
    }
    out.push_back(diag::dtype_bytes(r.where("kv_bytes_basis.bytes_per_element"), named, stated.to_display(),
                                    expected_text, note));
}

/// The catalog works out each point's cache at its context and the row's fixed state; a point
/// whose figure passes 2^63 would be left out of it. Such a point is an arith-overflow finding
/// here, whatever other rule could have met it (the memory and roofline rules need a card).
void cache_at_context_fits(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    const Model* model = model_of(set, *r.kv);
    if (!model || !r.kv->basis.bytes_per_element) return;
    try {
        fixed_state_bytes(*model, *r.kv);
    } catch (const OverflowError&) {
        out.push_back(diag::overflow(r.where("model"), "the fixed state of this row's model"));
        return;
    }
    for (const auto& point : r.kv->points) {
        try {
            kv_bytes_at_context(*model, *r.kv->kv_bytes_per_token, point.context_length,
                                *r.kv->basis.bytes_per_element);
        } catch (const OverflowError&) {
            out.push_back(diag::overflow(
                r.where(point.key("context_length")),
                fmt::format("the cache at this context ({} tokens)", group_thousands(point.context_length))));
        }
    }
}

void kv_basis_product(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.kv || !r.kv->kv_bytes_per_token) return;
    cache_at_context_fits(r, set, out);
    const KvBasis& b = r.kv->basis;
    std::optional<Rational> product;
    try {
        product = basis_product(b);
    } catch (const OverflowError&) {
        out.push_back(
            diag::overflow(r.where("kv_bytes_basis"), fmt::format("the basis product {}", basis_expression(b))));
        return;
    }
    if (!product) return;  // a missing factor is a schema finding
    if (*product != *r.kv->kv_bytes_per_token) {
        out.push_back(diag::basis_product(r.where("kv_bytes_per_token"), basis_expression(b), product->to_display(),
                                          r.kv->kv_bytes_per_token->to_display()));
    }
}

void kv_basis_model(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    const Model* model = model_of(set, *r.kv);
    if (!model) return;
    // A row's state dtypes replace its model's; a model with no fixed state has none to replace.
    if (!model->linear) {
        for (const auto& [key, value] :
             {std::pair{"state_dtype", &r.kv->state_dtype}, std::pair{"conv_state_dtype", &r.kv->conv_state_dtype}}) {
            if (*value) out.push_back(diag::state_dtype_without_state(r.where(key), key, r.kv->model));
        }
    }
    std::optional<ModelBasis> mb;
    try {
        mb = model_basis(*model);
    } catch (const OverflowError&) {
        return;
    }
    if (!mb) return;
    const KvBasis& b = r.kv->basis;
    const std::string& model_id = r.kv->model;
    auto compare = [&](const char* factor, std::optional<std::int64_t> stated, std::optional<std::int64_t> expected,
                       const std::string& why) {
        if (!expected && !stated) return;
        std::string stated_text = stated ? std::to_string(*stated) : "absent";
        std::string expected_text = expected ? std::to_string(*expected) : "absent";
        if (stated != expected) {
            std::string path = fmt::format("kv_bytes_basis.{}", factor);
            out.push_back(diag::basis_model(stated ? r.where(path) : r.where("kv_bytes_basis"), factor, stated_text,
                                            expected_text, model_id, why));
        }
    };
    compare("layers", b.layers, mb->layers, fmt::format("the layers that grow a KV cache: {}", mb->layers_how));
    compare("indexer_bytes", b.indexer_bytes, mb->indexer_bytes,
            "its indexer's key cache per token and layer: head_dim keys in cache_dtype plus one scale per "
            "quant_block");
    compare("window", b.window, mb->window,
            mb->window ? "no layer of it grows: every caching layer stops at this window"
                       : "some of its layers grow without bound, so the basis has no window");
    if (!mb->groups.empty() || !b.groups.empty()) {
        if (mb->groups != b.groups) {
            auto text = [](const std::vector<KvGroup>& groups) {
                std::string joined;
                for (const auto& g : groups) {
                    if (!joined.empty()) joined += " + ";
                    joined += fmt::format("{} x {} x {}", g.layers, g.kv_heads, g.head_dim);
                }
                return joined.empty() ? std::string("absent") : joined;
            };
            out.push_back(diag::basis_model(r.where(b.groups.empty() ? "kv_bytes_basis" : "kv_bytes_basis.groups"),
                                            "groups", text(b.groups), text(mb->groups), model_id,
                                            "its kv_groups: layers x kv_heads x head_dim of each shape"));
        }
        compare("kv_factor", b.kv_factor, 2, "K and V are cached separately");
    } else if (mb->latent_dim) {
        compare("latent_dim", b.latent_dim, mb->latent_dim, "kv_lora_rank + qk_rope_head_dim of its MLA latent");
        compare("kv_heads", b.kv_heads, std::nullopt, "an MLA latent has no separate KV heads");
        compare("head_dim", b.head_dim, std::nullopt, "an MLA latent has no separate head_dim");
        compare("kv_factor", b.kv_factor, 1, "an MLA latent is cached once, not as K and V");
    } else {
        compare("kv_heads", b.kv_heads, mb->kv_heads, "its num_key_value_heads");
        compare("head_dim", b.head_dim, mb->head_dim, "its head_dim");
        compare("v_head_dim", b.v_head_dim, mb->v_head_dim, "its V width, which differs from K's");
        compare("latent_dim", b.latent_dim, std::nullopt, "only an MLA model caches a latent");
        compare("kv_factor", b.kv_factor, 2, "K and V are cached separately");
    }
}

void attention_variant_mismatch(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.kv || r.kv->attention_variant.empty()) return;
    const Model* model = model_of(set, *r.kv);
    if (!model || model->attention_variant.empty()) return;
    auto variants = attention_variants();
    if (std::find(variants.begin(), variants.end(), r.kv->attention_variant) == variants.end()) {
        return;  // not a variant at all: schema-enum already says so
    }
    if (model->attention_variant != r.kv->attention_variant) {
        out.push_back(diag::variant_mismatch(r.where("attention_variant"), r.kv->attention_variant,
                                             model->attention_variant, r.kv->model));
    }
}

void context_above_native(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.kv || r.kv->context_extension) return;
    const Model* model = model_of(set, *r.kv);
    if (!model || !model->native_context) return;
    for (const auto& point : r.kv->points) {
        if (point.context_length > *model->native_context) {
            out.push_back(diag::context_above_native(r.where(point.key("context_length")),
                                                     group_thousands(point.context_length),
                                                     group_thousands(*model->native_context), r.kv->model));
        }
    }
}

KVCAT_RULES(kv_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"kv-dtype-bytes", Severity::error,
                 "`bytes_per_element` disagrees with `kv_cache_dtype` (q8_0 is 34/32, not 1)", RuleStage::record,
                 kv_dtype_bytes},
        RuleInfo{"kv-basis-product", Severity::error, "the basis factors do not multiply to `kv_bytes_per_token`",
                 RuleStage::record, kv_basis_product},
        RuleInfo{"kv-basis-model", Severity::error, "a basis factor disagrees with the model record", RuleStage::record,
                 kv_basis_model},
        RuleInfo{"attention-variant-mismatch", Severity::error, "`attention_variant` disagrees with the model",
                 RuleStage::record, attention_variant_mismatch},
        RuleInfo{"context-above-native", Severity::warning,
                 "`context_length` above the native context without `context_extension`", RuleStage::record,
                 context_above_native},
    };
    return kRules;
}

}  // namespace kvcat::rules
