// Attention designs and fixed-state layer kinds as closed sets.
//
// A record names its design as text (attention_variant, linear_attention.kind,
// sliding_window.kind); the text is parsed into these enums once, when the record is
// read, and every question about a design is then a switch over the enum. With -Wswitch
// a new design is a new enumerator, and the compiler lists every place that must answer
// for it.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace kvcat {

enum class AttentionVariant { mha, gqa, mqa, mla, hybrid, sliding };

/// The kinds of layer that keep a fixed state per sequence instead of a growing cache.
enum class StateKind {
    gated_deltanet,  ///< "gated-deltanet": linear attention with a conv and a recurrent state
    mamba1,          ///< "mamba": Mamba-1, no heads; state over d_inner channels
    mamba2,          ///< "mamba2": Mamba-2, heads of d_head with groups of d_state
    short_conv,      ///< "short-conv": a gated short convolution (LFM2), conv state only
    lightning,       ///< "lightning": MiniMax's lightning attention, a heads x width x width state, no
                     ///< conv
    kda,             ///< "kda": Kimi Delta Attention, a conv over q, k and v and a heads x width x width state
};

/// How a bounded layer bounds its cache.
enum class WindowKind {
    sliding,  ///< keeps the last `window` tokens
    chunked,  ///< attends within fixed chunks of `window` tokens (Llama 4): at most one chunk
};

std::optional<AttentionVariant> parse_attention_variant(std::string_view text);
std::string_view name_of(AttentionVariant v);

std::optional<StateKind> parse_state_kind(std::string_view text);
std::string_view name_of(StateKind k);
/// "Gated DeltaNet", "Mamba-1", ... for prose.
std::string_view title_of(StateKind k);
/// The linear_attention widths a kind is described by, as the record names them: heads and
/// head widths for Gated DeltaNet and Mamba-2, an inner width for Mamba-1 and short
/// convolutions, with conv_kernel for every kind that convolves.
std::span<const std::string_view> state_kind_widths(StateKind k);

std::optional<WindowKind> parse_window_kind(std::string_view text);
std::string_view name_of(WindowKind k);
/// What a bounded layer of this kind holds at most, for prose: "the window", "one chunk".
std::string_view bound_of(WindowKind k);

}  // namespace kvcat
