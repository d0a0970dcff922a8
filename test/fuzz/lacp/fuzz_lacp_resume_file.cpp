// libFuzzer target: the LACP resume file's decoder (lacp/resume_file.hpp). A file that decodes
// must encode to text that decodes to the same state; anything else must be a ResumeFileError,
// never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lacp/resume_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace braid::lacp;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const SavedLacpState state = decode_resume_file(text);
    if (decode_resume_file(encode_resume_file(state)) != state) std::abort();
  } catch (const ResumeFileError&) {
  }
  return 0;
}
