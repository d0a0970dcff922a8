// The l34 fast path for four frames at once. A bonded packet's cost was mostly this hash:
// about 45 instructions per frame for the checks and the multiplies, where plain forwarding
// spends almost nothing in braid's own code. With SSE4.1 (x86-64's DPDK baseline includes it)
// the four frames' header words are transposed into vectors and checked and hashed together,
// about a third of the instructions per frame. IPv4 and IPv6 lanes share the pass: IPv6's L4
// header lies 20 bytes after IPv4's, so an IPv6 lane reads its flow words from 20 bytes further
// on and the same vectors hold either lane's last three hash words (ipv6_l34_hash.hpp); the six
// words only IPv6 has are hashed only when a group holds an IPv6 lane. RoCEv2 lanes take their
// flow word from the BTH's destination QP in the same pass. Tagged frames are read past their
// tags (vlan_tags.hpp). Lanes it declines (options, fragments, extension headers, short frames)
// are left to the caller's full parser.
//
// Accepts exactly the frames try_hash_l34 accepts and writes the same hashes (unit and fuzz tests
// check both).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "flow/ipv4_l34_hash.hpp"
#include "flow/ipv6_l34_hash.hpp"
#include "flow/l34_fast_path.hpp"

#if defined(__SSE4_1__) && defined(__SSSE3__)
#include <smmintrin.h>
#define BRAID_L34_FAST_PATH_X4_SSE 1
#endif

