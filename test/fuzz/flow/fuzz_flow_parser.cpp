// libFuzzer target: any byte string parses without reading past its end, the key's layer bits
// are consistent, and every hash policy (per packet and burst) accepts the key.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "flow/flow_hash.hpp"
#include "flow/l34_fast_path.hpp"
#include "flow/l34_fast_path_x4.hpp"
#include "flow/parser.hpp"

namespace {

using namespace braid;
using namespace braid::flow;

void check(bool condition) {
  if (!condition) std::abort();
}

void check_layers(const FlowKey& key) {
  // A layer is only ever parsed on top of the one below it.
  if (key.has(kLayerVlan) || key.has(kLayerL3)) check(key.has(kLayerL2));
  if (key.has(kLayerL4)) check(key.has(kLayerL3) && key.l3.fragment == 0);
  if (key.has(kLayerRoce)) check(key.has(kLayerL4) && key.l4.dst_port == kUdpPortRocev2);
  if (key.has(kLayerEncap)) check(key.has(kLayerL3) && key.tunnel.kind != TunnelKind::none);
  const std::uint16_t inner =
      kLayerInnerL2 | kLayerInnerVlan | kLayerInnerL3 | kLayerInnerL4 | kLayerInnerRoce;
  if ((key.layers & inner) != 0) check(key.has(kLayerEncap));
  check(key.l2.vlan_count <= 2 && key.inner_l2.vlan_count <= 2);
  check(!to_string(key.status).empty());
}

const std::vector<FlowHasher>& hashers() {
  static const std::vector<FlowHasher> all = [] {
    std::vector<FlowHasher> list;
    for (HashPolicy policy : kAllHashPolicies)
      list.emplace_back(policy);
    return list;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Copy into an exactly-sized heap buffer so ASan catches reads one byte past the end.
  std::vector<std::uint8_t> frame(data, data + size);
  const ByteSpan bytes(frame.data(), frame.size());
  const FlowKey key = parse_flow_key(bytes);
  check_layers(key);
  for (const FlowHasher& hasher : hashers()) {
    std::uint32_t burst = 0;
    hasher.hash_burst({&key, 1}, &burst);
    check(burst == hasher.hash(key));
    check(hasher.hash_frame(bytes) == burst);
  }
  // The l34 fast paths (scalar and four-lane, IPv4 and IPv6, in every lane) accept the same
  // frames and agree with the parser's hash.
  static const FlowHasher l34_hasher(HashPolicy::l34);
  const std::uint32_t l34 = l34_hasher.hash_frame(bytes);
  std::uint32_t fast = 0;
  const bool accepted = try_hash_l34(bytes, fast);
  if (accepted) check(fast == l34);
  for (unsigned lane = 0; lane < kL34Lanes; ++lane) {
    std::array<ByteSpan, kL34Lanes> frames{};
    frames[lane] = bytes;
    std::array<std::uint32_t, kL34Lanes> hashes{};
    const unsigned mask = try_hash_l34_x4(frames, hashes.data());
    check(mask == (accepted ? 1u << lane : 0u));
    if (accepted) check(hashes[lane] == l34);
  }
  // The symmetric Toeplitz tuple is the same for a key and its mirror image.
  if (key.has(kLayerL3)) {
    FlowKey mirror = key;
    mirror.l3.src_addr = key.l3.dst_addr;
    mirror.l3.dst_addr = key.l3.src_addr;
    mirror.l4.src_port = key.l4.dst_port;
    mirror.l4.dst_port = key.l4.src_port;
    const RssTuple a = make_rss_tuple(key, true);
    const RssTuple b = make_rss_tuple(mirror, true);
    check(a.size == b.size && a.bytes == b.bytes);
  }
  return 0;
}
