// ggml's graph allocator, as llama.cpp sizes its compute buffer with it.
//
// llama.cpp's "<device> compute buffer size" is the high-water mark of ggml-alloc placing every
// tensor of the reserved graph in one buffer: it walks the nodes in order, gives each new tensor
// the best-fitting free block (or the end of the buffer), lets an element-wise node take its
// parent's memory when nothing else reads the parent, and frees a tensor after its last reader.
// What is alive at once is not all that counts: a tensor that fits no hole goes past the end,
// so the order of the nodes and the holes they leave decide the buffer.
//
// This is that algorithm, step for step, over a graph described by its tensors' sizes, their
// sources and views: ggml/src/ggml-alloc.c at llama.cpp 80fb11ac73e66d89eae2c6a91d8a77428fa733ed
// (ggml_dyn_tallocr_alloc, ggml_dyn_tallocr_free_bytes, ggml_gallocr_allocate_node,
// ggml_gallocr_free_node, ggml_gallocr_alloc_graph_impl), for one buffer of one chunk, as on a
// CPU or a single card. The scheduler hands it its graph unchanged when one backend runs every
// node (ggml/src/ggml-backend.cpp, ggml_backend_sched_split_graph: no input copies, no
// graph_optimize on the CPU). The oracle (tests/engines/oracle) feeds it the graphs libllama
// builds and holds its size to the buffer libllama prints.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvcat {

/// GGML_MAX_SRC at the pinned release.
inline constexpr int kGgmlMaxSrc = 10;
/// TENSOR_ALIGNMENT (ggml/src/ggml-impl.h): the CPU buffer type's alignment.
inline constexpr std::int64_t kGgmlCpuAlignment = 32;

/// One tensor of a graph, as the allocator sees it.
struct GgmlTensor {
    std::string name;          ///< for messages only
    std::string op = "NONE";   ///< ggml_op_name: "MUL_MAT", "VIEW", ...
    std::int64_t bytes = 0;    ///< ggml_nbytes: what the buffer type allocates for it
    bool external = false;     ///< its memory is not the graph's: weights, the cache
    bool input = false;        ///< GGML_TENSOR_FLAG_INPUT: placed before any node runs
    bool output = false;       ///< GGML_TENSOR_FLAG_OUTPUT: never freed, never reused
    bool can_inplace = false;  ///< ggml_op_can_inplace(op): may take a parent's memory
    bool op_none = false;      ///< GGML_OP_NONE: a leaf, or a scheduler's dependency node
    int view_src = -1;         ///< the tensor it is a view of, or -1
    std::array<int, kGgmlMaxSrc> src{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    /// ggml_are_same_layout's terms: the type, ne and nb. Two tensors may share memory in place
    /// only when these are equal.
    int type = 0;
    std::array<std::int64_t, 4> ne{};
    std::array<std::int64_t, 4> nb{};
};

struct GgmlGraph {
    std::vector<GgmlTensor> tensors;
    std::vector<int> leafs;  ///< graph->leafs, in order
    std::vector<int> nodes;  ///< graph->nodes, in order

    int add(GgmlTensor t) {
        tensors.push_back(std::move(t));
        return static_cast<int>(tensors.size()) - 1;
    }
};

struct GgmlAllocResult {
    std::int64_t bytes = 0;  ///< the buffer: the highest end of any block placed
    std::string error;       ///< non-empty when the graph is malformed for the allocator
};

/// The buffer ggml-alloc reserves for the graph, with the buffer type's alignment.
GgmlAllocResult ggml_alloc_graph_size(const GgmlGraph& graph, std::int64_t alignment = kGgmlCpuAlignment);

}  // namespace kvcat
