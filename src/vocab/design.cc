#include "vocab/design.h"

#include <array>
#include <utility>

namespace kvcat {

namespace {

template <typename E, std::size_t N>
std::optional<E> parse_from(std::string_view text, const std::array<E, N>& all) {
    for (E e : all) {
        if (name_of(e) == text) return e;
    }
    return std::nullopt;
}

constexpr std::array kVariants = {AttentionVariant::mha, AttentionVariant::gqa,    AttentionVariant::mqa,
                                  AttentionVariant::mla, AttentionVariant::hybrid, AttentionVariant::sliding};
constexpr std::array kStateKinds = {StateKind::gated_deltanet, StateKind::mamba1,    StateKind::mamba2,
                                    StateKind::short_conv,     StateKind::lightning, StateKind::kda};

constexpr std::array<std::string_view, 5> kHeadWidths = {"key_heads", "value_heads", "key_head_dim", "value_head_dim",
                                                         "conv_kernel"};
constexpr std::array<std::string_view, 3> kMamba1Widths = {"inner_dim", "state_dim", "conv_kernel"};
constexpr std::array<std::string_view, 2> kConvWidths = {"inner_dim", "conv_kernel"};
constexpr std::array<std::string_view, 2> kLightningWidths = {"value_heads", "value_head_dim"};
constexpr std::array kWindowKinds = {WindowKind::sliding, WindowKind::chunked};

}  // namespace

std::optional<AttentionVariant> parse_attention_variant(std::string_view text) {
    return parse_from(text, kVariants);
}

std::string_view name_of(AttentionVariant v) {
    switch (v) {
        case AttentionVariant::mha:
            return "mha";
        case AttentionVariant::gqa:
            return "gqa";
        case AttentionVariant::mqa:
            return "mqa";
        case AttentionVariant::mla:
            return "mla";
        case AttentionVariant::hybrid:
            return "hybrid";
        case AttentionVariant::sliding:
            return "sliding";
    }
    return "";
}

std::optional<StateKind> parse_state_kind(std::string_view text) {
    return parse_from(text, kStateKinds);
}

std::string_view name_of(StateKind k) {
    switch (k) {
        case StateKind::gated_deltanet:
            return "gated-deltanet";
        case StateKind::mamba1:
            return "mamba";
        case StateKind::mamba2:
            return "mamba2";
        case StateKind::short_conv:
            return "short-conv";
        case StateKind::lightning:
            return "lightning";
        case StateKind::kda:
            return "kda";
    }
    return "";
}

std::string_view title_of(StateKind k) {
    switch (k) {
        case StateKind::gated_deltanet:
            return "Gated DeltaNet";
        case StateKind::mamba1:
            return "Mamba-1";
        case StateKind::mamba2:
            return "Mamba-2";
        case StateKind::short_conv:
            return "short-convolution";
        case StateKind::lightning:
            return "lightning-attention";
        case StateKind::kda:
            return "Kimi Delta Attention";
    }
    return "";
}

std::span<const std::string_view> state_kind_widths(StateKind k) {
    switch (k) {
        case StateKind::gated_deltanet:
        case StateKind::mamba2:
        case StateKind::kda:
            return kHeadWidths;
        case StateKind::mamba1:
            return kMamba1Widths;
        case StateKind::short_conv:
            return kConvWidths;
        case StateKind::lightning:
            return kLightningWidths;
    }
    return {};
}

std::optional<WindowKind> parse_window_kind(std::string_view text) {
    return parse_from(text, kWindowKinds);
}

std::string_view name_of(WindowKind k) {
    switch (k) {
        case WindowKind::sliding:
            return "sliding";
        case WindowKind::chunked:
            return "chunked";
    }
    return "";
}

std::string_view bound_of(WindowKind k) {
    switch (k) {
        case WindowKind::sliding:
            return "the window";
        case WindowKind::chunked:
            return "one chunk";
    }
    return "";
}

}  // namespace kvcat
