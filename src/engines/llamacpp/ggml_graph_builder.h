// A graph as ggml builds one, for ggml's allocator (engines/llamacpp/ggml_alloc.h) to size.
//
// The operations llama.cpp's graphs use, each with the shape, strides, type, sources and view
// that ggml gives its result (ggml/src/ggml.c at llama.cpp 80fb11ac73e66d89eae2c6a91d8a77428fa733ed:
// ggml_new_tensor_impl, ggml_view_impl, ggml_permute, ggml_mul_mat, ggml_get_rows, ...), and
// ggml_build_forward_expand's depth-first walk, which decides the order of the nodes and of the
// leafs (ggml_visit_parents_graph: sources first, in order; an operation-less tensor is a leaf).
// Only what the allocator reads is kept: sizes, layouts, sources, views and flags; no data.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engines/llamacpp/ggml_alloc.h"

namespace kvcat {

/// ggml_type's values for the types a compute graph and a cache hold.
enum class GgmlType : int {
    f32 = 0,
    f16 = 1,
    q4_0 = 2,
    q4_1 = 3,
    q5_0 = 6,
    q5_1 = 7,
    q8_0 = 8,
    iq4_nl = 20,
    i32 = 26,
    i64 = 27,
    bf16 = 30
};

/// ggml_type_size: the bytes of one block (one element for a plain type).
std::int64_t ggml_type_bytes(GgmlType t);
/// ggml_blck_size: the elements of one block.
std::int64_t ggml_block_elements(GgmlType t);
/// ggml_row_size: the bytes of n elements.
std::int64_t ggml_row_bytes(GgmlType t, std::int64_t n);
bool ggml_type_quantized(GgmlType t);

/// ggml_op_can_inplace (ggml/src/ggml-alloc.c): the operations whose result may take a source's memory.
bool ggml_op_can_inplace(const std::string& op);

class GgmlBuilder {
  public:
    using Ne = std::array<std::int64_t, 4>;

    /// A tensor whose memory is not the graph's: a weight or the cache.
    int external(const std::string& name, GgmlType type, Ne ne);
    /// ggml_new_tensor + ggml_set_input.
    int input(const std::string& name, GgmlType type, Ne ne);

    int get_rows(int a, int b);
    int rms_norm(int a);
    int mul(int a, int b);
    int add(int a, int b);
    int div(int a, int b);
    int mul_mat(int a, int b);
    int mul_mat_id(int as, int b, int ids);
    int reshape(int a, Ne ne);
    int view(int a, Ne ne, std::array<std::int64_t, 3> nb123, std::int64_t offset);
    int permute(int a, int axis0, int axis1, int axis2, int axis3);
    int transpose(int a);
    int cont(int a, Ne ne);
    int rope(int a, int pos, int freq);
    int set_rows(int a, int b, int c);
    int flash_attn_ext(int q, int k, int v, int mask, int sinks = -1);
    int soft_max(int a, int mask, int sinks = -1);
    int add_id(int a, int b, int ids);
    int glu(int a, int b);
    /// ggml_glu_impl with one source: gate and up as halves of it (ggml_swiglu).
    int glu_halves(int a);
    int argsort(int a);
    int sum_rows(int a);
    int clamp(int a);
    int scale(int a);
    int sigmoid(int a);  ///< ggml_unary with GGML_UNARY_OP_SIGMOID
    int repeat(int a, Ne ne);
    int silu(int a);      ///< ggml_unary with GGML_UNARY_OP_SILU
    int softplus(int a);  ///< ggml_unary with GGML_UNARY_OP_SOFTPLUS
    int l2_norm(int a);
    /// ggml_ssm_conv: the short convolution of sx ([d_conv - 1 + tokens, channels, seqs]) by c.
    int ssm_conv(int sx, int c);
    /// ggml_concat along dim.
    int concat(int a, int b, int dim);
    /// ggml_gated_delta_net with one snapshot slot: each token's output, then the final state.
    int gated_delta_net(int q, int k, int v, int g, int beta, int state);
    /// ggml_ssm_scan with one snapshot slot: Mamba-2's scan, each token's output then the final
    /// states, one f32 vector (s: [d_state, head_dim, heads, rows], x: [head_dim, heads, tokens, seqs]).
    int ssm_scan(int s, int x, int dt, int a, int b, int c, int ids);
    /// ggml_cpy: a view of b, with a's data.
    int cpy(int a, int b);
    /// ggml_scale_inplace: a view of a.
    int scale_inplace(int a);
    /// ggml_cast: a new tensor of a's shape in type, a CPY whose second source is itself.
    int cast(int a, GgmlType type);

    /// ggml_is_contiguous: its strides are those of its shape.
    bool is_contiguous(int t) const;
    void set_output(int t) { g_.tensors[static_cast<std::size_t>(t)].output = true; }
    void name(int t, const std::string& n) { g_.tensors[static_cast<std::size_t>(t)].name = n; }
    /// ggml_build_forward_expand.
    void expand(int t);

    const GgmlTensor& at(int t) const { return g_.tensors[static_cast<std::size_t>(t)]; }
    const Ne& ne(int t) const { return at(t).ne; }
    const Ne& nb(int t) const { return at(t).nb; }
    GgmlGraph take() { return std::move(g_); }

  private:
    int make(const std::string& op, GgmlType type, Ne ne, std::initializer_list<int> src, int view_of = -1);
    int same_as(const std::string& op, int a, std::initializer_list<int> src);
    /// ggml_view_tensor(of) as the result of op: of's shape and strides, a view of its memory.
    int view_of(const std::string& op, int of, std::initializer_list<int> src);
    void visit(int t);

    GgmlGraph g_;
    std::vector<bool> visited_;
};

}  // namespace kvcat
