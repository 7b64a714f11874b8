// What PyTorch's CUDA caching allocator counts as allocated for tensors made one after another and
// kept, as a model's parameters are while vLLM builds the model (its "Model loading took" is
// torch.cuda.max_memory_allocated after a reset: the allocated bytes once loading is done).
//
// The allocator hands out blocks, not bytes (c10/cuda/CUDACachingAllocator.cpp, pytorch/pytorch at
// 001074d25084fdb87a799823e395a50f5ec044d3, read through the code index):
// - a request is rounded up to 512 bytes (kMinBlockSize, round_size);
// - up to 1 MiB (kSmallSize) it comes from 2 MiB segments of the small pool (kSmallBuffer), above
//   it from the large pool: the smallest free block that holds it (get_free_block), or a new
//   segment of 20 MiB for a request under 10 MiB (kLargeBuffer, kMinLargeAlloc) and of the request
//   rounded up to 2 MiB above it (kRoundLarge, get_allocation_size);
// - the block is split, its remainder left free for later requests, only when the remainder is
//   more than 1 MiB in the large pool and at least 512 bytes in the small one (should_split);
//   otherwise the whole block is the allocation, and allocated_bytes counts all of it
//   (alloc_found_block: increase_stat(stats.allocated_bytes, block->size)).
// So a kept tensor of 31.25 MiB takes a 32 MiB segment whole: 0.75 MiB counted beside its bytes.
// Not modelled: PYTORCH_CUDA_ALLOC_CONF's expandable_segments (which splits any remainder of 512
// bytes or more), max_split_size_mb and roundup_power2_divisions; vLLM sets none of them by default.
#pragma once

#include <cstdint>
#include <span>

namespace kvcat {

/// The bytes PyTorch's caching allocator counts as allocated once tensors of `sizes` bytes have been
/// made in that order on a fresh device and all kept. Each size is at least 1.
std::int64_t torch_allocated_bytes(std::span<const std::int64_t> sizes);

}  // namespace kvcat
