// LACP-preserving restart (lacp/resume.hpp) in the simulated network: A (braid) saves each
// port's resume point, its process is gone for a gap while the links stay up, and the new engine
// takes the points up. The partner B is a LacpSystem that knows nothing of it: what counts is
// whether B ever stops collecting or distributing on A's ports (a flap at the switch).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "report.hpp"
#include "sim_world.hpp"

namespace braid::lacp::sim {
namespace {

using braid::sim::report;
using braid::sim::seconds;

constexpr std::uint64_t kSecond = kNsPerSecond;
constexpr int kPorts = 2;

struct Restart {
  World world;
  int a = 0;
  int b = 0;
  std::vector<PortConfig> a_ports = port_configs(0x0A, kPorts);

  explicit Restart(LacpTimeout partner_timeout) {
    a = world.add_engine(system_config(0x0A), a_ports);
    b = world.add_engine(system_config(0x0B),
                         port_configs(0x0B, kPorts, LacpActivity::kActive, partner_timeout));
    world.run_until(kSecond);
    for (int i = 0; i < kPorts; ++i)
      world.connect({a, static_cast<std::size_t>(i)}, {b, static_cast<std::size_t>(i)});
    const auto up = world.run_until_true([&] { return all_in_service(A()) && all_in_service(B()); },
                                         world.now() + 20 * kSecond);
    EXPECT_TRUE(up.has_value());
    world.run_until(world.now() + 5 * kSecond);  // steady state
  }
  LacpSystem& A() { return world.engine(a); }
  LacpSystem& B() { return world.engine(b); }

