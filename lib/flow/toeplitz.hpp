// Toeplitz hash as NICs compute it for RSS (Microsoft NDIS "NdisHashFunctionToeplitz"), for any
// key length. Each input byte position gets a 256-entry table of its contribution, built once
// from the key, so hashing costs one table load and one XOR per input byte instead of one
// conditional XOR per input bit (what rte_softrss does).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/bytes.hpp"

namespace braid::flow {

// The 40-byte key of Microsoft's RSS verification suite; also a common NIC default.
inline constexpr std::array<std::uint8_t, 40> kMicrosoftRssKey = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

class Toeplitz {
 public:
  // The hash of an input of n bytes uses key bits [0, 8n + 32): a key of k bytes hashes inputs
  // of up to k - 4 bytes. Throws std::invalid_argument for keys shorter than 5 bytes.
  explicit Toeplitz(ByteSpan key);

  std::size_t max_input_bytes() const { return max_input_bytes_; }

  // Input in network byte order, e.g. (src addr, dst addr, src port, dst port) for RSS. Bytes
  // beyond max_input_bytes() are ignored (callers size their tuples; this keeps the read safe).
  std::uint32_t hash(ByteSpan input) const {
    const std::size_t size = input.size() < max_input_bytes_ ? input.size() : max_input_bytes_;
    const std::uint32_t* row = table_.data();
    std::uint32_t result = 0;
    for (std::size_t i = 0; i < size; ++i, row += kByteValues)
      result ^= row[input[i]];
    return result;
  }

  // Bit-at-a-time definition, for tests: for every set input bit i (MSB first), XOR in the 32
  // key bits starting at bit i.
  static std::uint32_t hash_bitwise(ByteSpan key, ByteSpan input);

 private:
  static constexpr std::size_t kByteValues = 256;

  std::size_t max_input_bytes_;
  std::vector<std::uint32_t> table_;  // [input byte position][byte value]
};

}  // namespace braid::flow
