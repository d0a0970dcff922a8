// Builds test frames layer by layer. Each layer fills in the EtherType / protocol field the layer
// before left open, and build() patches IPv4 total length, IPv6 payload length and UDP length.
// Checksums stay zero: the flow parser never reads them. Shared by the unit tests, the benchmark
// and the fuzz seed generator.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace braid::flow::test {

using Mac = std::array<std::uint8_t, 6>;
using Ipv4 = std::array<std::uint8_t, 4>;
using Ipv6 = std::array<std::uint8_t, 16>;

class FrameBuilder {
 public:
  FrameBuilder& ethernet(const Mac& dst, const Mac& src) {
    append(dst);
    append(src);
    open_ethertype();
    return *this;
  }

  FrameBuilder& vlan(std::uint16_t tpid, std::uint16_t tci) {
    fill_ethertype(tpid);
    put16(tci);
    open_ethertype();
    return *this;
  }

  // Closes the open EtherType with a raw value (ARP, slow protocols, ...).
  FrameBuilder& ethertype(std::uint16_t value) {
    fill_ethertype(value);
    return *this;
  }

  FrameBuilder& ipv4(const Ipv4& src, const Ipv4& dst, std::uint16_t fragment_field = 0,
                     std::uint16_t id = 0x1234, std::vector<std::uint8_t> options = {}) {
    fill_ethertype(0x0800);
    last_l3_version_ = 4;
    last_l3_start_ = bytes_.size();
    length_fixups_.push_back({Fixup::ipv4, bytes_.size()});
    const auto ihl = static_cast<std::uint8_t>(5 + options.size() / 4);
    put8(static_cast<std::uint8_t>(0x40 | ihl));
    put8(0);   // DSCP/ECN
    put16(0);  // total length: patched
    put16(id);
    put16(fragment_field);
    put8(64);  // TTL
    open_protocol();
    put16(0);  // checksum
    append(src);
    append(dst);
    append(options);
    return *this;
  }

  FrameBuilder& ipv6(const Ipv6& src, const Ipv6& dst, std::uint32_t flow_label = 0) {
    fill_ethertype(0x86DD);
    last_l3_version_ = 6;
    last_l3_start_ = bytes_.size();
    length_fixups_.push_back({Fixup::ipv6, bytes_.size()});
    put32(0x60000000U | (flow_label & 0xFFFFF));
    put16(0);  // payload length: patched
    open_protocol();
    put8(64);  // hop limit
    append(src);
    append(dst);
    return *this;
  }

  // Sets the last IP header's TOS / Traffic Class octet (DSCP << 2 | ECN).
  FrameBuilder& traffic_class(std::uint8_t value) {
    if (last_l3_version_ == 4) {
      bytes_[last_l3_start_ + 1] = value;
    } else {
      bytes_[last_l3_start_] = static_cast<std::uint8_t>(0x60 | (value >> 4));
      bytes_[last_l3_start_ + 1] =
          static_cast<std::uint8_t>((bytes_[last_l3_start_ + 1] & 0x0F) | (value << 4));
    }
    return *this;
  }

  // Hop-by-hop (0), routing (43) or destination options (60): (units + 1) * 8 bytes.
  FrameBuilder& ipv6_extension(std::uint8_t type, std::uint8_t units = 0) {
    fill_protocol(type);
    open_protocol();
    put8(units);
    for (std::size_t i = 2; i < (std::size_t{units} + 1) * 8; ++i)
      put8(0);
    return *this;
  }

  FrameBuilder& ipv6_fragment(std::uint16_t offset_units, bool more, std::uint32_t id) {
    fill_protocol(44);
    open_protocol();
    put8(0);
    put16(static_cast<std::uint16_t>((offset_units << 3) | (more ? 1 : 0)));
    put32(id);
    return *this;
  }

  FrameBuilder& tcp(std::uint16_t src_port, std::uint16_t dst_port) {
    fill_protocol(6);
    put16(src_port);
    put16(dst_port);
    put32(1);       // sequence
    put32(0);       // ack
    put16(0x5002);  // data offset 5, SYN
    put16(0xFFFF);  // window
    put32(0);       // checksum, urgent
    return *this;
  }

  FrameBuilder& udp(std::uint16_t src_port, std::uint16_t dst_port) {
    fill_protocol(17);
    length_fixups_.push_back({Fixup::udp, bytes_.size()});
    put16(src_port);
    put16(dst_port);
    put16(0);  // length: patched
    put16(0);
    return *this;
  }

  FrameBuilder& sctp(std::uint16_t src_port, std::uint16_t dst_port) {
    fill_protocol(132);
    put16(src_port);
    put16(dst_port);
    put32(0xCAFE);  // verification tag
    put32(0);       // checksum
    return *this;
  }

