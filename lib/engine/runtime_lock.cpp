#include "engine/runtime_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "config/file_prefix.hpp"

namespace braid::engine {
namespace {

// DPDK's default --file-prefix (eal_internal_cfg.h, HUGEFILE_PREFIX_DEFAULT).
constexpr std::string_view kDefaultFilePrefix = "rte";
// rte_eal_config_create's lock file in the runtime directory (eal_filesystem.h).
constexpr std::string_view kRuntimeConfigFile = "config";
// Enough of a command line to recognise the process, short enough for one line of a terminal.
constexpr std::size_t kMaxCmdlineShown = 200;

// The value of `--name=value` or `--name value` at argv[i], advancing i past a separate value.
std::optional<std::string> option_value(const std::vector<std::string>& argv, std::size_t& i,
                                        std::string_view name) {
  const std::string_view arg = argv[i];
  if (arg == name) {
    if (i + 1 >= argv.size()) return std::nullopt;
    return argv[++i];
  }
  if (arg.size() > name.size() && arg.starts_with(name) && arg[name.size()] == '=') {
    return std::string(arg.substr(name.size() + 1));
  }
  return std::nullopt;
}

std::string shown_cmdline(const std::string& proc_root, pid_t pid) {
  const std::string path = proc_root + "/" + std::to_string(pid) + "/cmdline";
  // read(2), not an ifstream: GCC 12 at -O3 reports a null dereference inside
  // istreambuf_iterator (-Wnull-dereference), which -Werror turns into a failed release build.
  std::string raw;
  if (const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    char chunk[512];
    ssize_t got = 0;
    while (raw.size() < 4 * kMaxCmdlineShown && (got = ::read(fd, chunk, sizeof chunk)) > 0)
      raw.append(chunk, static_cast<std::size_t>(got));
    ::close(fd);
  }
  while (!raw.empty() && raw.back() == '\0')
    raw.pop_back();
  if (raw.empty()) return path + " is empty or unreadable";
  std::string shown;
  for (const char c : raw) {
    if (shown.size() == kMaxCmdlineShown) {
      shown += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(c);
    shown += c == '\0' ? ' ' : byte < 0x20 || byte == 0x7f ? '?' : c;
  }
  return path + ": " + shown;
}

}  // namespace

std::string dpdk_runtime_dir(const std::string& prefix, bool root, const char* xdg_runtime_dir,
                             const char* runtime_directory) {
  std::string directory = "/var/run";
  if (runtime_directory != nullptr) {
    directory = runtime_directory;  // systemd's RuntimeDirectory=, for any user
  } else if (!root) {
    directory = xdg_runtime_dir != nullptr ? xdg_runtime_dir : "/tmp";
  }
  return directory + "/dpdk/" + prefix;
}

std::string dpdk_runtime_dir(const std::string& prefix) {
  return dpdk_runtime_dir(prefix, ::getuid() == 0, std::getenv("XDG_RUNTIME_DIR"),
                          std::getenv("RUNTIME_DIRECTORY"));
}

std::optional<pid_t> lock_holder(const std::string& path) {
  // Read-only is enough to ask (F_GETLK checks no access mode), and never creates the file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct flock query {};
  query.l_type = F_WRLCK;  // conflicts with any lock: reports readers and writers alike
  query.l_whence = SEEK_SET;
  query.l_start = 0;
  query.l_len = 0;  // to the end of the file, whatever range DPDK locked
  const int result = ::fcntl(fd, F_GETLK, &query);
  ::close(fd);
  if (result != 0 || query.l_type == F_UNLCK) return std::nullopt;
  return query.l_pid;
}

std::string eal_file_prefix(const std::vector<std::string>& eal_argv) {
  std::string prefix(kDefaultFilePrefix);
  for (std::size_t i = 1; i < eal_argv.size(); ++i) {
    if (eal_argv[i] == "--") break;  // getopt stops there
    if (std::optional<std::string> value = option_value(eal_argv, i, "--file-prefix"))
      prefix = std::move(*value);
  }
  return prefix;
}

std::optional<std::string> locked_file_prefix(const std::vector<std::string>& eal_argv) {
  for (std::size_t i = 1; i < eal_argv.size(); ++i) {
    const std::string& arg = eal_argv[i];
    if (arg == "--") break;  // getopt stops there
    if (arg == "--in-memory" || arg == "--no-shconf") return std::nullopt;
    if (std::optional<std::string> type = option_value(eal_argv, i, "--proc-type")) {
      if (*type != "primary") return std::nullopt;  // a secondary attaches; auto picks that
    }
  }
  return eal_file_prefix(eal_argv);
}

std::string prefix_in_use_message(const std::string& prefix, pid_t holder,
                                  const std::string& proc_root) {
  std::string who;
  if (holder > 0) {
    who = "process " + std::to_string(holder) + " (" + shown_cmdline(proc_root, holder) + ")";
  } else if (holder == 0) {
    who = "a process in another PID namespace (a container?)";
  } else {
    who = "another process";
  }
  return "braid: file prefix \"" + prefix + "\" is in use by " + who +
         "; give this braid another eal.file_prefix or -- --file-prefix=NAME";
}

std::optional<std::string> check_file_prefix(const std::vector<std::string>& eal_argv) {
  return check_file_prefix(eal_argv, ::getuid() == 0, std::getenv("XDG_RUNTIME_DIR"),
                           std::getenv("RUNTIME_DIRECTORY"));
}

std::optional<std::string> check_file_prefix(const std::vector<std::string>& eal_argv, bool root,
                                             const char* xdg_runtime_dir,
                                             const char* runtime_directory) {
  const std::optional<std::string> prefix = locked_file_prefix(eal_argv);
  if (!prefix) return std::nullopt;
  // eal.file_prefix was checked with the config; one given after "--" is checked here.
  if (const std::string problem = config::file_prefix_problem(*prefix); !problem.empty())
    return "braid: --file-prefix: " + problem;
  const std::string config_file =
      dpdk_runtime_dir(*prefix, root, xdg_runtime_dir, runtime_directory) + "/" +
      std::string(kRuntimeConfigFile);
  if (const std::optional<pid_t> holder = lock_holder(config_file))
    return prefix_in_use_message(*prefix, *holder);
  return std::nullopt;
}

}  // namespace braid::engine
