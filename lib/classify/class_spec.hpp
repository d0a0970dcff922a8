// What a bond's traffic classes are, as configured: class names, the ordered rules that pick a
// class for a frame (first match wins) and the default class for the rest (doc/classes.md).
// Plain data: the config loader fills it, the Classifier compiles it. Rules name classes by
// index; the loader resolves the names. Each class also says how its frames are distributed:
// over which of the bond's members, by which policy, and whether braid marks its ECT packets CE
// and what share of a short member it keeps or how fast it may send at most (the bond applies
// them; a per-class PFC watchdog will join).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ecn/ecn_profile.hpp"

namespace braid::classify {

inline constexpr std::size_t kMaxClasses = 8;  // issue 16: at most 8 classes per bond
inline constexpr std::size_t kMaxRules = 64;   // one bit each in the compiled tables' masks

using ClassId = std::uint8_t;

// Field ranges a rule can match (the standards' field widths).
inline constexpr std::uint32_t kMaxDscp = 63;          // RFC 2474 §3: six bits
inline constexpr std::uint32_t kMaxPcp = 7;            // IEEE 802.1Q §6.9.3: three bits
inline constexpr std::uint32_t kMaxProtocol = 255;     // IANA protocol numbers
inline constexpr std::uint32_t kMaxPort = 65535;       // TCP, UDP, SCTP ports
inline constexpr std::uint32_t kMaxBthOpcode = 255;    // InfiniBand BTH OpCode: one octet
inline constexpr std::uint32_t kMaxDestQp = 0xFFFFFF;  // InfiniBand BTH DestQP: 24 bits
inline constexpr std::uint32_t kMaxPfcPriority = 7;    // IEEE 802.1Qbb: eight priorities

inline constexpr std::uint32_t kPermille = 1000;
inline constexpr std::uint32_t kMaxRateCapMbps = 800'000;  // the fastest port there is, 800G
inline constexpr std::uint32_t kMaxBurstKb = 65'536;       // 64 MiB: far more than any queue
inline constexpr std::uint32_t kMinDefaultBurstKb = 64;
// One worker's RX burst of jumbo frames (32 x 9216 bytes): a committed burst below it drops such
// a burst arriving at once, however far below the cap the class's rate is.
inline constexpr std::uint32_t kJumboBurstBytes = 32 * 9216;

// What a cap of `mbps` passes in 1 ms (rate x RTT, with a data centre's RTT under load).
constexpr std::uint64_t bytes_per_ms(std::uint32_t mbps) {
  return std::uint64_t{mbps} * 125;
}

// A rate cap's committed burst when the config names none: bytes_per_ms, in KiB rounded up, at
// least kMinDefaultBurstKb.
constexpr std::uint32_t default_burst_kb(std::uint32_t mbps) {
  const std::uint64_t kb = (bytes_per_ms(mbps) + 1023) / 1024;
  return static_cast<std::uint32_t>(kb < kMinDefaultBurstKb ? kMinDefaultBurstKb
                                    : kb > kMaxBurstKb      ? kMaxBurstKb
                                                            : kb);
}

// A class's rate cap: it sends at most `mbps` (frame bytes, over all the bond's members
// together), in bursts of up to `burst_kb` KiB above it (an srTCM's committed burst).
struct RateCap {
  std::uint32_t mbps = 0;
  std::uint32_t burst_kb = kMinDefaultBurstKb;
};

// An inclusive range of field values; a single value is first == last.
struct ValueRange {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
};

// The values a rule accepts for one field. Empty: the rule does not look at the field.
using ValueSet = std::vector<ValueRange>;

// Which headers a rule reads. `outer`: the frame as it is on the wire. `inner`: the headers
// inside a VXLAN (UDP 4789) or GRE tunnel; an inner rule never matches an untunnelled frame.
enum class HeaderLevel : std::uint8_t { outer, inner };

// One rule: every field it names must match (an AND); a value set matches when the frame's field
// lies in any of its ranges (an OR).
struct Rule {
  ClassId class_id = 0;
  HeaderLevel header = HeaderLevel::outer;
  ValueSet dscp;      // the IP header's DSCP (IPv4 TOS / IPv6 Traffic Class >> 2)
  ValueSet pcp;       // the outermost VLAN tag's PCP: untagged frames do not match
  ValueSet protocol;  // IP protocol (after IPv6 extension headers); fragments match too
  ValueSet src_port;  // TCP, UDP or SCTP; never matches fragments or other protocols
  ValueSet dst_port;
  bool roce = false;      // RoCEv2: UDP destination port 4791 with a whole BTH
  ValueSet roce_opcode;   // BTH OpCode (implies roce)
  ValueSet roce_dest_qp;  // BTH destination QP (implies roce)

