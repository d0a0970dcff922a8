#include "health/flap_dampening.hpp"

#include <algorithm>
#include <cmath>

namespace braid::health {

std::string settings_error(const DampeningSettings& settings) {
  if (settings.penalty_per_flap == 0) return "";  // off: nothing else matters
  if (settings.half_life_ns == 0) return "flap dampening: half_life must be above 0";
  if (settings.reuse_threshold == 0 || settings.reuse_threshold >= settings.suppress_threshold) {
    return "flap dampening: reuse_threshold (" + std::to_string(settings.reuse_threshold) +
           ") must be above 0 and below suppress_threshold (" +
           std::to_string(settings.suppress_threshold) + ")";
  }
  const FlapDampening dampening(settings);
  if (dampening.ceiling() <= settings.suppress_threshold) {
    return "flap dampening: max_suppress is too short to ever suppress: the penalty ceiling " +
           std::to_string(static_cast<std::uint64_t>(dampening.ceiling())) +
           " (reuse_threshold * 2^(max_suppress / half_life)) must be above suppress_threshold (" +
           std::to_string(settings.suppress_threshold) + ")";
  }
  return "";
}

FlapDampening::FlapDampening(const DampeningSettings& settings)
    : settings_(settings),
      ceiling_(settings.half_life_ns == 0
                   ? 0.0
                   : settings.reuse_threshold *
                         std::exp2(static_cast<double>(settings.max_suppress_ns) /
                                   static_cast<double>(settings.half_life_ns))) {}

double FlapDampening::penalty(std::uint64_t now_ns) const {
  if (penalty_ == 0 || settings_.half_life_ns == 0) return 0;
  const std::uint64_t elapsed = now_ns > stamp_ns_ ? now_ns - stamp_ns_ : 0;
  return penalty_ *
         std::exp2(-static_cast<double>(elapsed) / static_cast<double>(settings_.half_life_ns));
}

std::uint64_t FlapDampening::decay_to_reuse_ns(double penalty) const {
  if (penalty <= settings_.reuse_threshold) return 0;
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(settings_.half_life_ns) *
                                              std::log2(penalty / settings_.reuse_threshold)));
}

bool FlapDampening::on_flap(std::uint64_t now_ns) {
  ++flaps_;
  if (settings_.penalty_per_flap == 0 || settings_.half_life_ns == 0) return false;
  const bool was_suppressed = suppressed(now_ns);
  penalty_ = std::min(penalty(now_ns) + settings_.penalty_per_flap, ceiling_);
  stamp_ns_ = now_ns;
  if (was_suppressed || penalty_ > settings_.suppress_threshold)
    reuse_at_ns_ = now_ns + decay_to_reuse_ns(penalty_);
  return !was_suppressed && suppressed(now_ns);
}

}  // namespace braid::health
