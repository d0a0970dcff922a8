#include "config/devargs.hpp"

#include <charconv>

#include "common/plural.hpp"

namespace braid::config {
namespace {

constexpr std::string_view kAfPacketDriver = "net_af_packet";
constexpr std::string_view kVirtioUserDriver = "virtio_user";

}  // namespace

bool is_af_packet_device(std::string_view device) {
  return device.starts_with(kAfPacketDriver);
}

bool is_virtio_user_device(std::string_view device) {
  return device.starts_with(kVirtioUserDriver);
}

bool is_tap_device(std::string_view device) {
  return device.starts_with("net_tap");
}

std::string_view queue_pairs_devarg(std::string_view device) {
  if (is_af_packet_device(device)) return "qpairs";
  if (is_virtio_user_device(device)) return "queues";
  return {};
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

std::optional<unsigned> device_queue_pairs(std::string_view device) {
  const std::optional<std::string> text = devarg(device, queue_pairs_devarg(device));
  if (!text) return kDefaultQueuePairs;
  unsigned value = 0;
  const char* end = text->data() + text->size();
  const auto [stop, error] = std::from_chars(text->data(), end, value);
  if (error != std::errc{} || stop != end) return std::nullopt;
  return value;
}

std::string tx_queue_shortfall(unsigned tx_queues, bool control_queue, unsigned device_max,
                               std::string_view device) {
  const unsigned workers = tx_queues - (control_queue ? 1u : 0u);
  std::string need = "needs " + counted(tx_queues, "TX queue") + " (" + std::to_string(workers) +
                     " for the worker" + (workers == 1 ? "" : "s") +
                     (control_queue ? ", 1 for its bond's LACPDUs" : "") + ") but the device has " +
                     std::to_string(device_max);
  const std::string_view key = queue_pairs_devarg(device);
  if (!key.empty() && devarg(device, key)) {
    need += "; raise " + std::string(key) + "= in its device string (\"" + std::string(device) +
            "\") to " + std::to_string(tx_queues);
  } else if (!key.empty()) {
    need += "; add " + std::string(key) + "=" + std::to_string(tx_queues) +
            " to its device string (\"" + std::string(device) + "," + std::string(key) + "=" +
            std::to_string(tx_queues) + "\")";
  } else {
    need += "; use fewer workers";
  }
  return need;
}

}  // namespace braid::config
