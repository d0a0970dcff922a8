// Whether another DPDK primary process already uses a file prefix, asked before rte_eal_init.
// A primary process holds an fcntl write lock on <runtime dir>/config for its whole life (DPDK
// 22.11 lib/eal/linux/eal.c, rte_eal_config_create), and a second primary with the same prefix
// fails inside rte_eal_init with "Cannot create lock ... Is another primary process running?"
// in the EAL log and rte_errno left at 0 ("EAL initialisation failed: Success"). Asking the lock
// first names the process instead. Pure POSIX, no DPDK headers, so it is unit-tested.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace braid::engine {

// DPDK 22.11's runtime directory for a prefix (eal_create_runtime_dir): $RUNTIME_DIRECTORY/dpdk/
// <prefix> where it is set (systemd's RuntimeDirectory=, which braid's unit sets), else
// /var/run/dpdk/<prefix> for root, else $XDG_RUNTIME_DIR/dpdk/<prefix>, or /tmp/dpdk/<prefix>.
std::string dpdk_runtime_dir(const std::string& prefix, bool root, const char* xdg_runtime_dir,
                             const char* runtime_directory = nullptr);
// The same for this process (getuid(), getenv("XDG_RUNTIME_DIR"), getenv("RUNTIME_DIRECTORY")).
std::string dpdk_runtime_dir(const std::string& prefix);

// Who holds a lock on `path` that a write lock would conflict with (F_GETLK over the whole
// file): its PID, 0 when it lives in another PID namespace, -1 for an open file description
// lock. nullopt when nobody does, or the file cannot be opened (no such file: no process ever
// used it). F_GETLK does not report the caller's own locks.
std::optional<pid_t> lock_holder(const std::string& path);

// The file prefix that names EAL's runtime directory with `eal_argv` (argv[0] first), in every
// process type: the last --file-prefix, else DPDK's default "rte".
std::string eal_file_prefix(const std::vector<std::string>& eal_argv);

// The file prefix that rte_eal_init will use with `eal_argv` (argv[0] first): the last
// --file-prefix, else DPDK's default "rte". nullopt when EAL will not take the lock at all
// (--in-memory, --no-shconf, --proc-type secondary or auto).
std::optional<std::string> locked_file_prefix(const std::vector<std::string>& eal_argv);

// "braid: file prefix "braid" is in use by process 1234 (/proc/1234/cmdline: braid --config
// gw.yaml); give this braid another eal.file_prefix or -- --file-prefix=NAME".
std::string prefix_in_use_message(const std::string& prefix, pid_t holder,
                                  const std::string& proc_root = "/proc");

// The start-up check, for main.cpp just before rte_eal_init: nullopt when EAL may start, else
// the message to print before exiting with status 1 (the prefix EAL would use is not a valid
// file prefix, or another primary process holds it).
std::optional<std::string> check_file_prefix(const std::vector<std::string>& eal_argv);
// The same with dpdk_runtime_dir's inputs given, for the tests.
std::optional<std::string> check_file_prefix(const std::vector<std::string>& eal_argv, bool root,
                                             const char* xdg_runtime_dir,
                                             const char* runtime_directory = nullptr);

}  // namespace braid::engine
