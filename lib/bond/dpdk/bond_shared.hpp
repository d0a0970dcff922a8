// What every worker shares about one bond, read-only on the data path: the table publisher, the
// hasher, the ring to the control thread, per member the partner's and BFD peer's sources, and
// the bond's classes with what they need per packet (ECN profiles, rate caps).
#pragma once

#include <rte_ring.h>

#include <array>
#include <atomic>
#include <cstdint>

#include "bond/bfd_divert.hpp"
#include "bond/dpdk/table_publisher.hpp"
#include "classify/classifier.hpp"
#include "ecn/ecn_profile.hpp"
#include "flow/flow_hash.hpp"

namespace braid::bond {

// What every worker shares about one bond (read-only on the data path).
struct BondShared {
  const TablePublisher* publisher = nullptr;
  const flow::FlowHasher* hasher = nullptr;
  rte_ring* slow_ring = nullptr;  // multi-producer (workers), single-consumer (control thread)
  // Per-bucket activity is recorded only while a flowlet policy reads it (about 2 ns a packet).
  const std::atomic<bool>* record_activity = nullptr;
  std::uint16_t member_count = 0;
  // Per member, the source address of its partner's LACPDUs (source_address_key; 0: none),
  // written by the protocol loop: the partner's frames have a rate limit of their own.
  const std::atomic<std::uint64_t>* partner_sources = nullptr;
  // BFD frames go to the protocol loop over slow_ring too (bfd_divert.hpp); per member, its
  // MAC (mac_key; 0 until the bond starts), which single-hop and micro-BFD frames may name.
  BfdDivertRule bfd;
  const std::atomic<std::uint64_t>* bfd_local_macs = nullptr;
  // Per member, the source MAC of its BFD peer (mac_key; 0: none yet): a limit of its own.
  const std::atomic<std::uint64_t>* bfd_peer_sources = nullptr;
  // LLDP runs on the bond's members (config lldp): untagged 0x88cc frames go to the control
  // thread over slow_ring too; off, they are data like any other frame.
  bool lldp = false;
  // The bond's traffic classes (bonds[].classes; null: none): every frame the bond distributes
  // is classified, counted (ClassHits) and sent by its class's table.
  const classify::Classifier* classifier = nullptr;
  // braid's own ECN marking (classes.list[].ecn): per class its profile (null: off) and the
  // classes that have one (bit c); each worker marks on its own queue (BondEgress::note_queue).
  std::array<const ecn::EcnProfile*, classify::kMaxClasses> ecn{};
  std::uint8_t ecn_classes = 0;
  // Reserved shares and rate caps (classes.list[].min_share_permille, rate_cap): the classes a
  // worker polices (bit c: capped, or giving way while some class reserves a share), each cap's
  // burst in bytes, and whether the packets each class offers each member are counted (some
  // class reserves a share: the scheduler's arbiter reads them).
  std::uint8_t policed_classes = 0;
  std::array<std::uint32_t, classify::kMaxClasses> cap_burst_bytes{};
  bool count_offered = false;
};

}  // namespace braid::bond
