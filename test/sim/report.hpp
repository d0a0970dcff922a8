// Collects each scenario's simulated time (LACP convergence, BFD detection) and prints a table
// when the suite ends (and a line as each scenario finishes), for the closing note of the issue.
#pragma once

#include <cstdint>
#include <string>

namespace braid::sim {

// `seconds` < 0 means "did not converge, as intended".
void report(const std::string& scenario, double seconds, const std::string& note);
double seconds(std::uint64_t ns);

}  // namespace braid::sim