  static bool all_in_service(LacpSystem& engine) {
    for (std::size_t port = 0; port < engine.port_count(); ++port) {
      if (!engine.collecting(port) || !engine.distributing(port)) return false;
    }
    return true;
  }
  std::vector<ResumePoint> save() {
    A().send_now(0, world.now());  // what braid does before it exits
    A().send_now(1, world.now());
    std::vector<ResumePoint> points;
    for (std::size_t port = 0; port < kPorts; ++port) {
      const auto point = A().resume_point(port);
      EXPECT_TRUE(point.has_value()) << "port " << port;
      if (point) points.push_back(*point);
    }
    return points;
  }
  // Restarts A after `gap_ns`, armed with `points` (none: a cold start); returns how long B
  // was out of service on any of A's ports (0: never) over the next `watch_ns`.
  std::uint64_t restart(const std::vector<ResumePoint>& points, std::uint64_t gap_ns,
                        std::uint64_t watch_ns = 20 * kSecond) {
    restarted_ns = world.now() + gap_ns;
    world.restart_in_place(a, system_config(0x0A), a_ports, gap_ns,
                           [this, points](LacpSystem& fresh) {
                             for (std::size_t port = 0; port < points.size(); ++port)
                               fresh.arm_resume(port, points[port], world.now());
                           });
    std::uint64_t out_since = 0;
    std::uint64_t out_total = 0;
    const std::uint64_t end = world.now() + gap_ns + watch_ns;
    while (world.now() < end) {
      world.run_until(world.now() + kSecond / 100);
      const bool out = !all_in_service(B());
      if (out && out_since == 0) out_since = world.now();
      if (!out && out_since != 0) {
        out_total += world.now() - out_since;
        out_since = 0;
      }
    }
    return out_total + (out_since != 0 ? world.now() - out_since : 0);
  }
  std::uint64_t restarted_ns = 0;
};

TEST(LacpRestart, AResumedRestartWithinTheFastPartnersTimeoutIsNoFlapAtThePartner) {
  Restart rig(LacpTimeout::kShort);
  const std::vector<ResumePoint> points = rig.save();
  const std::uint64_t partner_out = rig.restart(points, 2 * kSecond);
  EXPECT_EQ(partner_out, 0u) << "the partner left distribution for " << seconds(partner_out)
                             << " s";
  for (std::size_t port = 0; port < kPorts; ++port) {
    EXPECT_EQ(rig.A().resume_outcome(port), ResumeOutcome::kResumed) << port;
    ASSERT_TRUE(rig.A().resumed_ns(port).has_value());
    EXPECT_EQ(*rig.A().resumed_ns(port), rig.restarted_ns);  // in service at its link up
  }
  EXPECT_TRUE(Restart::all_in_service(rig.A()));
  EXPECT_EQ(rig.A().port(0).partner, points[0].partner);
  report("resumed restart, fast partner, 2 s gap", seconds(partner_out),
         "time the partner stopped distributing to braid (0: no flap)");
}

TEST(LacpRestart, AColdRestartIsAFlapAtThePartner) {
  Restart rig(LacpTimeout::kShort);
  const std::uint64_t partner_out = rig.restart({}, 2 * kSecond);
  // braid's first LACPDUs say out of sync until its aggregate wait has passed.
  EXPECT_GE(partner_out, kAggregateWaitTime);
  EXPECT_TRUE(Restart::all_in_service(rig.B()));
  report("cold restart, fast partner, 2 s gap", seconds(partner_out),
         "time the partner stopped distributing to braid");
}

TEST(LacpRestart, ASlowPartnerWaitsNinetySecondsForIt) {
  Restart rig(LacpTimeout::kLong);
  const std::uint64_t partner_out = rig.restart(rig.save(), 60 * kSecond);
  EXPECT_EQ(partner_out, 0u);
  EXPECT_EQ(rig.A().resume_outcome(0), ResumeOutcome::kResumed);
  report("resumed restart, slow partner, 60 s gap", seconds(partner_out),
         "time the partner stopped distributing to braid (0: no flap)");
}

// Past the fast partner's 3 s it has expired braid: the resumed ports hear so in its next
// LACPDU and the two sides converge as after any expiry, never worse than a cold start.
TEST(LacpRestart, TooLateForAFastPartnerConvergesAsAColdStartWould) {
  Restart rig(LacpTimeout::kShort);
  const std::uint64_t partner_out = rig.restart(rig.save(), 5 * kSecond);
  EXPECT_GT(partner_out, 0u);
  EXPECT_TRUE(Restart::all_in_service(rig.A()));
  EXPECT_TRUE(Restart::all_in_service(rig.B()));
  report("resumed restart too late for a fast partner, 5 s gap", seconds(partner_out),
         "time the partner stopped distributing to braid (it expired braid at 3 s)");
}

TEST(LacpRestart, APartnerThatRestartedMeanwhileIsSelectedAgain) {
  Restart rig(LacpTimeout::kLong);
  const std::vector<ResumePoint> points = rig.save();
  // The partner comes back with another system id while braid is away.
  rig.world.restart_engine(rig.b, system_config(0x0C),
                           port_configs(0x0C, kPorts, LacpActivity::kActive, LacpTimeout::kLong),
                           kSecond / 2);
  rig.restart(points, 2 * kSecond);
  EXPECT_TRUE(Restart::all_in_service(rig.A()));
  EXPECT_EQ(rig.A().port(0).partner.system, system_config(0x0C).system_mac);
  EXPECT_EQ(rig.A().port(1).partner.system, system_config(0x0C).system_mac);
}

TEST(LacpRestart, APointThatNoLongerMatchesIsRefusedWithTheReasonAndStartsCold) {
  Restart rig(LacpTimeout::kShort);
  std::vector<ResumePoint> points = rig.save();
  points[1].actor.key = static_cast<std::uint16_t>(points[1].actor.key + 1);  // config changed
  rig.restart(points, kSecond);
  EXPECT_EQ(rig.A().resume_outcome(0), ResumeOutcome::kResumed);
  EXPECT_EQ(rig.A().resume_outcome(1), ResumeOutcome::kRefused);
  EXPECT_NE(rig.A().resume_refusal(1).find("key"), std::string::npos) << rig.A().resume_refusal(1);
  EXPECT_TRUE(Restart::all_in_service(rig.A()));  // port 1 went through selection
  EXPECT_TRUE(Restart::all_in_service(rig.B()));
}

TEST(LacpRestart, OnlyAPortInServiceHasAResumePoint) {
  Restart rig(LacpTimeout::kShort);
  rig.A().set_withdrawn(1, true, rig.world.now());
  EXPECT_TRUE(rig.A().resume_point(0).has_value());
  EXPECT_FALSE(rig.A().resume_point(1).has_value());
}

TEST(LacpRestart, AnArmedPointExpiresWhenTheLinkNeverComesUp) {
  World world;
  const int a = world.add_engine(system_config(0x0A), port_configs(0x0A, 1));
  ResumePoint point;
  point.aggregator = 0;
  world.engine(a).arm_resume(0, point, world.now());
  EXPECT_EQ(world.engine(a).resume_outcome(0), ResumeOutcome::kArmed);
  world.run_until(world.now() + kResumeArmWindowNs + kSecond);
  EXPECT_EQ(world.engine(a).resume_outcome(0), ResumeOutcome::kExpired);
}

}  // namespace
}  // namespace braid::lacp::sim
