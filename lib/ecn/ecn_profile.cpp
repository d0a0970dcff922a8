#include "ecn/ecn_profile.hpp"

namespace braid::ecn {

std::string profile_error(const EcnProfile& profile) {
  if (profile.kmax_descriptors > kMaxQueueDescriptors) {
    return "ecn: kmax (" + std::to_string(profile.kmax_descriptors) +
           " descriptors) must be at most " + std::to_string(kMaxQueueDescriptors) +
           ", the largest TX ring";
  }
  if (profile.kmin_descriptors >= profile.kmax_descriptors) {
    return "ecn: kmax (" + std::to_string(profile.kmax_descriptors) +
           " descriptors) must be above kmin (" + std::to_string(profile.kmin_descriptors) +
           "); for one marking threshold set pmax to 0 and kmax to the threshold";
  }
  if (profile.pmax_permille > kPermille) {
    return "ecn: pmax (" + std::to_string(profile.pmax_permille) +
           " permille) must be at most 1000 (every packet)";
  }
  return "";
}

std::uint64_t mark_threshold(const EcnProfile& profile, std::uint32_t depth_descriptors) {
  if (depth_descriptors <= profile.kmin_descriptors) return 0;
  if (depth_descriptors > profile.kmax_descriptors) return kAlwaysMark;
  // At most 1000 * 65535 * 2^32 < 2^58: no overflow.
  const std::uint64_t above = depth_descriptors - profile.kmin_descriptors;
  const std::uint64_t span = profile.kmax_descriptors - profile.kmin_descriptors;
  return (std::uint64_t{profile.pmax_permille} * above * kAlwaysMark) / (span * kPermille);
}

double mark_probability(const EcnProfile& profile, std::uint32_t depth_descriptors) {
  return static_cast<double>(mark_threshold(profile, depth_descriptors)) /
         static_cast<double>(kAlwaysMark);
}

}  // namespace braid::ecn
