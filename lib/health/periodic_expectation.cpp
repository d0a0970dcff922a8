#include "health/periodic_expectation.hpp"

#include <algorithm>
#include <cmath>

namespace braid::health {
namespace {

constexpr double kCredit = 1.0;  // packets sent ahead that count against a later silence

}  // namespace

CounterSample PeriodicExpectation::sample(std::uint64_t now_ns,
                                          std::optional<std::uint64_t> period_ns,
                                          std::uint64_t received, double in_flight) {
  if (!started_) {
    started_ = true;
  } else {
    const std::uint64_t arrived = received >= last_received_ ? received - last_received_ : 0;
    // The first interval it owes in after owing nothing (a session just Up, a partner just
    // heard) began owing at some unknown point inside: a baseline, nothing owed.
    if (period_ns && *period_ns != 0 && now_ns > last_ns_ && owing_) {
      const double owed = static_cast<double>(now_ns - last_ns_) / static_cast<double>(*period_ns);
      owed_total_ += owed;
      balance_ = std::max(balance_ + owed - static_cast<double>(arrived), -kCredit);
      if (balance_ >= in_flight + 1) {
        const double missed = std::floor(balance_ - in_flight);
        missed_ += static_cast<std::uint64_t>(missed);
        balance_ -= missed;
      }
    } else {
      balance_ = 0;  // nothing owed: what it sent meanwhile counts for nothing either way
    }
  }
  last_ns_ = now_ns;
  last_received_ = received;
  owing_ = period_ns && *period_ns != 0;
  return {missed_, static_cast<std::uint64_t>(owed_total_)};
}

}  // namespace braid::health
