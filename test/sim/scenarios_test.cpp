// The LACP engine in a simulated network: each scenario scripts links, partners and loss, and
// checks what a network engineer would check on a real switch, in simulated time.
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <string>

#include "lacp/frame.hpp"
#include "lacp/marker.hpp"
#include "report.hpp"
#include "sim_world.hpp"

namespace braid::lacp::sim {
namespace {

using braid::sim::report;
using braid::sim::seconds;

constexpr std::uint64_t kSecond = kNsPerSecond;

bool all_distributing(LacpSystem& engine) {
  for (std::size_t port = 0; port < engine.port_count(); ++port) {
    if (!engine.distributing(port) || !engine.collecting(port)) return false;
  }
  return true;
}

bool none_distributing(LacpSystem& engine) {
  for (std::size_t port = 0; port < engine.port_count(); ++port) {
    if (engine.distributing(port) || engine.collecting(port)) return false;
  }
  return true;
}

int distributing_count(LacpSystem& engine) {
  int count = 0;
  for (std::size_t port = 0; port < engine.port_count(); ++port)
    count += engine.distributing(port);
  return count;
}

std::string at_time(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f s", seconds(ns));
  return text;
}

// Two systems with `ports` ports each, wired port i to port i, links up at t = 1 s.
struct Pair {
  World world;
  int a = 0;
  int b = 0;
  std::vector<int> cables;
  std::uint64_t link_up_ns = kSecond;

  Pair(int ports, std::vector<PortConfig> a_ports, std::vector<PortConfig> b_ports,
       const CableSpec& spec = {}, std::uint64_t seed = 1)
      : world(seed) {
    a = world.add_engine(system_config(0x0A), a_ports);
    b = world.add_engine(system_config(0x0B), b_ports);
    world.run_until(link_up_ns);
    for (int i = 0; i < ports; ++i) {
      cables.push_back(
          world.connect({a, static_cast<std::size_t>(i)}, {b, static_cast<std::size_t>(i)}, spec));
    }
  }
  explicit Pair(int ports) : Pair(ports, port_configs(0x0A, ports), port_configs(0x0B, ports)) {}

