// The generic counter source: which ethdev counters and xstats make each signal, and which
// signals a port without the counters leaves unavailable.
#include "health/ethdev_counters.hpp"

#include <gtest/gtest.h>

namespace braid::health {
namespace {

std::optional<CounterSample> of(const CounterSnapshot& snapshot, Signal signal) {
  return snapshot[static_cast<std::size_t>(signal)];
}

TEST(EthdevCounters, BasicStatsMakeRxErrorsAndDiscardsAndXstatsTheRest) {
  EthdevCounters counters;
  counters.stats_ok = true;
  counters.ipackets = 1'000'000;
  counters.ierrors = 30;
  counters.imissed = 5;
  counters.rx_nombuf = 2;
  counters.xstats = {{"rx_good_packets", 1'000'000}, {"rx_crc_errors", 20}, {"rx_symbol_err", 7}};
  const CounterSnapshot snapshot = ethdev_snapshot(counters, default_xstat_names());
  ASSERT_TRUE(of(snapshot, Signal::kRxErrors));
  EXPECT_EQ(of(snapshot, Signal::kRxErrors)->errors, 30u);
  EXPECT_EQ(of(snapshot, Signal::kRxErrors)->frames, 1'000'030u);
  ASSERT_TRUE(of(snapshot, Signal::kDiscards));
  EXPECT_EQ(of(snapshot, Signal::kDiscards)->errors, 7u);
  EXPECT_EQ(of(snapshot, Signal::kDiscards)->frames, 1'000'007u);
  ASSERT_TRUE(of(snapshot, Signal::kCrc));
  EXPECT_EQ(of(snapshot, Signal::kCrc)->errors, 20u);
  EXPECT_EQ(of(snapshot, Signal::kCrc)->frames, 1'000'020u);
  ASSERT_TRUE(of(snapshot, Signal::kSymbol));
  EXPECT_EQ(of(snapshot, Signal::kSymbol)->errors, 7u);
  // Counters this port does not have, and signals that come from elsewhere.
  EXPECT_FALSE(of(snapshot, Signal::kFecCorrected));
  EXPECT_FALSE(of(snapshot, Signal::kFecUncorrected));
  EXPECT_FALSE(of(snapshot, Signal::kLacpduMissed));
  EXPECT_FALSE(of(snapshot, Signal::kBfdMissed));
  EXPECT_FALSE(of(snapshot, Signal::kRoceRetransmit));
}

TEST(EthdevCounters, ConfiguredNamesReplaceTheDefaultsAndAFailedReadHasNothing) {
  std::array<std::vector<std::string>, kSignalCount> lists;
  std::array<bool, kSignalCount> configured{};
  lists[static_cast<std::size_t>(Signal::kCrc)] = {"rx_fcs_errors", "rx_phy_crc"};
  configured[static_cast<std::size_t>(Signal::kCrc)] = true;
  lists[static_cast<std::size_t>(Signal::kRxErrors)] = {"rx_phy_errors"};
  configured[static_cast<std::size_t>(Signal::kRxErrors)] = true;
  const XstatNames names = xstat_names(lists, configured);
  EthdevCounters counters;
  counters.stats_ok = true;
  counters.ipackets = 100;
  counters.ierrors = 9;
  counters.xstats = {{"rx_crc_errors", 50}, {"rx_fcs_errors", 3}, {"rx_phy_crc", 4}};
  const CounterSnapshot snapshot = ethdev_snapshot(counters, names);
  ASSERT_TRUE(of(snapshot, Signal::kCrc));
  EXPECT_EQ(of(snapshot, Signal::kCrc)->errors, 7u);  // the sum of the named, not the default
  EXPECT_FALSE(of(snapshot, Signal::kRxErrors));      // its xstat is absent: not ierrors
  counters.stats_ok = false;
  const CounterSnapshot failed = ethdev_snapshot(counters, names);
  for (const std::optional<CounterSample>& sample : failed)
    EXPECT_FALSE(sample);
}

}  // namespace
}  // namespace braid::health
