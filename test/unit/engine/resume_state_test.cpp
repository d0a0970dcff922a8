// The restart's LACP state file on disk: written atomically and readable by its owner only,
// used once, and not used when stale, from the future or damaged (each with a note saying so).
#include "engine/resume_state.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace braid::engine {
namespace {

constexpr std::uint64_t kMaxAgeMs = 90'000;
constexpr std::uint64_t kSavedMs = 1'764'921'600'000;

class ResumeState : public ::testing::Test {
 protected:
  ResumeState() {
    char pattern[] = "/tmp/braid-resume-XXXXXX";
    directory_ = ::mkdtemp(pattern);
    path_ = directory_ + "/lacp-resume";
  }
  ~ResumeState() override { std::filesystem::remove_all(directory_); }

  static lacp::SavedLacpState state() {
    lacp::SavedLacpState saved;
    saved.saved_unix_ms = kSavedMs;
    lacp::ResumePoint point;
    point.actor = {32768, {0x02, 0, 0, 0, 0, 0x0a}, 17, 32768, 1, 0x3d};
    point.partner = {32768, {0x02, 0, 0, 0, 0, 0x0b}, 17, 32768, 1, 0x3d};
    point.aggregator = 0;
    saved.bonds.push_back({"uplink", {{"m0", point}}});
    return saved;
  }

  std::string directory_;
  std::string path_;
};

TEST_F(ResumeState, WrittenForItsOwnerOnlyAndUsedOnce) {
  write_resume_file(path_, state());
  struct stat info {};
  ASSERT_EQ(::stat(path_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".new"));
  const ResumeFileRead read = take_resume_file(path_, kSavedMs + 1500, kMaxAgeMs);
  ASSERT_TRUE(read.state.has_value()) << read.note;
  EXPECT_EQ(*read.state, state());
  EXPECT_NE(read.note.find("1 member(s) saved by the previous braid 1500 ms ago"),
            std::string::npos)
      << read.note;
  EXPECT_FALSE(std::filesystem::exists(path_));  // used once
  const ResumeFileRead again = take_resume_file(path_, kSavedMs + 1600, kMaxAgeMs);
  EXPECT_FALSE(again.state.has_value());
  EXPECT_TRUE(again.note.empty());  // no file: nothing to say
}

TEST_F(ResumeState, StaleFutureOrDamagedIsNotUsedAndSaysWhy) {
  write_resume_file(path_, state());
  ResumeFileRead read = take_resume_file(path_, kSavedMs + 91'000, kMaxAgeMs);
  EXPECT_FALSE(read.state.has_value());
  EXPECT_NE(read.note.find("written 91 s ago, longer than any partner waits (90 s)"),
            std::string::npos)
      << read.note;
  EXPECT_FALSE(std::filesystem::exists(path_));

  write_resume_file(path_, state());
  read = take_resume_file(path_, kSavedMs - 60'000, kMaxAgeMs);
  EXPECT_FALSE(read.state.has_value());
  EXPECT_NE(read.note.find("in the future"), std::string::npos) << read.note;

  std::ofstream(path_) << "braid-lacp-resume 9\n";
  read = take_resume_file(path_, kSavedMs, kMaxAgeMs);
  EXPECT_FALSE(read.state.has_value());
  EXPECT_NE(read.note.find("line 1: version 9 (this braid reads version 1); not used, LACP "
                           "starts cold"),
            std::string::npos)
      << read.note;
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(ResumeState, AnUnwritableDirectoryIsAClearError) {
  try {
    write_resume_file(directory_ + "/missing/lacp-resume", state());
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("cannot create " + directory_ + "/missing/lacp-resume.new: No such file"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace braid::engine
