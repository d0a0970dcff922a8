// The field combiner behind every software hash policy except Toeplitz. Words are taken in
// pairs; each pair goes through one folded multiply (the 128-bit product of the two words, each
// xored with its position's secret, high half xored into low half), the pairs' results are
// xored together and a last folded multiply by a constant finishes. The pairs do not depend on
// each other, so the CPU runs them side by side: an IPv4 l34 hash is three independent
// multiplies and one final one (about 15 cycles of latency, where a word-by-word chain took
// about 40, which was a quarter of a bonded packet's cost). Per-position secrets keep the
// pairs' order significant (swapping source and destination changes the hash). Every output
// bit depends on every input bit, so any slice of the result (low or high bits) indexes a
// bucket table uniformly; the unit tests check that with a chi-square test over 256 buckets.
// Plain C++ (no ISA extension), so the fuzz build and non-x86 targets run the same code.
#pragma once

#include <array>
#include <cstdint>

namespace braid::flow {

inline constexpr std::uint64_t kFlowHashSeed = 0x62726169642d6677ULL;  // "braid-fw"

class Mixer {
 public:
  explicit constexpr Mixer(std::uint64_t seed) : state_(seed) {}

  constexpr void add(std::uint64_t word) {
    if (!has_pending_) {
      pending_ = word;
      has_pending_ = true;
      return;
    }
    state_ ^= fold_multiply(pending_ ^ secret(position_), word ^ secret(position_ + 1));
    position_ += 2;
    has_pending_ = false;
  }

  constexpr std::uint32_t finish() const {
    std::uint64_t state = state_;
    if (has_pending_) state ^= fold_multiply(pending_ ^ secret(position_), kLoneWordPartner);
    const std::uint64_t h = fold_multiply(state ^ kFinishSecret, kFinishMultiplier);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }

 private:
  __extension__ using Product = unsigned __int128;  // GCC and clang; -Wpedantic accepts it so

  static constexpr std::uint64_t fold_multiply(std::uint64_t a, std::uint64_t b) {
    const Product product = static_cast<Product>(a) * b;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
  }

  // Odd, with about half their bits set, no two alike: a word equal to its position's secret
  // (the one input a folded multiply maps to zero) is as unlikely as any other value.
  static constexpr std::array<std::uint64_t, 8> kSecrets = {
      0xa0761d6478bd642fULL, 0xe7037ed1a0b428dbULL, 0x8ebc6af09c88c6e3ULL, 0x589965cc75374cc3ULL,
      0x1d8e4e27c47d124fULL, 0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL};
  static constexpr std::uint64_t kLoneWordPartner = 0xd6e8feb86659fd93ULL;
  static constexpr std::uint64_t kFinishSecret = 0xff51afd7ed558ccdULL;
  static constexpr std::uint64_t kFinishMultiplier = 0xc4ceb9fe1a85ec53ULL;

  // Policies feed at most six words; positions beyond the table wrap (still deterministic).
  static constexpr std::uint64_t secret(unsigned position) {
    return kSecrets[position % kSecrets.size()];
  }

  std::uint64_t state_;
  std::uint64_t pending_ = 0;
  unsigned position_ = 0;
  bool has_pending_ = false;
};

}  // namespace braid::flow
