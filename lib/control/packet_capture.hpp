// pdump server side: with it, `dpdk-dumpcap --file-prefix <prefix> -i <port>` (a DPDK secondary
// process) can capture from a running braid. Needs a primary process with shared memory:
// hugepages and a file prefix; it cannot attach to --no-huge or --in-memory runs (noted).
#pragma once

#include <string>

namespace braid::control {

class PacketCapture {
 public:
  PacketCapture();   // rte_pdump_init(); failure is a note, not an error
  ~PacketCapture();  // rte_pdump_uninit()
  PacketCapture(const PacketCapture&) = delete;
  PacketCapture& operator=(const PacketCapture&) = delete;

  bool enabled() const { return enabled_; }
  // Whether dpdk-dumpcap can attach: enabled, and EAL shares its memory (hugepages).
  bool attachable() const { return enabled_ && reason_.empty(); }
  // "yes", or "no (why)" for `show control`.
  std::string status() const;
  const std::string& note() const { return note_; }

 private:
  bool enabled_ = false;
  std::string reason_;  // why a secondary process cannot attach; empty when it can
  std::string note_;
};

}  // namespace braid::control
