// Counts in messages read as English: "1 member", "2 members", never "1 members" or "member(s)".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace braid {

// "<n> <noun>" with the noun's plural ("s" added, or `plural_noun` when given) unless n is 1.
inline std::string counted(std::uint64_t n, std::string_view noun,
                           std::string_view plural_noun = {}) {
  std::string text = std::to_string(n) + " ";
  if (n == 1) return text.append(noun);
  if (!plural_noun.empty()) return text.append(plural_noun);
  return text.append(noun).append("s");
}

}  // namespace braid
