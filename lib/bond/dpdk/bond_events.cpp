#include "bond/dpdk/bond_events.hpp"

#include "log/log_types.hpp"

namespace braid::bond {

void BondEventLog::log(std::uint64_t now_ns, std::string text) {
  BRAID_LOG_TO(kBond, INFO, "bond %s: %s\n", bond_name_.c_str(), text.c_str());
  events_.push_back({now_ns, std::move(text)});
  if (events_.size() > kCapacity) events_.pop_front();
}

}  // namespace braid::bond
