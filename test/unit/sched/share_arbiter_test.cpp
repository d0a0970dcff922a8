// Reserved shares in deterministic simulation: one member's queue (a fluid FIFO with a tail
// drop) carries a reserved class and one or two that give way; the arbiter's limits police them
// each period, as the data path's meters do.
#include "sched/share_arbiter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

namespace braid::sched {
namespace {

constexpr std::uint64_t kPeriod = 10'000'000;  // 10 ms
constexpr double kPeriodsPerSecond = 100;

// One member shared by `classes` classes: its queue holds at most `queue` packets and sends
// `capacity_pps`; each class offers `offered_pps`, policed to the arbiter's limit.
class OneMemberLink {
 public:
  OneMemberLink(std::vector<std::uint32_t> shares, std::uint32_t queue)
      : arbiter_(shares, std::vector<std::uint32_t>(shares.size(), 1), 1),
        queue_limit_(queue),
        queued_(shares.size(), 0),
        policed_(shares.size(), 0),
        lost_(shares.size(), 0),
        delivered_(shares.size(), 0) {}

  void run(std::vector<double> offered_pps, double capacity_pps, int periods) {
    for (int p = 0; p < periods; ++p)
      period(offered_pps, capacity_pps);
  }

  void period(const std::vector<double>& offered_pps, double capacity_pps) {
    std::vector<std::uint64_t> offered(offered_pps.size());
    double arriving_total = 0;
    std::vector<double> arriving(offered_pps.size());
    for (std::size_t c = 0; c < offered_pps.size(); ++c) {
      const double packets = offered_pps[c] / kPeriodsPerSecond;
      offered[c] = static_cast<std::uint64_t>(packets);
      const std::uint32_t limit = arbiter_.limit_pps(c, 0);
      const double allowed =
          limit == kUnlimitedPps ? packets : std::min(packets, limit / kPeriodsPerSecond);
      policed_[c] += packets - allowed;
      arriving[c] = allowed;
      arriving_total += allowed;
    }
    // Service first from what was queued, then the new arrivals; what does not fit is dropped
    // in proportion to each class's arrivals (a tail drop sees them interleaved).
    double depth = 0;
    for (double q : queued_)
      depth += q;
    const double served = std::min(capacity_pps / kPeriodsPerSecond, depth + arriving_total);
    const double fraction_served =
        depth + arriving_total > 0 ? served / (depth + arriving_total) : 0.0;
    double left = 0;
    for (std::size_t c = 0; c < queued_.size(); ++c) {
      const double content = queued_[c] + arriving[c];
      delivered_[c] += content * fraction_served;
      queued_[c] = content * (1 - fraction_served);
      left += queued_[c];
    }
    if (left > queue_limit_) {
      const double excess = left - queue_limit_;
      for (std::size_t c = 0; c < queued_.size(); ++c) {
        const double share = queued_[c] / left;
        lost_[c] += excess * share;
        queued_[c] -= excess * share;
      }
      left = queue_limit_;
    }
    sent_ += static_cast<std::uint64_t>(served);
    const std::array<ShareMember, 1> members{
        ShareMember{true, static_cast<std::uint32_t>(left), sent_}};
    arbiter_.step(kPeriod, members, offered);
  }

  const ShareArbiter& arbiter() const { return arbiter_; }
  double lost(std::size_t c) const { return lost_[c]; }
  double policed(std::size_t c) const { return policed_[c]; }
  double delivered(std::size_t c) const { return delivered_[c]; }
  void reset_counts() {
    std::fill(lost_.begin(), lost_.end(), 0.0);
    std::fill(policed_.begin(), policed_.end(), 0.0);
    std::fill(delivered_.begin(), delivered_.end(), 0.0);
  }

