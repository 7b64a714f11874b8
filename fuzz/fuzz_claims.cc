// libFuzzer target: bytes -> kvcat::find_claims.
//
// find_claims promises to accept any byte string and never throw. Besides crashes,
// sanitizer reports and escaped exceptions, this target checks what claims.h documents:
// every claim and side lies inside the text and its `text` is exactly those bytes; claims
// come in order of appearance; an expression side has one operator between each pair of
// factors, each one of those claims.h names (* / + - ^); a claim has at least two sides;
// wrong_side names a side when a claim fails; the result is the same when the text is
// scanned again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check/claims.h"
#include "fuzz_check.h"

namespace {

using kvcat::fuzz::check;

bool same(const std::vector<kvcat::Claim>& a, const std::vector<kvcat::Claim>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].offset != b[i].offset || a[i].length != b[i].length || a[i].holds != b[i].holds ||
            a[i].computed_display != b[i].computed_display || a[i].expression != b[i].expression) {
            return false;
        }
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<kvcat::Claim> claims = kvcat::find_claims(text);
    std::size_t previous = 0;
    for (const auto& c : claims) {
        const std::string at = " (claim at offset " + std::to_string(c.offset) + ")";
        check(c.offset <= size && c.length <= size - c.offset, "claim outside the text" + at);
        check(c.text == text.substr(c.offset, c.length), "claim text is not the bytes at its offset" + at);
        check(c.offset >= previous, "claims out of order" + at);
        previous = c.offset;
        check(c.sides.size() >= 2, "a claim with fewer than two sides" + at);
        check(c.holds || c.wrong_side < c.sides.size(), "wrong_side does not name a side" + at);
        check(c.holds || !c.computed_display.empty(), "a failing claim without a computed figure" + at);
        bool has_expression = false;
        for (const auto& s : c.sides) {
            check(s.offset <= size && s.length <= size - s.offset, "side outside the text" + at);
            check(s.text == text.substr(s.offset, s.length), "side text is not the bytes at its offset" + at);
            check(s.offset >= c.offset && s.offset + s.length <= c.offset + c.length, "side outside its claim" + at);
            check(!s.factors.empty(), "a side without a number" + at);
            check(s.ops.size() + 1 == s.factors.size() || (s.factors.size() == 1 && s.ops.empty()),
                  "operators do not sit between factors" + at);
            for (char op : s.ops) {
                check(op == '*' || op == '/' || op == '+' || op == '-' || op == '^', "unknown operator in a side" + at);
            }
            has_expression = has_expression || s.is_expression();
        }
        check(has_expression, "a claim without an expression side" + at);
    }
    check(same(claims, kvcat::find_claims(text)), "find_claims is not deterministic");
    return 0;
}
