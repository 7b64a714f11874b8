#include "engines/torch_allocator.h"

#include <iterator>
#include <set>

namespace kvcat {

namespace {

constexpr std::int64_t kMinBlockSize = 512;
constexpr std::int64_t kSmallSize = std::int64_t{1} << 20;
constexpr std::int64_t kSmallBuffer = std::int64_t{2} << 20;
constexpr std::int64_t kLargeBuffer = std::int64_t{20} << 20;
constexpr std::int64_t kMinLargeAlloc = std::int64_t{10} << 20;
constexpr std::int64_t kRoundLarge = std::int64_t{2} << 20;

std::int64_t round_up(std::int64_t n, std::int64_t to) {
    return (n + to - 1) / to * to;
}

/// One pool's free blocks, by size: nothing is freed, so only split remainders are free.
struct Pool {
    bool small = false;
    std::multiset<std::int64_t> free;

    /// The bytes the request of `size` (already rounded) takes from this pool.
    std::int64_t take(std::int64_t size) {
        std::int64_t block = 0;
        if (auto fit = free.lower_bound(size); fit != free.end()) {
            block = *fit;
            free.erase(fit);
        } else if (small) {
            block = kSmallBuffer;
        } else {
            block = size < kMinLargeAlloc ? kLargeBuffer : round_up(size, kRoundLarge);
        }
        std::int64_t remaining = block - size;
        bool split = small ? remaining >= kMinBlockSize : remaining > kSmallSize;
        if (!split) return block;
        free.insert(remaining);
        return size;
    }
};

}  // namespace

std::int64_t torch_allocated_bytes(std::span<const std::int64_t> sizes) {
    Pool small{true, {}}, large{false, {}};
    std::int64_t allocated = 0;
    for (std::int64_t size : sizes) {
        std::int64_t rounded = size < kMinBlockSize ? kMinBlockSize : round_up(size, kMinBlockSize);
        allocated += rounded <= kSmallSize ? small.take(rounded) : large.take(rounded);
    }
    return allocated;
}

}  // namespace kvcat
