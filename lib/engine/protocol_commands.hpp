// The protocol loop's part of the control plane: how late it serves each kind of deadline, in
// `show control`, the /braid/control telemetry endpoint and /metrics (doc/console.md).
#pragma once

namespace braid::control {
class ControlPlane;
}

namespace braid::engine {

class Engine;
class ProtocolLoop;

void register_protocol_commands(control::ControlPlane& control, const Engine& engine,
                                const ProtocolLoop& loop);

}  // namespace braid::engine
