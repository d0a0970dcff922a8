// Field selection per policy. Every policy feeds fixed words to the Mixer: fields a packet lacks
// are zero in the key (see FlowKey), so IPv4 and IPv6, TCP and ICMP take the same path and the
// only branch per packet is "is there an IP header at all". The exception is l34, the commonest
// case on a data path: it has its own 32-bit hashes (ipv4_l34_hash.hpp, ipv6_l34_hash.hpp) that
// the fast paths compute straight from frames.
#include "flow/flow_hash.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "flow/ipv4_l34_hash.hpp"
#include "flow/ipv6_l34_hash.hpp"
#include "flow/mixer.hpp"
#include "flow/parser.hpp"

namespace braid::flow {
namespace {

constexpr std::uint16_t kVlanIdMask = 0x0FFF;  // IEEE 802.1Q §9.6: VID is 12 bits
constexpr std::size_t kIpv4AddrBytes = 4;
constexpr std::size_t kIpv6AddrBytes = 16;
constexpr std::size_t kPortBytes = 2;

std::uint64_t load_u64(const std::uint8_t* bytes) {
  std::uint64_t word;
  std::memcpy(&word, bytes, sizeof(word));
  return word;
}

// Two register loads combined arithmetically: a 6-byte memcpy into a zeroed 8-byte word went
// through the stack and stalled on store-to-load forwarding (l2 ran at half the speed of l34).
std::uint64_t mac_word(const std::array<std::uint8_t, 6>& mac) {
  std::uint32_t low;
  std::uint16_t high;
  std::memcpy(&low, mac.data(), sizeof(low));
  std::memcpy(&high, mac.data() + sizeof(low), sizeof(high));
  return std::uint64_t{low} | (std::uint64_t{high} << 32);
}

void add_l2(Mixer& mixer, const L2Header& l2) {
  mixer.add(mac_word(l2.dst_mac) ^ (std::uint64_t{l2.ethertype} << 48));
  mixer.add(mac_word(l2.src_mac));
}

void add_addresses(Mixer& mixer, const L3Header& l3) {
  mixer.add(load_u64(l3.src_addr.data()));
  mixer.add(load_u64(l3.src_addr.data() + 8));
  mixer.add(load_u64(l3.dst_addr.data()));
  mixer.add(load_u64(l3.dst_addr.data() + 8));
}

// RoCEv2: the sender's NIC picks the UDP source port and may change it for one QP (path
// re-selection), while the destination QP names the connection; hashing the QP keeps one QP on
// one member and spreads many QPs. Everything else: the two ports (zero for fragments).
std::uint64_t l4_word(const L4Header& l4, bool roce) {
  const std::uint64_t ports = (std::uint64_t{l4.src_port} << 16) | l4.dst_port;
  const std::uint64_t queue_pair = (std::uint64_t{1} << 32) | l4.roce_dest_qp;
  return roce ? queue_pair : ports;
}

std::uint64_t tunnel_word(const TunnelHeader& tunnel) {
  return (std::uint64_t{static_cast<std::uint8_t>(tunnel.kind)} << 32) | tunnel.id;
}

std::uint32_t hash_l2(const FlowKey& key) {
  Mixer mixer(kFlowHashSeed);
  add_l2(mixer, key.l2);
  return mixer.finish();
}

std::uint32_t hash_l23(const FlowKey& key) {
  if (!key.has(kLayerL3)) return hash_l2(key);
  Mixer mixer(kFlowHashSeed);
  add_l2(mixer, key.l2);
  add_addresses(mixer, key.l3);
  return mixer.finish();
}

std::uint32_t hash_l34(const FlowKey& key) {
  if (!key.has(kLayerL3)) return hash_l2(key);
  const std::uint32_t flow = key.has(kLayerRoce)
                                 ? rocev2_flow_word(key.l4.roce_dest_qp)
                                 : (std::uint32_t{key.l4.src_port} << 16) | key.l4.dst_port;
  if (key.l3.version == 4) {
    return hash_ipv4_l34(ipv4_address_word(key.l3.src_addr.data()),
                         ipv4_address_word(key.l3.dst_addr.data()), flow);
  }
  return hash_ipv6_l34(key.l3.src_addr.data(), key.l3.dst_addr.data(), flow);
}

// Innermost IP header: the tunnel's payload when it parsed as IP, else the outer one.
bool use_inner(const FlowKey& key) {
  return key.has(kLayerInnerL3);
}

std::uint32_t hash_encap23(const FlowKey& key) {
  if (!key.has(kLayerL3)) return hash_l2(key);
  Mixer mixer(kFlowHashSeed);
  add_l2(mixer, key.l2);
  add_addresses(mixer, use_inner(key) ? key.inner_l3 : key.l3);
  mixer.add(tunnel_word(key.tunnel));
  return mixer.finish();
}

std::uint32_t hash_encap34(const FlowKey& key) {
  if (!key.has(kLayerL3)) return hash_l2(key);
  const bool inner = use_inner(key);
  Mixer mixer(kFlowHashSeed);
  add_addresses(mixer, inner ? key.inner_l3 : key.l3);
  mixer.add(inner ? l4_word(key.inner_l4, key.has(kLayerInnerRoce))
                  : l4_word(key.l4, key.has(kLayerRoce)));
  mixer.add(tunnel_word(key.tunnel));
  return mixer.finish();
}

std::uint32_t hash_vlan_srcmac(const FlowKey& key) {
  // Untagged frames have vlan_tci zero, i.e. VLAN ID 0, as in Linux.
  Mixer mixer(kFlowHashSeed);
  mixer.add(mac_word(key.l2.src_mac) ^
            (std::uint64_t{static_cast<std::uint16_t>(key.l2.vlan_tci[0] & kVlanIdMask)} << 48));
  return mixer.finish();
}

std::uint32_t hash_toeplitz(const FlowKey& key, const Toeplitz& toeplitz, bool symmetric) {
  if (!key.has(kLayerL3)) return hash_l2(key);
  return toeplitz.hash(make_rss_tuple(key, symmetric).span());
}

// Calls body(policy_function) with the policy resolved once, so loops inside body inline it.
template <typename Body>
void with_policy(HashPolicy policy, const Toeplitz& toeplitz, Body&& body) {
  switch (policy) {
    case HashPolicy::l2:
      body(hash_l2);
      break;
    case HashPolicy::l23:
      body(hash_l23);
      break;
    case HashPolicy::l34:
      body(hash_l34);
      break;
    case HashPolicy::encap23:
      body(hash_encap23);
      break;
    case HashPolicy::encap34:
      body(hash_encap34);
      break;
    case HashPolicy::vlan_srcmac:
      body(hash_vlan_srcmac);
      break;
    case HashPolicy::toeplitz:
      body([&toeplitz](const FlowKey& key) { return hash_toeplitz(key, toeplitz, false); });
      break;
    case HashPolicy::toeplitz_sym:
      body([&toeplitz](const FlowKey& key) { return hash_toeplitz(key, toeplitz, true); });
      break;
    case HashPolicy::nic_rss:
      break;  // resolved to the fallback by the constructor
  }
}

}  // namespace

RssTuple make_rss_tuple(const FlowKey& key, bool symmetric) {
  RssTuple tuple{};
  if (!key.has(kLayerL3)) return tuple;
  const std::size_t addr_bytes = key.l3.version == 4 ? kIpv4AddrBytes : kIpv6AddrBytes;
  const std::uint8_t* src = key.l3.src_addr.data();
  const std::uint8_t* dst = key.l3.dst_addr.data();
  std::uint16_t src_port = key.l4.src_port;
  std::uint16_t dst_port = key.l4.dst_port;
  if (symmetric) {
    const int order = std::memcmp(src, dst, addr_bytes);
    if (order > 0 || (order == 0 && src_port > dst_port)) {
      std::swap(src, dst);
      std::swap(src_port, dst_port);
    }
  }
  std::uint8_t* out = tuple.bytes.data();
  std::memcpy(out, src, addr_bytes);
  std::memcpy(out + addr_bytes, dst, addr_bytes);
  MutableByteSpan ports(out + 2 * addr_bytes, 2 * kPortBytes);
  store_be16(ports, 0, src_port);
  store_be16(ports, kPortBytes, dst_port);
  tuple.size = 2 * addr_bytes + 2 * kPortBytes;
  return tuple;
}

FlowHasher::FlowHasher(HashPolicy policy, HashPolicy nic_rss_fallback, ByteSpan rss_key)
    : policy_(policy),
      software_policy_(policy == HashPolicy::nic_rss ? nic_rss_fallback : policy),
      toeplitz_(rss_key) {
  if (nic_rss_fallback == HashPolicy::nic_rss) {
    throw std::invalid_argument(
        "flow hash: the nic-rss fallback must be a software policy (e.g. l34), not nic-rss");
  }
}

std::uint32_t FlowHasher::hash(const FlowKey& key) const {
  std::uint32_t result = 0;
  with_policy(software_policy_, toeplitz_, [&](auto&& policy_hash) { result = policy_hash(key); });
  return result;
}

void FlowHasher::hash_burst(std::span<const FlowKey> keys, std::uint32_t* hashes) const {
  with_policy(software_policy_, toeplitz_, [&](auto&& policy_hash) {
    for (std::size_t i = 0; i < keys.size(); ++i)
      hashes[i] = policy_hash(keys[i]);
  });
}

std::uint32_t FlowHasher::hash_frame(ByteSpan frame) const {
  FlowKey key;
  parse_flow_key(frame, key);
  return hash(key);
}

void FlowHasher::hash_frame_burst(std::span<const ByteSpan> frames, std::uint32_t* hashes) const {
  std::array<FlowKey, kHashBurstSize> keys;
  for (std::size_t start = 0; start < frames.size(); start += kHashBurstSize) {
    const std::size_t count = std::min(kHashBurstSize, frames.size() - start);
    for (std::size_t i = 0; i < count; ++i)
      parse_flow_key(frames[start + i], keys[i]);
    hash_burst(std::span<const FlowKey>(keys.data(), count), hashes + start);
  }
}

}  // namespace braid::flow
