#include "engine/restart_command.hpp"

#include <chrono>
#include <stdexcept>

#include "engine/resume_state.hpp"
#include "lacp/constants.hpp"
#include "log/log_types.hpp"

namespace braid::engine {
namespace {

std::uint64_t unix_ms() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

RestartCommand::RestartCommand(Engine& engine, std::string file_prefix)
    : engine_(&engine), path_(resume_file_path(file_prefix)) {}

void RestartCommand::take_saved_state() {
  // Older than the long timeout, every partner has expired us, whatever its rate.
  const ResumeFileRead read =
      take_resume_file(path_, unix_ms(), lacp::kLongTimeoutTime / 1'000'000);
  if (read.note.empty()) return;
  if (read.state) {
    BRAID_LOG_TO(kEngine, INFO, "restart: %s\n", read.note.c_str());
    engine_->arm_resume(*read.state);
  } else {
    BRAID_LOG_TO(kEngine, WARNING, "restart: %s\n", read.note.c_str());
  }
}

void RestartCommand::register_command(control::ControlPlane& control, ProtocolLoop& loop) {
  control.commands().add(
      "restart",
      "stop braid for a restart that keeps LACP up: the partners are not told, the LACP state "
      "is saved for the next braid, which resumes it (exit status 75; doc/lacp.md)",
      [this, &loop](const control::Args&, control::Output& out) {
        requested_.store(true, std::memory_order_release);
        loop.request_stop();
        out.line("restarting: LACP state saved to " + path_ +
                 " for the next braid (it must start within the partners' timeout)");
      });
}

void RestartCommand::stop_engine() {
  if (!requested()) {
    engine_->stop();
    return;
  }
  const lacp::SavedLacpState state = engine_->restart_points(unix_ms());
  std::size_t members = 0;
  for (const lacp::SavedBond& bond : state.bonds)
    members += bond.members.size();
  try {
    write_resume_file(path_, state);
    BRAID_LOG_TO(kEngine, INFO,
                 "restart: LACP state of %zu member(s) saved to %s; stopping without telling "
                 "the partners\n",
                 members, path_.c_str());
  } catch (const std::runtime_error& error) {
    BRAID_LOG_TO(kEngine, WARNING, "restart: %s; the next braid starts LACP cold\n", error.what());
  }
  engine_->stop(Engine::StopKind::kRestart);
}

}  // namespace braid::engine
