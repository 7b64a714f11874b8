#include "engines/llamacpp/ggml_alloc.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace kvcat {

namespace {

/// ggml_dyn_tallocr with one chunk: free blocks sorted by offset, the last one the open end.
class DynAllocator {
  public:
    explicit DynAllocator(std::int64_t alignment) : alignment_(alignment) {}

    std::int64_t aligned(std::int64_t size) const { return (size + alignment_ - 1) / alignment_ * alignment_; }

    /// ggml_dyn_tallocr_alloc: the best fit among the blocks before the last (the last of equal
    /// ones), else the last block, which grows the buffer.
    std::int64_t alloc(std::int64_t size) {
        size = aligned(size);
        if (blocks_.empty()) blocks_.push_back({0, kOpenEnd});  // ggml_dyn_tallocr_new_chunk
        int best = -1;
        std::int64_t best_size = std::numeric_limits<std::int64_t>::max();
        for (int i = 0; i + 1 < static_cast<int>(blocks_.size()); ++i) {
            if (blocks_[i].size >= size && blocks_[i].size <= best_size) {
                best = i;
                best_size = blocks_[i].size;
            }
        }
        if (best == -1) best = static_cast<int>(blocks_.size()) - 1;
        Block& b = blocks_[best];
        std::int64_t at = b.offset;
        b.offset += size;
        b.size -= size;
        if (b.size == 0) blocks_.erase(blocks_.begin() + best);
        max_size_ = std::max(max_size_, at + size);
        return at;
    }

    /// ggml_dyn_tallocr_free_bytes: merge with the block it ends or starts, else a new block.
    void free_bytes(std::int64_t offset, std::int64_t size) {
        size = aligned(size);
        for (std::size_t i = 0; i < blocks_.size(); ++i) {
            Block& b = blocks_[i];
            if (b.offset + b.size == offset) {
                b.size += size;
                if (i + 1 < blocks_.size() && b.offset + b.size == blocks_[i + 1].offset) {
                    b.size += blocks_[i + 1].size;
                    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
                }
                return;
            }
            if (offset + size == b.offset) {
                b.offset = offset;
                b.size += size;
                if (i > 0 && blocks_[i - 1].offset + blocks_[i - 1].size == b.offset) {
                    blocks_[i - 1].size += b.size;
                    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
                }
                return;
            }
        }
        auto at = std::find_if(blocks_.begin(), blocks_.end(), [&](const Block& b) { return b.offset >= offset; });
        blocks_.insert(at, {offset, size});
    }

    std::int64_t max_size() const { return max_size_; }
    std::size_t free_blocks() const { return blocks_.size(); }

  private:
    struct Block {
        std::int64_t offset;
        std::int64_t size;
    };
    /// The first chunk's block: SIZE_MAX / 2 in ggml, any size beyond a real buffer here.
    static constexpr std::int64_t kOpenEnd = std::numeric_limits<std::int64_t>::max() / 4;
    std::int64_t alignment_;
    std::vector<Block> blocks_;
    std::int64_t max_size_ = 0;
};

/// MAX_FREE_BLOCKS: ggml asserts when a chunk holds more.
constexpr std::size_t kMaxFreeBlocks = 256;

/// ggml_gallocr's hash_node.
struct Slot {
    int n_children = 0;
    int n_views = 0;
    bool allocated = false;
    std::int64_t offset = 0;
};

bool same_layout(const GgmlTensor& a, const GgmlTensor& b) {
    return a.type == b.type && a.ne == b.ne && a.nb == b.nb;
}

class GraphAllocator {
  public:
    GraphAllocator(const GgmlGraph& g, std::int64_t alignment) : g_(g), dyn_(alignment), slots_(g.tensors.size()) {}

    bool is_allocated(int t) const { return g_.tensors[t].external || slots_[t].allocated; }

    /// ggml_gallocr_allocate_node.
    void allocate(int t) {
        const GgmlTensor& node = g_.tensors[t];
        if (is_allocated(t) || node.view_src >= 0) return;
        Slot& hn = slots_[t];
        hn.allocated = true;
        if (node.can_inplace && reuse_a_parent(t)) return;
        hn.offset = dyn_.alloc(node.bytes);
        check_blocks();
    }

    /// ggml_gallocr_free_node.
    void free(int t) {
        if (g_.tensors[t].output) return;
        dyn_.free_bytes(slots_[t].offset, g_.tensors[t].bytes);
        slots_[t].allocated = false;
        check_blocks();
    }

