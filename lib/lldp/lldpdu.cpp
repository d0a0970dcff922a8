#include "lldp/lldpdu.hpp"

#include <algorithm>
#include <cstdio>

namespace braid::lldp {

namespace {

constexpr std::size_t kTlvHeaderLen = 2;
constexpr std::size_t kMaxTlvLen = 511;  // 9 bits of length (8.4)
constexpr std::size_t kMinManagementLen = 9;
constexpr std::size_t kMaxManagementAddressLen = 31;
constexpr std::size_t kMaxOidLen = 128;
constexpr std::size_t kOrgHeaderLen = 4;  // OUI + subtype
constexpr std::size_t kLinkAggregationInfoLen = 5;

std::string hex_bytes(const std::vector<std::uint8_t>& bytes, char separator) {
  std::string out;
  char buffer[4];
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i != 0 && separator != 0) out += separator;
    std::snprintf(buffer, sizeof buffer, "%02x", bytes[i]);
    out += buffer;
  }
  return out;
}

bool printable(const std::vector<std::uint8_t>& bytes) {
  return std::all_of(bytes.begin(), bytes.end(),
                     [](std::uint8_t c) { return c >= 0x20 && c < 0x7f; });
}

std::string ip_text(const std::vector<std::uint8_t>& address) {
  // A network address id is an IANA family octet, then the address (8.5.2.3).
  if (address.size() == 5 && address[0] == kAddressFamilyIpv4) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%u.%u.%u.%u", address[1], address[2], address[3],
                  address[4]);
    return buffer;
  }
  return hex_bytes(address, ':');
}

class Writer {
 public:
  explicit Writer(std::vector<std::uint8_t>& out) : out_(out) {}
  void tlv(TlvType type, std::size_t len) {
    const auto header = static_cast<std::uint16_t>((static_cast<unsigned>(type) << 9) | len);
    out_.push_back(static_cast<std::uint8_t>(header >> 8));
    out_.push_back(static_cast<std::uint8_t>(header));
  }
  void byte(std::uint8_t value) { out_.push_back(value); }
  void be16(std::uint16_t value) {
    byte(static_cast<std::uint8_t>(value >> 8));
    byte(static_cast<std::uint8_t>(value));
  }
  void be32(std::uint32_t value) {
    be16(static_cast<std::uint16_t>(value >> 16));
    be16(static_cast<std::uint16_t>(value));
  }
  template <typename Range>
  void bytes(const Range& range) {
    out_.insert(out_.end(), range.begin(), range.end());
  }
  void id(TlvType type, const Id& id) {
    tlv(type, 1 + id.bytes.size());
    byte(id.subtype);
    bytes(id.bytes);
  }
  void text(TlvType type, const std::optional<std::string>& text) {
    if (!text) return;
    tlv(type, text->size());
    bytes(*text);
  }

 private:
  std::vector<std::uint8_t>& out_;
};

// The length a MAC-address id must have; 0 when the subtype allows any length.
std::size_t fixed_id_len(std::uint8_t subtype, bool chassis) {
  const std::uint8_t mac = chassis ? static_cast<std::uint8_t>(ChassisIdSubtype::kMacAddress)
                                   : static_cast<std::uint8_t>(PortIdSubtype::kMacAddress);
  return subtype == mac ? 6 : 0;
}

RejectReason decode_id(ByteSpan info, bool chassis, Id& id) {
  const RejectReason bad_length =
      chassis ? RejectReason::kBadChassisIdLength : RejectReason::kBadPortIdLength;
  if (info.size() < 2 || info.size() > 1 + kMaxIdLen) return bad_length;
  id.subtype = info[0];
  if (id.subtype == 0 || id.subtype > 7)
    return chassis ? RejectReason::kBadChassisIdSubtype : RejectReason::kBadPortIdSubtype;
  id.bytes.assign(info.begin() + 1, info.end());
  const std::size_t fixed = fixed_id_len(id.subtype, chassis);
  if (fixed != 0 && id.bytes.size() != fixed) return bad_length;
  return RejectReason::kNone;
}

