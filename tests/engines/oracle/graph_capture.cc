#include "engines/oracle/graph_capture.h"

#include <map>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

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
        c.op = ggml_op_name(t->op);
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

namespace {

/// Each non-external tensor's place: "node N" or "leaf N".
std::map<int, std::string> places(const GgmlGraph& g) {
    std::map<int, std::string> at;
    int leaf = 0;
    for (int l : g.leafs) {
        if (!g.tensors[static_cast<std::size_t>(l)].external) at[l] = fmt::format("leaf {}", leaf++);
    }
    for (std::size_t i = 0; i < g.nodes.size(); ++i) at[g.nodes[i]] = fmt::format("node {}", i);
    return at;
}

std::string place(const GgmlGraph& g, const std::map<int, std::string>& at, int t) {
    if (t < 0) return "none";
    // A view of an external tensor is external too: ggml gives it that tensor's memory (at once
    // where that tensor has its data, as the recurrent states have here, or when the graph is
    // allocated, as the shapes-only cache), and ggml-alloc places no bytes for a view.
    const GgmlTensor& x = g.tensors[static_cast<std::size_t>(t)];
    if (x.external || (x.view_src >= 0 && g.tensors[static_cast<std::size_t>(x.view_src)].external)) {
        return "external";
    }
    auto it = at.find(t);
    return it == at.end() ? "not in the graph" : it->second;
}

std::string describe(const GgmlTensor& t) {
    return fmt::format("{} {} type {} ne [{}, {}, {}, {}] nb [{}, {}, {}, {}]{}{}", t.op, t.name, t.type, t.ne[0],
                       t.ne[1], t.ne[2], t.ne[3], t.nb[0], t.nb[1], t.nb[2], t.nb[3], t.input ? " input" : "",
                       t.output ? " output" : "");
}

bool same(const GgmlTensor& a, const GgmlTensor& b) {
    return a.op == b.op && a.type == b.type && a.ne == b.ne && a.nb == b.nb && a.input == b.input &&
           a.output == b.output && a.bytes == b.bytes && a.can_inplace == b.can_inplace;
}

std::vector<int> own_leafs(const GgmlGraph& g) {
    std::vector<int> out;
    for (int l : g.leafs) {
        if (!g.tensors[static_cast<std::size_t>(l)].external) out.push_back(l);
    }
    return out;
}

}  // namespace

std::string graph_difference(const GgmlGraph& ours, const GgmlGraph& theirs) {
    auto ol = own_leafs(ours), tl = own_leafs(theirs);
    for (std::size_t i = 0; i < std::min(ol.size(), tl.size()); ++i) {
        const GgmlTensor& a = ours.tensors[static_cast<std::size_t>(ol[i])];
        const GgmlTensor& b = theirs.tensors[static_cast<std::size_t>(tl[i])];
        if (!same(a, b)) {
            std::string all;
            for (std::size_t j = 0; j < tl.size(); ++j) {
                all += fmt::format("; llama.cpp's leaf {}: {}", j,
                                   describe(theirs.tensors[static_cast<std::size_t>(tl[j])]));
            }
            return fmt::format("leaf {}: kvcat {}, llama.cpp {}{}", i, describe(a), describe(b), all);
        }
    }
    if (ol.size() != tl.size()) return fmt::format("kvcat has {} leafs of its own, llama.cpp {}", ol.size(), tl.size());
    auto oat = places(ours), tat = places(theirs);
    for (std::size_t i = 0; i < std::min(ours.nodes.size(), theirs.nodes.size()); ++i) {
        const GgmlTensor& a = ours.tensors[static_cast<std::size_t>(ours.nodes[i])];
        const GgmlTensor& b = theirs.tensors[static_cast<std::size_t>(theirs.nodes[i])];
        std::string why;
        if (!same(a, b)) why = "differs";
        if (why.empty() && place(ours, oat, a.view_src) != place(theirs, tat, b.view_src)) {
            why = fmt::format("views {} where llama.cpp's views {}", place(ours, oat, a.view_src),
                              place(theirs, tat, b.view_src));
        }
        for (std::size_t s = 0; why.empty() && s < a.src.size(); ++s) {
            if (place(ours, oat, a.src[s]) != place(theirs, tat, b.src[s])) {
                why = fmt::format("source {} is {} where llama.cpp's is {}", s, place(ours, oat, a.src[s]),
                                  place(theirs, tat, b.src[s]));
            }
        }
        if (!why.empty()) return fmt::format("node {} {}: kvcat {}, llama.cpp {}", i, why, describe(a), describe(b));
    }
    if (ours.nodes.size() != theirs.nodes.size()) {
        return fmt::format("kvcat has {} nodes, llama.cpp {}", ours.nodes.size(), theirs.nodes.size());
    }
    return "";
}

}  // namespace kvcat::oracle
