// braid's planned restart (console `restart`, doc/lacp.md "Restart without a flap"): the
// previous process's LACP state taken at start-up, the command, and the end of the run that
// saves the state and stops without telling the partners anything.
#pragma once

#include <atomic>
#include <string>

#include "control/control_plane.hpp"
#include "engine/engine.hpp"
#include "engine/protocol_loop.hpp"

namespace braid::engine {

class RestartCommand {
 public:
  // The exit status of a restart: not 0, so a supervisor that restarts only on failure (the
  // systemd unit's Restart=on-failure) leaves a `quit` stopped and starts braid again after a
  // restart (RestartForceExitStatus=75); EX_TEMPFAIL's number.
  static constexpr int kExitStatus = 75;

  RestartCommand(Engine& engine, std::string file_prefix);
  // Before engine.start(): arms the engine with the previous process's file, if it is usable
  // (logs what it found either way).
  void take_saved_state();
  void register_command(control::ControlPlane& control, ProtocolLoop& loop);
  bool requested() const { return requested_.load(std::memory_order_acquire); }
  // After the protocol loop ended: on a restart, a LACPDU on every member, the state saved and
  // the engine stopped without withdrawals or goodbyes; otherwise the usual stop.
  void stop_engine();

 private:
  Engine* engine_;
  std::string path_;
  std::atomic<bool> requested_{false};
};

}  // namespace braid::engine