    /// ggml_gallocr_alloc_graph_impl.
    void run() {
        for (int leaf : g_.leafs) allocate(leaf);
        for (int n : g_.nodes) {
            const GgmlTensor& node = g_.tensors[n];
            if (node.view_src >= 0 && !node.op_none) slots_[node.view_src].n_views += 1;
            if (node.input) allocate(n);
            for (int s : node.src) {
                if (s < 0) continue;
                slots_[s].n_children += 1;
                if (g_.tensors[s].input) allocate(s);
            }
        }
        for (int n : g_.nodes) {
            const GgmlTensor& node = g_.tensors[n];
            for (int s : node.src) {
                if (s >= 0) allocate(s);
            }
            allocate(n);
            for (int s : node.src) {
                if (s >= 0) release_parent(s);
            }
        }
    }

    std::int64_t max_size() const { return dyn_.max_size(); }
    const std::string& error() const { return error_; }

  private:
    /// The in-place branch of ggml_gallocr_allocate_node: the first parent this node may take over.
    bool reuse_a_parent(int t) {
        const GgmlTensor& node = g_.tensors[t];
        for (int p : node.src) {
            if (p < 0) continue;
            const GgmlTensor& parent = g_.tensors[p];
            if (!slots_[p].allocated) continue;  // not the allocator's own: external or not placed
            if (parent.output || (parent.view_src >= 0 && g_.tensors[parent.view_src].output)) continue;
            if (!same_layout(node, parent)) continue;
            Slot& ph = slots_[p];
            if (ph.n_children != 1 || ph.n_views != 0) continue;
            if (parent.view_src >= 0) {
                // Unreachable in a reserve (a view is never the allocator's own), kept as ggml has it.
                Slot& vh = slots_[parent.view_src];
                if (vh.n_views != 1 || vh.n_children != 0) continue;
                slots_[t].offset = ph.offset;
                ph.allocated = false;
                vh.allocated = false;
                free_extra(t, parent.view_src);
                return true;
            }
            slots_[t].offset = ph.offset;
            ph.allocated = false;
            free_extra(t, p);
            return true;
        }
        return false;
    }

    /// ggml_gallocr_free_extra_space: a smaller node gives back the end of its parent's block.
    void free_extra(int node, int parent) {
        std::int64_t parent_size = dyn_.aligned(g_.tensors[parent].bytes);
        std::int64_t node_size = dyn_.aligned(g_.tensors[node].bytes);
        if (parent_size < node_size) {
            error_ = fmt::format("{} takes the place of {}, which is smaller", g_.tensors[node].name,
                                 g_.tensors[parent].name);
            return;
        }
        if (parent_size > node_size) dyn_.free_bytes(slots_[parent].offset + node_size, parent_size - node_size);
    }

    /// The "update parents" step: a parent read for the last time is freed (a view frees its source).
    void release_parent(int p) {
        Slot& ph = slots_[p];
        ph.n_children -= 1;
        if (ph.n_children != 0 || ph.n_views != 0) return;
        const GgmlTensor& parent = g_.tensors[p];
        if (parent.view_src >= 0) {
            Slot& vh = slots_[parent.view_src];
            vh.n_views -= 1;
            if (vh.n_views == 0 && vh.n_children == 0 && vh.allocated) free(parent.view_src);
        } else if (ph.allocated) {
            free(p);
        }
    }

    void check_blocks() {
        if (dyn_.free_blocks() > kMaxFreeBlocks && error_.empty()) {
            error_ = fmt::format("more than {} free blocks: ggml would abort", kMaxFreeBlocks);
        }
    }

    const GgmlGraph& g_;
    DynAllocator dyn_;
    std::vector<Slot> slots_;
    std::string error_;
};

}  // namespace

GgmlAllocResult ggml_alloc_graph_size(const GgmlGraph& graph, std::int64_t alignment) {
    GgmlAllocResult r;
    int n = static_cast<int>(graph.tensors.size());
    auto bad = [&](int t) { return t < -1 || t >= n; };
    for (const GgmlTensor& t : graph.tensors) {
        if (t.bytes < 0 || bad(t.view_src) || std::any_of(t.src.begin(), t.src.end(), bad)) {
            r.error = fmt::format("tensor {} refers outside the graph or has a negative size", t.name);
            return r;
        }
    }
    if (std::any_of(graph.leafs.begin(), graph.leafs.end(), [&](int t) { return t < 0 || t >= n; }) ||
        std::any_of(graph.nodes.begin(), graph.nodes.end(), [&](int t) { return t < 0 || t >= n; })) {
        r.error = "a leaf or node refers outside the graph";
        return r;
    }
    GraphAllocator a(graph, alignment);
    a.run();
    r.bytes = a.max_size();
    r.error = a.error();
    return r;
}

}  // namespace kvcat
