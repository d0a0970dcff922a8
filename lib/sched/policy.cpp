#include "sched/policy.hpp"

#include <array>

namespace braid::sched {
namespace {

constexpr std::array<std::string_view, 6> kNames = {"hash",     "wrr",     "lqf",
                                                    "adaptive", "latency", "spray"};

}  // namespace

std::string_view policy_name(PolicyKind kind) {
  return kNames[static_cast<std::size_t>(kind)];
}

std::optional<PolicyKind> parse_policy(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<PolicyKind>(i);
  }
  return std::nullopt;
}

std::unique_ptr<Policy> make_policy(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kHash:
      return make_hash_policy();
    case PolicyKind::kWrr:
      return make_wrr_policy();
    case PolicyKind::kLqf:
      return make_lqf_policy();
    case PolicyKind::kAdaptive:
      return make_adaptive_policy();
    case PolicyKind::kLatency:
      return make_latency_policy();
    case PolicyKind::kSpray:
      return make_spray_policy();
  }
  return make_hash_policy();
}

}  // namespace braid::sched
