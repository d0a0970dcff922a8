#include "control/packet_capture.hpp"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_pdump.h>

namespace braid::control {

PacketCapture::PacketCapture() {
  if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
    reason_ = "not a primary process";
    note_ = "pdump: not a primary process; capture disabled";
    return;
  }
  if (rte_pdump_init() != 0) {
    reason_ = std::string("rte_pdump_init failed: ") + rte_strerror(rte_errno);
    note_ = "pdump: " + reason_ + "; dpdk-dumpcap cannot attach";
    return;
  }
  enabled_ = true;
  if (rte_eal_has_hugepages() == 0) {
    // dpdk-dumpcap is a secondary process: it maps the primary's hugepage files, and --no-huge
    // memory is anonymous, so there is nothing to map ("is primary process running?").
    reason_ = "--no-huge: a secondary process cannot attach";
    note_ = "pdump: server running, but " + reason_;
    return;
  }
  note_ = "pdump: enabled (dpdk-dumpcap --file-prefix <prefix> -i <port>)";
}

std::string PacketCapture::status() const {
  return attachable() ? "yes" : "no (" + reason_ + ")";
}

PacketCapture::~PacketCapture() {
  if (enabled_) rte_pdump_uninit();
}

}  // namespace braid::control