  // ICMP for IPv4, ICMPv6 for IPv6.
  FrameBuilder& icmp(std::uint8_t type, std::uint8_t code) {
    fill_protocol(last_l3_version_ == 6 ? 58 : 1);
    put8(type);
    put8(code);
    put16(0);
    put32(0x00010001);  // identifier, sequence
    return *this;
  }

  FrameBuilder& protocol(std::uint8_t value) {
    fill_protocol(value);
    return *this;
  }

  // InfiniBand BTH (after UDP port 4791): by default opcode RC SEND only, P_Key 0xFFFF.
  FrameBuilder& bth(std::uint32_t dest_qp, std::uint32_t psn = 0, std::uint8_t opcode = 0x04) {
    put8(opcode);
    put8(0x40);
    put16(0xFFFF);
    put32(dest_qp & 0xFFFFFF);
    put32(psn & 0xFFFFFF);
    return *this;
  }

  FrameBuilder& vxlan(std::uint32_t vni, std::uint8_t flags = 0x08) {
    put8(flags);
    put8(0);
    put16(0);
    put32(vni << 8);
    return *this;
  }

  // GRE (RFC 2784/2890); the payload's EtherType is filled by the next layer.
  FrameBuilder& gre(bool with_key = false, std::uint32_t key = 0, bool with_checksum = false,
                    bool with_sequence = false, std::uint16_t extra_flags = 0) {
    fill_protocol(47);
    put16(static_cast<std::uint16_t>((with_checksum ? 0x8000 : 0) | (with_key ? 0x2000 : 0) |
                                     (with_sequence ? 0x1000 : 0) | extra_flags));
    open_ethertype();
    if (with_checksum) put32(0);
    if (with_key) put32(key);
    if (with_sequence) put32(7);
    return *this;
  }

  FrameBuilder& payload(std::size_t count, std::uint8_t value = 0xAB) {
    for (std::size_t i = 0; i < count; ++i)
      put8(value);
    return *this;
  }

  FrameBuilder& raw(std::initializer_list<std::uint8_t> values) {
    bytes_.insert(bytes_.end(), values.begin(), values.end());
    return *this;
  }

  // Patches lengths, then pads with zeros to `min_size` (Ethernet padding is outside IP).
  std::vector<std::uint8_t> build(std::size_t min_size = 0) const {
    std::vector<std::uint8_t> frame = bytes_;
    const std::size_t end = frame.size();
    for (const Fixup& fixup : length_fixups_) {
      switch (fixup.kind) {
        case Fixup::ipv4:
          store16(frame, fixup.start + 2, end - fixup.start);
          break;
        case Fixup::ipv6:
          store16(frame, fixup.start + 4, end - fixup.start - 40);
          break;
        case Fixup::udp:
          store16(frame, fixup.start + 4, end - fixup.start);
          break;
      }
    }
    if (frame.size() < min_size) frame.resize(min_size, 0);
    return frame;
  }

 private:
  struct Fixup {
    enum Kind { ipv4, ipv6, udp } kind;
    std::size_t start;
  };

  static void store16(std::vector<std::uint8_t>& frame, std::size_t offset, std::size_t value) {
    frame[offset] = static_cast<std::uint8_t>(value >> 8);
    frame[offset + 1] = static_cast<std::uint8_t>(value);
  }

  template <std::size_t N>
  void append(const std::array<std::uint8_t, N>& values) {
    bytes_.insert(bytes_.end(), values.begin(), values.end());
  }
  void append(const std::vector<std::uint8_t>& values) {
    bytes_.insert(bytes_.end(), values.begin(), values.end());
  }
  void put8(std::uint8_t value) { bytes_.push_back(value); }
  void put16(std::uint16_t value) {
    put8(static_cast<std::uint8_t>(value >> 8));
    put8(static_cast<std::uint8_t>(value));
  }
  void put32(std::uint32_t value) {
    put16(static_cast<std::uint16_t>(value >> 16));
    put16(static_cast<std::uint16_t>(value));
  }
  void open_ethertype() {
    open_ethertype_ = bytes_.size();
    put16(0);
  }
  void fill_ethertype(std::uint16_t value) { store16(bytes_, open_ethertype_, value); }
  void open_protocol() {
    open_protocol_ = bytes_.size();
    put8(0);
  }
  void fill_protocol(std::uint8_t value) { bytes_[open_protocol_] = value; }

  std::vector<std::uint8_t> bytes_;
  std::vector<Fixup> length_fixups_;
  std::size_t open_ethertype_ = 0;
  std::size_t open_protocol_ = 0;
  int last_l3_version_ = 0;
  std::size_t last_l3_start_ = 0;
};

inline constexpr Mac kMacA = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0A};
inline constexpr Mac kMacB = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0B};
inline constexpr Ipv4 kIpv4A = {192, 0, 2, 1};
inline constexpr Ipv4 kIpv4B = {198, 51, 100, 2};
inline constexpr Ipv6 kIpv6A = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
inline constexpr Ipv6 kIpv6B = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

}  // namespace braid::flow::test
