// Per worker and bond, the data frames each traffic class took (doc/classes.md): the worker
// classifies every frame it distributes on a bond with classes and counts it here (single
// writer, like datapath::WorkerCounters); the control thread sums the workers' arrays for
// `show classes` and the metrics.
#pragma once

#include <array>

#include "classify/class_spec.hpp"
#include "datapath/counters.hpp"

namespace braid::bond {

struct alignas(64) ClassHits {
  std::array<datapath::Counter, classify::kMaxClasses> packets;
};

}  // namespace braid::bond
