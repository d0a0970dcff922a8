// Emulated links attached to ports, by ethdev port id, so braid finds them the way it finds a
// NIC's counters: the scheduler reads an attached link's queue depth (least-queue-first) and
// the `sim` congestion source its pause and discard counters, without the test or benchmark
// that built the link wiring anything into the engine. The link's owner publishes; the control
// thread reads a copy under the registry's lock, so a link may be detached at any time.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>

#include "linkemu/link_model.hpp"
#include "sched/congestion.hpp"

namespace braid::linkemu {

struct LinkReading {
  std::uint32_t queue_depth = 0;  // packets the port accepted that the link has not sent yet
  sched::CongestionCounters congestion;
};

// The numbers a running link publishes (single writer: the thread that polls the link), and
// what is waiting to reach it, read live: the port's TX ring, filled by the workers.
class LinkPublication {
 public:
  explicit LinkPublication(std::function<std::uint32_t()> waiting) : waiting_(std::move(waiting)) {}
  // `queued`: packets the link took in and has not sent.
  void publish(std::uint32_t queued, const LinkCounters& counters);
  // The depth counts everything handed to the port up to now, as long as the link is not polled
  // meanwhile (the poller publishes, so a reader on the polling thread always has that).
  LinkReading read() const;

 private:
  std::function<std::uint32_t()> waiting_;
  std::atomic<std::uint32_t> queued_{0};
  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> dropped_queue_{0};
  std::atomic<std::uint64_t> pause_frames_{0};
  std::atomic<std::uint64_t> pause_ns_{0};
  std::array<std::atomic<std::uint64_t>, sched::kPfcPriorities> priority_pause_frames_{};
  std::array<std::atomic<std::uint64_t>, sched::kPfcPriorities> priority_pause_ns_{};
};

// Receive errors an emulated link injected on a port (rx_errors.hpp): read by braid as the port's
// `rx_crc_errors` xstat.
class RxErrorPublication {
 public:
  void add(std::uint64_t errors) { crc_errors_.fetch_add(errors, std::memory_order_relaxed); }
  std::uint64_t crc_errors() const { return crc_errors_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> crc_errors_{0};
};

void attach_rx_errors(std::uint16_t port_id, const RxErrorPublication* errors);
void detach_rx_errors(std::uint16_t port_id, const RxErrorPublication* errors);
// The CRC errors injected on `port_id`; nullopt when nothing injects any.
std::optional<std::uint64_t> injected_crc_errors(std::uint16_t port_id);

// A NIC whose counter reads block: mlx5 answers xstats through an ethtool ioctl that waits for
// the kernel's rtnl lock, held by whatever else configures the host's netdevs meanwhile. braid
// calls emulate_counter_read() where it reads a member's counters (the health sample, `show port
// xstats`), which blocks its caller `delay_ns` on a port given one (0: none, the default).
void set_counter_read_delay(std::uint16_t port_id, std::uint64_t delay_ns);
void emulate_counter_read(std::uint16_t port_id);

// One link per port; attaching a second replaces the first. The publication must stay valid
// until detach_link returns.
void attach_link(std::uint16_t port_id, const LinkPublication* link);
void detach_link(std::uint16_t port_id, const LinkPublication* link);
// What the link attached to `port_id` published last; nullopt when none is attached.
std::optional<LinkReading> attached_link(std::uint16_t port_id);

}  // namespace braid::linkemu
