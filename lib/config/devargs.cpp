#include "config/devargs.hpp"

#include <charconv>

#include "common/plural.hpp"

namespace braid::config {
namespace {

constexpr std::string_view kAfPacketDriver = "net_af_packet";

}  // namespace

bool is_af_packet_device(std::string_view device) {
  return device.starts_with(kAfPacketDriver);
}

std::optional<std::string> devarg(std::string_view device, std::string_view key) {
  std::size_t start = device.find(',');
  while (start != std::string_view::npos) {
    const std::size_t end = device.find(',', start + 1);
    const std::string_view item = device.substr(start + 1, end - start - 1);
    if (item.size() > key.size() && item.starts_with(key) && item[key.size()] == '=')
      return std::string(item.substr(key.size() + 1));
    start = end;
  }
  return std::nullopt;
}

std::optional<unsigned> af_packet_qpairs(std::string_view device) {
  const std::optional<std::string> text = devarg(device, "qpairs");
  if (!text) return kAfPacketDefaultQpairs;
  unsigned value = 0;
  const char* end = text->data() + text->size();
  const auto [stop, error] = std::from_chars(text->data(), end, value);
  if (error != std::errc{} || stop != end) return std::nullopt;
  return value;
}

std::string tx_queue_shortfall(unsigned tx_queues, bool control_queue, unsigned device_max,
                               std::string_view driver, std::string_view device) {
  const unsigned workers = tx_queues - (control_queue ? 1u : 0u);
  std::string need = "needs " + counted(tx_queues, "TX queue") + " (" + std::to_string(workers) +
                     " for the worker" + (workers == 1 ? "" : "s") +
                     (control_queue ? ", 1 for its bond's LACPDUs" : "") + ") but the device has " +
                     std::to_string(device_max);
  if (driver == kAfPacketDriver && devarg(device, "qpairs")) {
    need += "; raise qpairs= in its device string (\"" + std::string(device) + "\") to " +
            std::to_string(tx_queues);
  } else if (driver == kAfPacketDriver) {
    need += "; add qpairs=" + std::to_string(tx_queues) + " to its device string (\"" +
            std::string(device) + ",qpairs=" + std::to_string(tx_queues) + "\")";
  } else {
    need += "; use fewer workers";
  }
  return need;
}

}  // namespace braid::config
