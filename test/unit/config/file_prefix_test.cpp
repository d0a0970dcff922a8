// eal.file_prefix is one sane file name: DPDK makes a directory of it and puts its lock and
// sockets there, so a path (../../../tmp/x) would move them.
#include "config/file_prefix.hpp"

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

TEST(ConfigFilePrefix, ValidPrefixesAreAccepted) {
  for (const char* prefix : {"braid", "gw1", "braid-cli_2.test", "A", "x.y"}) {
    EXPECT_EQ(file_prefix_problem(prefix), "") << prefix;
    EXPECT_EQ(error_of(std::string(kMinimal) + "eal: {file_prefix: \"" + prefix + "\"}\n"), "");
  }
  EXPECT_EQ(file_prefix_problem(std::string(kMaxFilePrefix, 'p')), "");
}

TEST(ConfigFilePrefix, PathsAndOddNamesAreRejected) {
  const std::string rule =
      "a file prefix is 1..32 letters, digits, '-', '_' or '.', not starting with '.' (DPDK "
      "makes a directory of that name under its runtime directory)";
  EXPECT_EQ(error_of(std::string(kMinimal) + "eal:\n  file_prefix: ../../../tmp/x\n"),
            "config: x.yaml:9: eal.file_prefix: \"../../../tmp/x\" has '/': " + rule);
  EXPECT_EQ(error_of(std::string(kMinimal) + "eal:\n  file_prefix: \"\"\n"),
            "config: x.yaml:9: eal.file_prefix: must not be empty: " + rule);
  EXPECT_EQ(file_prefix_problem(".."), "\"..\" starts with '.' or has \"..\": " + rule);
  EXPECT_EQ(file_prefix_problem(".hidden"), "\".hidden\" starts with '.' or has \"..\": " + rule);
  EXPECT_EQ(file_prefix_problem("a..b"), "\"a..b\" starts with '.' or has \"..\": " + rule);
  EXPECT_EQ(file_prefix_problem("/tmp"), "\"/tmp\" has '/': " + rule);
  EXPECT_EQ(file_prefix_problem("a b"), "\"a b\" has byte 32: " + rule);
  EXPECT_EQ(file_prefix_problem("a%d"), "\"a%d\" has '%': " + rule);
  EXPECT_EQ(file_prefix_problem("caf\xc3\xa9"), "\"caf\xc3\xa9\" has byte 195: " + rule);
  EXPECT_EQ(file_prefix_problem(std::string(kMaxFilePrefix + 1, 'p')),
            "33 characters is too long: " + rule);
}

}  // namespace
}  // namespace braid::config
