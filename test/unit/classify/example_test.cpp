// doc/classes.md's storage-gateway example, read from the page: its YAML loads and every row of
// its "What each frame gets" table is what the classifier does.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "classify/classifier.hpp"
#include "config/config_loader.hpp"
#include "frame_builder.hpp"

namespace braid::classify {
namespace {

using flow::test::FrameBuilder;
using flow::test::kIpv4A;
using flow::test::kIpv4B;
using flow::test::kMacA;
using flow::test::kMacB;

// The first ```yaml block after the "## Example: a storage gateway" heading.
std::string example_yaml() {
  const char* root = std::getenv("BRAID_SOURCE_ROOT");
  std::ifstream page(std::string(root == nullptr ? "." : root) + "/doc/classes.md");
  std::stringstream text;
  text << page.rdbuf();
  const std::string doc = text.str();
  const std::size_t heading = doc.find("## Example: a storage gateway");
  const std::size_t start = doc.find("```yaml\n", heading);
  const std::size_t end = doc.find("```\n", start + 8);
  if (heading == std::string::npos || start == std::string::npos || end == std::string::npos)
    return "";
  return doc.substr(start + 8, end - start - 8);
}

TEST(ClassesExample, StorageGatewayTableHolds) {
  const std::string yaml = example_yaml();
  ASSERT_FALSE(yaml.empty()) << "no storage-gateway example in doc/classes.md";
  const config::Config config = config::parse_config(
      "ports:\n  - {name: host, device: net_ring0}\n  - {name: p0, device: net_ring1}\n"
      "  - {name: p1, device: net_ring2}\ncross_connect: [[host, storage]]\n" +
          yaml,
      "doc/classes.md");
  const ClassifierSpec& spec = config.bonds.at(0).classes;
  const Classifier classifier(spec);
  const auto class_of = [&](const std::vector<std::uint8_t>& frame) {
    return spec.classes[classifier.classify(ByteSpan(frame))].name;
  };
  const auto roce = [](FrameBuilder builder, std::uint8_t dscp = 26, std::uint8_t opcode = 0x04) {
    return builder.ipv4(kIpv4A, kIpv4B)
        .traffic_class(static_cast<std::uint8_t>(dscp << 2))
        .udp(49152, flow::kUdpPortRocev2)
        .bth(0x11, 0, opcode)
        .build();
  };
  const auto tcp = [](std::uint16_t src, std::uint16_t dst, std::uint8_t dscp) {
    return FrameBuilder()
        .ethernet(kMacB, kMacA)
        .ipv4(kIpv4A, kIpv4B)
        .traffic_class(static_cast<std::uint8_t>(dscp << 2))
        .tcp(src, dst)
        .build(64);
  };
  EXPECT_EQ(class_of(roce(
                FrameBuilder().ethernet(kMacB, kMacA).vlan(flow::kEtherTypeVlan, 3 << 13 | 10))),
            "replication");
  EXPECT_EQ(class_of(roce(FrameBuilder().ethernet(kMacB, kMacA))), "replication");
  EXPECT_EQ(class_of(roce(FrameBuilder().ethernet(kMacB, kMacA), 48, 0x81)), "replication");
  EXPECT_EQ(class_of(roce(FrameBuilder().ethernet(kMacB, kMacA), 0)), "bulk");
  EXPECT_EQ(class_of(roce(FrameBuilder()
                              .ethernet(kMacB, kMacA)
                              .ipv4(kIpv4A, kIpv4B)
                              .udp(1, flow::kUdpPortVxlan)
                              .vxlan(5)
                              .ethernet(kMacA, kMacB))),
            "replication");
  EXPECT_EQ(class_of(tcp(40000, 4420, 0)), "frontend");
  EXPECT_EQ(class_of(tcp(4420, 40000, 0)), "frontend");
  EXPECT_EQ(class_of(tcp(40000, 3260, 0)), "frontend");
  EXPECT_EQ(
      class_of(FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B).udp(1, 4420).build(64)),
      "bulk");
  EXPECT_EQ(class_of(tcp(40000, 80, 34)), "frontend");
  EXPECT_EQ(class_of(FrameBuilder()
                         .ethernet(kMacB, kMacA)
                         .ipv4(kIpv4A, kIpv4B, 0x2000 | 8)
                         .tcp(40000, 4420)
                         .build(64)),
            "bulk");
  EXPECT_EQ(class_of(FrameBuilder().ethernet(kMacB, kMacA).ethertype(0x0806).build(64)), "bulk");
  EXPECT_EQ(class_of(FrameBuilder().ethernet(kMacB, kMacA).ethertype(0x8809).build(124)), "bulk");
}

}  // namespace
}  // namespace braid::classify
