// kvcat's model of ggml's graph allocator (engines/llamacpp/ggml_alloc) on small graphs traced by
// hand against ggml/src/ggml-alloc.c. The oracle (tests/engines/oracle/quant_oracle.cc) runs it
// over the graphs libllama itself reserves and holds it to the buffers libllama prints.
#include "engines/llamacpp/ggml_alloc.h"

#include <gtest/gtest.h>

namespace {

using kvcat::ggml_alloc_graph_size;
using kvcat::GgmlGraph;
using kvcat::GgmlTensor;

/// An f32 row of `floats` elements: its layout is its size, as the allocator compares them.
GgmlTensor row(const char* name, std::int64_t floats, bool inplace = false) {
    GgmlTensor t;
    t.name = name;
    t.bytes = floats * 4;
    t.can_inplace = inplace;
    t.ne = {floats, 1, 1, 1};
    t.nb = {4, floats * 4, floats * 4, floats * 4};
    return t;
}

int node(GgmlGraph& g, GgmlTensor t, std::initializer_list<int> srcs) {
    std::size_t i = 0;
    for (int s : srcs) t.src[i++] = s;
    int id = g.add(t);
    g.nodes.push_back(id);
    return id;
}

TEST(GgmlAlloc, AnElementWiseNodeTakesItsParentsPlaceWhenNothingElseReadsIt) {
    // x (input) -> a = mul_mat(x) -> b = add(a) -> c = mul_mat(b). b takes a's place: a, then c beside b.
    GgmlGraph g;
    GgmlTensor x = row("x", 8);
    x.input = true;
    int xi = g.add(x);
    int a = node(g, row("a", 64), {xi});
    int b = node(g, row("b", 64, true), {a});
    node(g, row("c", 64), {b});
    auto r = ggml_alloc_graph_size(g);
    EXPECT_TRUE(r.error.empty()) << r.error;
    // x 32 bytes, a (then b) 256, c 256 after it: x is freed when a has read it, but c does not
    // fit its 32 bytes.
    EXPECT_EQ(r.bytes, 32 + 256 + 256);

    // The same graph with b not element-wise: b cannot take a's place and goes after it; a is
    // freed after b reads it, and c fits a's 256 bytes exactly.
    g.tensors[static_cast<std::size_t>(b)].can_inplace = false;
    EXPECT_EQ(ggml_alloc_graph_size(g).bytes, 32 + 256 + 256);
    // With a read twice (by b and c), the in-place step is refused even for an element-wise b,
    // and a stays alive until c: x, a, b and c side by side.
    g.tensors[static_cast<std::size_t>(b)].can_inplace = true;
    g.tensors.back().src[1] = a;
    EXPECT_EQ(ggml_alloc_graph_size(g).bytes, 32 + 256 + 256 + 256);
}

TEST(GgmlAlloc, ATensorGoesToTheBestFittingHoleAndPastTheEndOnlyWhenNoneFits) {
    // p (384 bytes), s (32), q (256) and r (32) side by side; r reads p and q, which are freed,
    // leaving holes [0,384) and [416,672) (s, read at the end, sits between them).
    GgmlGraph g;
    int p = node(g, row("p", 96), {});
    int s = node(g, row("s", 8), {});
    int q = node(g, row("q", 64), {});
    int r = node(g, row("r", 8), {p, q});
    int t = node(g, row("t", 64), {r});
    int u = node(g, row("u", 96), {t});
    node(g, row("v", 200), {u, s});
    auto res = ggml_alloc_graph_size(g);
    EXPECT_TRUE(res.error.empty()) << res.error;
    // t (256) takes the tighter hole [416,672), not p's; r is freed and the end of the buffer
    // moves back to 672. u (384) fills p's hole exactly; t is freed and the end moves back to
    // 416. v (800) fits no hole before the end: [416,1216).
    EXPECT_EQ(res.bytes, 1216);
    // With t of 384 bytes, the tighter hole is too small: t takes p's hole, r's freeing merges
    // q's hole with the end (416), u goes there [416,800), t is freed to [0,384), and v (800)
    // fits no hole: [800,1600).
    GgmlTensor t96 = row("t", 96);
    t96.src[0] = r;
    g.tensors[static_cast<std::size_t>(t)] = t96;
    EXPECT_EQ(ggml_alloc_graph_size(g).bytes, 1600);
}

TEST(GgmlAlloc, AnOutputIsNeverFreedAndAViewKeepsItsSourceAlive) {
    GgmlGraph g;
    int a = node(g, row("a", 64), {});
    GgmlTensor view = row("a_view", 64);
    view.view_src = a;
    int v = node(g, view, {a});
    int b = node(g, row("b", 64), {});
    node(g, row("c", 64), {v, b});
    node(g, row("d", 64), {});
    // a is alive until c reads its view; then a and b are freed, and d takes a's place.
    EXPECT_EQ(ggml_alloc_graph_size(g).bytes, 256 * 3);
    // An output is never freed: with a marked as one, d finds only b's hole (256 bytes: it fits).
    g.tensors[static_cast<std::size_t>(a)].output = true;
    EXPECT_EQ(ggml_alloc_graph_size(g).bytes, 256 * 3);
    // With b an output too, nothing is freed before d: four tensors side by side.
    g.tensors[static_cast<std::size_t>(b)].output = true;
    EXPECT_EQ(ggml_alloc_graph_size(g).bytes, 256 * 4);
}

TEST(GgmlAlloc, ExternalTensorsTakeNoSpaceAndSizesAreAligned) {
    GgmlGraph g;
    GgmlTensor w = row("weight", 1 << 20);
    w.external = true;
    int wi = g.add(w);
    g.leafs.push_back(wi);
    node(g, row("y", 3), {wi});  // 12 bytes, aligned to 32
    node(g, row("z", 3), {});
    EXPECT_EQ(ggml_alloc_graph_size(g).bytes, 64);
    EXPECT_EQ(ggml_alloc_graph_size(g, 128).bytes, 256);
}

TEST(GgmlAlloc, AGraphThatRefersOutsideItselfIsAnErrorNotACrash) {
    GgmlGraph g;
    GgmlTensor t = row("t", 4);
    t.src[0] = 7;
    g.nodes.push_back(g.add(t));
    auto r = ggml_alloc_graph_size(g);
    EXPECT_FALSE(r.error.empty());
    EXPECT_EQ(r.bytes, 0);
}

}  // namespace
