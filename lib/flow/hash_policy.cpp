#include "flow/hash_policy.hpp"

namespace braid::flow {

std::string_view to_string(HashPolicy policy) {
  switch (policy) {
    case HashPolicy::l2:
      return "l2";
    case HashPolicy::l23:
      return "l23";
    case HashPolicy::l34:
      return "l34";
    case HashPolicy::encap23:
      return "encap23";
    case HashPolicy::encap34:
      return "encap34";
    case HashPolicy::vlan_srcmac:
      return "vlan+srcmac";
    case HashPolicy::toeplitz:
      return "toeplitz";
    case HashPolicy::toeplitz_sym:
      return "toeplitz-sym";
    case HashPolicy::nic_rss:
      return "nic-rss";
  }
  return "unknown";
}

HashPolicyParse parse_hash_policy(std::string_view name) {
  std::string valid;
  for (HashPolicy policy : kAllHashPolicies) {
    if (name == to_string(policy)) return {policy, {}};
    if (!valid.empty()) valid += ", ";
    valid += to_string(policy);
  }
  return {HashPolicy::l34,
          "hash policy \"" + std::string(name) + "\" is not known (valid: " + valid + ")"};
}

}  // namespace braid::flow
