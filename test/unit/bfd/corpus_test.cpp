// The fuzz target's seeds (test/fuzz/bfd/make_corpus.py) are built by an independent Python
// encoder, checksums included: every one must decode, so that the seeds start the fuzzer from
// valid packets and frames, and so that our parser agrees with a second implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "bfd/frame.hpp"

namespace braid::bfd {
namespace {

std::vector<std::uint8_t> read(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

TEST(BfdCorpus, EverySeedDecodes) {
  const std::filesystem::path dir = BFD_CORPUS_DIR;
  std::size_t frames = 0;
  std::size_t packets = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::vector<std::uint8_t> seed = read(entry.path());
    ASSERT_GE(seed.size(), 1u + kControlPacketLen) << entry.path();
    const std::uint8_t control = seed[0];
    const ByteSpan bytes = ByteSpan(seed).subspan(1);
    const std::string name = entry.path().stem().string();
    // The one seed with an Authentication Section is there to be refused by name.
    const RejectReason expected =
        name == "packet_keyed_md5" ? RejectReason::kAuthUnsupported : RejectReason::kNone;
    if ((control & 1) != 0) {
      ++frames;
      const auto encapsulation =
          (control & 2) != 0 ? Encapsulation::kSingleHop : Encapsulation::kMicroBfd;
      const ReceiveFilter filter{encapsulation, {0x02, 0x00, 0x00, 0x00, 0x0a, 0x01}, {}};
      EXPECT_EQ(to_string(parse_frame(bytes, filter).reason), to_string(expected)) << name;
    } else {
      ++packets;
      ControlPacket packet;
      EXPECT_EQ(to_string(decode_control_packet(bytes, packet)), to_string(expected)) << name;
    }
  }
  EXPECT_GE(frames, 5u);
  EXPECT_GE(packets, 10u);
}

}  // namespace
}  // namespace braid::bfd
