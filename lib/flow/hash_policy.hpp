// The names of the transmit-hash policies, as config files and the console spell them. What each
// policy hashes is documented in doc/flow.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace braid::flow {

enum class HashPolicy : std::uint8_t {
  l2,            // MACs + EtherType (Linux "layer2")
  l23,           // l2 + IP addresses (Linux "layer2+3")
  l34,           // IP addresses + ports, RoCEv2 dest QP (Linux "layer3+4")
  encap23,       // l23 on the innermost IP header (Linux "encap2+3")
  encap34,       // l34 on the innermost IP/L4 headers (Linux "encap3+4")
  vlan_srcmac,   // outer VLAN ID + source MAC (Linux "vlan+srcmac")
  toeplitz,      // RSS Toeplitz over (src addr, dst addr, src port, dst port)
  toeplitz_sym,  // Toeplitz over the endpoint-sorted tuple: both directions hash alike
  nic_rss,       // the NIC's RSS hash from the mbuf, else a software policy
};

inline constexpr std::array<HashPolicy, 9> kAllHashPolicies = {
    HashPolicy::l2,       HashPolicy::l23,          HashPolicy::l34,
    HashPolicy::encap23,  HashPolicy::encap34,      HashPolicy::vlan_srcmac,
    HashPolicy::toeplitz, HashPolicy::toeplitz_sym, HashPolicy::nic_rss,
};

std::string_view to_string(HashPolicy policy);

// Result of parse_hash_policy: a policy, or an error that names the valid ones.
struct HashPolicyParse {
  HashPolicy policy = HashPolicy::l34;
  std::string error;  // empty on success

  bool ok() const { return error.empty(); }
};

// Accepts exactly the names to_string produces ("l2", "l23", "l34", "encap23", "encap34",
// "vlan+srcmac", "toeplitz", "toeplitz-sym", "nic-rss").
HashPolicyParse parse_hash_policy(std::string_view name);

}  // namespace braid::flow
