#include "sched/aimd.hpp"

#include <algorithm>
#include <cmath>

namespace braid::sched {

bool AimdController::update(double score) {
  const double alpha = std::clamp(settings_.smoothing_permille, 1u, 1000u) / 1000.0;
  score_avg_ += alpha * (std::clamp(score, 0.0, 1.0) - score_avg_);
  const auto wanted = static_cast<std::uint32_t>(std::lround(1000.0 * (1.0 - score_avg_)));
  target_permille_ = std::clamp(wanted, settings_.floor_permille, settings_.ceiling_permille);
  const std::uint32_t before = factor_permille_;
  if (factor_permille_ > target_permille_ + settings_.hysteresis_permille) {
    const auto cut = static_cast<std::uint32_t>(
        std::lround(factor_permille_ * (1000.0 - settings_.decrease_permille) / 1000.0));
    factor_permille_ = std::max(target_permille_, cut);
    last_decrease_ = true;
  } else if (factor_permille_ + settings_.hysteresis_permille < target_permille_) {
    factor_permille_ = std::min(target_permille_, factor_permille_ + settings_.increase_permille);
    last_decrease_ = false;
  }
  return factor_permille_ != before;
}

}  // namespace braid::sched