  bool needs_roce() const { return roce || !roce_opcode.empty() || !roce_dest_qp.empty(); }
  // True when the rule names no field: on the outer headers it would match every frame.
  bool matches_anything() const {
    return dscp.empty() && pcp.empty() && protocol.empty() && src_port.empty() &&
           dst_port.empty() && !needs_roce();
  }
};

struct ClassSpec {
  ClassSpec() = default;
  // A class by its name alone spreads over every member by the bond's policy.
  ClassSpec(std::string class_name, std::vector<std::uint16_t> class_members = {},
            std::string class_policy = {})
      : name(std::move(class_name)),
        members(std::move(class_members)),
        policy(std::move(class_policy)) {}

  std::string name;
  // The bond's members (indices in its member list) the class's frames may leave on; empty:
  // every member. While none of them can carry traffic, the class spills over to the others.
  std::vector<std::uint16_t> members;
  // Its distribution policy (hash, wrr, lqf, adaptive, latency, spray); empty: the bond's
  // scheduler.policy.
  std::string policy;
  // The PFC priority its frames ride on (0..7): the pauses on it are the class's congestion
  // input. nullopt: the bond's scheduler.congestion.priority.
  std::optional<std::uint8_t> priority;
  // braid's own ECN marking of the class's ECT packets by its member's queue depth (lib/ecn);
  // none: off.
  std::optional<ecn::EcnProfile> ecn;
  // Its reserved share, permille of each member it uses (0: none): when a member cannot carry
  // all that is offered to it, the classes without a reservation give way first (lib/sched/
  // share_arbiter.hpp), down to what is left once every reserved class has its share.
  std::uint32_t min_share_permille = 0;
  // At most this rate, its excess dropped (none: uncapped).
  std::optional<RateCap> rate_cap;

  bool reserved() const { return min_share_permille != 0; }
};

struct ClassifierSpec {
  std::vector<ClassSpec> classes;  // empty: the bond has no traffic classes
  std::vector<Rule> rules;         // in order: the first that matches picks the class
  ClassId default_class = 0;       // the class of frames no rule matches

  bool enabled() const { return !classes.empty(); }
  // Whether some class reserves a share (min_share_permille); then every class without one gives
  // way on a short member.
  bool reserving() const {
    for (const ClassSpec& c : classes) {
      if (c.reserved()) return true;
    }
    return false;
  }
  bool gives_way(std::size_t class_id) const {
    return reserving() && !classes[class_id].reserved();
  }
};

// Why `spec` cannot be compiled, or "" when it can: 1..kMaxClasses distinct non-empty names, a
// default and every rule's class among them, at most kMaxRules rules, every range within its
// field and not reversed, no outer rule that names no field (that is what the default is for),
// every class reachable (the default, or named by a rule), reserved shares that add up to at
// most 1000 permille, and at least one class without one while any has one (someone must give
// way).
std::string spec_error(const ClassifierSpec& spec);

// A rule as one line, the way the config spells it: `dscp 46 protocol 6 dst_port 4420-4421`.
std::string describe(const Rule& rule);

// "tcp", "udp", ... for the protocols a config may name; "" for others.
std::string_view protocol_name(std::uint32_t protocol);
// The protocol number of a name protocol_name knows, or -1.
int protocol_number(std::string_view name);

}  // namespace braid::classify