namespace braid::flow {

inline constexpr unsigned kL34Lanes = 4;

// The bytes an IPv4 lane reads: up to the end of the 16-byte load at offset 26, and for RoCEv2
// up to the end of the one at 38 (UDP length and checksum, the BTH's first 12 bytes). An IPv6
// lane reads the same loads kIpv6L4Shift bytes further on.
inline constexpr std::size_t kL34LaneMinFrame = 42;
inline constexpr std::size_t kL34LaneMinRocev2Frame = 54;
inline constexpr std::size_t kIpv6L4Shift = 40 - 20;  // IPv6 header less IPv4's

#if defined(BRAID_L34_FAST_PATH_X4_SSE)

namespace l34_x4_detail {

// Rows i of four 4-word vectors become vector i (words i of the four inputs).
struct Transposed {
  __m128i word0, word1, word2, word3;
};

inline Transposed transpose(__m128i a, __m128i b, __m128i c, __m128i d) {
  const __m128i ab_low = _mm_unpacklo_epi32(a, b);
  const __m128i cd_low = _mm_unpacklo_epi32(c, d);
  const __m128i ab_high = _mm_unpackhi_epi32(a, b);
  const __m128i cd_high = _mm_unpackhi_epi32(c, d);
  return {_mm_unpacklo_epi64(ab_low, cd_low), _mm_unpackhi_epi64(ab_low, cd_low),
          _mm_unpacklo_epi64(ab_high, cd_high), _mm_unpackhi_epi64(ab_high, cd_high)};
}

inline __m128i load(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// The 16 bytes at `offset` of each lane, transposed.
inline Transposed load_transposed(const std::array<const std::uint8_t*, kL34Lanes>& lanes,
                                  std::size_t offset) {
  return transpose(load(lanes[0] + offset), load(lanes[1] + offset), load(lanes[2] + offset),
                   load(lanes[3] + offset));
}

inline __m128i splat(std::uint32_t value) {
  return _mm_set1_epi32(static_cast<int>(value));
}

inline __m128i share(__m128i word, std::uint32_t secret, std::uint32_t multiplier) {
  const __m128i product = _mm_mullo_epi32(_mm_xor_si128(word, splat(secret)), splat(multiplier));
  return _mm_xor_si128(product, _mm_srli_epi32(product, 16));
}

// The six shares only IPv6 has (ipv6_l34_extra_shares): the addresses' bytes 22..53, 20 bytes
// before an IPv6 lane's flow words. An IPv4 lane's (bytes 2..33) lie inside its frame too.
inline __m128i ipv6_extra_shares(const std::array<const std::uint8_t*, kL34Lanes>& flow_lanes) {
  using C6 = Ipv6L34HashConstants;
  const Transposed src = load_transposed(flow_lanes, 22 - kIpv6L4Shift);
  const Transposed dst = load_transposed(flow_lanes, 38 - kIpv6L4Shift);
  const __m128i low = _mm_add_epi32(share(src.word0, C6::kSecrets[0], C6::kMultipliers[0]),
                                    share(src.word1, C6::kSecrets[1], C6::kMultipliers[1]));
  const __m128i middle = _mm_add_epi32(share(src.word2, C6::kSecrets[2], C6::kMultipliers[2]),
                                       share(src.word3, C6::kSecrets[3], C6::kMultipliers[3]));
  const __m128i high = _mm_add_epi32(share(dst.word0, C6::kSecrets[4], C6::kMultipliers[4]),
                                     share(dst.word1, C6::kSecrets[5], C6::kMultipliers[5]));
  return _mm_add_epi32(_mm_add_epi32(low, middle), high);
}

// Where a group's lanes read: a frame too short for the loads reads a zero frame instead, which
// fails the EtherType checks. `flow_bytes` (set only where a lane is IPv6; else `bytes`) and
// `bth_bytes`: an IPv6 lane's flow words and BTH lie kIpv6L4Shift bytes further on than an IPv4
// lane's.
struct Lanes {
  std::array<ByteSpan, kL34Lanes> frames;  // past the tags
  std::array<const std::uint8_t*, kL34Lanes> bytes;
  std::array<const std::uint8_t*, kL34Lanes> flow_bytes;
  std::array<const std::uint8_t*, kL34Lanes> bth_bytes;
};

// The checks and the hash of four lanes whose bytes 12..27 are `header`; kIpv6: the lanes set in
// `ipv6` are IPv6 (without, the IPv4-only pass: bursts of IPv4 pay nothing for IPv6).
template <bool kIpv6>
[[gnu::always_inline]] inline unsigned hash_l34_lanes(const Lanes& lanes, const Transposed& header,
                                                      __m128i ipv6, std::uint32_t* hashes) {
  using C = Ipv4L34HashConstants;
  // Bytes 12..27: EtherType + version/IHL + TOS | total length + ID | flags/offset + TTL +
  // protocol | (checksum), or EtherType + version/class/flow label | payload length | next
  // header + hop limit + (source). Bytes 26..41 (IPv6: 46..61): source | destination | ports |
  // (payload), or the destination's last two words | ports | (payload).
  const auto& flow_bytes = kIpv6 ? lanes.flow_bytes : lanes.bytes;
  const Transposed flow = load_transposed(flow_bytes, 26);
  // As try_hash_l34_ipv4: 08 00 45, not a fragment.
  const __m128i ipv4 =
      _mm_cmpeq_epi32(_mm_and_si128(header.word0, splat(0x00FFFFFF)), splat(0x00450008));
  const __m128i whole =
      _mm_cmpeq_epi32(_mm_and_si128(header.word2, splat(0x0000FF3F)), _mm_setzero_si128());
  __m128i ip = _mm_and_si128(ipv4, whole);
  // IPv4's protocol is byte 23, IPv6's next header byte 20 (TCP or UDP itself, no extension).
  __m128i protocol = _mm_srli_epi32(header.word2, 24);
  // IPv4's total length (bytes 16-17) counts its 20-byte header.
  __m128i length = _mm_shuffle_epi8(
      header.word1, _mm_setr_epi8(1, 0, -1, -1, 5, 4, -1, -1, 9, 8, -1, -1, 13, 12, -1, -1));
  __m128i l3_in_length = splat(20);
  __m128i l3_bytes = splat(20);
  __m128i jumbogram = _mm_setzero_si128();
  if constexpr (kIpv6) {
    ip = _mm_or_si128(ip, ipv6);
    protocol = _mm_blendv_epi8(protocol, _mm_and_si128(header.word2, splat(0xFF)), ipv6);
    // IPv6's payload length (bytes 18-19) counts no header; 0 is a jumbogram (RFC 2675),
    // which the frame's end bounds.
    const __m128i payload = _mm_shuffle_epi8(
        header.word1, _mm_setr_epi8(3, 2, -1, -1, 7, 6, -1, -1, 11, 10, -1, -1, 15, 14, -1, -1));
    length = _mm_blendv_epi8(length, payload, ipv6);
    jumbogram = _mm_and_si128(ipv6, _mm_cmpeq_epi32(payload, _mm_setzero_si128()));
    l3_in_length = _mm_andnot_si128(ipv6, l3_in_length);
    l3_bytes = _mm_add_epi32(l3_bytes, _mm_and_si128(ipv6, splat(kIpv6L4Shift)));
  }
  const __m128i tcp = _mm_cmpeq_epi32(protocol, splat(6));
  const __m128i udp = _mm_cmpeq_epi32(protocol, splat(17));
  // Ports as one word (source in the high half), from the wire's big-endian bytes.
  const __m128i ports = _mm_shuffle_epi8(
      flow.word2, _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12));
  const __m128i rocev2 =
      _mm_and_si128(udp, _mm_cmpeq_epi32(_mm_and_si128(ports, splat(0xFFFF)), splat(kRocev2Port)));
  // L4 header, minus one: 7 for UDP, 19 for TCP and for UDP + BTH.
  const __m128i l4_minus_one =
      _mm_add_epi32(splat(7), _mm_and_si128(_mm_or_si128(tcp, rocev2), splat(12)));
  const __m128i length_enough =
      _mm_or_si128(_mm_cmpgt_epi32(length, _mm_add_epi32(l4_minus_one, l3_in_length)), jumbogram);
  // The frame past the Ethernet header holds the IP header and the L4 header.
  const __m128i frame_l3 = _mm_setr_epi32(
      static_cast<int>(lanes.frames[0].size()), static_cast<int>(lanes.frames[1].size()),
      static_cast<int>(lanes.frames[2].size()), static_cast<int>(lanes.frames[3].size()));
  const __m128i frame_enough =
      _mm_cmpgt_epi32(frame_l3, _mm_add_epi32(_mm_add_epi32(l4_minus_one, l3_bytes), splat(14)));
  const __m128i accepted = _mm_and_si128(_mm_and_si128(ip, _mm_or_si128(tcp, udp)),
                                         _mm_and_si128(length_enough, frame_enough));
  const auto mask = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(accepted)));
  if (mask == 0) return 0;
  // RoCEv2: bytes 46..49 (IPv6: 66..69) are the BTH's reserved octet and 24-bit DestQP.
  const Transposed bth = load_transposed(lanes.bth_bytes, 38);
  const __m128i queue_pair = _mm_or_si128(
      _mm_shuffle_epi8(bth.word2,
                       _mm_setr_epi8(3, 2, 1, -1, 7, 6, 5, -1, 11, 10, 9, -1, 15, 14, 13, -1)),
      splat(rocev2_flow_word(0)));
  const __m128i flow_word = _mm_blendv_epi8(ports, queue_pair, rocev2);
  __m128i sum = _mm_add_epi32(_mm_add_epi32(share(flow.word0, C::kSrcSecret, C::kSrcMultiplier),
                                            share(flow.word1, C::kDstSecret, C::kDstMultiplier)),
                              share(flow_word, C::kPortsSecret, C::kPortsMultiplier));
  if constexpr (kIpv6) {
    sum = _mm_add_epi32(
        sum, _mm_and_si128(ipv6_extra_shares(flow_bytes), _mm_and_si128(ipv6, accepted)));
  }
  __m128i h = _mm_xor_si128(sum, splat(C::kSeed));
  h = _mm_xor_si128(h, _mm_srli_epi32(h, 16));
  h = _mm_mullo_epi32(h, splat(C::kFinishMultiplier1));
  h = _mm_xor_si128(h, _mm_srli_epi32(h, 13));
  h = _mm_mullo_epi32(h, splat(C::kFinishMultiplier2));
  h = _mm_xor_si128(h, _mm_srli_epi32(h, 16));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(hashes), h);
  return mask;
}

}  // namespace l34_x4_detail