RejectReason decode_management(ByteSpan info, ManagementAddress& out) {
  if (info.size() < kMinManagementLen) return RejectReason::kBadManagementAddressLength;
  const std::size_t string_len = info[0];  // subtype + address
  if (string_len < 2 || string_len > 1 + kMaxManagementAddressLen)
    return RejectReason::kBadManagementAddressLength;
  const std::size_t interface_at = 1 + string_len;
  if (interface_at + 6 > info.size()) return RejectReason::kBadManagementAddressLength;
  const std::size_t oid_len = info[interface_at + 5];
  if (oid_len > kMaxOidLen || interface_at + 6 + oid_len != info.size())
    return RejectReason::kBadManagementAddressLength;
  out.family = info[1];
  out.address.assign(info.begin() + 2, info.begin() + static_cast<std::ptrdiff_t>(interface_at));
  out.interface_subtype = info[interface_at];
  out.interface_number = load_be32(info, interface_at + 1);
  out.oid.assign(info.begin() + static_cast<std::ptrdiff_t>(interface_at + 6), info.end());
  return RejectReason::kNone;
}

}  // namespace

Id Id::mac(std::uint8_t subtype, const MacAddress& mac) {
  return {subtype, std::vector<std::uint8_t>(mac.begin(), mac.end())};
}

Id Id::text(std::uint8_t subtype, const std::string& text) {
  return {subtype, std::vector<std::uint8_t>(text.begin(), text.end())};
}

Id chassis_mac(const MacAddress& mac) {
  return Id::mac(static_cast<std::uint8_t>(ChassisIdSubtype::kMacAddress), mac);
}
Id chassis_local(const std::string& text) {
  return Id::text(static_cast<std::uint8_t>(ChassisIdSubtype::kLocal), text);
}
Id port_interface_name(const std::string& name) {
  return Id::text(static_cast<std::uint8_t>(PortIdSubtype::kInterfaceName), name);
}
Id port_mac(const MacAddress& mac) {
  return Id::mac(static_cast<std::uint8_t>(PortIdSubtype::kMacAddress), mac);
}
Id port_local(const std::string& text) {
  return Id::text(static_cast<std::uint8_t>(PortIdSubtype::kLocal), text);
}

std::string describe(const Id& id, bool chassis) {
  const bool mac = fixed_id_len(id.subtype, chassis) != 0 && id.bytes.size() == 6;
  if (mac) return "mac " + hex_bytes(id.bytes, ':');
  const std::uint8_t network = chassis
                                   ? static_cast<std::uint8_t>(ChassisIdSubtype::kNetworkAddress)
                                   : static_cast<std::uint8_t>(PortIdSubtype::kNetworkAddress);
  if (id.subtype == network) return "ip " + ip_text(id.bytes);
  const std::uint8_t ifname = chassis ? static_cast<std::uint8_t>(ChassisIdSubtype::kInterfaceName)
                                      : static_cast<std::uint8_t>(PortIdSubtype::kInterfaceName);
  const char* kind = id.subtype == ifname ? "ifname" : "local";
  if (id.subtype == ifname || id.subtype == 7) {
    if (printable(id.bytes))
      return std::string(kind) + " " + std::string(id.bytes.begin(), id.bytes.end());
  }
  if (printable(id.bytes))
    return "subtype " + std::to_string(id.subtype) + " " +
           std::string(id.bytes.begin(), id.bytes.end());
  return "subtype " + std::to_string(id.subtype) + " " + hex_bytes(id.bytes, 0);
}

std::optional<LinkAggregation> link_aggregation(const Lldpdu& lldpdu) {
  for (const OrgSpecific& tlv : lldpdu.org_specific) {
    const bool dot3 = tlv.oui == kOuiIeee8023 && tlv.subtype == kSubtype8023LinkAggregation;
    const bool dot1 = tlv.oui == kOuiIeee8021 && tlv.subtype == kSubtype8021LinkAggregation;
    if ((!dot3 && !dot1) || tlv.info.size() != kLinkAggregationInfoLen) continue;
    return LinkAggregation{.capable = (tlv.info[0] & kAggregationCapable) != 0,
                           .enabled = (tlv.info[0] & kAggregationEnabled) != 0,
                           .aggregated_port_id = load_be32(ByteSpan(tlv.info), 1)};
  }
  return std::nullopt;
}

OrgSpecific encode_link_aggregation(const LinkAggregation& aggregation) {
  OrgSpecific tlv{.oui = kOuiIeee8023, .subtype = kSubtype8023LinkAggregation, .info = {}};
  tlv.info.resize(kLinkAggregationInfoLen);
  tlv.info[0] = static_cast<std::uint8_t>((aggregation.capable ? kAggregationCapable : 0) |
                                          (aggregation.enabled ? kAggregationEnabled : 0));
  store_be32(MutableByteSpan(tlv.info), 1, aggregation.aggregated_port_id);
  return tlv;
}

