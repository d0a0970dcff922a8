// Big-endian field access over byte spans: the one place protocol cores turn wire bytes into
// integers. Callers check bounds first (parsers know their header lengths); these helpers only
// assert in debug builds.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>

namespace braid {

using ByteSpan = std::span<const std::uint8_t>;
using MutableByteSpan = std::span<std::uint8_t>;

inline std::uint16_t load_be16(ByteSpan bytes, std::size_t offset) {
  assert(offset + 2 <= bytes.size());
  return static_cast<std::uint16_t>((bytes[offset] << 8) | bytes[offset + 1]);
}

inline std::uint32_t load_be32(ByteSpan bytes, std::size_t offset) {
  assert(offset + 4 <= bytes.size());
  return (std::uint32_t{bytes[offset]} << 24) | (std::uint32_t{bytes[offset + 1]} << 16) |
         (std::uint32_t{bytes[offset + 2]} << 8) | std::uint32_t{bytes[offset + 3]};
}

inline void store_be16(MutableByteSpan bytes, std::size_t offset, std::uint16_t value) {
  assert(offset + 2 <= bytes.size());
  bytes[offset] = static_cast<std::uint8_t>(value >> 8);
  bytes[offset + 1] = static_cast<std::uint8_t>(value);
}

inline void store_be32(MutableByteSpan bytes, std::size_t offset, std::uint32_t value) {
  assert(offset + 4 <= bytes.size());
  bytes[offset] = static_cast<std::uint8_t>(value >> 24);
  bytes[offset + 1] = static_cast<std::uint8_t>(value >> 16);
  bytes[offset + 2] = static_cast<std::uint8_t>(value >> 8);
  bytes[offset + 3] = static_cast<std::uint8_t>(value);
}

}  // namespace braid
