// Hands built BFD frames to Wireshark's dissectors (test/unit/common/tshark.hpp): an independent
// check of the Control packet fields and of both checksums.
#include "../common/tshark.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bfd/frame.hpp"
#include "trace/pcap_writer.hpp"

namespace braid::bfd {
namespace {

using braid::tshark::TsharkTest;

TEST_F(TsharkTest, BfdFramesDissectWithGoodChecksums) {
  ControlPacket packet;
  packet.diag = Diag::kControlDetectionTimeExpired;
  packet.state = State::kUp;
  packet.poll = true;
  packet.detect_mult = 3;
  packet.my_discriminator = 0x0a0a0a0a;
  packet.your_discriminator = 0x0b0b0b0b;
  packet.desired_min_tx_us = 10'000;
  packet.required_min_rx_us = 20'000;
  FrameSpec spec;
  spec.source_mac = {0x02, 0x00, 0x00, 0x00, 0x0a, 0x01};
  spec.destination_mac = {0x02, 0x00, 0x00, 0x00, 0x0b, 0x01};
  spec.source_port = 49200;
  const std::string pcap = (dir_ / "bfd.pcap").string();
  {
    trace::PcapWriter writer(pcap);  // throws, failing the test, when the file cannot be made
    for (Encapsulation encapsulation : {Encapsulation::kMicroBfd, Encapsulation::kSingleHop}) {
      spec.encapsulation = encapsulation;
      spec.source_ip = IpAddress::v4(0x0a000001);
      spec.destination_ip = IpAddress::v4(0x0a000002);
      writer.write(build_frame(spec, packet).span());
      spec.source_ip = IpAddress::v6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
      spec.destination_ip = IpAddress::v6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
      writer.write(build_frame(spec, packet).span());
    }
  }
  // Checksum status 1 is "Good".
  const auto rows = dissect(
      pcap,
      {"eth.dst", "ip.ttl", "ipv6.hlim", "ip.checksum.status", "udp.srcport", "udp.dstport",
       "udp.checksum.status", "bfd.version", "bfd.diag", "bfd.sta", "bfd.flags.p",
       "bfd.detect_time_multiplier", "bfd.message_length", "bfd.my_discriminator",
       "bfd.your_discriminator", "bfd.desired_min_tx_interval", "bfd.required_min_rx_interval"},
      "-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -d udp.port==6784,bfd");
  ASSERT_EQ(rows.size(), 4u);
  const std::vector<std::string> bfd = {"1",  "0x01",       "0x03",       "1",     "3",
                                        "24", "0x0a0a0a0a", "0x0b0b0b0b", "10000", "20000"};
  auto expect = [&](std::size_t row, std::vector<std::string> head) {
    head.insert(head.end(), bfd.begin(), bfd.end());
    EXPECT_EQ(rows[row], head) << row;
  };
  expect(0, {"01:00:5e:90:00:01", "255", "", "1", "49200", "6784", "1"});
  expect(1, {"01:00:5e:90:00:01", "", "255", "", "49200", "6784", "1"});
  expect(2, {"02:00:00:00:0b:01", "255", "", "1", "49200", "3784", "1"});
  expect(3, {"02:00:00:00:0b:01", "", "255", "", "49200", "3784", "1"});
}

}  // namespace
}  // namespace braid::bfd
