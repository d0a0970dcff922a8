// IEEE 802.1AB-2016 LLDPDUs in Ethernet frames: encode and decode. A frame goes to the
// nearest-bridge group address 01-80-C2-00-00-0E with ethertype 0x88CC; the LLDPDU is the
// mandatory Chassis ID, Port ID and Time To Live TLVs in that order (8.2), optional TLVs, then
// the End Of LLDPDU TLV. The decoder accepts a frame without End (it counts it: lldpd and
// switches always send one, a frame without it is worth knowing about), at most one 802.1Q tag
// and Ethernet padding after End, keeps Organizationally Specific TLVs raw, and decodes the one
// that the cabling check uses: link aggregation (IEEE 802.3 OUI 00-12-0F subtype 3, and its
// IEEE 802.1 successor OUI 00-80-C2 subtype 7). Never reads outside the frame.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.hpp"
#include "lldp/reject_reason.hpp"

namespace braid::lldp {

using MacAddress = std::array<std::uint8_t, 6>;
using Oui = std::array<std::uint8_t, 3>;

inline constexpr MacAddress kNearestBridgeMac{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
inline constexpr std::uint16_t kEthertype = 0x88cc;
inline constexpr std::uint16_t kVlanEthertype = 0x8100;
inline constexpr std::size_t kEthernetHeaderLen = 14;
inline constexpr std::size_t kMinFrameLen = 60;     // without FCS: shorter frames are padded
inline constexpr std::size_t kMaxLldpduLen = 1500;  // one untagged frame's payload (8.1)
inline constexpr std::size_t kMaxStringLen = 255;   // 8.5.5-8.5.7: 0-255 octets
inline constexpr std::size_t kMaxIdLen = 255;       // 8.5.2, 8.5.3: 1-255 octets after the subtype

// TLV types (Table 8-1).
enum class TlvType : std::uint8_t {
  kEnd = 0,
  kChassisId = 1,
  kPortId = 2,
  kTtl = 3,
  kPortDescription = 4,
  kSystemName = 5,
  kSystemDescription = 6,
  kSystemCapabilities = 7,
  kManagementAddress = 8,
  kOrganizationallySpecific = 127,
};

// Chassis ID subtypes (Table 8-2).
enum class ChassisIdSubtype : std::uint8_t {
  kChassisComponent = 1,
  kInterfaceAlias = 2,
  kPortComponent = 3,
  kMacAddress = 4,
  kNetworkAddress = 5,
  kInterfaceName = 6,
  kLocal = 7,
};

// Port ID subtypes (Table 8-3).
enum class PortIdSubtype : std::uint8_t {
  kInterfaceAlias = 1,
  kPortComponent = 2,
  kMacAddress = 3,
  kNetworkAddress = 4,
  kInterfaceName = 5,
  kAgentCircuitId = 6,
  kLocal = 7,
};

// System capabilities bits (Table 8-4).
inline constexpr std::uint16_t kCapabilityOther = 1 << 0;
inline constexpr std::uint16_t kCapabilityRepeater = 1 << 1;
inline constexpr std::uint16_t kCapabilityBridge = 1 << 2;
inline constexpr std::uint16_t kCapabilityRouter = 1 << 4;
inline constexpr std::uint16_t kCapabilityStation = 1 << 7;

// IANA address family numbers for the Management Address TLV (8.5.9.3).
inline constexpr std::uint8_t kAddressFamilyIpv4 = 1;
inline constexpr std::uint8_t kAddressFamilyIpv6 = 2;
inline constexpr std::uint8_t kAddressFamily802 = 6;
// Interface numbering subtypes (8.5.9.5).
inline constexpr std::uint8_t kInterfaceNumberingIfIndex = 2;

inline constexpr Oui kOuiIeee8021{0x00, 0x80, 0xc2};
inline constexpr Oui kOuiIeee8023{0x00, 0x12, 0x0f};
inline constexpr std::uint8_t kSubtype8023LinkAggregation = 3;  // 802.3 Clause 79.3.3
inline constexpr std::uint8_t kSubtype8021LinkAggregation = 7;  // 802.1AX-2014 / 802.1Q D.2.7
inline constexpr std::uint8_t kAggregationCapable = 1 << 0;
inline constexpr std::uint8_t kAggregationEnabled = 1 << 1;

// A Chassis ID or Port ID: the subtype's number and the 1-255 octets of the id.
struct Id {
  std::uint8_t subtype = 0;
  std::vector<std::uint8_t> bytes{};

  static Id mac(std::uint8_t subtype, const MacAddress& mac);
  static Id text(std::uint8_t subtype, const std::string& text);
  bool operator==(const Id&) const = default;
  auto operator<=>(const Id&) const = default;
};

Id chassis_mac(const MacAddress& mac);            // Chassis ID subtype 4
Id chassis_local(const std::string& text);        // Chassis ID subtype 7
Id port_interface_name(const std::string& name);  // Port ID subtype 5
Id port_mac(const MacAddress& mac);               // Port ID subtype 3
Id port_local(const std::string& text);           // Port ID subtype 7
// "mac 02:00:00:00:00:01", "ifname swp1", "local 7", "ip 10.0.0.1": for show lldp and the
// cabling findings. `chassis` says which subtype table applies.
std::string describe(const Id& id, bool chassis);

struct Capabilities {
  std::uint16_t system = 0;   // what the system can do
  std::uint16_t enabled = 0;  // what it does now
  bool operator==(const Capabilities&) const = default;
};

struct ManagementAddress {
  std::uint8_t family = kAddressFamilyIpv4;  // IANA address family number
  std::vector<std::uint8_t> address{};       // 1-31 octets
  std::uint8_t interface_subtype = kInterfaceNumberingIfIndex;
  std::uint32_t interface_number = 0;
  std::vector<std::uint8_t> oid{};  // 0-128 octets
  bool operator==(const ManagementAddress&) const = default;
};

struct OrgSpecific {
  Oui oui{};
  std::uint8_t subtype = 0;
  std::vector<std::uint8_t> info{};  // 0-507 octets
  bool operator==(const OrgSpecific&) const = default;
};

// The link aggregation TLV: whether the sender's port can aggregate, whether it is in an
// aggregation now, and the aggregation's port id (its ifIndex) when it is.
struct LinkAggregation {
  bool capable = false;
  bool enabled = false;
  std::uint32_t aggregated_port_id = 0;
  bool operator==(const LinkAggregation&) const = default;
};

struct Lldpdu {
  Id chassis_id{};
  Id port_id{};
  std::uint16_t ttl_s = 0;  // 0: the sender is going away, forget its information now
  std::optional<std::string> port_description{};
  std::optional<std::string> system_name{};
  std::optional<std::string> system_description{};
  std::optional<Capabilities> capabilities{};
  std::vector<ManagementAddress> management_addresses{};
  std::vector<OrgSpecific> org_specific{};  // every one received, in order, decoded or not
  bool operator==(const Lldpdu&) const = default;
};

// The link aggregation TLV among `org_specific`, if one is there with a valid length.
std::optional<LinkAggregation> link_aggregation(const Lldpdu& lldpdu);
// The 802.3 form, the one lldpd sends (802.1AX-2014 moved the TLV to IEEE 802.1, which
// Wireshark flags as a deprecation; both decode).
OrgSpecific encode_link_aggregation(const LinkAggregation& aggregation);

// Empty when `lldpdu` can be encoded; otherwise what is wrong ("system_name is longer than 255
// octets", ...).
std::string check_lldpdu(const Lldpdu& lldpdu);

// The whole frame from `source_mac` to the nearest-bridge address, End included, padded to
// kMinFrameLen. `lldpdu` must pass check_lldpdu.
std::vector<std::uint8_t> build_frame(const MacAddress& source_mac, const Lldpdu& lldpdu);

struct ParsedFrame {
  RejectReason reason = RejectReason::kNone;
  MacAddress source_mac{};
  std::optional<std::uint16_t> vlan_id{};  // the 802.1Q tag's VID, when tagged
  Lldpdu lldpdu{};                         // valid when reason is kNone
  bool end_seen = false;                   // the End Of LLDPDU TLV was there
  // TLVs of reserved types (9-126), skipped (9.2.7.7.2: tooManyNeighbors aside, counted as
  // unrecognised), and repeats of single optional TLVs, of which the first is kept.
  std::uint32_t unrecognised_tlvs = 0;
  std::uint32_t repeated_tlvs = 0;
};

ParsedFrame parse_frame(ByteSpan frame);

}  // namespace braid::lldp
