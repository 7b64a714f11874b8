#include "support/content_hash.h"

#include <fmt/format.h>

namespace kvcat {

std::string content_hash_hex(std::uint64_t hash) {
    return fmt::format("{:016x}", hash);
}

}  // namespace kvcat
