// The LACP resume file: what `restart` writes is what the next process reads, and a file that
// is damaged, cut short or of another version is refused with the line and the reason.
#include "lacp/resume_file.hpp"

#include <gtest/gtest.h>

#include <string>

namespace braid::lacp {
namespace {

SavedLacpState example() {
  SavedLacpState state;
  state.saved_unix_ms = 1'764'921'600'123;
  SavedBond bond{"uplink", {}};
  for (std::uint16_t port = 1; port <= 2; ++port) {
    ResumePoint point;
    point.actor = {32768, {0x02, 0x62, 0x92, 0xf2, 0xd0, 0x01}, 17, 32768, port, 0x3d};
    point.partner = {65535, {0x02, 0x5a, 0, 0, 0, 0x01}, 17, 255, port, 0x3d};
    point.aggregator = 0;
    bond.members.push_back({"m" + std::to_string(port - 1), point});
  }
  state.bonds.push_back(bond);
  state.bonds.push_back({"empty", {}});
  return state;
}

std::string error_of(const std::string& text) {
  try {
    decode_resume_file(text);
  } catch (const ResumeFileError& error) {
    return error.what();
  }
  return "";
}

TEST(ResumeFile, WhatIsWrittenIsReadBack) {
  const std::string text = encode_resume_file(example());
  EXPECT_EQ(decode_resume_file(text), example());
  EXPECT_NE(text.find("member m0 actor 32768 02:62:92:f2:d0:01 17 32768 1 0x3d partner 65535 "
                      "02:5a:00:00:00:01 17 255 1 0x3d aggregator 0\n"),
            std::string::npos)
      << text;
}

TEST(ResumeFile, AnotherVersionIsRefusedSayingWhichThisBraidReads) {
  EXPECT_EQ(error_of("braid-lacp-resume 2\nsaved_unix_ms 1\n"),
            "line 1: version 2 (this braid reads version 1)");
}

TEST(ResumeFile, DamageIsRefusedWithTheLine) {
  const std::string good = encode_resume_file(example());
  EXPECT_EQ(error_of(""), "empty file");
  EXPECT_EQ(error_of("hello\n"), "line 1: not a braid LACP resume file");
  EXPECT_EQ(error_of("braid-lacp-resume 1\n"), "no saved_unix_ms line");
  EXPECT_EQ(error_of(good.substr(0, good.size() - 1)), "line 6: no newline (cut short?)");
  EXPECT_EQ(error_of("braid-lacp-resume 1\nsaved_unix_ms 1\nmember m0\n"),
            "line 3: member before any bond");
  std::string bad_mac = good;
  bad_mac.replace(bad_mac.find("02:62:92"), 8, "02:62-92");
  EXPECT_EQ(error_of(bad_mac), "line 4: bad MAC \"02:62-92:f2:d0:01\"");
  std::string bad_state = good;
  bad_state.replace(bad_state.find("0x3d"), 4, "61");
  EXPECT_EQ(error_of(bad_state), "line 4: state must be 0x..");
  EXPECT_EQ(error_of("braid-lacp-resume 1\nsaved_unix_ms 1 2\n"), "line 2: unexpected \"2\"");
  EXPECT_EQ(error_of("braid-lacp-resume 1\nsaved_unix_ms 1\nport x\n"),
            "line 3: unknown keyword \"port\"");
  EXPECT_EQ(error_of("braid-lacp-resume 1\nsaved_unix_ms 99999999999999999999\n"),
            "line 2: bad time \"99999999999999999999\"");
}

}  // namespace
}  // namespace braid::lacp
