// The error-rate signals a member is judged on, by name, and what each one's thresholds are by
// default. A signal is a pair of monotonic counters that a source (drivers/: one per NIC family)
// samples periodically: errors, and the frames those errors are out of. Its rate is errors per
// million frames over a sliding window (error_rate.hpp).
//
// What the counters are is the source's business; the names here are what the console, the logs
// and the config show. For counters of frames that the good-frame count excludes (CRC errors are
// not in rx_packets), the source passes good + bad as `frames`, so a link that delivers nothing
// but bad frames reads 1,000,000 ppm and not "no frames".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace braid::health {

inline constexpr std::uint64_t kNsPerMs = 1'000'000;
inline constexpr std::uint64_t kNsPerSecond = 1'000'000'000;
inline constexpr std::uint64_t kPpm = 1'000'000;  // parts per million: frames per error rate unit

enum class Signal : std::uint8_t {
  kCrc,             // FCS errors (mlx5 rx_crc_errors_phy, ethdev ierrors' CRC share)
  kSymbol,          // PCS symbol errors (mlx5 rx_symbol_err_phy)
  kFecCorrected,    // FEC blocks corrected: normal on RS-FEC links, reported, not judged
  kFecUncorrected,  // FEC blocks the decoder could not correct: frames lost
  kRxErrors,        // the port's generic receive errors (ethdev ierrors)
  kDiscards,        // frames the port discarded (ethdev imissed, rx_discards_phy)
  kLacpduMissed,    // LACPDUs expected from the partner and not received
  kBfdMissed,       // BFD control packets expected from the peer and not received
  kRoceRetransmit,  // RoCE out_of_sequence + packet_seq_err + local_ack_timeout_err
};
inline constexpr std::size_t kSignalCount = 9;

const char* to_string(Signal signal);
std::optional<Signal> signal_from_string(std::string_view name);

// Whether a signal's evidence is about what the member receives: frames the partner sent that
// arrived damaged or not at all (crc, symbol, fec_*, rx_errors, discards, lacpdu_missed,
// bfd_missed). Moving braid's own transmit off such a member leaves the failing direction as it
// is; only the partner can move it (lib/bond/member_service.hpp). roce_retransmit is both ways.
bool on_receive_side(Signal signal);

// One signal's judge: degrade above degrade_ppm, recover once the rate stayed below recover_ppm
// for recover_hold_ns (hysteresis; error_rate.hpp says exactly how).
struct SignalSettings {
  bool judged = true;  // false: the rate is measured and shown, never acted on
  std::uint64_t degrade_ppm = 100;
  std::uint64_t recover_ppm = 10;
  // Fewer frames than this in the window: no verdict to degrade on. At least 1e6 / degrade_ppm,
  // so that one error alone can never degrade a member.
  std::uint64_t min_frames = 100'000;
  std::uint64_t recover_hold_ns = 30 * kNsPerSecond;
};

// The defaults per signal, with the reasons in doc/health.md ("Health model").
SignalSettings default_signal_settings(Signal signal);
std::array<SignalSettings, kSignalCount> default_signal_settings();

// An empty string when the settings are consistent, else what is wrong with them, e.g.
// "signal crc: recover_ppm (200) must be below degrade_ppm (100)".
std::string settings_error(Signal signal, const SignalSettings& settings);

}  // namespace braid::health
