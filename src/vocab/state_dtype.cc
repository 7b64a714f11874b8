#include "vocab/state_dtype.h"

#include <stdexcept>
#include <string>

namespace kvcat {

std::int64_t state_dtype_bytes(std::string_view name) {
    if (name == "float32" || name == "fp32") return 4;
    if (name == "bfloat16" || name == "float16") return 2;
    // Appended, not "'" + std::string(name) + ...: g++ 12 at -O3 reports a false -Wrestrict on that
    // sum once it is inlined beside other files (GCC bug 105329; the library is a unity build).
    std::string message(1, '\'');
    message.append(name).append("' is not a state dtype (float32, bfloat16, float16, fp32)");
    throw std::invalid_argument(message);
}

std::optional<std::string> state_dtype_from(std::string_view spelled) {
    std::string_view v = spelled;
    if (v.starts_with("torch.")) v.remove_prefix(6);
    if (v == "float32" || v == "fp32") return std::string("float32");
    if (v == "bfloat16" || v == "bf16") return std::string("bfloat16");
    if (v == "float16" || v == "fp16") return std::string("float16");
    return std::nullopt;
}

std::string state_dtypes_known() {
    return "float32, bfloat16 and float16";
}

}  // namespace kvcat
