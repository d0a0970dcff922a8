#include "port/virtual_cable.hpp"

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <stdexcept>
#include <vector>

#include "port/slow_protocols.hpp"

namespace braid::drivers {
namespace {

constexpr unsigned kCableRingSize = 4096;
// Every TX queue of an end feeds the same ring (multi-producer): a worker per queue plus the
// control thread's LACP queue.
constexpr unsigned kCableTxQueues = 16;
// Slow Protocols frames are a few per second per end (802.1AX 6.4.4).
constexpr unsigned kCableSlowRingSize = 256;
constexpr std::uint16_t kDataQueue = 0;
constexpr std::uint16_t kSlowQueue = 1;

struct CableEnd {
  std::string name;  // NAME of cable:NAME/END
  std::string end;   // "a" or "b"
};

CableEnd parse_cable_end(const std::string& device) {
  const std::string spec = device.substr(std::string(kCablePrefix).size());
  const std::size_t slash = spec.rfind('/');
  CableEnd parsed{slash == std::string::npos ? "" : spec.substr(0, slash),
                  slash == std::string::npos ? "" : spec.substr(slash + 1)};
  if (parsed.name.empty() || parsed.name.size() > 20 || (parsed.end != "a" && parsed.end != "b")) {
    throw std::runtime_error("device \"" + device +
                             "\": a cable end is cable:NAME/a or cable:NAME/b (NAME up to 20 "
                             "characters)");
  }
  return parsed;
}

// The direction a cable end receives: frames that end `end` of cable `name` reads.
std::string inbound(const CableEnd& cable) {
  return cable.name + (cable.end == "a" ? "_ba" : "_ab");
}

rte_ring* cable_ring(const std::string& name, unsigned size) {
  if (rte_ring* ring = rte_ring_lookup(name.c_str())) return ring;
  rte_ring* ring = rte_ring_create(name.c_str(), size, SOCKET_ID_ANY, RING_F_SC_DEQ);
  if (ring == nullptr) throw std::runtime_error("cannot create ring " + name);
  return ring;
}

// Runs inside rte_eth_rx_burst on the data queue, in the worker that polls it: what a NIC's
// steering rule does before the frame reaches a queue. A frame that does not fit in the slow
// ring stays in the burst (the worker then diverts it over the bond's ring), never lost.
std::uint16_t divert_slow_frames(std::uint16_t, std::uint16_t, rte_mbuf** frames,
                                 std::uint16_t count, std::uint16_t, void* slow_ring) {
  std::uint16_t kept = 0;
  for (std::uint16_t i = 0; i < count; ++i) {
    if (is_slow_protocols(frames[i]) &&
        rte_ring_mp_enqueue(static_cast<rte_ring*>(slow_ring), frames[i]) == 0) {
      continue;
    }
    frames[kept++] = frames[i];
  }
  return kept;
}

class CableSteering : public SlowSteering {
 public:
  CableSteering(std::uint16_t port_id, rte_ring* slow_ring, const rte_eth_rxtx_callback* callback)
      : port_id_(port_id), slow_ring_(slow_ring), callback_(callback) {}
  ~CableSteering() override {
    // Destroyed with the port stopping, after the workers returned: no thread is inside the
    // callback any more, so its memory can go back (rte_eth_remove_rx_callback leaves that to
    // the caller). Frames still waiting would otherwise outlive their mempool.
    rte_eth_remove_rx_callback(port_id_, kDataQueue, callback_);
    rte_free(const_cast<rte_eth_rxtx_callback*>(callback_));
    rte_mbuf* frame = nullptr;
    while (rte_ring_dequeue(slow_ring_, reinterpret_cast<void**>(&frame)) == 0)
      rte_pktmbuf_free(frame);
  }
  CableSteering(const CableSteering&) = delete;
  CableSteering& operator=(const CableSteering&) = delete;

  std::string description() const override { return "virtual cable, emulated"; }

 private:
  std::uint16_t port_id_;
  rte_ring* slow_ring_;
  const rte_eth_rxtx_callback* callback_;
};

}  // namespace

bool is_cable_device(const std::string& device) {
  return device.rfind(kCablePrefix, 0) == 0;
}

std::uint16_t open_cable_end(const std::string& device) {
  const CableEnd cable = parse_cable_end(device);
  const std::string ethdev = "cable_" + cable.name + "_" + cable.end;
  std::uint16_t port_id = 0;
  if (rte_eth_dev_get_port_by_name(ethdev.c_str(), &port_id) == 0) return port_id;
  rte_ring* a_to_b = cable_ring("cab_" + cable.name + "_ab", kCableRingSize);
  rte_ring* b_to_a = cable_ring("cab_" + cable.name + "_ba", kCableRingSize);
  rte_ring* rx[] = {cable.end == "a" ? b_to_a : a_to_b,
                    cable_ring("cas_" + inbound(cable), kCableSlowRingSize)};
  std::vector<rte_ring*> tx(kCableTxQueues, cable.end == "a" ? a_to_b : b_to_a);
  const int id = rte_eth_from_rings(ethdev.c_str(), rx, 2, tx.data(), kCableTxQueues, 0);
  if (id < 0) throw std::runtime_error("device \"" + device + "\": rte_eth_from_rings failed");
  // rte_eth_from_rings prefixes the name; it is what rte_eth_dev_get_port_by_name finds later.
  return static_cast<std::uint16_t>(id);
}

rte_ring* cable_slow_ring(const std::string& device) {
  if (!is_cable_device(device)) return nullptr;
  return rte_ring_lookup(("cas_" + inbound(parse_cable_end(device))).c_str());
}

SteeringResult steer_cable_slow_protocols(const std::string& device,
                                          const SteeringRequest& request) {
  SteeringResult result;
  if (request.data_queues != 1 || request.slow_queue != kSlowQueue) {
    result.error = "a virtual cable end has one data queue and its slow queue at index 1";
    return result;
  }
  rte_ring* slow_ring = cable_slow_ring(device);
  if (slow_ring == nullptr) {
    result.error = "cable " + device + " has no slow ring";
    return result;
  }
  const rte_eth_rxtx_callback* callback =
      rte_eth_add_rx_callback(request.port_id, kDataQueue, divert_slow_frames, slow_ring);
  if (callback == nullptr) {
    result.error = std::string("rte_eth_add_rx_callback: ") + rte_strerror(rte_errno);
    return result;
  }
  result.steering = std::make_unique<CableSteering>(request.port_id, slow_ring, callback);
  return result;
}

}  // namespace braid::drivers