std::string check_lldpdu(const Lldpdu& lldpdu) {
  auto check_id = [](const Id& id, bool chassis) -> std::string {
    const char* name = chassis ? "chassis_id" : "port_id";
    if (id.subtype == 0 || id.subtype > 7) return std::string(name) + " has a reserved subtype";
    if (id.bytes.empty() || id.bytes.size() > kMaxIdLen)
      return std::string(name) + " must be 1-255 octets";
    const std::size_t fixed = fixed_id_len(id.subtype, chassis);
    if (fixed != 0 && id.bytes.size() != fixed)
      return std::string(name) + " of the MAC address subtype must be 6 octets";
    return "";
  };
  if (std::string error = check_id(lldpdu.chassis_id, true); !error.empty()) return error;
  if (std::string error = check_id(lldpdu.port_id, false); !error.empty()) return error;
  const std::pair<const char*, const std::optional<std::string>*> strings[] = {
      {"port_description", &lldpdu.port_description},
      {"system_name", &lldpdu.system_name},
      {"system_description", &lldpdu.system_description}};
  for (const auto& [name, text] : strings) {
    if (*text && (*text)->size() > kMaxStringLen)
      return std::string(name) + " is longer than 255 octets";
  }
  for (const ManagementAddress& address : lldpdu.management_addresses) {
    if (address.address.empty() || address.address.size() > kMaxManagementAddressLen)
      return "a management address must be 1-31 octets";
    if (address.oid.size() > kMaxOidLen) return "a management address OID is over 128 octets";
  }
  for (const OrgSpecific& tlv : lldpdu.org_specific) {
    if (kOrgHeaderLen + tlv.info.size() > kMaxTlvLen)
      return "an organizationally specific TLV is over 507 octets";
  }
  Lldpdu copy = lldpdu;
  if (build_frame({}, copy).size() > kEthernetHeaderLen + kMaxLldpduLen)
    return "the LLDPDU is longer than 1500 octets";
  return "";
}

std::vector<std::uint8_t> build_frame(const MacAddress& source_mac, const Lldpdu& lldpdu) {
  std::vector<std::uint8_t> frame;
  frame.reserve(kMinFrameLen);
  Writer out(frame);
  out.bytes(kNearestBridgeMac);
  out.bytes(source_mac);
  out.be16(kEthertype);
  out.id(TlvType::kChassisId, lldpdu.chassis_id);
  out.id(TlvType::kPortId, lldpdu.port_id);
  out.tlv(TlvType::kTtl, 2);
  out.be16(lldpdu.ttl_s);
  out.text(TlvType::kPortDescription, lldpdu.port_description);
  out.text(TlvType::kSystemName, lldpdu.system_name);
  out.text(TlvType::kSystemDescription, lldpdu.system_description);
  if (lldpdu.capabilities) {
    out.tlv(TlvType::kSystemCapabilities, 4);
    out.be16(lldpdu.capabilities->system);
    out.be16(lldpdu.capabilities->enabled);
  }
  for (const ManagementAddress& address : lldpdu.management_addresses) {
    out.tlv(TlvType::kManagementAddress, 2 + address.address.size() + 6 + address.oid.size());
    out.byte(static_cast<std::uint8_t>(1 + address.address.size()));
    out.byte(address.family);
    out.bytes(address.address);
    out.byte(address.interface_subtype);
    out.be32(address.interface_number);
    out.byte(static_cast<std::uint8_t>(address.oid.size()));
    out.bytes(address.oid);
  }
  for (const OrgSpecific& tlv : lldpdu.org_specific) {
    out.tlv(TlvType::kOrganizationallySpecific, kOrgHeaderLen + tlv.info.size());
    out.bytes(tlv.oui);
    out.byte(tlv.subtype);
    out.bytes(tlv.info);
  }
  out.tlv(TlvType::kEnd, 0);
  if (frame.size() < kMinFrameLen) frame.resize(kMinFrameLen, 0);
  return frame;
}

