// Hands the encoded LACP frames to Wireshark's dissectors (test/unit/common/tshark.hpp).
#include "../common/tshark.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "golden_frames.hpp"
#include "lacp/marker.hpp"
#include "lacp/pdu.hpp"
#include "trace/pcap_writer.hpp"

namespace braid::lacp {
namespace {

using braid::tshark::TsharkTest;

TEST_F(TsharkTest, LacpduFieldsAndStateBitsDissect) {
  const std::string pcap = (dir_ / "lacp.pcap").string();
  {
    trace::PcapWriter writer(pcap);  // throws, failing the test, when the file cannot be made
    const SlowFrame frame = encode_lacpdu(golden::kActorPortMac, golden::lacpdu());
    writer.write(frame, 1'000'000'000);
  }
  const auto rows = dissect(
      pcap,
      {"lacp.version", "lacp.actor.sys_priority", "lacp.actor.sysid", "lacp.actor.key",
       "lacp.actor.port_priority", "lacp.actor.port", "lacp.actor.state",
       "lacp.actor.state.activity", "lacp.actor.state.timeout", "lacp.actor.state.synchronization",
       "lacp.actor.state.distributing", "lacp.actor.state.defaulted", "lacp.partner.sys_priority",
       "lacp.partner.sysid", "lacp.partner.key", "lacp.partner.port", "lacp.partner.state",
       "lacp.partner.state.timeout", "lacp.collector.max_delay"});
  ASSERT_EQ(rows.size(), 1u);
  const std::vector<std::string> expected = {
      "0x01", "32768", "02:00:00:00:00:01", "463", "255", "1",    "0x3f", "1",   "1", "1", "1",
      "0",    "65535", "02:00:00:00:00:aa", "33",  "2",   "0x3d", "0",    "4660"};
  EXPECT_EQ(rows[0], expected);
}

TEST_F(TsharkTest, MarkerResponseDissects) {
  const std::string pcap = (dir_ / "marker.pcap").string();
  {
    trace::PcapWriter writer(pcap);  // throws, failing the test, when the file cannot be made
    writer.write(golden::marker_request_frame(), 1'000'000'000);
    MarkerPdu request;
    ASSERT_EQ(decode_marker(ByteSpan(golden::marker_request_frame()).subspan(kEthernetHeaderLen),
                            request),
              DecodeError::kNone);
    writer.write(encode_marker(golden::kResponderPortMac, marker_response_for(request)),
                 1'000'100'000);
  }
  // marker.tlvType lists the Marker TLV and then the Terminator TLV.
  const auto rows = dissect(pcap, {"slow.subtype", "marker.tlvType", "marker.requesterPort",
                                   "marker.requesterSystem", "marker.requesterTransId", "eth.src"});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"0x02", "0x01,0x00", "7", "00:1b:21:3c:4d:5e",
                                               "3735928559", "00:1b:21:3c:4d:5f"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"0x02", "0x02,0x00", "7", "00:1b:21:3c:4d:5e",
                                               "3735928559", "02:00:00:00:01:02"}));
}

}  // namespace
}  // namespace braid::lacp
