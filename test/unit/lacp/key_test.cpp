#include "lacp/key.hpp"

#include <gtest/gtest.h>

#include <set>

namespace braid::lacp {
namespace {

TEST(LacpKey, EverySupportedSpeedHasItsOwnKey) {
  const std::uint32_t speeds[] = {1'000, 10'000, 25'000, 40'000, 50'000, 100'000, 200'000, 400'000};
  std::set<std::uint16_t> keys;
  for (const std::uint32_t speed : speeds) {
    EXPECT_NE(speed_class(speed), SpeedClass::kUnknown) << speed;
    keys.insert(derive_port_key(speed, true, 0));
  }
  EXPECT_EQ(keys.size(), std::size(speeds));
}

TEST(LacpKey, LayoutIsDuplexSpeedUser) {
  EXPECT_EQ(derive_port_key(1'000, true, 0), (3 << 1) | 1);
  EXPECT_EQ(derive_port_key(25'000, true, 0), (7 << 1) | 1);
  EXPECT_EQ(derive_port_key(100'000, true, 0), (10 << 1) | 1);
  EXPECT_EQ(derive_port_key(400'000, false, 0), 12 << 1);
  EXPECT_EQ(derive_port_key(100'000, true, 5), (5 << 6) | (10 << 1) | 1);
  EXPECT_EQ(derive_port_key(100'000, true, 0xFFFF), (0x3FF << 6) | (10 << 1) | 1);
  EXPECT_EQ(derive_port_key(12'345, true, 0), 1);  // unknown speed: class 0
}

TEST(LacpKey, DuplexMatters) {
  EXPECT_NE(derive_port_key(10'000, true, 0), derive_port_key(10'000, false, 0));
}

}  // namespace
}  // namespace braid::lacp
