#include "engine/eal_args.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "config/config_loader.hpp"

namespace braid::engine {
namespace {

config::Config two_vdevs() {
  return config::parse_config(
      "ports:\n  - {name: p0, device: net_null0}\n  - {name: p1, device: net_ring0}\n"
      "cross_connect: [[p0, p1]]\nworkers: {lcores: [1, 2]}\n",
      "test.yaml");
}

bool contains(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

TEST(EalArgs, NoHugepagesFallsBackToNoHugeWithANote) {
  const EalArgs args = build_eal_args(two_vdevs(), {}, false);
  EXPECT_EQ(args.argv[0], "braid");
  EXPECT_TRUE(contains(args.argv, "--no-huge"));
  EXPECT_TRUE(contains(args.argv, "512"));
  EXPECT_TRUE(contains(args.argv, "--file-prefix=braid"));
  EXPECT_TRUE(contains(args.argv, "0,1,2"));
  EXPECT_TRUE(contains(args.argv, "--no-pci"));
  ASSERT_EQ(args.notes.size(), 2u);
  EXPECT_NE(args.notes[0].find("--no-huge -m 512"), std::string::npos);
}

TEST(EalArgs, HugepagesMeansNoFallback) {
  const EalArgs args = build_eal_args(two_vdevs(), {}, true);
  EXPECT_FALSE(contains(args.argv, "--no-huge"));
}

TEST(EalArgs, UserArgumentsWin) {
  const EalArgs args =
      build_eal_args(two_vdevs(), {"-m", "256", "--lcores=0@0,(1,2)@1", "--file-prefix=x"}, false);
  EXPECT_FALSE(contains(args.argv, "--no-huge"));  // the user chose memory
  EXPECT_FALSE(contains(args.argv, "-l"));
  EXPECT_FALSE(contains(args.argv, "--file-prefix=braid"));
  EXPECT_EQ(args.argv.back(), "--file-prefix=x");  // passed through, last
}

TEST(EalArgs, PciDevicesAreAllowListedWithTheirDevargs) {
  const config::Config config = config::parse_config(
      "ports:\n  - {name: p0, device: \"0000:3b:00.0,txq_inline_max=128\"}\n"
      "  - {name: p1, device: \"0000:3b:00.1\"}\ncross_connect: [[p0, p1]]\n",
      "test.yaml");
  const EalArgs args = build_eal_args(config, {}, true);
  EXPECT_TRUE(contains(args.argv, "0000:3b:00.0,txq_inline_max=128"));
  EXPECT_TRUE(contains(args.argv, "0000:3b:00.1"));
  EXPECT_FALSE(contains(args.argv, "--no-pci"));
}

TEST(EalArgs, HugepageProbeReadsSysfsAndMounts) {
  const auto root =
      std::filesystem::temp_directory_path() / ("braid-huge-" + std::to_string(getpid()));
  std::filesystem::create_directories(root / "hugepages-2048kB");
  std::ofstream(root / "hugepages-2048kB" / "free_hugepages") << "0\n";
  std::ofstream(root / "mounts") << "proc /proc proc rw 0 0\n";
  EXPECT_FALSE(hugepages_available(root.string(), (root / "mounts").string()));
  std::ofstream(root / "hugepages-2048kB" / "free_hugepages") << "512\n";
  EXPECT_FALSE(hugepages_available(root.string(), (root / "mounts").string()));  // not mounted
  std::ofstream(root / "mounts") << "hugetlbfs /dev/hugepages hugetlbfs rw,relatime 0 0\n";
  EXPECT_TRUE(hugepages_available(root.string(), (root / "mounts").string()));
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace braid::engine
