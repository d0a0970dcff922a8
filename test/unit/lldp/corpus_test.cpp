// The fuzz target's seeds (test/fuzz/lldp/make_corpus.py) are built by an independent Python
// encoder: every one must decode (but those named reject_*), so that the seeds start the fuzzer
// from valid frames, and so that our decoder agrees with a second implementation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "lldp/lldpdu.hpp"

namespace braid::lldp {
namespace {

std::vector<std::uint8_t> read(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

TEST(LldpCorpus, EverySeedDecodes) {
  std::size_t accepted = 0;
  std::size_t refused = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LLDP_CORPUS_DIR)) {
    const std::vector<std::uint8_t> seed = read(entry.path());
    ASSERT_GE(seed.size(), 1u + kMinFrameLen) << entry.path();
    const std::string name = entry.path().stem().string();
    const ParsedFrame parsed = parse_frame(ByteSpan(seed).subspan(1));
    if (name.starts_with("reject_")) {
      ++refused;
      EXPECT_NE(parsed.reason, RejectReason::kNone) << name;
      continue;
    }
    ++accepted;
    EXPECT_EQ(to_string(parsed.reason), std::string("none")) << name;
    EXPECT_EQ(parsed.lldpdu.chassis_id.bytes.empty(), false) << name;
  }
  EXPECT_GE(accepted, 10u);
  EXPECT_GE(refused, 1u);
}

}  // namespace
}  // namespace braid::lldp
