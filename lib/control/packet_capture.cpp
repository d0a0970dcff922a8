#include "control/packet_capture.hpp"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_pdump.h>

namespace braid::control {

PacketCapture::PacketCapture() {
  if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
    note_ = "pdump: not a primary process; capture disabled";
    return;
  }
  if (rte_pdump_init() != 0) {
    note_ = std::string("pdump: rte_pdump_init failed: ") + rte_strerror(rte_errno) +
            "; dpdk-dumpcap cannot attach";
    return;
  }
  enabled_ = true;
  note_ = "pdump: enabled (dpdk-dumpcap --file-prefix <prefix> -i <port>)";
}

PacketCapture::~PacketCapture() {
  if (enabled_) rte_pdump_uninit();
}

}  // namespace braid::control
