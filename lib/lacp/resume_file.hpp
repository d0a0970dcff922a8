// The file a planned restart leaves for the next process (doc/lacp.md "Restart without a
// flap"): each bond's members and their resume points (resume.hpp), and when it was written.
// Text, one member a line, versioned: a file of another version, or one that does not parse, is
// refused with the line and what is wrong, and braid starts cold.
//
//   braid-lacp-resume 1
//   saved_unix_ms 1764921600123
//   bond uplink
//   member m0 actor 32768 02:62:92:f2:d0:01 17 32768 1 0x3d partner 65535 02:5a:00:00:00:01 17 255
//   1 0x3d aggregator 0
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lacp/resume.hpp"

namespace braid::lacp {

inline constexpr unsigned kResumeFileVersion = 1;

struct SavedMember {
  std::string name;
  ResumePoint point;
  bool operator==(const SavedMember&) const = default;
};
struct SavedBond {
  std::string name;
  std::vector<SavedMember> members;  // only those in service when it was written
  bool operator==(const SavedBond&) const = default;
};
struct SavedLacpState {
  std::uint64_t saved_unix_ms = 0;
  std::vector<SavedBond> bonds;
  bool operator==(const SavedLacpState&) const = default;
};

class ResumeFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string encode_resume_file(const SavedLacpState& state);
// Throws ResumeFileError ("line N: ...").
SavedLacpState decode_resume_file(std::string_view text);

}  // namespace braid::lacp
