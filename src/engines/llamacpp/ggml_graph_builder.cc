#include "engines/llamacpp/ggml_graph_builder.h"

#include <algorithm>
#include <utility>

#include "support/rational.h"

namespace kvcat {

std::int64_t ggml_type_bytes(GgmlType t) {
    switch (t) {
        case GgmlType::f32:
        case GgmlType::i32:
            return 4;
        case GgmlType::f16:
        case GgmlType::bf16:
            return 2;
        case GgmlType::i64:
            return 8;
        case GgmlType::q4_0:
        case GgmlType::iq4_nl:
            return 18;
        case GgmlType::q4_1:
            return 20;
        case GgmlType::q5_0:
            return 22;
        case GgmlType::q5_1:
            return 24;
        case GgmlType::q8_0:
            return 34;
    }
    return 4;
}

bool ggml_type_quantized(GgmlType t) {
    return ggml_block_elements(t) > 1;
}

std::int64_t ggml_block_elements(GgmlType t) {
    switch (t) {
        case GgmlType::q4_0:
        case GgmlType::q4_1:
        case GgmlType::q5_0:
        case GgmlType::q5_1:
        case GgmlType::q8_0:
        case GgmlType::iq4_nl:
            return 32;
        default:
            return 1;
    }
}

std::int64_t ggml_row_bytes(GgmlType t, std::int64_t n) {
    return checked_mul(ggml_type_bytes(t), n / ggml_block_elements(t));
}

bool ggml_op_can_inplace(const std::string& op) {
    static const std::vector<std::string> kInplace = {"FILL",          "SCALE",     "DIAG_MASK_ZERO",
                                                      "DIAG_MASK_INF", "ADD",       "ADD_ID",
                                                      "ADD1",          "SUB",       "MUL",
                                                      "DIV",           "SQR",       "SQRT",
                                                      "LOG",           "UNARY",     "ROPE",
                                                      "ROPE_BACK",     "SILU_BACK", "RMS_NORM",
                                                      "RMS_NORM_BACK", "CLAMP",     "SOFT_MAX",
                                                      "SOFT_MAX_BACK"};
    return std::find(kInplace.begin(), kInplace.end(), op) != kInplace.end();
}

namespace {

using Ne = GgmlBuilder::Ne;

Ne contiguous(GgmlType type, const Ne& ne) {
    Ne nb{};
    nb[0] = ggml_type_bytes(type);
    nb[1] = ggml_row_bytes(type, ne[0]);
    for (std::size_t i = 2; i < 4; ++i) nb[i] = checked_mul(nb[i - 1], ne[i - 1]);
    return nb;
}

/// ggml_nbytes.
std::int64_t nbytes(const GgmlTensor& t) {
    for (std::int64_t n : t.ne) {
        if (n <= 0) return 0;
    }
    auto type = static_cast<GgmlType>(t.type);
    std::int64_t block = ggml_block_elements(type);
    std::int64_t bytes = block == 1 ? ggml_type_bytes(type) : checked_mul(t.ne[0], t.nb[0]) / block;
    for (std::size_t i = block == 1 ? 0 : 1; i < 4; ++i) bytes = checked_add(bytes, checked_mul(t.ne[i] - 1, t.nb[i]));
    return bytes;
}

}  // namespace

int GgmlBuilder::make(const std::string& op, GgmlType type, Ne ne, std::initializer_list<int> src, int view_of) {
    GgmlTensor t;
    t.op = op;
    t.type = static_cast<int>(type);
    t.ne = ne;
    t.nb = contiguous(type, ne);
    t.can_inplace = ggml_op_can_inplace(op);
    t.op_none = op == "NONE";
    std::size_t i = 0;
    for (int s : src) t.src[i++] = s;
    if (view_of >= 0) {
        // ggml_new_tensor_impl: a view of a view is a view of the first one's source.
        const GgmlTensor& v = g_.tensors[static_cast<std::size_t>(view_of)];
        t.view_src = v.view_src >= 0 ? v.view_src : view_of;
    }
    t.bytes = nbytes(t);
    int id = g_.add(std::move(t));
    visited_.push_back(false);
    return id;
}

int GgmlBuilder::same_as(const std::string& op, int a, std::initializer_list<int> src) {
    return make(op, static_cast<GgmlType>(at(a).type), ne(a), src);
}

int GgmlBuilder::external(const std::string& name, GgmlType type, Ne ne) {
    int t = make("NONE", type, ne, {});
    g_.tensors.back().external = true;
    g_.tensors.back().name = name;
    return t;
}

int GgmlBuilder::input(const std::string& name, GgmlType type, Ne ne) {
    int t = make("NONE", type, ne, {});
    g_.tensors.back().input = true;
    g_.tensors.back().name = name;
    return t;
}

int GgmlBuilder::get_rows(int a, int b) {
    GgmlType type = static_cast<GgmlType>(at(a).type) == GgmlType::i32 ? GgmlType::i32 : GgmlType::f32;
    return make("GET_ROWS", type, {ne(a)[0], ne(b)[0], ne(b)[1], ne(b)[2]}, {a, b});
}

int GgmlBuilder::rms_norm(int a) {
    return same_as("RMS_NORM", a, {a});
}
int GgmlBuilder::mul(int a, int b) {
    return same_as("MUL", a, {a, b});
}
int GgmlBuilder::add(int a, int b) {
    return same_as("ADD", a, {a, b});
}
int GgmlBuilder::div(int a, int b) {
    return same_as("DIV", a, {a, b});
}
int GgmlBuilder::rope(int a, int pos, int freq) {
    return same_as("ROPE", a, {a, pos, freq});
}
int GgmlBuilder::soft_max(int a, int mask, int sinks) {
    return same_as("SOFT_MAX", a, {a, mask, sinks});
}
int GgmlBuilder::add_id(int a, int b, int ids) {
    return same_as("ADD_ID", a, {a, b, ids});
}
int GgmlBuilder::clamp(int a) {
    return same_as("CLAMP", a, {a});
}
int GgmlBuilder::glu(int a, int b) {
    return same_as("GLU", a, {a, b});
}

int GgmlBuilder::glu_halves(int a) {
    return make("GLU", static_cast<GgmlType>(at(a).type), {ne(a)[0] / 2, ne(a)[1], ne(a)[2], ne(a)[3]}, {a});
}

int GgmlBuilder::scale(int a) {
    return same_as("SCALE", a, {a});
}

int GgmlBuilder::sigmoid(int a) {
    return same_as("UNARY", a, {a});
}

int GgmlBuilder::repeat(int a, Ne n) {
    return make("REPEAT", static_cast<GgmlType>(at(a).type), n, {a});
}

int GgmlBuilder::mul_mat(int a, int b) {
    return make("MUL_MAT", GgmlType::f32, {ne(a)[1], ne(b)[1], ne(b)[2], ne(b)[3]}, {a, b});
}

int GgmlBuilder::mul_mat_id(int as, int b, int ids) {
    return make("MUL_MAT_ID", GgmlType::f32, {ne(as)[1], ne(ids)[0], ne(b)[2], 1}, {as, b, ids});
}

int GgmlBuilder::reshape(int a, Ne n) {
    return make("RESHAPE", static_cast<GgmlType>(at(a).type), n, {a}, a);
}

int GgmlBuilder::view(int a, Ne n, std::array<std::int64_t, 3> nb123, std::int64_t /*offset*/) {
    int t = make("VIEW", static_cast<GgmlType>(at(a).type), n, {a}, a);
    GgmlTensor& v = g_.tensors.back();
    v.nb = {ggml_type_bytes(static_cast<GgmlType>(v.type)), nb123[0], nb123[1], nb123[2]};
    v.bytes = nbytes(v);
    return t;
}

int GgmlBuilder::permute(int a, int axis0, int axis1, int axis2, int axis3) {
    int t = make("PERMUTE", static_cast<GgmlType>(at(a).type), ne(a), {a}, a);
    const GgmlTensor& src = at(a);
    GgmlTensor& p = g_.tensors.back();
    const std::array<int, 4> axes{axis0, axis1, axis2, axis3};
    for (std::size_t i = 0; i < 4; ++i) {
        p.ne[static_cast<std::size_t>(axes[i])] = src.ne[i];
        p.nb[static_cast<std::size_t>(axes[i])] = src.nb[i];
    }
    p.bytes = nbytes(p);
    return t;
}

int GgmlBuilder::transpose(int a) {
    int t = make("TRANSPOSE", static_cast<GgmlType>(at(a).type), ne(a), {a}, a);
    const GgmlTensor& src = at(a);
    GgmlTensor& p = g_.tensors.back();
    p.nb = src.nb;
    std::swap(p.ne[0], p.ne[1]);
    std::swap(p.nb[0], p.nb[1]);
    p.bytes = nbytes(p);
    return t;
}

int GgmlBuilder::cont(int a, Ne n) {
    return make("CONT", static_cast<GgmlType>(at(a).type), n, {a});
}

int GgmlBuilder::view_of(const std::string& op, int of, std::initializer_list<int> src) {
    int t = make(op, static_cast<GgmlType>(at(of).type), ne(of), src, of);
    g_.tensors.back().nb = at(of).nb;
    g_.tensors.back().bytes = nbytes(g_.tensors.back());
    return t;
}

int GgmlBuilder::set_rows(int a, int b, int c) {
    // ggml_set_rows: a view of the destination, with the sources in ggml's (legacy) order.
    return view_of("SET_ROWS", a, {b, c, a});
}

int GgmlBuilder::cpy(int a, int b) {
    return view_of("CPY", b, {a, b});
}

int GgmlBuilder::cast(int a, GgmlType type) {
    int t = make("CPY", type, ne(a), {a});
    g_.tensors.back().src[1] = t;
    return t;
}

int GgmlBuilder::scale_inplace(int a) {
    return view_of("SCALE", a, {a});
}

int GgmlBuilder::silu(int a) {
    return same_as("UNARY", a, {a});
}

int GgmlBuilder::softplus(int a) {
    return same_as("UNARY", a, {a});
}

int GgmlBuilder::l2_norm(int a) {
    return same_as("L2_NORM", a, {a});
}

int GgmlBuilder::ssm_conv(int sx, int c) {
    return make("SSM_CONV", GgmlType::f32, {ne(c)[1], ne(sx)[0] - ne(c)[0] + 1, ne(sx)[2], 1}, {sx, c});
}

int GgmlBuilder::concat(int a, int b, int dim) {
    Ne n = ne(a);
    n[static_cast<std::size_t>(dim)] += ne(b)[static_cast<std::size_t>(dim)];
    return make("CONCAT", static_cast<GgmlType>(at(a).type), n, {a, b});
}

int GgmlBuilder::gated_delta_net(int q, int k, int v, int g, int beta, int state) {
    // [S_v x H, tokens x seqs + K x S_v x seqs] with K = 1 (ggml_gated_delta_net).
    const Ne& vn = ne(v);
    std::int64_t rows = checked_add(checked_mul(vn[2], vn[3]), checked_mul(vn[0], vn[3]));
    return make("GATED_DELTA_NET", GgmlType::f32, {checked_mul(vn[0], vn[1]), rows, 1, 1}, {q, k, v, g, beta, state});
}

int GgmlBuilder::ssm_scan(int s, int x, int dt, int a, int b, int c, int ids) {
    const Ne& xn = ne(x);
    const Ne& sn = ne(s);
    std::int64_t elements = checked_mul(checked_mul(xn[0], xn[1]), checked_mul(xn[2], xn[3]));
    std::int64_t states = checked_mul(checked_mul(sn[0], sn[1]), checked_mul(sn[2], ne(ids)[0]));
    return make("SSM_SCAN", GgmlType::f32, {checked_add(elements, states), 1, 1, 1}, {s, x, dt, a, b, c, ids});
}

int GgmlBuilder::flash_attn_ext(int q, int k, int v, int mask, int sinks) {
    return make("FLASH_ATTN_EXT", GgmlType::f32, {ne(v)[0], ne(q)[2], ne(q)[1], ne(q)[3]}, {q, k, v, mask, sinks});
}

int GgmlBuilder::argsort(int a) {
    return make("ARGSORT", GgmlType::i32, ne(a), {a});
}

int GgmlBuilder::sum_rows(int a) {
    return make("SUM_ROWS", static_cast<GgmlType>(at(a).type), {1, ne(a)[1], ne(a)[2], ne(a)[3]}, {a});
}

void GgmlBuilder::expand(int t) {
    visit(t);
}

bool GgmlBuilder::is_contiguous(int t) const {
    return at(t).nb == contiguous(static_cast<GgmlType>(at(t).type), at(t).ne);
}

void GgmlBuilder::visit(int t) {
    if (visited_[static_cast<std::size_t>(t)]) return;
    visited_[static_cast<std::size_t>(t)] = true;
    for (int s : at(t).src) {
        if (s >= 0) visit(s);
    }
    (at(t).op_none ? g_.leafs : g_.nodes).push_back(t);
}

}  // namespace kvcat
