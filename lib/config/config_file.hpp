// Reading a config file from disk, before any YAML: only a regular file, only up to a size a
// hand-written config never reaches, and every failure names the path and the OS's reason.
#pragma once

#include <cstddef>
#include <string>

namespace braid::config {

// The largest config file braid reads. The shipped configs are a few KiB; a file over 1 MiB is
// the wrong file (a log, a pcap, /dev/zero), and reading it would only cost memory.
inline constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;

// The text of the file at `path`. Throws ConfigError (`config: <path>: ...`) when the path is
// not a regular file (a FIFO is refused without waiting for a writer, a directory or a device
// without reading it), is over kMaxConfigBytes, or cannot be opened or read (with strerror).
std::string read_config_file(const std::string& path);

}  // namespace braid::config
