#include "config/file_prefix.hpp"

#include <algorithm>

namespace braid::config {
namespace {

bool allowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

}  // namespace

std::string file_prefix_problem(std::string_view prefix) {
  const std::string rule = "a file prefix is 1.." + std::to_string(kMaxFilePrefix) +
                           " letters, digits, '-', '_' or '.', not starting with '.' (DPDK makes "
                           "a directory of that name under its runtime directory)";
  const std::string quoted = "\"" + std::string(prefix) + "\"";
  if (prefix.empty()) return "must not be empty: " + rule;
  if (prefix.size() > kMaxFilePrefix) {
    return std::to_string(prefix.size()) + " characters is too long: " + rule;
  }
  if (!std::all_of(prefix.begin(), prefix.end(), allowed)) {
    const auto bad = std::find_if_not(prefix.begin(), prefix.end(), allowed);
    const auto byte = static_cast<unsigned char>(*bad);
    const std::string shown = byte >= 0x21 && byte < 0x7f ? std::string("'") + *bad + "'"
                                                          : "byte " + std::to_string(byte);
    return quoted + " has " + shown + ": " + rule;
  }
  if (prefix.front() == '.' || prefix.find("..") != std::string_view::npos) {
    return quoted + " starts with '.' or has \"..\": " + rule;
  }
  return "";
}

}  // namespace braid::config
