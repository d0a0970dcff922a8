// The LACP resume file of a planned restart (doc/lacp.md "Restart without a flap"): where it
// lives (beside EAL's own files, in the runtime directory of braid's file prefix), written
// atomically and readable by root only, and read once, then removed, by the next start.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lacp/resume_file.hpp"

namespace braid::engine {

std::string resume_file_path(const std::string& file_prefix);

// Write to a temporary file (mode 0600), fsync, rename over `path`. Throws std::runtime_error
// naming the path and the system's reason.
void write_resume_file(const std::string& path, const lacp::SavedLacpState& state);

struct ResumeFileRead {
  std::optional<lacp::SavedLacpState> state;  // usable: fresh, this version, well formed
  std::string note;                           // what was found, or why it is not used
};
// No file: no state and no note. A file is removed once read, used or not (it describes one
// moment); it is not used when damaged, of another version, or written more than `max_age_ms`
// ago (the partners have expired us by then) or in the future.
ResumeFileRead take_resume_file(const std::string& path, std::uint64_t now_unix_ms,
                                std::uint64_t max_age_ms);

}  // namespace braid::engine
