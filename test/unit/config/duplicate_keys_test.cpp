// A key appears once in a map, at any level: yaml-cpp keeps every pair of a map and a lookup finds
// the first, so a repeated key would otherwise be ignored without a word.
#include <gtest/gtest.h>

#include <string>

#include "config/config_loader.hpp"

namespace braid::config {
namespace {

constexpr const char* kMinimal = R"(ports:
  - name: p0
    device: net_null0
  - name: p1
    device: net_null1
cross_connect:
  - [p0, p1]
)";

std::string error_of(const std::string& text) {
  try {
    parse_config(text, "x.yaml");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(ConfigDuplicateKeys, SecondTopLevelBlockIsAnErrorNotIgnored) {
  // Before: the first `bonds:` won and the second, naming a port that does not exist, was
  // silently ignored.
  const std::string text = std::string(R"(ports:
  - {name: h, device: a}
  - {name: m0, device: b}
bonds:
  - {name: up, members: [m0]}
cross_connect: [[h, up]]
bonds:
  - {name: up, members: [m0, m7]}
)");
  EXPECT_EQ(error_of(text),
            "config: x.yaml:7: top level: duplicate key \"bonds\" (first at line 4); a key may "
            "appear once in a map: merge the two or delete one");
}

TEST(ConfigDuplicateKeys, AreFoundAtEveryLevel) {
  EXPECT_EQ(error_of(std::string(kMinimal) + "eal:\n  file_prefix: a\n  file_prefix: b\n"),
            "config: x.yaml:10: eal: duplicate key \"file_prefix\" (first at line 9); a key may "
            "appear once in a map: merge the two or delete one");
  // In a block map inside a list.
  EXPECT_NE(error_of("ports:\n  - name: p0\n    device: a\n    device: b\n")
                .find("x.yaml:4: ports[0]: duplicate key \"device\" (first at line 3)"),
            std::string::npos);
  // In a flow map.
  EXPECT_NE(error_of("ports:\n  - {name: p0, device: a, mtu: 1500, mtu: 9000}\n")
                .find("x.yaml:2: ports[0]: duplicate key \"mtu\" (first at line 2)"),
            std::string::npos);
  // Three levels down: bonds[].scheduler.aimd.
  const std::string bond = R"(ports:
  - {name: h, device: a}
  - {name: m0, device: b}
cross_connect: [[h, up]]
bonds:
  - name: up
    members: [m0]
    scheduler:
      aimd:
        floor_permille: 10
        floor_permille: 20
)";
  EXPECT_NE(error_of(bond).find("x.yaml:11: bonds[0] \"up\".scheduler.aimd: duplicate key "
                                "\"floor_permille\" (first at line 10)"),
            std::string::npos)
      << error_of(bond);
}

TEST(ConfigDuplicateKeys, ASecondDocumentIsAnErrorNotIgnored) {
  // Before: YAML::Load read the first document, and the second (here a bond naming a port that
  // does not exist) was dropped.
  EXPECT_EQ(error_of(std::string(kMinimal) + "---\nbonds:\n  - {name: up, members: [p9]}\n"),
            "config: x.yaml:8: a second YAML document starts here: a config file holds one; "
            "merge them or delete one");
  EXPECT_EQ(error_of(std::string("---\n") + kMinimal), "");  // one document, marked: fine
  EXPECT_EQ(error_of(std::string(kMinimal) + "...\n"), "");  // an end marker alone: fine
}

TEST(ConfigDuplicateKeys, TextAfterAFlowCollectionIsNotDropped) {
  // YAML::Load reads "[], a" as [] and drops ", a"; yaml-cpp 0.7's LoadAll never returns on it
  // (found by fuzz_config). Refused, and at once.
  EXPECT_EQ(error_of("[], a"),
            "config: x.yaml:1: a second YAML document starts here: a config file holds one; "
            "merge them or delete one");
  EXPECT_NE(error_of("ports: [{name: a, device: b}], x\n"), "");
}

}  // namespace
}  // namespace braid::config
