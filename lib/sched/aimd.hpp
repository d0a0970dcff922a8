// The feedback law of the adaptive policy: one controller per member turns a congestion score
// (0 clean .. 1 fully congested, congestion.hpp) into a weight factor in permille of the
// configured weight.
//
//   score_avg += smoothing * (score - score_avg)                  (EWMA over periods)
//   target     = clamp(1000 * (1 - score_avg), floor, ceiling)    (what the member can carry)
//   factor > target + hysteresis : factor = max(target, factor * (1 - decrease))   (MD)
//   factor < target - hysteresis : factor = min(target, factor + increase)         (AI)
//   otherwise                    : unchanged                                       (dead band)
//
// The decrease is multiplicative and the increase additive (AIMD), but both stop at the target
// the signal implies, so a constant signal (a link paused half the time by its switch) settles
// the weight at what the link still carries instead of driving it to the floor, and the dead
// band keeps it there: no oscillation. The floor keeps a little traffic on a congested member
// so recovery is seen; the ceiling caps a member at its configured weight.
#pragma once

#include <cstdint>
#include <string>

namespace braid::sched {

struct AimdSettings {
  std::uint32_t floor_permille = 50;
  std::uint32_t ceiling_permille = 1000;
  std::uint32_t decrease_permille = 300;  // each decrease step cuts at most 30%
  std::uint32_t increase_permille = 50;   // each clean period gives back 5%
  std::uint32_t hysteresis_permille = 30;
  std::uint32_t smoothing_permille = 500;  // weight of the newest score in the average
};

class AimdController {
 public:
  explicit AimdController(const AimdSettings& settings) : settings_(settings) {}

  // One period's score; returns true when the factor changed.
  bool update(double score);

  std::uint32_t factor_permille() const { return factor_permille_; }
  double score_average() const { return score_avg_; }
  std::uint32_t target_permille() const { return target_permille_; }
  bool last_was_decrease() const { return last_decrease_; }
  void reset() {
    factor_permille_ = settings_.ceiling_permille;
    score_avg_ = 0;
  }
  void set_settings(const AimdSettings& settings) { settings_ = settings; }

 private:
  AimdSettings settings_;
  std::uint32_t factor_permille_ = settings_.ceiling_permille;
  std::uint32_t target_permille_ = settings_.ceiling_permille;
  double score_avg_ = 0;
  bool last_decrease_ = false;
};

}  // namespace braid::sched
