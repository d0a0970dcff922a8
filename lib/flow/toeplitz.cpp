#include "flow/toeplitz.hpp"

#include <stdexcept>
#include <string>

namespace braid::flow {
namespace {

constexpr std::size_t kHashBits = 32;
constexpr std::size_t kMinKeyBytes = kHashBits / 8 + 1;

// The 32 key bits starting at bit `bit` (bit 0 = MSB of key[0]); bits past the key read as 0.
std::uint32_t key_window(ByteSpan key, std::size_t bit) {
  std::uint64_t window = 0;
  const std::size_t first = bit / 8;
  for (std::size_t i = 0; i < 5; ++i) {
    window <<= 8;
    if (first + i < key.size()) window |= key[first + i];
  }
  // 40 bits loaded; keep the 32 that start `bit % 8` bits into the first byte.
  return static_cast<std::uint32_t>(window >> (8 - bit % 8));
}

}  // namespace

Toeplitz::Toeplitz(ByteSpan key) {
  if (key.size() < kMinKeyBytes) {
    throw std::invalid_argument("toeplitz: key of " + std::to_string(key.size()) +
                                " bytes is too short (need at least 5; RSS keys are 40 or 52)");
  }
  max_input_bytes_ = key.size() - kHashBits / 8;
  table_.assign(max_input_bytes_ * kByteValues, 0);
  for (std::size_t position = 0; position < max_input_bytes_; ++position) {
    std::array<std::uint32_t, 8> bit_windows{};
    for (std::size_t bit = 0; bit < 8; ++bit)
      bit_windows[bit] = key_window(key, position * 8 + bit);
    for (std::size_t value = 0; value < kByteValues; ++value) {
      std::uint32_t contribution = 0;
      for (std::size_t bit = 0; bit < 8; ++bit) {
        if ((value & (0x80U >> bit)) != 0) contribution ^= bit_windows[bit];
      }
      table_[position * kByteValues + value] = contribution;
    }
  }
}

std::uint32_t Toeplitz::hash_bitwise(ByteSpan key, ByteSpan input) {
  std::uint32_t result = 0;
  for (std::size_t bit = 0; bit < input.size() * 8 && bit + kHashBits <= key.size() * 8; ++bit) {
    if ((input[bit / 8] & (0x80U >> (bit % 8))) != 0) result ^= key_window(key, bit);
  }
  return result;
}

}  // namespace braid::flow
