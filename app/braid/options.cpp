#include "options.hpp"

#include <getopt.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "braid_version.h"

namespace braid::app {
namespace {

constexpr const char* kUsage = R"(Usage: braid [options] [-- EAL options]

Bonds DPDK ports into one resilient logical link. Without --config, braid runs its built-in
demo topology (config/demo.yaml: virtual devices, no NICs or hugepages needed).

Options:
  -c, --config FILE        configuration file (YAML)
      --check              validate the configuration and exit (0: valid, 1: invalid),
                           with what start-up would refuse on this host (lcores, queue
                           pairs, EAL's runtime directory)
      --portable           with --check, for a config written for another machine: what
                           depends on this host (its CPUs, its runtime directory) warns
                           instead of failing
      --memory             with --check, what braid will allocate from hugepages per NUMA
                           socket (its mempools and rings), to compare with
                           scripts/hugepages --show
      --sysfs DIR          with --memory, read the devices' and CPUs' NUMA nodes under DIR
                           instead of /sys (a copy of the target machine's, like
                           scripts/hugepages --sysfs)
      --duration SECONDS   stop by itself after SECONDS
      --stats-interval MS  period of the foreground stats line (0: off; default off with -i)
  -i, --interactive        the braid> console on stdin (help lists the commands; quit stops)
      --control-socket PATH  the control socket for braidctl (off: none); overrides the config
  -V, --version            print the version and exit
  -h, --help               print this help and exit

EAL options after "--" are passed to DPDK (e.g. -- --log-level=braid:debug -l 0-3).
Without free hugepages braid adds --no-huge -m 512 by itself.
Stop with Ctrl-C (SIGINT) or SIGTERM: workers stop, final counters print, ports close.
)";

enum OptionId {
  kCheck = 256,
  kPortable,
  kMemory,
  kSysfs,
  kDuration,
  kStatsInterval,
  kControlSocket
};

std::uint32_t parse_number(const char* text, const char* option) {
  std::uint32_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, value);
  if (error != std::errc{} || stop != end) {
    std::fprintf(stderr, "braid: %s expects a whole number, got \"%s\" (see --help)\n", option,
                 text);
    std::exit(2);
  }
  return value;
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options options;
  int own_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      own_argc = i;
      for (int j = i + 1; j < argc; ++j)
        options.eal_args.emplace_back(argv[j]);
      break;
    }
  }
  static const option kLongOptions[] = {
      {"config", required_argument, nullptr, 'c'},
      {"check", no_argument, nullptr, kCheck},
      {"portable", no_argument, nullptr, kPortable},
      {"memory", no_argument, nullptr, kMemory},
      {"sysfs", required_argument, nullptr, kSysfs},
      {"duration", required_argument, nullptr, kDuration},
      {"stats-interval", required_argument, nullptr, kStatsInterval},
      {"interactive", no_argument, nullptr, 'i'},
      {"control-socket", required_argument, nullptr, kControlSocket},
      {"version", no_argument, nullptr, 'V'},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  opterr = 0;
  int id = 0;
  while ((id = getopt_long(own_argc, argv, ":c:iVh", kLongOptions, nullptr)) != -1) {
    switch (id) {
      case 'c':
        options.config_path = optarg;
        break;
      case kCheck:
        options.check_only = true;
        break;
      case kPortable:
        options.portable = true;
        break;
      case kMemory:
        options.memory = true;
        break;
      case kSysfs:
        options.sysfs = optarg;
        break;
      case kDuration:
        options.duration_s = parse_number(optarg, "--duration");
        break;
      case kStatsInterval:
        options.stats_interval_ms = parse_number(optarg, "--stats-interval");
        break;
      case 'i':
        options.interactive = true;
        break;
      case kControlSocket:
        options.control_socket = optarg;
        break;
      case 'V':
        std::printf("braid %s\n", BRAID_VERSION);
        std::exit(0);
      case 'h':
        std::fputs(kUsage, stdout);
        std::exit(0);
      case ':':
        std::fprintf(stderr, "braid: option %s needs a value (see --help)\n", argv[optind - 1]);
        std::exit(2);
      default:
        std::fprintf(stderr, "braid: unknown option %s (see --help; EAL options go after --)\n",
                     argv[optind - 1]);
        std::exit(2);
    }
  }
  if (options.portable && !options.check_only) {
    std::fprintf(stderr, "braid: --portable goes with --check (see --help)\n");
    std::exit(2);
  }
  if (options.sysfs != "/sys" && !options.memory) {
    std::fprintf(stderr, "braid: --sysfs goes with --check --memory (see --help)\n");
    std::exit(2);
  }
  if (options.memory && !options.check_only) {
    std::fprintf(stderr, "braid: --memory goes with --check (see --help)\n");
    std::exit(2);
  }
  if (optind < own_argc) {
    std::fprintf(stderr, "braid: unexpected argument \"%s\" (see --help)\n", argv[optind]);
    std::exit(2);
  }
  return options;
}

}  // namespace braid::app