  LacpSystem& A() { return world.engine(a); }
  LacpSystem& B() { return world.engine(b); }
  std::optional<std::uint64_t> converge(std::uint64_t limit_ns = 20 * kSecond) {
    return world.run_until_true([&] { return all_distributing(A()) && all_distributing(B()); },
                                world.now() + limit_ns);
  }
};

TEST(LacpSim, ActiveActiveFastConvergesWithinAggregateWaitPlusOneSecond) {
  Pair pair(2);
  const auto done = pair.converge();
  ASSERT_TRUE(done.has_value());
  const std::uint64_t took = *done - pair.link_up_ns;
  // Aggregate wait, then our Synchronization to the partner and its Collecting back; the partner's
  // 3-per-second transmit limit can hold that LACPDU until its window reopens (up to 1 s).
  EXPECT_LE(took, kAggregateWaitTime + 2 * kFastPeriodicTime);
  report("active/active fast", seconds(took), "link up -> all ports Collecting+Distributing");
  // One aggregator per side, partner recorded as the other system, all sync bits set.
  EXPECT_EQ(pair.A().port(0).aggregator, pair.A().port(1).aggregator);
  EXPECT_EQ(pair.A().port(0).partner.system, system_config(0x0B).system_mac);
  EXPECT_EQ(pair.B().port(1).partner.port_number, 2);
  EXPECT_TRUE(has_bit(pair.A().port(1).partner.state, state_bit::kSynchronization));
  // Steady state: fast periodic, about one LACPDU per second per port.
  const std::uint64_t tx_before = pair.A().counters(0).lacpdu_tx;
  pair.world.run_until(pair.world.now() + 10 * kSecond);
  const std::uint64_t sent = pair.A().counters(0).lacpdu_tx - tx_before;
  EXPECT_GE(sent, 9u);
  EXPECT_LE(sent, 11u);
  EXPECT_TRUE(all_distributing(pair.A()));
}

TEST(LacpSim, ActivePassiveAggregates) {
  Pair pair(2, port_configs(0x0A, 2), port_configs(0x0B, 2, LacpActivity::kPassive));
  const auto done = pair.converge();
  ASSERT_TRUE(done.has_value());
  const std::uint64_t took = *done - pair.link_up_ns;
  EXPECT_LE(took, kAggregateWaitTime + kSecond);
  report("active/passive", seconds(took), "link up -> all ports Collecting+Distributing");
}

TEST(LacpSim, PassivePassiveDoesNotAggregate) {
  auto a_ports = port_configs(0x0A, 2, LacpActivity::kPassive);
  auto b_ports = port_configs(0x0B, 2, LacpActivity::kPassive);
  for (auto* ports : {&a_ports, &b_ports}) {
    for (auto& port : *ports)
      port.fallback = false;
  }
  Pair pair(2, a_ports, b_ports);
  const auto any = pair.world.run_until_true(
      [&] { return !none_distributing(pair.A()) || !none_distributing(pair.B()); },
      pair.world.now() + 60 * kSecond);
  EXPECT_FALSE(any.has_value());
  EXPECT_EQ(pair.A().counters(0).lacpdu_tx, 0u);  // neither end ever speaks
  EXPECT_EQ(pair.B().counters(1).lacpdu_tx, 0u);
  EXPECT_STREQ(pair.A().snapshot().ports[0].receive_state, "DEFAULTED");
  report("passive/passive (fallback off)", -1, "no LACPDU sent, no port used, 60 s");

  // With fallback on, and data frames arriving from the far end (a live neighbour that does not
  // speak LACP), each side uses one port on its own (active-backup), still no LAG.
  auto fallback_a = port_configs(0x0A, 2, LacpActivity::kPassive);
  auto fallback_b = port_configs(0x0B, 2, LacpActivity::kPassive);
  for (auto* ports : {&fallback_a, &fallback_b}) {
    for (auto& port : *ports)
      port.fallback = true;
  }
  Pair with_fallback(2, fallback_a, fallback_b);
  for (const int cable : with_fallback.cables)
    with_fallback.world.set_traffic(cable, true);
  const auto fell_back = with_fallback.world.run_until_true(
      [&] {
        return distributing_count(with_fallback.A()) == 1 &&
               distributing_count(with_fallback.B()) == 1;
      },
      with_fallback.world.now() + 20 * kSecond);
  ASSERT_TRUE(fell_back.has_value());
  with_fallback.world.run_until(with_fallback.world.now() + 30 * kSecond);
  EXPECT_EQ(distributing_count(with_fallback.A()), 1);
  EXPECT_EQ(with_fallback.A().counters(0).lacpdu_tx, 0u);
  EXPECT_EQ(with_fallback.A().fallback(0) == FallbackState::kEngaged ||
                with_fallback.A().fallback(1) == FallbackState::kEngaged,
            true);
  report("passive/passive (fallback on, traffic)", seconds(*fell_back - with_fallback.link_up_ns),
         "link up -> one individual port per side, no LAG");
}

std::vector<PortConfig> with_fallback(std::vector<PortConfig> ports) {
  for (auto& port : ports)
    port.fallback = true;
  return ports;
}

// Converges, then the partner goes silent; returns the time of its last LACPDU at port 0.
std::uint64_t converge_then_silence(Pair& pair) {
  EXPECT_TRUE(pair.converge().has_value());
  pair.world.run_until(pair.world.now() + 5 * kSecond);
  pair.world.mute(pair.b, true);
  const Port& port = pair.A().port(0);
  const std::uint64_t timeout =
      has_bit(port.actor.state, state_bit::kTimeout) ? kShortTimeoutTime : kLongTimeoutTime;
  return port.current_while_timer.deadline_ns - timeout;
}

void expect_timeout(Pair& pair, std::uint64_t timeout_ns, const std::string& name) {
  const std::uint64_t last_rx = converge_then_silence(pair);
  auto rx_state = [&] { return pair.A().port(0).rx_state; };
  const auto expired = pair.world.run_until_true([&] { return rx_state() == RxState::kExpired; },
                                                 last_rx + 200 * kSecond);
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(*expired - last_rx, timeout_ns);
  const auto defaulted = pair.world.run_until_true(
      [&] { return rx_state() == RxState::kDefaulted; }, *expired + 10 * kSecond);
  ASSERT_TRUE(defaulted.has_value());
  EXPECT_EQ(*defaulted - *expired, kShortTimeoutTime);
  pair.world.run_until(pair.world.now() + 10 * kSecond);
  EXPECT_EQ(rx_state(), RxState::kDefaulted);
  report(name, seconds(*expired - last_rx),
         "last LACPDU -> EXPIRED; DEFAULTED at " + at_time(*defaulted - last_rx));
}

TEST(LacpSim, ShortTimeoutExpiresAtThreeSecondsAndEndsDefaulted) {
  Pair pair(2);
  expect_timeout(pair, kShortTimeoutTime, "short timeout");
}

TEST(LacpSim, LongTimeoutExpiresAtNinetySecondsAndEndsDefaulted) {
  Pair pair(2, port_configs(0x0A, 2, LacpActivity::kActive, LacpTimeout::kLong),
            port_configs(0x0B, 2));
  expect_timeout(pair, kLongTimeoutTime, "long timeout");
}

TEST(LacpSim, PortToADifferentPartnerSystemIsNotAggregated) {
  World world;
  const int a = world.add_engine(system_config(0x0A), port_configs(0x0A, 3));
  const int b = world.add_engine(system_config(0x0B), port_configs(0x0B, 2));
  const int c = world.add_engine(system_config(0x0C), port_configs(0x0C, 1));
  world.run_until(kSecond);
  world.connect({a, 0}, {b, 0});
  world.connect({a, 1}, {b, 1});
  world.connect({a, 2}, {c, 0});
  LacpSystem& A = world.engine(a);
  const auto done =
      world.run_until_true([&] { return A.distributing(0) && A.distributing(1); }, 20 * kSecond);
  ASSERT_TRUE(done.has_value());
  world.run_until(world.now() + 10 * kSecond);
  EXPECT_TRUE(A.distributing(0) && A.distributing(1));
  EXPECT_FALSE(A.distributing(2));
  EXPECT_NE(A.port(2).aggregator, A.port(0).aggregator);
  EXPECT_EQ(A.port(2).selected, Selected::kStandby);
  EXPECT_EQ(A.port(2).partner.system, system_config(0x0C).system_mac);
  EXPECT_FALSE(world.engine(c).distributing(0));  // C sees us out of sync on that link
  report("different partner system", seconds(*done - kSecond),
         "2 ports to B aggregated; port to C kept STANDBY");
}

TEST(LacpSim, LinkFlapMovesTrafficOffAtOnceAndBack) {
  Pair pair(2);
  ASSERT_TRUE(pair.converge().has_value());
  pair.world.run_until(pair.world.now() + 5 * kSecond);
  const std::uint64_t down_at = pair.world.now();
  pair.world.set_link(pair.cables[0], false);
  EXPECT_FALSE(pair.A().distributing(0));  // same instant: the bond republishes at once
  EXPECT_TRUE(pair.A().distributing(1));
  pair.world.run_until(down_at + 500'000'000);
  pair.world.set_link(pair.cables[0], true);
  const std::uint64_t up_at = pair.world.now();
  const auto back = pair.converge();
  ASSERT_TRUE(back.has_value());
  EXPECT_LE(*back - up_at, kSecond);
  report("link flap (0.5 s down)", seconds(*back - up_at),
         "link up -> port back in Collecting+Distributing; out at 0 s on link down");
}

TEST(LacpSim, ChurnDetectedAndCleared) {
  auto b_ports = port_configs(0x0B, 2);
  b_ports[1].key = 99;  // misconfigured: the second switch port is in another LAG
  Pair pair(2, port_configs(0x0A, 2), b_ports);
  LacpSystem& A = pair.A();
  const auto churn = pair.world.run_until_true(
      [&] { return A.port(1).actor_churn && A.port(1).partner_churn; }, 120 * kSecond);
  ASSERT_TRUE(churn.has_value());
  EXPECT_EQ(*churn - pair.link_up_ns, kChurnDetectionTime);
  EXPECT_FALSE(A.port(0).actor_churn || A.port(0).partner_churn);
  EXPECT_TRUE(A.distributing(0));
  EXPECT_FALSE(A.distributing(1));
  // The switch's operator fixes the key.
  const std::uint64_t fixed_at = pair.world.now();
  pair.B().set_key(1, std::nullopt, fixed_at);
  const auto cleared = pair.world.run_until_true(
      [&] { return !A.port(1).actor_churn && !A.port(1).partner_churn; }, fixed_at + 20 * kSecond);
  ASSERT_TRUE(cleared.has_value());
  const auto joined = pair.converge();
  ASSERT_TRUE(joined.has_value());
  report("churn detected", seconds(*churn - pair.link_up_ns), "link up -> actor+partner churn");
  report("churn cleared", seconds(*cleared - fixed_at),
         "key fixed -> churn cleared; aggregated at " + at_time(*joined - fixed_at));
}

TEST(LacpSim, MarkerRequestAnsweredByteExact) {
  Pair pair(2);
  ASSERT_TRUE(pair.converge().has_value());
  MarkerPdu request;
  request.requester_port = 2;
  request.requester_system = system_config(0x0B).system_mac;
  request.requester_transaction_id = 0x01020304;
  const MacAddress requester_mac{0x02, 0x00, 0x00, 0x0B, 0x01, 0x02};
  const SlowFrame frame = encode_marker(requester_mac, request);
  pair.world.capture(true);
  const std::uint64_t sent_at = pair.world.now();
  pair.world.inject({pair.a, 1}, {frame.begin(), frame.end()}, 100'000);
  pair.world.run_until(sent_at + kSecond);
  std::optional<Captured> response;
  for (const Captured& captured : pair.world.captured()) {
    if (captured.from.engine == pair.a && captured.frame[14] == kMarkerSubtype) {
      response = captured;
    }
  }
  ASSERT_TRUE(response.has_value());
  SlowFrame expected = frame;
  const MacAddress our_mac = pair.A().port(1).config.port_mac;
  std::copy(our_mac.begin(), our_mac.end(), expected.begin() + 6);
  expected[16] = kTlvMarkerResponse;
  EXPECT_EQ(response->frame, std::vector<std::uint8_t>(expected.begin(), expected.end()));
  EXPECT_EQ(response->from.port, 1u);
  report("marker request", seconds(response->time_ns - sent_at),
         "request sent -> byte-exact response sent (0.1 ms wire delay)");
}

TEST(LacpSim, PartnerDiesFallbackNeverEngages) {
  // A partner that crashed: no LACPDUs and no frames at all. With fallback on, the ports leave
  // service at the short timeout and stay out: traffic must not go into a dead link.
  Pair pair(2, with_fallback(port_configs(0x0A, 2)), port_configs(0x0B, 2));
  const std::uint64_t last_rx = converge_then_silence(pair);
  const auto stopped = pair.world.run_until_true([&] { return none_distributing(pair.A()); },
                                                 last_rx + 20 * kSecond);
  ASSERT_TRUE(stopped.has_value());
  EXPECT_EQ(*stopped - last_rx, kShortTimeoutTime);
  const auto engaged = pair.world.run_until_true([&] { return !none_distributing(pair.A()); },
                                                 last_rx + 3 * kLongTimeoutTime);
  EXPECT_FALSE(engaged.has_value());
  EXPECT_EQ(pair.A().fallback(0), FallbackState::kNoNeighbour);
  report("partner dies (fallback on)", seconds(*stopped - last_rx),
         "last LACPDU -> ports out; no fallback in 270 s (no frames from the far end)");
}

TEST(LacpSim, PartnerTurnsLacpOffFallbackWaitsForTheLongTimeout) {
  // The far end stops speaking LACP but keeps forwarding (LACP removed from a switch port):
  // fallback engages, but only once no LACPDU has been heard for the long timeout.
  Pair pair(2, with_fallback(port_configs(0x0A, 2)), port_configs(0x0B, 2));
  for (const int cable : pair.cables)
    pair.world.set_traffic(cable, true);
  const std::uint64_t last_rx = converge_then_silence(pair);
  ASSERT_TRUE(
      pair.world.run_until_true([&] { return none_distributing(pair.A()); }, last_rx + 20 * kSecond)
          .has_value());
  EXPECT_EQ(pair.A().fallback(0), FallbackState::kBlockedByLacpdu);
  const auto fallback = pair.world.run_until_true([&] { return distributing_count(pair.A()) == 1; },
                                                  last_rx + 2 * kLongTimeoutTime);
  ASSERT_TRUE(fallback.has_value());
  EXPECT_GE(*fallback - last_rx, kLongTimeoutTime);
  report("partner turns LACP off (fallback on)", seconds(*fallback - last_rx),
         "last LACPDU -> one individual port carries traffic (long timeout)");
}

TEST(LacpSim, LoopedCableNeverFallsBack) {
  // Two ports of one system cabled to each other: every LACPDU comes back as our own.
  World world;
  const int a = world.add_engine(system_config(0x0A), with_fallback(port_configs(0x0A, 2)));
  world.run_until(kSecond);
  const int cable = world.connect({a, 0}, {a, 1});
  world.set_traffic(cable, true);
  LacpSystem& A = world.engine(a);
  EXPECT_FALSE(
      world.run_until_true([&] { return !none_distributing(A); }, 200 * kSecond).has_value());
  EXPECT_GT(A.counters(0).bad(DecodeError::kLoopback), 0u);
  EXPECT_EQ(A.fallback(0), FallbackState::kBlockedByLacpdu);
  report("looped cable (fallback on)", -1, "no port used in 200 s; own LACPDUs counted loopback");
}

TEST(LacpSim, RefusedLacpduIsSentAgainNotAtTheNextPeriodic) {
  // A slow partner only hears us every 30 s; a change refused by a full TX queue must not wait
  // for that.
  Pair pair(2, port_configs(0x0A, 2),
            port_configs(0x0B, 2, LacpActivity::kActive, LacpTimeout::kLong));
  ASSERT_TRUE(pair.converge().has_value());
  pair.world.run_until(pair.world.now() + 5 * kSecond);
  pair.world.capture(true);
  pair.world.refuse_tx({pair.a, 0}, 1);
  const std::uint64_t changed_at = pair.world.now();
  pair.A().set_timeout(0, LacpTimeout::kLong, changed_at);  // NTT: the partner must hear it
  EXPECT_EQ(pair.A().counters(0).lacpdu_tx_failed, 1u);
  EXPECT_TRUE(pair.A().port(0).ntt);
  const auto heard = pair.world.run_until_true(
      [&] { return !has_bit(pair.B().port(0).partner.state, state_bit::kTimeout); },
      changed_at + 5 * kSecond);
  ASSERT_TRUE(heard.has_value());
  EXPECT_LE(*heard - changed_at, kTxRetryTime + kSecond / 100);
  report("refused LACPDU", seconds(*heard - changed_at),
         "TX refused once -> partner has the change (NTT kept, retried)");
}

TEST(LacpSim, GoodbyeTakesThePortOutAtThePartnerWithinOneTrip) {
  Pair pair(2, port_configs(0x0A, 2),
            port_configs(0x0B, 2, LacpActivity::kActive, LacpTimeout::kLong));
  ASSERT_TRUE(pair.converge().has_value());
  const auto goodbye = pair.A().goodbye_frame(1);
  ASSERT_TRUE(goodbye.has_value());
  const std::uint64_t sent_at = pair.world.now();
  pair.world.inject({pair.b, 1}, {goodbye->begin(), goodbye->end()}, CableSpec{}.delay_ns);
  const auto out = pair.world.run_until_true(
      [&] { return !pair.B().distributing(1) && !pair.B().collecting(1); }, sent_at + 10 * kSecond);
  ASSERT_TRUE(out.has_value());
  EXPECT_LE(*out - sent_at, 2 * CableSpec{}.delay_ns);
  EXPECT_TRUE(pair.B().distributing(0));  // the other member stays
  report("goodbye LACPDU", seconds(*out - sent_at),
         "sent -> partner stops collecting/distributing on that port (long-timeout partner)");
}

// Withdrawal (LacpSystem::set_withdrawn): A asks B to stop sending on its port 1 while the link
// stays up and LACP keeps running; Selected = STANDBY (802.1AX-2014 6.4.14) takes the port to
// DETACHED (6.4.15), whose LACPDU clears our Synchronization, Collecting and Distributing bits.
constexpr std::uint64_t kCableDelay = CableSpec{}.delay_ns;
constexpr std::uint8_t kInServiceBits =
    state_bit::kSynchronization | state_bit::kCollecting | state_bit::kDistributing;

bool in_service(LacpSystem& engine, std::size_t port) {
  return engine.collecting(port) && engine.distributing(port);
}

bool out_of_service(LacpSystem& engine, std::size_t port) {
  return !engine.collecting(port) && !engine.distributing(port);
}

// Selection transitions from or to UNSELECTED since `since_ns`: a new selection (6.4.14).
int reselections(const LacpSystem& engine, std::uint64_t since_ns) {
  int count = 0;
  for (const Event& event : engine.event_log().events()) {
    if (event.time_ns >= since_ns && event.machine == Machine::kSelection &&
        (std::string(event.from) == "UNSELECTED" || std::string(event.to) == "UNSELECTED"))
      ++count;
  }
  return count;
}

struct Withdrawal {
  std::uint64_t at_ns = 0;
  std::uint64_t partner_out_ns = 0;  // B stopped collecting and distributing on port 1
  std::uint64_t released_ns = 0;     // A.partner_released_ns(1)
  int a_aggregator = kNoAggregator;
  int b_aggregator = kNoAggregator;
};

// Converges, lets the LACPDU rate windows empty (steady state: one LACPDU a second, 6.4.16),
// then withdraws A's port 1. B must leave it within one trip, say so within the next, and keep
// port 0; A's LACPDUs from then on say out of sync and still echo B.
std::optional<Withdrawal> withdraw_port_1(Pair& pair) {
  if (!pair.converge().has_value()) {
    ADD_FAILURE() << "did not converge";
    return std::nullopt;
  }
  pair.world.run_until(pair.world.now() + 5 * kSecond);
  Withdrawal out;
  out.a_aggregator = pair.A().port(1).aggregator;
  out.b_aggregator = pair.B().port(1).aggregator;
  out.at_ns = pair.world.now();
  pair.world.capture(true);
  const std::uint64_t tx_before = pair.A().counters(1).lacpdu_tx;
  pair.A().set_withdrawn(1, true, out.at_ns);
  EXPECT_TRUE(pair.A().withdrawn(1));
  EXPECT_EQ(pair.A().withdrawn_since_ns(1), out.at_ns);
  EXPECT_EQ(pair.A().counters(1).lacpdu_tx, tx_before + 1);  // NTT went out inside the call
  EXPECT_EQ(pair.A().port(1).actor.state & kInServiceBits, 0);
  EXPECT_EQ(pair.A().port(1).selected, Selected::kStandby);
  EXPECT_TRUE(out_of_service(pair.A(), 1));
  EXPECT_FALSE(pair.A().partner_released_ns(1).has_value());
  const auto partner_out = pair.world.run_until_true([&] { return out_of_service(pair.B(), 1); },
                                                     out.at_ns + 10 * kSecond);
  if (!partner_out.has_value()) {
    ADD_FAILURE() << "B kept port 1 in service";
    return std::nullopt;
  }
  out.partner_out_ns = *partner_out;
  EXPECT_LE(out.partner_out_ns - out.at_ns, kCableDelay);
  EXPECT_TRUE(in_service(pair.A(), 0));
  EXPECT_TRUE(in_service(pair.B(), 0));
  const auto released = pair.world.run_until_true(
      [&] { return pair.A().partner_released_ns(1).has_value(); }, out.at_ns + 10 * kSecond);
  if (!released.has_value()) {
    ADD_FAILURE() << "B never said it stopped distributing";
    return std::nullopt;
  }
  out.released_ns = *pair.A().partner_released_ns(1);
  // B's answer is sent as it hears us: one cable delay each way, no tick in between.
  EXPECT_EQ(out.released_ns - out.at_ns, 2 * kCableDelay);
  EXPECT_EQ(pair.A().port(1).aggregator, out.a_aggregator);
  EXPECT_EQ(pair.B().port(1).aggregator, out.b_aggregator);
  return out;
}

// While withdrawn, both Receive machines stay CURRENT and port 1 out of service at both ends;
// every LACPDU A sends there says out of sync and echoes B (DPDK's net_bonding reads the echo).
void expect_held_withdrawn(Pair& pair, std::uint64_t until_ns) {
  const auto broke = pair.world.run_until_true(
      [&] {
        return pair.A().port(1).rx_state != RxState::kCurrent ||
               pair.B().port(1).rx_state != RxState::kCurrent ||
               has_bit(pair.A().port(1).actor.state, state_bit::kDefaulted) ||
               has_bit(pair.B().port(1).actor.state, state_bit::kDefaulted) ||
               !out_of_service(pair.A(), 1) || !out_of_service(pair.B(), 1) ||
               !in_service(pair.A(), 0) || !in_service(pair.B(), 0);
      },
      until_ns);
  EXPECT_FALSE(broke.has_value()) << "at " << at_time(broke.value_or(0));
  int sent = 0;
  for (const Captured& captured : pair.world.captured()) {
    if (captured.from != Endpoint{pair.a, 1}) continue;
    const DecodedFrame decoded = decode_slow_frame(ByteSpan(captured.frame));
    if (decoded.kind != FrameKind::kLacpdu) continue;
    ++sent;
    EXPECT_EQ(decoded.lacpdu.actor.state & kInServiceBits, 0) << at_time(captured.time_ns);
    EXPECT_FALSE(has_bit(decoded.lacpdu.actor.state, state_bit::kDefaulted));
    const PortInfo& b_actor = pair.B().port(1).actor;
    EXPECT_EQ(decoded.lacpdu.partner.system, b_actor.system);
    EXPECT_EQ(decoded.lacpdu.partner.port_number, b_actor.port_number);
    EXPECT_EQ(decoded.lacpdu.partner.key, b_actor.key);
  }
  EXPECT_GE(sent, 1);
  pair.world.capture(false);
}

// Returns A's port 1 now; both ends must carry it again, neither distributing before the other
// collects. The time both did, or nullopt.
std::optional<std::uint64_t> return_port_1(Pair& pair, bool& early) {
  const std::uint64_t at = pair.world.now();
  pair.A().set_withdrawn(1, false, at);
  EXPECT_FALSE(pair.A().withdrawn(1));
  EXPECT_FALSE(pair.A().withdrawn_since_ns(1).has_value());
  EXPECT_FALSE(pair.A().partner_released_ns(1).has_value());
  EXPECT_EQ(pair.A().port(1).selected, Selected::kSelected);
  early = false;
  return pair.world.run_until_true(
      [&] {
        early = early || (pair.A().distributing(1) && !pair.B().collecting(1)) ||
                (pair.B().distributing(1) && !pair.A().collecting(1));
        return in_service(pair.A(), 1) && in_service(pair.B(), 1);
      },
      at + 20 * kSecond);
}

TEST(LacpSim, WithdrawnPortLeavesThePartnerWithinOneTripAndKeepsItsLacpdus) {
  Pair pair(2);
  const auto withdrawal = withdraw_port_1(pair);
  ASSERT_TRUE(withdrawal.has_value());
  const std::uint64_t a_tx = pair.A().counters(1).lacpdu_tx;
  const std::uint64_t b_tx = pair.B().counters(1).lacpdu_tx;
  expect_held_withdrawn(pair, withdrawal->at_ns + 10 * kSecond);
  // Both ends keep the fast rate they asked for: about one LACPDU a second each way.
  EXPECT_GE(pair.A().counters(1).lacpdu_tx - a_tx, 9u);
  EXPECT_GE(pair.B().counters(1).lacpdu_tx - b_tx, 9u);
  EXPECT_EQ(pair.B().port(1).selected, Selected::kSelected);  // B has nothing to reselect
  EXPECT_EQ(pair.B().port(1).mux_state, MuxState::kAttached);
  EXPECT_TRUE(pair.A().withdrawn(1));
  EXPECT_EQ(pair.A().partner_released_ns(1), withdrawal->released_ns);
  EXPECT_TRUE(pair.A().snapshot().ports[1].withdrawn);
  report("withdrawal", seconds(withdrawal->partner_out_ns - withdrawal->at_ns),
         "withdrawn -> partner stops collecting/distributing; released seen at " +
             at_time(withdrawal->released_ns - withdrawal->at_ns) + "; held 10 s, no expiry");
}

TEST(LacpSim, ReturnAfterWithdrawalNeedsNoNewSelection) {
  Pair pair(2);
  const int a_active = pair.A().active_aggregator();
  const auto withdrawal = withdraw_port_1(pair);
  ASSERT_TRUE(withdrawal.has_value());
  ASSERT_EQ(pair.A().active_aggregator(), a_active);
  expect_held_withdrawn(pair, withdrawal->at_ns + 5 * kSecond);
  const std::uint64_t returned_at = pair.world.now();
  bool early = false;
  const auto back = return_port_1(pair, early);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(early);
  // The aggregate wait started at the withdrawal has long run out: one round trip (our
  // Synchronization there, B's Collecting back), far under Aggregate_Wait_Time.
  EXPECT_LE(*back - returned_at, 2 * kCableDelay);
  EXPECT_EQ(reselections(pair.A(), withdrawal->at_ns), 0);
  EXPECT_EQ(reselections(pair.B(), withdrawal->at_ns), 0);
  EXPECT_EQ(pair.A().port(1).aggregator, withdrawal->a_aggregator);
  EXPECT_EQ(pair.B().port(1).aggregator, withdrawal->b_aggregator);
  EXPECT_EQ(pair.A().active_aggregator(), a_active);
  EXPECT_TRUE(in_service(pair.A(), 0) && in_service(pair.B(), 0));
  // `show lacp` history has the withdrawal and the return.
  std::vector<std::string> history;
  for (const Event& event : pair.A().event_log().events()) {
    if (event.machine == Machine::kWithdrawal) history.push_back(to_string(event));
  }
  ASSERT_EQ(history.size(), 3u);
  EXPECT_NE(history[0].find("port 2 withdrawal IN_SERVICE -> WITHDRAWN"), std::string::npos);
  EXPECT_NE(history[1].find("WITHDRAWN -> PARTNER_RELEASED"), std::string::npos);
  EXPECT_NE(history[2].find("PARTNER_RELEASED -> IN_SERVICE"), std::string::npos);
  report("return after 5 s withdrawn", seconds(*back - returned_at),
         "returned -> both ends Collecting+Distributing; no reselection");
}

TEST(LacpSim, QuickReturnWaitsOutTheAggregateWait) {
  Pair pair(2);
  const auto withdrawal = withdraw_port_1(pair);
  ASSERT_TRUE(withdrawal.has_value());
  pair.world.run_until(withdrawal->at_ns + 400'000'000);
  const std::uint64_t returned_at = pair.world.now();
  // DETACHED -> WAITING started wait_while_timer at the withdrawal (6.4.15); Ready_N needs it run
  // out before ATTACHED, so the port cannot be back before then.
  const std::uint64_t wait_over = withdrawal->at_ns + kAggregateWaitTime;
  bool early = false;
  bool before_wait = false;
  const auto back = return_port_1(pair, early);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(early);
  for (const Event& event : pair.A().event_log().events()) {
    if (event.port_number == 2 && event.machine == Machine::kMux && event.time_ns > returned_at &&
        std::string(event.to) == "ATTACHED")
      before_wait = before_wait || event.time_ns < wait_over;
  }
  EXPECT_FALSE(before_wait);
  EXPECT_GE(*back, wait_over);
  EXPECT_LE(*back - wait_over, 2 * kCableDelay);
  EXPECT_EQ(reselections(pair.A(), withdrawal->at_ns), 0);
  EXPECT_EQ(reselections(pair.B(), withdrawal->at_ns), 0);
  report("quick return (withdrawn 0.4 s)", seconds(*back - returned_at),
         "returned -> both ends back; " + at_time(*back - wait_over) +
             " after the aggregate wait from the withdrawal ran out");
}

TEST(LacpSim, WithdrawalAgainstAnIndependentControlPartner) {
  auto b_ports = port_configs(0x0B, 2);
  for (auto& port : b_ports)
    port.mux_mode = MuxMode::kIndependent;
  Pair pair(2, port_configs(0x0A, 2), b_ports);
  const auto withdrawal = withdraw_port_1(pair);
  ASSERT_TRUE(withdrawal.has_value());
  expect_held_withdrawn(pair, withdrawal->at_ns + 10 * kSecond);
  EXPECT_EQ(pair.B().port(1).mux_state, MuxState::kAttached);
  const std::uint64_t returned_at = pair.world.now();
  bool early = false;
  const auto back = return_port_1(pair, early);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(early);
  EXPECT_LE(*back - returned_at, 2 * kCableDelay);
  EXPECT_EQ(pair.B().port(1).mux_state, MuxState::kDistributing);
  EXPECT_EQ(reselections(pair.B(), withdrawal->at_ns), 0);
  report("withdrawal, independent-control partner",
         seconds(withdrawal->partner_out_ns - withdrawal->at_ns),
         "withdrawn -> partner out; released at " +
             at_time(withdrawal->released_ns - withdrawal->at_ns) + ", back " +
             at_time(*back - returned_at) + " after the return");
}

TEST(LacpSim, WithdrawalAgainstALongTimeoutPartner) {
  Pair pair(2, port_configs(0x0A, 2),
            port_configs(0x0B, 2, LacpActivity::kActive, LacpTimeout::kLong));
  const auto withdrawal = withdraw_port_1(pair);
  ASSERT_TRUE(withdrawal.has_value());
  // Past the partner's own Long_Timeout: our slow periodic LACPDUs keep it CURRENT (6.4.12).
  expect_held_withdrawn(pair, withdrawal->at_ns + kLongTimeoutTime + 10 * kSecond);
  const std::uint64_t returned_at = pair.world.now();
  bool early = false;
  const auto back = return_port_1(pair, early);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(early);
  EXPECT_LE(*back - returned_at, 2 * kCableDelay);
  EXPECT_EQ(reselections(pair.A(), withdrawal->at_ns), 0);
  EXPECT_EQ(reselections(pair.B(), withdrawal->at_ns), 0);
  report("withdrawal, long-timeout partner",
         seconds(withdrawal->partner_out_ns - withdrawal->at_ns),
         "withdrawn -> partner out; released at " +
             at_time(withdrawal->released_ns - withdrawal->at_ns) + "; held 100 s, back " +
             at_time(*back - returned_at) + " after the return");
}

TEST(LacpSim, CoupledNeverDistributesBeforeAnIndependentPartnerCollects) {
  auto b_ports = port_configs(0x0B, 2);
  for (auto& port : b_ports) {
    port.mux_mode = MuxMode::kIndependent;
    port.aggregate_wait_ns = 5 * kSecond;  // B collects late
  }
  Pair pair(2, port_configs(0x0A, 2), b_ports);
  bool early = false;
  const auto done = pair.world.run_until_true(
      [&] {
        for (std::size_t p = 0; p < 2; ++p)
          early = early || (pair.A().distributing(p) && !pair.B().collecting(p));
        return all_distributing(pair.A()) && all_distributing(pair.B());
      },
      pair.world.now() + 20 * kSecond);
  ASSERT_TRUE(done.has_value());
  EXPECT_FALSE(early);
  report("coupled vs independent partner", seconds(*done - pair.link_up_ns),
         "link up -> both distribute; never before the partner collects");
}

TEST(LacpSim, OnePercentLossStillConvergesAndHolds) {
  CableSpec lossy;
  lossy.loss_a_to_b = 0.01;
  lossy.loss_b_to_a = 0.01;
  Pair pair(4, port_configs(0x0A, 4), port_configs(0x0B, 4), lossy, 4242);
  const auto done = pair.converge();
  ASSERT_TRUE(done.has_value());
  const auto broke = pair.world.run_until_true(
      [&] { return !all_distributing(pair.A()) || !all_distributing(pair.B()); },
      pair.world.now() + 300 * kSecond);
  EXPECT_FALSE(broke.has_value());
  EXPECT_GT(pair.world.frames_lost(), 0u);
  report("1% random loss, 4 links", seconds(*done - pair.link_up_ns),
         "link up -> all 4 ports; then held 300 s (" + std::to_string(pair.world.frames_lost()) +
             " frames lost)");
}

TEST(LacpSim, FallbackWhenPartnerNeverAnswers) {
  World world;
  const int a = world.add_engine(system_config(0x0A), with_fallback(port_configs(0x0A, 2)));
  const int dumb = world.add_engine(system_config(0x0D), port_configs(0x0D, 2));
  world.mute(dumb, true);  // a switch port with LACP off: it never answers, but forwards
  world.run_until(kSecond);
  world.set_traffic(world.connect({a, 0}, {dumb, 0}), true);
  world.set_traffic(world.connect({a, 1}, {dumb, 1}), true);
  LacpSystem& A = world.engine(a);
  const auto used = world.run_until_true([&] { return distributing_count(A) == 1; }, 30 * kSecond);
  ASSERT_TRUE(used.has_value());
  world.run_until(world.now() + 30 * kSecond);
  EXPECT_EQ(distributing_count(A), 1);  // active-backup, never both
  EXPECT_STREQ(A.snapshot().ports[0].receive_state, "DEFAULTED");
  report("fallback, partner never answers", seconds(*used - kSecond),
         "link up -> one individual port carries traffic");

  // The default: fallback off, no port is used.
  World strict;
  const int s = strict.add_engine(system_config(0x0A), port_configs(0x0A, 2));
  const int d = strict.add_engine(system_config(0x0D), port_configs(0x0D, 2));
  strict.mute(d, true);
  strict.set_traffic(strict.connect({s, 0}, {d, 0}), true);
  strict.set_traffic(strict.connect({s, 1}, {d, 1}), true);
  EXPECT_FALSE(
      strict.run_until_true([&] { return !none_distributing(strict.engine(s)); }, 60 * kSecond)
          .has_value());
  report("no fallback, partner never answers", -1, "no port used in 60 s (fallback off)");
}

TEST(LacpSim, PartnerRestartWithNewSystemId) {
  Pair pair(2);
  ASSERT_TRUE(pair.converge().has_value());
  pair.world.run_until(pair.world.now() + 5 * kSecond);
  pair.world.restart_engine(pair.b, system_config(0x2B), port_configs(0x2B, 2), kSecond);
  const std::uint64_t up_at = pair.world.now() + kSecond;
  EXPECT_TRUE(none_distributing(pair.A()));
  const auto back = pair.converge();
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(pair.A().port(0).partner.system, system_config(0x2B).system_mac);
  EXPECT_LE(*back - up_at, kAggregateWaitTime + 2 * kFastPeriodicTime);
  report("partner restart, new system id", seconds(*back - up_at),
         "links up again -> aggregated with the new system");
}

TEST(LacpSim, CableMovedToAnotherSwitch) {
  World world;
  const int a = world.add_engine(system_config(0x0A), port_configs(0x0A, 2));
  const int b = world.add_engine(system_config(0x0B), port_configs(0x0B, 2));
  const int c = world.add_engine(system_config(0x0C), port_configs(0x0C, 1));
  world.connect({a, 0}, {b, 0});
  const int moving = world.connect({a, 1}, {b, 1});
  LacpSystem& A = world.engine(a);
  ASSERT_TRUE(world.run_until_true([&] { return all_distributing(A); }, 20 * kSecond));
  world.run_until(world.now() + 5 * kSecond);
  const std::uint64_t moved_at = world.now();
  world.move_cable(moving, {c, 0}, kSecond);
  const auto settled = world.run_until_true(
      [&] {
        return A.port(1).partner.system == system_config(0x0C).system_mac &&
               A.port(1).selected == Selected::kStandby;
      },
      moved_at + 20 * kSecond);
  ASSERT_TRUE(settled.has_value());
  EXPECT_TRUE(A.distributing(0));
  EXPECT_FALSE(A.distributing(1));
  EXPECT_EQ(A.counters(0).lacpdu_rx > 0, true);
  report("cable moved to another switch", seconds(*settled - moved_at - kSecond),
         "replugged -> port split off (STANDBY), port 1 kept distributing");
}

TEST(LacpSim, LossBurstsShorterThanTheTimeoutAreRidden) {
  Pair pair(2);
  ASSERT_TRUE(pair.converge().has_value());
  pair.world.run_until(pair.world.now() + 5 * kSecond);
  for (const int cable : pair.cables)
    pair.world.set_loss(cable, 1.0, 1.0);
  const std::uint64_t burst_at = pair.world.now();
  EXPECT_FALSE(
      pair.world.run_until_true([&] { return !all_distributing(pair.A()); }, burst_at + 2 * kSecond)
          .has_value());
  for (const int cable : pair.cables)
    pair.world.set_loss(cable, 0.0, 0.0);
  pair.world.run_until(pair.world.now() + 5 * kSecond);
  EXPECT_TRUE(all_distributing(pair.A()));
  // A 6 s burst takes the links out; they come back once frames flow.
  for (const int cable : pair.cables)
    pair.world.set_loss(cable, 1.0, 1.0);
  const std::uint64_t long_burst_at = pair.world.now();
  pair.world.run_until(long_burst_at + 6 * kSecond);
  EXPECT_TRUE(none_distributing(pair.A()));
  for (const int cable : pair.cables)
    pair.world.set_loss(cable, 0.0, 0.0);
  const std::uint64_t clear_at = pair.world.now();
  const auto back = pair.converge();
  ASSERT_TRUE(back.has_value());
  report("loss burst 2 s", 0, "ridden out, no port left Collecting+Distributing");
  report("loss burst 6 s", seconds(*back - clear_at), "burst over -> all ports back");
}

TEST(LacpSim, IndependentMuxControlConverges) {
  auto a_ports = port_configs(0x0A, 2);
  auto b_ports = port_configs(0x0B, 2);
  for (auto* ports : {&a_ports, &b_ports}) {
    for (auto& port : *ports)
      port.mux_mode = MuxMode::kIndependent;
  }
  Pair pair(2, a_ports, b_ports);
  const auto done = pair.converge();
  ASSERT_TRUE(done.has_value());
  // One more round trip than coupled control (COLLECTING, then DISTRIBUTING once the partner
  // says Collecting); that extra LACPDU can be held by the 3-per-second limit (6.4.16) behind
  // the periodic ones, so allow one more Fast_Periodic_Time.
  EXPECT_LE(*done - pair.link_up_ns, kAggregateWaitTime + 2 * kSecond);
  EXPECT_EQ(pair.A().port(0).mux_state, MuxState::kDistributing);
  report("independent mux control", seconds(*done - pair.link_up_ns),
         "link up -> COLLECTING then DISTRIBUTING on all ports");
}

TEST(LacpSim, FastActorWithSlowPartnerLikeDpdkPmd) {
  // DPDK's bonding PMD advertises Long Timeout and key 33; braid still asks for fast LACPDUs.
  auto b_ports = port_configs(0x0B, 2, LacpActivity::kActive, LacpTimeout::kLong);
  for (auto& port : b_ports)
    port.key = 33;
  Pair pair(2, port_configs(0x0A, 2), b_ports);
  const auto done = pair.converge();
  ASSERT_TRUE(done.has_value());
  const std::uint64_t b_tx = pair.B().counters(0).lacpdu_tx;
  const std::uint64_t a_tx = pair.A().counters(0).lacpdu_tx;
  EXPECT_FALSE(pair.world
                   .run_until_true([&] { return !all_distributing(pair.A()); },
                                   pair.world.now() + 200 * kSecond)
                   .has_value());
  EXPECT_GE(pair.B().counters(0).lacpdu_tx - b_tx, 190u);  // partner sends fast for us
  EXPECT_LE(pair.A().counters(0).lacpdu_tx - a_tx, 10u);   // we send slow for it
  report("fast actor vs slow partner (PMD-like)", seconds(*done - pair.link_up_ns),
         "link up -> aggregated; held 200 s");
}

TEST(LacpSim, MaxActivePortsPutsTheRestInStandby) {
  World world;
  SystemConfig limited = system_config(0x0A, 0x1000);  // better System ID: our priorities rule
  limited.max_active_ports = 2;
  auto a_ports = port_configs(0x0A, 3);
  a_ports[0].port_priority = 300;  // lowest preference
  const int a = world.add_engine(limited, a_ports);
  const int b = world.add_engine(system_config(0x0B), port_configs(0x0B, 3));
  world.run_until(kSecond);
  for (std::size_t i = 0; i < 3; ++i)
    world.connect({a, i}, {b, i});
  LacpSystem& A = world.engine(a);
  LacpSystem& B = world.engine(b);
  const auto done = world.run_until_true(
      [&] {
        return A.distributing(1) && A.distributing(2) && B.distributing(1) && B.distributing(2);
      },
      20 * kSecond);
  ASSERT_TRUE(done.has_value());
  world.run_until(world.now() + 10 * kSecond);
  EXPECT_FALSE(A.distributing(0));
  EXPECT_EQ(A.port(0).selected, Selected::kStandby);
  EXPECT_FALSE(B.distributing(0));  // B sees us out of sync there
  // The standby port takes over when an active one fails.
  world.set_link(1, false);
  const std::uint64_t failed_at = world.now();
  const auto took_over =
      world.run_until_true([&] { return A.distributing(0); }, failed_at + 20 * kSecond);
  ASSERT_TRUE(took_over.has_value());
  report("max active ports 2 of 3", seconds(*done - kSecond),
         "link up -> 2 best ports active; standby took over " + at_time(*took_over - failed_at) +
             " after a failure");
}

TEST(LacpSim, BandwidthPolicyPrefersTheFatterAggregator) {
  World world;
  SystemConfig config = system_config(0x0A);
  config.aggregator_select = AggregatorSelect::kBandwidth;
  const int a = world.add_engine(config, port_configs(0x0A, 3));
  const int b = world.add_engine(system_config(0x0B), port_configs(0x0B, 1));
  const int c = world.add_engine(system_config(0x0C), port_configs(0x0C, 2));
  world.connect({a, 0}, {b, 0});  // B comes up first
  world.run_until(5 * kSecond);
  world.connect({a, 1}, {c, 0});
  world.connect({a, 2}, {c, 1});
  LacpSystem& A = world.engine(a);
  const auto moved = world.run_until_true(
      [&] { return A.distributing(1) && A.distributing(2) && !A.distributing(0); }, 30 * kSecond);
  ASSERT_TRUE(moved.has_value());
  report("ad_select=bandwidth", seconds(*moved - 5 * kSecond),
         "2-link LAG to C replaces 1-link LAG to B");
}

}  // namespace
}  // namespace braid::lacp::sim
