// The console's `stop` and `start` (Engine::pause/resume) never make the protocol loop wait for a
// worker that is held up (issue 33 item 1): a PMD that takes 200 ms in one burst, or a worker
// descheduled that long, must not take LACP, BFD and every console client with it.
#include <gtest/gtest.h>
#include <rte_ethdev.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "bond_rig.hpp"
#include "common/clock.hpp"
#include "log_capture.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

// The next RX burst on the host port takes this long (then 0: bursts as usual).
std::atomic<std::uint64_t> next_burst_ns{0};
std::atomic<bool> holding{false};

std::uint16_t hold_one_burst(std::uint16_t, std::uint16_t, rte_mbuf**, std::uint16_t received,
                             std::uint16_t, void*) {
  if (const std::uint64_t hold = next_burst_ns.exchange(0); hold != 0) {
    holding.store(true);
    std::this_thread::sleep_for(std::chrono::nanoseconds(hold));
    holding.store(false);
  }
  return received;
}

bool await_acknowledged(BondRig& rig) {
  const std::uint64_t deadline = monotonic_ns() + 5'000 * kMs;
  while (!rig.engine().workers_not_acknowledged().empty()) {
    if (monotonic_ns() > deadline) return false;
    rig.engine().poll_control(monotonic_ns());
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  rig.engine().poll_control(monotonic_ns());
  return true;
}

TEST(ConsoleStop, AWorkerHeldUpInItsPmdDoesNotHoldUpTheProtocolLoop) {
  BondRig rig(2, ", mode: static");
  rig.engine().start();
  const rte_eth_rxtx_callback* callback =
      rte_eth_add_rx_callback(rig.host().port_id(), 0, hold_one_burst, nullptr);
  ASSERT_NE(callback, nullptr) << "RX callbacks are compiled out of this DPDK";
  LogCapture log;

  next_burst_ns.store(200 * kMs);
  const std::uint64_t wait_from = monotonic_ns();
  while (!holding.load()) {
    ASSERT_LT(monotonic_ns() - wait_from, 5'000 * kMs) << "the worker never polled";
  }
  std::uint64_t start = monotonic_ns();
  EXPECT_FALSE(rig.engine().pause()) << "a worker held 200 ms cannot have acknowledged";
  const std::uint64_t pause_ns = monotonic_ns() - start;
  EXPECT_LT(pause_ns, 20 * kMs) << "pause() waited for the held worker";
  EXPECT_FALSE(rig.engine().forwarding());
  EXPECT_EQ(rig.engine().workers_not_acknowledged().size(), 1u);
  ASSERT_TRUE(await_acknowledged(rig));
  EXPECT_NE(log.text().find("forwarding stopped: every worker acknowledged"), std::string::npos)
      << log.text();

  // The same for `start`.
  next_burst_ns.store(200 * kMs);
  while (!holding.load()) {
  }
  start = monotonic_ns();
  EXPECT_FALSE(rig.engine().resume());
  const std::uint64_t resume_ns = monotonic_ns() - start;
  EXPECT_LT(resume_ns, 20 * kMs) << "resume() waited for the held worker";
  EXPECT_TRUE(rig.engine().forwarding());
  ASSERT_TRUE(await_acknowledged(rig));
  EXPECT_NE(log.text().find("forwarding started: every worker acknowledged"), std::string::npos)
      << log.text();
  std::printf("pause() returned in %.3f ms, resume() in %.3f ms, with the worker held 200 ms\n",
              static_cast<double>(pause_ns) / 1e6, static_cast<double>(resume_ns) / 1e6);

  // And it forwards again.
  const std::uint64_t received = rig.received_total();
  rig.send(1000);
  EXPECT_EQ(rig.received_total(), received + 1000);
  rte_eth_remove_rx_callback(rig.host().port_id(), 0, callback);
  rig.engine().stop();
}

}  // namespace
}  // namespace braid::test
