#include "engines/oracle/graph_capture.h"

#include <unordered_map>

#include "ggml.h"

// src/llama-ext.h at the pinned commit: a C++ declaration, exported by libllama.
LLAMA_API struct ggml_cgraph* llama_graph_reserve(struct llama_context* ctx, uint32_t n_tokens, uint32_t n_seqs,
                                                  uint32_t n_outputs);
// ggml/src/ggml-alloc.c: exported, not in a public header.
extern "C" {
bool ggml_op_can_inplace(enum ggml_op op);
}

namespace kvcat::oracle {

namespace {

/// The head of struct ggml_cgraph (ggml/src/ggml-impl.h at the pinned commit): the public API has
/// the nodes but not the leafs, whose order the allocator follows.
struct CgraphHead {
    int size;
    int n_nodes;
    int n_leafs;
    ggml_tensor** nodes;
    ggml_tensor** grads;
    ggml_tensor** grad_accs;
    ggml_tensor** leafs;
};

class Capture {
  public:
    int id(ggml_tensor* t) {
        if (auto it = index_.find(t); it != index_.end()) return it->second;
        GgmlTensor c;
        c.name = t->name;
        c.bytes = static_cast<std::int64_t>(ggml_nbytes(t));
        c.external = t->data != nullptr || t->buffer != nullptr;
        c.input = (t->flags & GGML_TENSOR_FLAG_INPUT) != 0;
        c.output = (t->flags & GGML_TENSOR_FLAG_OUTPUT) != 0;
        c.can_inplace = ggml_op_can_inplace(t->op);
        c.op_none = t->op == GGML_OP_NONE;
        c.type = static_cast<int>(t->type);
        for (int d = 0; d < 4; ++d) {
            c.ne[static_cast<std::size_t>(d)] = t->ne[d];
            c.nb[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(t->nb[d]);
        }
        int me = graph_.add(c);
        index_[t] = me;
        if (t->view_src) graph_.tensors[static_cast<std::size_t>(me)].view_src = id(t->view_src);
        for (int s = 0; s < GGML_MAX_SRC && s < kGgmlMaxSrc; ++s) {
            if (t->src[s])
                graph_.tensors[static_cast<std::size_t>(me)].src[static_cast<std::size_t>(s)] = id(t->src[s]);
        }
        return me;
    }
    GgmlGraph graph_;

  private:
    std::unordered_map<ggml_tensor*, int> index_;
};

}  // namespace

GgmlGraph reserve_graph(llama_context* ctx, std::uint32_t n_tokens, std::uint32_t n_seqs, std::uint32_t n_outputs) {
    ggml_cgraph* gf = llama_graph_reserve(ctx, n_tokens, n_seqs, n_outputs);
    if (!gf) return {};
    const auto* head = reinterpret_cast<const CgraphHead*>(gf);
    Capture c;
    for (int i = 0; i < head->n_leafs; ++i) c.graph_.leafs.push_back(c.id(head->leafs[i]));
    for (int i = 0; i < ggml_graph_n_nodes(gf); ++i) c.graph_.nodes.push_back(c.id(ggml_graph_node(gf, i)));
    return std::move(c.graph_);
}

}  // namespace kvcat::oracle