// Returns the mask of lanes hashed (bit i: hashes[i] is valid). Inlined into the burst loop on
// purpose: called out of line, IPv4 bursts paid about 1 ns per packet more.
[[gnu::always_inline]] inline unsigned try_hash_l34_x4(
    const std::array<ByteSpan, kL34Lanes>& tagged, std::uint32_t* hashes) {
  static_assert(std::endian::native == std::endian::little, "SSE path assumes little-endian");
  using namespace l34_x4_detail;
  alignas(16) static constexpr std::array<std::uint8_t, 64> kNoFrame{};
  // Past the tags as skip_vlan_tags goes, without its branch: a frame shorter than
  // kL34LaneMinFrame is declined tagged or not, so only longer ones need looking at, and those
  // hold both TPIDs' bytes.
  Lanes lanes;
  for (unsigned i = 0; i < kL34Lanes; ++i) {
    const std::uint8_t* raw =
        tagged[i].size() >= kL34LaneMinFrame ? tagged[i].data() : kNoFrame.data();
    const bool one = is_vlan_tpid(static_cast<std::uint16_t>(raw[12] << 8 | raw[13]));
    const bool two = one & is_vlan_tpid(static_cast<std::uint16_t>(raw[12 + kVlanTagBytes] << 8 |
                                                                   raw[13 + kVlanTagBytes]));
    const std::size_t tags_bytes = kVlanTagBytes * (std::size_t{one} + std::size_t{two});
    const ByteSpan frame(tagged[i].data() + tags_bytes, tagged[i].size() - tags_bytes);
    lanes.frames[i] = frame;
    lanes.bytes[i] = frame.size() >= kL34LaneMinFrame ? frame.data() : kNoFrame.data();
    lanes.bth_bytes[i] = frame.size() >= kL34LaneMinRocev2Frame ? frame.data() : kNoFrame.data();
  }
  const Transposed header = load_transposed(lanes.bytes, 12);
  // As try_hash_l34_ipv6: 86 dd 6.
  const __m128i ipv6 =
      _mm_cmpeq_epi32(_mm_and_si128(header.word0, splat(0x00F0FFFF)), splat(0x0060DD86));
  const auto ipv6_lanes = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(ipv6)));
  // One branch per group, predicted on bursts of one family (as the caller's branch on declined
  // lanes was when IPv6 lanes went one by one); only IPv6 lanes pay for their longer headers.
  // Groups of IPv4 pay about 0.3 ns a packet for the test (the loop holds both forms); an
  // IPv4-only first pass with a second over the declined lanes kept that but hashed mixed
  // bursts no faster than the scalar IPv6 path did (doc/benchmarks-history.md, issue 19).
  if (ipv6_lanes == 0) return hash_l34_lanes<false>(lanes, header, ipv6, hashes);
  lanes.flow_bytes = lanes.bytes;
  for (unsigned i = 0; i < kL34Lanes; ++i) {
    if ((ipv6_lanes >> i & 1) == 0) continue;
    const ByteSpan frame = lanes.frames[i];
    constexpr std::size_t kMinFrame = kL34LaneMinFrame + kIpv6L4Shift;
    constexpr std::size_t kMinRocev2Frame = kL34LaneMinRocev2Frame + kIpv6L4Shift;
    lanes.flow_bytes[i] = frame.size() >= kMinFrame ? frame.data() + kIpv6L4Shift : kNoFrame.data();
    lanes.bth_bytes[i] =
        frame.size() >= kMinRocev2Frame ? frame.data() + kIpv6L4Shift : kNoFrame.data();
  }
  return hash_l34_lanes<true>(lanes, header, ipv6, hashes);
}

#else

// Without SSE4.1: the scalar fast path lane by lane (same results, no speed-up).
inline unsigned try_hash_l34_x4(const std::array<ByteSpan, kL34Lanes>& frames,
                                std::uint32_t* hashes) {
  unsigned mask = 0;
  for (unsigned i = 0; i < kL34Lanes; ++i) {
    if (try_hash_l34(frames[i], hashes[i])) mask |= 1u << i;
  }
  return mask;
}

#endif

}  // namespace braid::flow
