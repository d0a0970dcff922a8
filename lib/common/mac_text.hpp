// A MAC address as people write it, "02:00:00:00:00:01" (either case): the config's keys and
// the LACP resume file read it the same way.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace braid {

// False when `text` is not six colon-separated pairs of hex digits.
inline bool parse_mac(std::string_view text, std::array<std::uint8_t, 6>& mac) {
  if (text.size() != 17) return false;
  for (std::size_t i = 0; i < 6; ++i) {
    if (i > 0 && text[i * 3 - 1] != ':') return false;
    unsigned value = 0;
    for (std::size_t j = 0; j < 2; ++j) {
      const char c = text[i * 3 + j];
      value <<= 4;
      if (c >= '0' && c <= '9') {
        value |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        value |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        value |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        return false;
      }
    }
    mac[i] = static_cast<std::uint8_t>(value);
  }
  return true;
}

}  // namespace braid
