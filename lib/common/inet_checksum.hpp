// The Internet checksum (RFC 1071): a one's-complement sum over 16-bit big-endian words, folded
// and inverted. IPv4 headers, UDP and TCP use it; frame builders and parsers share this one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/bytes.hpp"

namespace braid {

// Adds `bytes` to a running sum; an odd trailing byte is padded with a zero byte (RFC 1071 4.1).
inline std::uint32_t add_checksum(std::uint32_t sum, ByteSpan bytes) {
  for (std::size_t i = 0; i + 1 < bytes.size(); i += 2)
    sum += load_be16(bytes, i);
  if (bytes.size() % 2 != 0) sum += static_cast<std::uint32_t>(bytes.back() << 8);
  return sum;
}

// Folds the carries and inverts. Over data that already holds its correct checksum the result is
// 0, which is how receivers verify.
inline std::uint16_t fold_checksum(std::uint32_t sum) {
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

}  // namespace braid
