// Test traffic for bond tests and benchmarks: many distinct UDP flows whose frames carry their
// flow id and a per-flow sequence number, so a receiver can tell which flow a packet belongs to,
// on which member it arrived, and whether anything was reordered.
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "trace/frame_builder.hpp"

namespace braid::test {

inline constexpr std::size_t kStampOffset = 48;  // inside the UDP payload of a 64-byte frame

struct Stamp {
  std::uint32_t flow = 0;
  std::uint32_t sequence = 0;
  // The time whose order a flow's packets must keep, 0 if not stamped: when the bond handed the
  // packet to the member (a TX callback on ring ports, RingPort, writes the TSC), or, behind an
  // emulated link, when it arrived at the far end (BondRig fills in the link's RX timestamp).
  std::uint64_t time = 0;
};

class FlowSet {
 public:
  static constexpr std::uint8_t kEct0 = 0x02;  // the ECN field of the IP header: ECT(0)

  explicit FlowSet(std::uint32_t flows, std::uint16_t frame_size = 64) : frame_size_(frame_size) {
    for (std::uint32_t f = 0; f < flows; ++f) {
      trace::FlowSpec spec;
      spec.protocol = trace::kIpProtoUdp;
      spec.src_ipv4 = 0x0a000000 | f;
      spec.dst_ipv4 = 0xc0a80001;
      spec.src_port = static_cast<std::uint16_t>(1024 + f % 50000);
      spec.dst_port = 4420;
      spec.traffic_class = kEct0;  // ECN-capable, as RoCEv2 and DCTCP traffic is
      frames_.push_back(trace::build_frame(spec, frame_size));
      specs_.push_back(spec);
    }
    next_sequence_.assign(flows, 0);
  }

  // Flows [first, last) carry DSCP `dscp` from now on (an emulated link sends DSCP 26 on PFC
  // priority 3: ring_link.cpp).
  void set_dscp(std::uint32_t first, std::uint32_t last, std::uint8_t dscp) {
    for (std::uint32_t f = first; f < last && f < specs_.size(); ++f) {
      specs_[f].traffic_class = static_cast<std::uint8_t>(dscp << 2 | kEct0);
      frames_[f] = trace::build_frame(specs_[f], frame_size_);
    }
  }

  // Flows [first, last) become RoCEv2 CNPs: UDP to 4791, a BTH with opcode 0x81 (the stamp
  // overwrites the BTH's QP and PSN, which nothing here reads).
  void set_roce_cnp(std::uint32_t first, std::uint32_t last) {
    constexpr std::size_t kBthOffset = 14 + 20 + 8;  // untagged IPv4 and UDP headers
    for (std::uint32_t f = first; f < last && f < specs_.size(); ++f) {
      specs_[f].dst_port = 4791;
      frames_[f] = trace::build_frame(specs_[f], frame_size_);
      frames_[f][kBthOffset] = 0x81;
    }
  }

  std::uint32_t size() const { return static_cast<std::uint32_t>(frames_.size()); }

  // An mbuf carrying the next packet of `flow`, or nullptr when the pool is empty.
  rte_mbuf* make(rte_mempool* pool, std::uint32_t flow) {
    rte_mbuf* mbuf = rte_pktmbuf_alloc(pool);
    if (mbuf == nullptr) return nullptr;
    const std::vector<std::uint8_t>& frame = frames_[flow];
    char* data = rte_pktmbuf_append(mbuf, static_cast<std::uint16_t>(frame.size()));
    if (data == nullptr) {
      rte_pktmbuf_free(mbuf);
      return nullptr;
    }
    std::memcpy(data, frame.data(), frame.size());
    const Stamp stamp{flow, ++next_sequence_[flow], 0};
    std::memcpy(data + kStampOffset, &stamp, sizeof stamp);
    return mbuf;
  }

  static Stamp stamp_of(const rte_mbuf* mbuf) {
    Stamp stamp;
    std::memcpy(&stamp, rte_pktmbuf_mtod(mbuf, const char*) + kStampOffset, sizeof stamp);
    return stamp;
  }

 private:
  std::uint16_t frame_size_;
  std::vector<trace::FlowSpec> specs_;
  std::vector<std::vector<std::uint8_t>> frames_;
  std::vector<std::uint32_t> next_sequence_;
};

// Per-flow receive bookkeeping: which member a flow was last seen on, and reordering.
class FlowTracker {
 public:
  static constexpr int kNone = -1;

  explicit FlowTracker(std::uint32_t flows)
      : member_(flows, kNone), last_(flows, 0), last_time_(flows, 0) {}

  void seen(const Stamp& stamp, int member) {
    if (stamp.flow >= member_.size()) {
      ++foreign_;
      return;
    }
    // Reordered means sent (or, behind emulated links, arrived) out of order. With a timestamp,
    // the order this thread happens to read the members' rings in does not matter (a packet read
    // late from one ring may still have been sent first); without one, reading order stands in.
    const std::uint64_t last_time = last_time_[stamp.flow];
    const bool later_sequence = stamp.sequence > last_[stamp.flow];
    if (stamp.time != 0 && last_time != 0) {
      // One burst shares one timestamp: equal stamps are in order.
      if (later_sequence ? stamp.time < last_time : stamp.time > last_time) ++reordered_;
    } else if (!later_sequence) {
      ++reordered_;
    }
    if (later_sequence) {
      last_[stamp.flow] = stamp.sequence;
      last_time_[stamp.flow] = stamp.time;
    }
    member_[stamp.flow] = member;
    ++received_;
  }

  int member_of(std::uint32_t flow) const { return member_[flow]; }
  const std::vector<int>& members() const { return member_; }
  std::uint64_t received() const { return received_; }
  std::uint64_t reordered() const { return reordered_; }
  std::uint64_t foreign() const { return foreign_; }

 private:
  std::vector<int> member_;
  std::vector<std::uint32_t> last_;
  std::vector<std::uint64_t> last_time_;
  std::uint64_t received_ = 0;
  std::uint64_t reordered_ = 0;
  std::uint64_t foreign_ = 0;
};

}  // namespace braid::test
