// The engine's part of the control plane: console commands (show port/workers/drops, clear
// stats, start/stop), the /braid/ports, /braid/workers and /braid/drops telemetry endpoints, and
// the port/drop/worker Prometheus metrics. Everything reads through Engine's public API on the
// control thread; `clear stats` keeps a baseline here and never writes a worker's counters.
#pragma once

namespace braid::control {
class ControlPlane;
}

namespace braid::engine {

class Engine;

// `engine` must outlive the control plane's use of it (both live in braid's run()).
void register_engine_commands(control::ControlPlane& control, Engine& engine);

}  // namespace braid::engine