 private:
  ShareArbiter arbiter_;
  double queue_limit_;
  std::vector<double> queued_;
  std::vector<double> policed_;
  std::vector<double> lost_;
  std::vector<double> delivered_;
  std::uint64_t sent_ = 0;
};

TEST(ShareArbiter, AMemberThatKeepsUpLimitsNobody) {
  OneMemberLink link({500, 0}, 64);
  link.run({1000, 3000}, 5000, 200);
  EXPECT_FALSE(link.arbiter().limited(0));
  EXPECT_EQ(link.arbiter().limit_pps(1, 0), kUnlimitedPps);
  EXPECT_EQ(link.policed(1), 0.0);
}

TEST(ShareArbiter, AShortMemberKeepsTheReservedClassWholeAndBulkGivesWay) {
  // 4 kpps offered to a member paused half the time (2.5 kpps): the reserved class's 1 kpps is
  // within its 50% share, so bulk gets the other 1.5 kpps.
  OneMemberLink link({500, 0}, 64);
  link.run({1000, 3000}, 2500, 100);  // detect, then settle
  EXPECT_TRUE(link.arbiter().limited(0));
  EXPECT_NEAR(link.arbiter().capacity_pps(0), 2500, 50);
  link.reset_counts();
  link.run({1000, 3000}, 2500, 500);  // 5 s steady state
  EXPECT_LT(link.lost(0), 1.0) << "the reserved class lost packets in the queue";
  EXPECT_EQ(link.policed(0), 0.0) << "the reserved class was policed";
  EXPECT_NEAR(link.delivered(0), 5000, 10);
  EXPECT_NEAR(link.arbiter().limit_pps(1, 0), 1500, 100);
  EXPECT_NEAR(link.policed(1) + link.lost(1), 5 * 1500, 200);
}

TEST(ShareArbiter, AReservedClassOfferingMoreThanItsShareStillMeetsIt) {
  // The reserved class offers 2 kpps with a 50% share of 2.5 kpps: bulk keeps the other half.
  OneMemberLink link({500, 0}, 64);
  link.run({2000, 3000}, 2500, 100);
  link.reset_counts();
  link.run({2000, 3000}, 2500, 500);
  EXPECT_NEAR(link.arbiter().limit_pps(1, 0), 1250, 100);
  EXPECT_GE(link.delivered(0), 5 * 1250 * 0.98) << "less than its share";
}

TEST(ShareArbiter, ClassesGivingWaySplitTheRestByWhatTheyOffer) {
  OneMemberLink link({400, 0, 0}, 64);
  link.run({500, 3000, 1000}, 2500, 200);
  ASSERT_TRUE(link.arbiter().limited(0));
  // 2000 pps left after the reserved 500, split 3:1.
  EXPECT_NEAR(link.arbiter().limit_pps(1, 0), 1500, 100);
  EXPECT_NEAR(link.arbiter().limit_pps(2, 0), 500, 50);
  EXPECT_EQ(link.arbiter().limit_pps(0, 0), kUnlimitedPps);
}

TEST(ShareArbiter, LimitsLiftOnceTheMemberCarriesItsLoadAgain) {
  OneMemberLink link({500, 0}, 64);
  link.run({1000, 3000}, 2500, 100);
  ASSERT_TRUE(link.arbiter().limited(0));
  int periods = 0;
  while (link.arbiter().limited(0) && periods < 100) {
    link.period({1000, 3000}, 5000);
    ++periods;
  }
  EXPECT_FALSE(link.arbiter().limited(0));
  EXPECT_LE(periods, 20) << "took " << periods << " periods to lift";
  EXPECT_EQ(link.arbiter().limit_pps(1, 0), kUnlimitedPps);
}

TEST(ShareArbiter, UnknownDepthOrAMemberNotDistributingLimitsNobody) {
  ShareArbiter arbiter({500, 0}, {1, 1}, 1);
  const std::vector<std::uint64_t> offered{100, 300};
  arbiter.step(kPeriod, std::array<ShareMember, 1>{ShareMember{true, 100, 0}}, offered);
  arbiter.step(kPeriod, std::array<ShareMember, 1>{ShareMember{true, 200, 100}}, offered);
  ASSERT_TRUE(arbiter.limited(0));  // busy, deep, offered 400 and sent 100
  arbiter.step(kPeriod, std::array<ShareMember, 1>{ShareMember{true, std::nullopt, 200}}, offered);
  EXPECT_FALSE(arbiter.limited(0));
  arbiter.step(kPeriod, std::array<ShareMember, 1>{ShareMember{true, 100, 300}}, offered);
  arbiter.step(kPeriod, std::array<ShareMember, 1>{ShareMember{true, 200, 400}}, offered);
  ASSERT_TRUE(arbiter.limited(0));
  arbiter.step(kPeriod, std::array<ShareMember, 1>{ShareMember{false, 200, 400}}, offered);
  EXPECT_FALSE(arbiter.limited(0));
  EXPECT_EQ(arbiter.limit_pps(1, 0), kUnlimitedPps);
}

TEST(ShareArbiter, AShareCountsOnlyOnTheMembersItsClassUses) {
  // The reserved class is pinned to member 0: on member 1, short as it is, bulk has no one to
  // give way to (its queue's own drop shares the shortage out); on member 0 it gives way.
  ShareArbiter arbiter({500, 0}, {0b01, 0b11}, 2);
  const std::vector<std::uint64_t> offered{100, 0, 300, 400};  // class-major
  std::uint64_t sent = 0;
  for (std::uint32_t depth : {100u, 200u, 300u}) {
    sent += 100;
    arbiter.step(
        kPeriod,
        std::array<ShareMember, 2>{ShareMember{true, depth, sent}, ShareMember{true, depth, sent}},
        offered);
  }
  EXPECT_TRUE(arbiter.limited(0));
  EXPECT_FALSE(arbiter.limited(1));
  EXPECT_EQ(arbiter.limit_pps(1, 1), kUnlimitedPps);
  // Half of the 100 a period member 0 carries (the reserved class offers more than its share).
  EXPECT_NEAR(arbiter.limit_pps(1, 0), 50 * 100, 100);
}

}  // namespace
}  // namespace braid::sched
