// braidctl: attach to a running braid over its control socket. Wiring only: options, the
// socket path, one-shot or a line-by-line session; framing and the client live in lib/control.
#include <getopt.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "braid_version.h"
#include "control/control_client.hpp"
#include "control/socket_path.hpp"

namespace {

constexpr const char* kUsage = R"(Usage: braidctl [options] [command words...]

Runs braid console commands on a running braid, over its control socket. With command words,
runs that one command and exits (0: it succeeded, 1: it failed, 2: usage, 3: braid unreachable);
without, reads commands line by line ("help" lists them, "exit" or Ctrl-D leaves).

Options:
  -s, --socket PATH       the control socket (default: found from --file-prefix)
  -p, --file-prefix P     the braid's EAL file prefix (default: braid): /run/braid/P.sock,
                          else /tmp/braid-P.sock
  -j, --json              JSON output, for scripts
  -V, --version           print the version and exit
  -h, --help              print this help and exit

Examples: braidctl show port stats; braidctl --json show drops; braidctl -p gw1 show workers
)";

enum ExitCode { kOk = 0, kCommandFailed = 1, kUsageError = 2, kUnreachable = 3 };

int run_line(braid::control::ControlClient& client, const std::string& line, bool json) {
  using braid::control::Request;
  const braid::control::Reply reply =
      client.call({json ? Request::Mode::kJson : Request::Mode::kText, line});
  // JSON always goes to stdout (scripts parse it; the exit status says whether it failed).
  FILE* stream = reply.ok || json ? stdout : stderr;
  std::fputs(reply.body.c_str(), stream);
  std::fflush(stream);
  return reply.ok ? kOk : kCommandFailed;
}

}  // namespace

int main(int argc, char** argv) {
  std::string socket_path;
  std::string file_prefix = "braid";
  bool json = false;
  static const option kLongOptions[] = {
      {"socket", required_argument, nullptr, 's'}, {"file-prefix", required_argument, nullptr, 'p'},
      {"json", no_argument, nullptr, 'j'},         {"version", no_argument, nullptr, 'V'},
      {"help", no_argument, nullptr, 'h'},         {nullptr, 0, nullptr, 0},
  };
  opterr = 0;
  int id = 0;
  // "+": stop at the first command word, so `braidctl show port -x` is not parsed as options.
  while ((id = getopt_long(argc, argv, "+:s:p:jVh", kLongOptions, nullptr)) != -1) {
    switch (id) {
      case 's':
        socket_path = optarg;
        break;
      case 'p':
        file_prefix = optarg;
        break;
      case 'j':
        json = true;
        break;
      case 'V':
        std::printf("braidctl %s\n", BRAID_VERSION);
        return kOk;
      case 'h':
        std::fputs(kUsage, stdout);
        return kOk;
      case ':':
        std::fprintf(stderr, "braidctl: option %s needs a value (see --help)\n", argv[optind - 1]);
        return kUsageError;
      default:
        std::fprintf(stderr, "braidctl: unknown option %s (see --help)\n", argv[optind - 1]);
        return kUsageError;
    }
  }
  if (socket_path.empty()) socket_path = braid::control::find_socket_path(file_prefix);

  try {
    braid::control::ControlClient client(socket_path);
    if (optind < argc) {
      std::string line;
      for (int i = optind; i < argc; ++i)
        line += (line.empty() ? "" : " ") + std::string(argv[i]);
      return run_line(client, line, json);
    }
    const bool tty = ::isatty(STDIN_FILENO) != 0;
    int status = kOk;
    std::string line;
    while (true) {
      if (tty) {
        std::fputs("braid> ", stdout);
        std::fflush(stdout);
      }
      if (!std::getline(std::cin, line)) break;
      if (line == "exit") break;
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      status = run_line(client, line, json);
      if (line == "quit" || line == "restart") break;  // braid is going away
    }
    if (tty) std::fputs("\n", stdout);
    return status;
  } catch (const braid::control::ControlClientError& error) {
    std::fprintf(stderr, "braidctl: %s\n", error.what());
    return kUnreachable;
  }
}
