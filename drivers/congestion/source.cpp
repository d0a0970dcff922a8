#include "congestion/source.hpp"

#include <algorithm>

namespace braid::congestion {

const std::uint64_t* find_xstat(const Xstats& xstats, std::string_view name) {
  for (const auto& [key, value] : xstats) {
    if (key == name) return &value;
  }
  return nullptr;
}

void MissingOnce::report(std::size_t member, const std::string& what) {
  const std::string key = std::to_string(member) + "/" + what;
  if (std::find(seen_.begin(), seen_.end(), key) != seen_.end()) return;
  seen_.push_back(key);
  if (logger_) {
    logger_(member, what + " not available; feedback uses the other counters");
  }
}

}  // namespace braid::congestion
