// libllama's own compute graph, as kvcat's model of ggml's graph allocator reads one
// (engines/llamacpp/ggml_alloc.h). The oracle reserves the graph llama.cpp sizes its compute buffer
// by (llama_graph_reserve, src/llama-ext.h at the pinned commit) and copies each tensor's size,
// sources, view, flags and layout; kvcat's allocator over that copy must give the buffer libllama
// prints.
#pragma once

#include <cstdint>
#include <string>

#include "engines/llamacpp/ggml_alloc.h"
#include "llama.h"

namespace kvcat::oracle {

/// The graph sched_reserve measures first: n_tokens = min(n_ctx, n_ubatch), one sequence a
/// stream, n_outputs as the context reserves them. Empty when libllama gives no graph.
GgmlGraph reserve_graph(llama_context* ctx, std::uint32_t n_tokens, std::uint32_t n_seqs, std::uint32_t n_outputs);

/// The first place two graphs differ, node by node (operation, type, shape, strides, flags,
/// sources, views) and leaf by leaf (the graph's own leafs: its inputs); empty when none does.
/// External tensors (weights, the cache) are compared only as external.
std::string graph_difference(const GgmlGraph& ours, const GgmlGraph& theirs);

}  // namespace kvcat::oracle
