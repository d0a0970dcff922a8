#include "health/lacpdu_expectation.hpp"

#include <algorithm>
#include <cmath>

namespace braid::health {
namespace {

constexpr double kCredit = 1.0;    // LACPDUs sent ahead that count against a later silence
constexpr double kInFlight = 1.0;  // owed LACPDUs that are late, not missed

}  // namespace

CounterSample LacpduExpectation::sample(std::uint64_t now_ns,
                                        std::optional<std::uint64_t> period_ns,
                                        std::uint64_t received) {
  if (!started_) {
    started_ = true;
  } else {
    const std::uint64_t arrived = received >= last_received_ ? received - last_received_ : 0;
    if (period_ns && *period_ns != 0 && now_ns > last_ns_) {
      const double owed = static_cast<double>(now_ns - last_ns_) / static_cast<double>(*period_ns);
      owed_total_ += owed;
      balance_ = std::max(balance_ + owed - static_cast<double>(arrived), -kCredit);
      if (balance_ >= kInFlight + 1) {
        const double missed = std::floor(balance_ - kInFlight);
        missed_ += static_cast<std::uint64_t>(missed);
        balance_ -= missed;
      }
    } else {
      balance_ = 0;  // nothing owed: what it sent meanwhile counts for nothing either way
    }
  }
  last_ns_ = now_ns;
  last_received_ = received;
  return {missed_, static_cast<std::uint64_t>(owed_total_)};
}

}  // namespace braid::health
