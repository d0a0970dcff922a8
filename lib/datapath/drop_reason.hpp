// Every packet that enters braid is sent or counted under one of these reasons. The names are
// what the stats line, the console and the metrics (`braid_drops_total{reason=...}`) show.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace braid::datapath {

enum class DropReason : std::size_t {
  kTxFull,           // the egress queue took fewer packets than offered
  kNoRoute,          // the receiving port has no egress (a queue polled with nothing to forward to)
  kNoMember,         // a bond had no member able to send (all down, or fewer than min_links)
  kNotCollecting,    // received on a bond member that is not collecting (LACP, active-backup)
  kSlowPathFull,     // a Slow Protocols frame found the control thread's ring full
  kFlowletHold,      // held for a bucket being moved: the hold was full, or the worker stopped
  kSlowPoliced,      // a Slow Protocols frame over its member's rate limit (a flood of 0x8809)
  kSlowUnsupported,  // a Slow Protocols frame of a subtype braid does not run (OAM, ESMC)
  kStopped,          // received while forwarding is stopped (console `stop`)
  kBfdPoliced,       // a BFD frame over its member's rate limit (bfd_divert.hpp: a flood)
  kLldpPoliced,      // an LLDPDU over its member's rate limit (a flood of 0x88cc)
  kClassRateCap,     // over its traffic class's rate cap (classes.list[].rate_cap)
  kClassGaveWay,     // its class gave way to a reserved share on a short member
  kPfcStorm,         // its class's PFC priority is in a storm on its member (action drop)
  kCount,
};

inline constexpr std::size_t kDropReasonCount = static_cast<std::size_t>(DropReason::kCount);

inline constexpr std::array<std::string_view, kDropReasonCount> kDropReasonNames = {
    "tx_full",      "no_route",       "no_member",        "not_collecting", "slow_path_full",
    "flowlet_hold", "slow_policed",   "slow_unsupported", "stopped",        "bfd_policed",
    "lldp_policed", "class_rate_cap", "class_gave_way",   "pfc_storm",
};

constexpr std::string_view to_string(DropReason reason) {
  return kDropReasonNames[static_cast<std::size_t>(reason)];
}

}  // namespace braid::datapath
