// Hands built LLDP frames to Wireshark's dissector (test/unit/common/tshark.hpp): an independent
// check that every TLV sits where IEEE 802.1AB and 802.3 put it.
#include "../common/tshark.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lldp/lldpdu.hpp"
#include "trace/pcap_writer.hpp"

namespace braid::lldp {
namespace {

using braid::tshark::TsharkTest;

TEST_F(TsharkTest, LldpFramesDissect) {
  Lldpdu lldpdu;
  lldpdu.chassis_id = chassis_mac({0x02, 0x00, 0x00, 0x00, 0x0a, 0x00});
  lldpdu.port_id = port_interface_name("p0");
  lldpdu.ttl_s = 121;
  lldpdu.port_description = "bond0 member p0";
  lldpdu.system_name = "braid-host";
  lldpdu.system_description = "braid bonding data plane";
  lldpdu.capabilities = Capabilities{kCapabilityStation, kCapabilityStation};
  lldpdu.management_addresses.push_back(
      {.family = kAddressFamilyIpv4, .address = {10, 0, 0, 1}, .interface_number = 2});
  lldpdu.management_addresses.push_back(
      {.family = kAddressFamilyIpv6,
       .address = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
       .interface_number = 2});
  lldpdu.org_specific.push_back(encode_link_aggregation({true, true, 7}));
  const std::string pcap = (dir_ / "lldp.pcap").string();
  {
    trace::PcapWriter writer(pcap);
    writer.write(build_frame({0x02, 0x00, 0x00, 0x00, 0x0a, 0x01}, lldpdu));
    Lldpdu shutdown;
    shutdown.chassis_id = lldpdu.chassis_id;
    shutdown.port_id = port_mac({0x02, 0x00, 0x00, 0x00, 0x0a, 0x01});
    writer.write(build_frame({0x02, 0x00, 0x00, 0x00, 0x0a, 0x01}, shutdown));
  }
  const auto rows =
      dissect(pcap, {"eth.dst", "eth.type", "lldp.chassis.subtype", "lldp.chassis.id.mac",
                     "lldp.port.subtype", "lldp.port.id", "lldp.port.id.mac", "lldp.time_to_live",
                     "lldp.port.desc", "lldp.tlv.system.name", "lldp.tlv.system.desc",
                     "lldp.tlv.system_cap", "lldp.mgn.addr.ip4", "lldp.mgn.addr.ip6",
                     "lldp.ieee.802_3.aggregation_status.enabled",
                     "lldp.ieee.802_3.aggregated_port_id", "_ws.expert.message"});
  ASSERT_EQ(rows.size(), 2u);
  // Wireshark's only remark: the 802.3 link aggregation TLV, which lldpd still sends, has moved
  // to IEEE 802.1 (OUI 00-80-C2 subtype 7). Fields left empty drop off the end of a row.
  EXPECT_EQ(rows[0], (std::vector<std::string>{
                         "01:80:c2:00:00:0e", "0x88cc", "4", "02:00:00:00:0a:00", "5", "p0", "",
                         "121", "bond0 member p0", "braid-host", "braid bonding data plane",
                         "0x0080", "10.0.0.1", "fd00::1", "1", "7", "TLV has been deprecated"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"01:80:c2:00:00:0e", "0x88cc", "4",
                                               "02:00:00:00:0a:00", "3", "", "02:00:00:00:0a:01",
                                               "0", "", "", "", "", "", "", "", ""}));
}

}  // namespace
}  // namespace braid::lldp
