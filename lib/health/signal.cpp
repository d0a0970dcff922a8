#include "health/signal.hpp"

namespace braid::health {
namespace {

constexpr std::array<const char*, kSignalCount> kNames = {
    "crc",      "symbol",        "fec_corrected", "fec_uncorrected", "rx_errors",
    "discards", "lacpdu_missed", "bfd_missed",    "roce_retransmit",
};

}  // namespace

const char* to_string(Signal signal) {
  const auto index = static_cast<std::size_t>(signal);
  return index < kNames.size() ? kNames[index] : "unknown";
}

std::optional<Signal> signal_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i]) return static_cast<Signal>(i);
  }
  return std::nullopt;
}

bool on_receive_side(Signal signal) {
  return signal != Signal::kRoceRetransmit;
}

SignalSettings default_signal_settings(Signal signal) {
  SignalSettings settings;  // crc, symbol, fec_uncorrected, rx_errors: 100 / 10 ppm
  switch (signal) {
    case Signal::kFecCorrected:
      settings.judged = false;
      break;
    case Signal::kDiscards:
      // Discards are mostly our own RX queues overflowing (the scheduler's congestion feedback
      // handles those); only a rate no host backlog explains says the link is bad.
      settings.degrade_ppm = 10'000;
      settings.recover_ppm = 1'000;
      break;
    case Signal::kLacpduMissed:
      // 10 LACPDUs in a 10 s window at the fast rate; more than 2 missed degrades, 3 in a row is
      // the short timeout anyway (802.1AX 6.4.4).
      settings.degrade_ppm = 200'000;
      settings.recover_ppm = 50'000;
      settings.min_frames = 10;
      break;
    case Signal::kBfdMissed:
      // Detection (multiplier x interval) already takes the member down; a lossy session that
      // stays up still says the far end loses more than 1% of what we send.
      settings.degrade_ppm = 10'000;
      settings.recover_ppm = 1'000;
      settings.min_frames = 100;
      break;
    case Signal::kRoceRetransmit:
      settings.degrade_ppm = 1'000;
      settings.recover_ppm = 100;
      break;
    case Signal::kCrc:
    case Signal::kSymbol:
    case Signal::kFecUncorrected:
    case Signal::kRxErrors:
      break;
  }
  return settings;
}

std::array<SignalSettings, kSignalCount> default_signal_settings() {
  std::array<SignalSettings, kSignalCount> all;
  for (std::size_t i = 0; i < kSignalCount; ++i)
    all[i] = default_signal_settings(static_cast<Signal>(i));
  return all;
}

std::string settings_error(Signal signal, const SignalSettings& settings) {
  const std::string where = std::string("signal ") + to_string(signal) + ": ";
  if (settings.recover_ppm >= settings.degrade_ppm) {
    return where + "recover_ppm (" + std::to_string(settings.recover_ppm) +
           ") must be below degrade_ppm (" + std::to_string(settings.degrade_ppm) + ")";
  }
  if (settings.min_frames == 0) return where + "min_frames must be at least 1";
  return "";
}

}  // namespace braid::health
