// `show memory`, /braid/memory and the braid_memory_* metrics: the memory plan the engine sized
// its pools by (memory_plan.hpp) beside what DPDK actually allocated, per NUMA socket.
#pragma once

#include "control/control_plane.hpp"
#include "engine/engine.hpp"

namespace braid::engine {

void register_memory_commands(control::ControlPlane& control, const Engine& engine);

}  // namespace braid::engine