ParsedFrame parse_frame(ByteSpan frame) {
  ParsedFrame parsed;
  auto reject = [&parsed](RejectReason reason) {
    parsed.reason = reason;
    return parsed;
  };
  if (frame.size() < kEthernetHeaderLen) return reject(RejectReason::kFrameTooShort);
  if (!std::equal(kNearestBridgeMac.begin(), kNearestBridgeMac.end(), frame.begin()))
    return reject(RejectReason::kBadDestinationMac);
  std::copy_n(frame.begin() + 6, 6, parsed.source_mac.begin());
  std::size_t offset = 12;
  std::uint16_t ethertype = load_be16(frame, offset);
  if (ethertype == kVlanEthertype) {
    if (frame.size() < kEthernetHeaderLen + 4) return reject(RejectReason::kFrameTooShort);
    parsed.vlan_id = load_be16(frame, offset + 2) & 0x0fff;
    offset += 4;
    ethertype = load_be16(frame, offset);
  }
  if (ethertype != kEthertype) return reject(RejectReason::kBadEthertype);
  offset += 2;

  // 9.2.7.7.1: the first three TLVs are Chassis ID, Port ID and TTL, in this order.
  static constexpr RejectReason kMissing[] = {
      RejectReason::kMissingChassisId, RejectReason::kMissingPortId, RejectReason::kMissingTtl};
  Lldpdu& lldpdu = parsed.lldpdu;
  bool have_capabilities = false;
  std::size_t index = 0;
  for (;; ++index) {
    const ByteSpan rest = frame.subspan(offset);
    if (rest.size() < kTlvHeaderLen) {
      // The frame ends without End. Trailing zeros are Ethernet padding.
      const bool padding =
          std::all_of(rest.begin(), rest.end(), [](std::uint8_t b) { return b == 0; });
      if (!padding) return reject(RejectReason::kTlvHeaderTruncated);
      break;
    }
    const std::uint16_t header = load_be16(rest, 0);
    const auto type = static_cast<std::uint8_t>(header >> 9);
    const std::size_t len = header & 0x1ff;
    if (kTlvHeaderLen + len > rest.size()) return reject(RejectReason::kTlvPastFrame);
    const ByteSpan info = rest.subspan(kTlvHeaderLen, len);
    offset += kTlvHeaderLen + len;
    if (index < 3 && type != index + 1) return reject(kMissing[index]);
    switch (static_cast<TlvType>(type)) {
      case TlvType::kEnd:
        if (len != 0) return reject(RejectReason::kBadEndLength);
        parsed.end_seen = true;
        return parsed;  // what follows End is padding
      case TlvType::kChassisId:
        if (index != 0) return reject(RejectReason::kDuplicateMandatoryTlv);
        if (const RejectReason r = decode_id(info, true, lldpdu.chassis_id);
            r != RejectReason::kNone)
          return reject(r);
        break;
      case TlvType::kPortId:
        if (index != 1) return reject(RejectReason::kDuplicateMandatoryTlv);
        if (const RejectReason r = decode_id(info, false, lldpdu.port_id); r != RejectReason::kNone)
          return reject(r);
        break;
      case TlvType::kTtl:
        if (index != 2) return reject(RejectReason::kDuplicateMandatoryTlv);
        if (len != 2) return reject(RejectReason::kBadTtlLength);
        lldpdu.ttl_s = load_be16(info, 0);
        break;
      case TlvType::kPortDescription:
      case TlvType::kSystemName:
      case TlvType::kSystemDescription: {
        if (len > kMaxStringLen) return reject(RejectReason::kBadStringLength);
        std::optional<std::string>& field =
            type == 4 ? lldpdu.port_description
                      : (type == 5 ? lldpdu.system_name : lldpdu.system_description);
        if (field) {
          ++parsed.repeated_tlvs;
          break;
        }
        field.emplace(info.begin(), info.end());
        break;
      }
      case TlvType::kSystemCapabilities:
        if (len != 4) return reject(RejectReason::kBadCapabilitiesLength);
        if (have_capabilities) {
          ++parsed.repeated_tlvs;
          break;
        }
        have_capabilities = true;
        lldpdu.capabilities = Capabilities{load_be16(info, 0), load_be16(info, 2)};
        break;
      case TlvType::kManagementAddress: {
        ManagementAddress address;
        if (const RejectReason r = decode_management(info, address); r != RejectReason::kNone)
          return reject(r);
        lldpdu.management_addresses.push_back(std::move(address));
        break;
      }
      case TlvType::kOrganizationallySpecific: {
        if (len < kOrgHeaderLen) return reject(RejectReason::kBadOrgSpecificLength);
        OrgSpecific tlv;
        std::copy_n(info.begin(), 3, tlv.oui.begin());
        tlv.subtype = info[3];
        tlv.info.assign(info.begin() + kOrgHeaderLen, info.end());
        lldpdu.org_specific.push_back(std::move(tlv));
        break;
      }
      default:
        ++parsed.unrecognised_tlvs;  // reserved types 9-126
        break;
    }
  }
  if (index < 3) return reject(kMissing[index]);
  return parsed;
}

}  // namespace braid::lldp
