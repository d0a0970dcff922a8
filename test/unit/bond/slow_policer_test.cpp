#include "bond/slow_policer.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

namespace braid::bond {
namespace {

constexpr std::uint64_t kSecond = 1'000'000'000;

// A 60-byte Slow Protocols frame from `source` (its last byte) with `subtype`.
std::array<std::uint8_t, 60> slow_frame(std::uint8_t source, std::uint8_t subtype) {
  std::array<std::uint8_t, 60> frame{0x01, 0x80, 0xc2, 0x00, 0x00, 0x02,  // Slow Protocols group
                                     0x02, 0x00, 0x00, 0x00, 0x00, source, 0x88, 0x09, subtype};
  return frame;
}

TEST(SlowPolicer, SubtypesBraidDoesNotRunAreRefusedWithoutCostingEitherLimit) {
  SlowPolicer policer(kSecond);
  const auto esmc = slow_frame(7, 0x0a);
  const auto oam = slow_frame(7, 0x03);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(policer.admit(esmc.data(), esmc.size(), 0, 0), SlowVerdict::kUnsupported);
    EXPECT_EQ(policer.admit(oam.data(), oam.size(), 0, 0), SlowVerdict::kUnsupported);
  }
  const auto lacpdu = slow_frame(7, kSlowSubtypeLacp);
  EXPECT_EQ(policer.admit(lacpdu.data(), lacpdu.size(), 0, 0), SlowVerdict::kAccept);
}

TEST(SlowPolicer, AFrameTooShortToHaveASubtypeIsUnsupported) {
  SlowPolicer policer(kSecond);
  const auto frame = slow_frame(7, kSlowSubtypeLacp);
  EXPECT_EQ(policer.admit(frame.data(), 14, 0, 0), SlowVerdict::kUnsupported);
}

TEST(SlowPolicer, AFloodFromAnotherSourceLeavesThePartnersLimitWhole) {
  SlowPolicer policer(kSecond);
  const auto flood = slow_frame(9, kSlowSubtypeLacp);  // e.g. malformed LACPDUs
  const auto partner = slow_frame(1, kSlowSubtypeLacp);
  const std::uint64_t partner_key = source_address_key(partner.data());
  std::uint64_t accepted_flood = 0;
  // 300,000 frames a second for 10 s, and the partner's LACPDU once a second.
  for (std::uint64_t t = 0; t < 10 * kSecond; t += kSecond / 300'000) {
    if (policer.admit(flood.data(), flood.size(), partner_key, t) == SlowVerdict::kAccept) {
      ++accepted_flood;
    }
    if (t % kSecond == 0) {
      EXPECT_EQ(policer.admit(partner.data(), partner.size(), partner_key, t), SlowVerdict::kAccept)
          << "at " << t;
    }
  }
  EXPECT_LE(accepted_flood, kSlowFramesBurst + 10 * kSlowFramesPerSecond);
  EXPECT_GE(accepted_flood, 10 * kSlowFramesPerSecond);
}

TEST(SlowPolicer, WithoutAPartnerEverySourceSharesOneLimit) {
  SlowPolicer policer(kSecond);
  const auto flood = slow_frame(9, kSlowSubtypeLacp);
  const auto newcomer = slow_frame(1, kSlowSubtypeLacp);
  for (std::uint64_t i = 0; i < kSlowFramesBurst; ++i)
    ASSERT_EQ(policer.admit(flood.data(), flood.size(), 0, 0), SlowVerdict::kAccept);
  EXPECT_EQ(policer.admit(newcomer.data(), newcomer.size(), 0, 0), SlowVerdict::kPoliced);
  // The partner's own source is trusted only once named; a source that merely equals 0 is not.
  EXPECT_EQ(policer.admit(newcomer.data(), newcomer.size(), source_address_key(newcomer.data()), 0),
            SlowVerdict::kAccept);
}

TEST(SlowPolicer, TheSourceKeyIsTheSixAddressBytes) {
  const auto frame = slow_frame(0xab, kSlowSubtypeLacp);
  EXPECT_EQ(source_address_key(frame.data()), 0x0200000000abULL);
}

}  // namespace
}  // namespace braid::bond
