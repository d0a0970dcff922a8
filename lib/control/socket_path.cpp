#include "control/socket_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace braid::control {

std::string default_socket_path(const std::string& file_prefix) {
  if (::mkdir(kRunDirectory, 0755) == 0 || errno == EEXIST) {
    if (::access(kRunDirectory, W_OK | X_OK) == 0)
      return std::string(kRunDirectory) + "/" + file_prefix + ".sock";
  }
  return "/tmp/braid-" + file_prefix + ".sock";
}

std::string find_socket_path(const std::string& file_prefix) {
  const std::string run_path = std::string(kRunDirectory) + "/" + file_prefix + ".sock";
  struct stat info {};
  if (::stat(run_path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode)) return run_path;
  return "/tmp/braid-" + file_prefix + ".sock";
}

}  // namespace braid::control
