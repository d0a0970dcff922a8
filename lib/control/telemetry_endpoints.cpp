#include "control/telemetry_endpoints.hpp"

#include <rte_telemetry.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "common/clock.hpp"

namespace braid::control {
namespace {

constexpr std::size_t kMaxPathBytes = 55;
constexpr std::size_t kMaxTelemetryString = 127;  // RTE_TEL_MAX_STRING_LEN - 1

// Shared with the telemetry thread. Never destroyed: DPDK cannot unregister a telemetry
// command, so a late callback must still find a valid store.
struct Store {
  struct Published {
    std::shared_ptr<const Output> output;
    std::uint64_t rendered_ns = 0;
  };
  std::mutex mutex;
  std::condition_variable rendered;  // a publish() happened
  std::map<std::string, Published> published;
  std::vector<std::pair<std::string, std::uint64_t>> asked;
  const Waker* asker = nullptr;
  std::uint64_t fresh_ns = 0;
};
Store& store() {
  static Store* instance = new Store();
  return *instance;
}

std::string clip(const std::string& text) {
  return text.size() > kMaxTelemetryString ? text.substr(0, kMaxTelemetryString) : text;
}

// DPDK 22.11 telemetry accepts dict keys of letters, digits, '_' and '/' only and silently
// drops the rest (a key "uplink.policy" or "tor-a" would vanish): map anything else to '_'.
std::string key_name(const std::string& key) {
  std::string name = clip(key);
  for (char& c : name) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '_' || c == '/';
    if (!allowed) c = '_';
  }
  return name;
}

void add_value(rte_tel_data* d, const std::string& key, const Value& value) {
  const std::string name = key_name(key);
  using Kind = Value::Kind;
  if (value.kind == Kind::kMissing) return;  // no null in 22.11 telemetry: the key is left out
  if (value.kind == Kind::kUint) {
    rte_tel_data_add_dict_u64(d, name.c_str(), value.uint_value);
  } else if (value.kind == Kind::kInt && value.int_value >= INT32_MIN &&
             value.int_value <= INT32_MAX) {
    rte_tel_data_add_dict_int(d, name.c_str(), static_cast<int>(value.int_value));
  } else if (value.kind == Kind::kBool) {
    rte_tel_data_add_dict_int(d, name.c_str(), value.bool_value ? 1 : 0);
  } else {
    // Strings, doubles (22.11 telemetry has no floating point) and large negatives.
    rte_tel_data_add_dict_string(d, name.c_str(), clip(value.plain()).c_str());
  }
}

// Telemetry nests one level only: tables become one container per row, keyed by the row's
// first cell; sections flatten into "section/key".
void flatten(rte_tel_data* d, const Output& out, const std::string& prefix) {
  std::size_t tables = 0;
  for (const Output::Item& item : out.items())
    tables += item.kind == Output::Item::Kind::kTable;
  for (const Output::Item& item : out.items()) {
    switch (item.kind) {
      case Output::Item::Kind::kValue:
        add_value(d, prefix + item.key, item.value);
        break;
      case Output::Item::Kind::kSection:
        flatten(d, *item.section, prefix + item.key + "/");
        break;
      case Output::Item::Kind::kTable:
        for (const auto& row : item.table->rows()) {
          rte_tel_data* container = rte_tel_data_alloc();
          if (container == nullptr) return;
          rte_tel_data_start_dict(container);
          for (std::size_t c = 0; c < row.size(); ++c)
            add_value(container, item.table->columns()[c], row[c]);
          const std::string key =
              prefix + (tables > 1 ? item.key + "/" : "") + (row.empty() ? "" : row[0].text());
          rte_tel_data_add_dict_container(d, key_name(key).c_str(), container, 0);
        }
        break;
      case Output::Item::Kind::kLine:
        break;
    }
  }
  for (const std::string& message : out.errors())
    rte_tel_data_add_dict_string(d, key_name(prefix + "error").c_str(), clip(message).c_str());
}

// Waits (at most kRenderWaitMs, on this telemetry client's own thread) for a render that began
// at most the freshness window before the request.
int telemetry_callback(const char* cmd, const char*, rte_tel_data* d) {
  std::shared_ptr<const Output> snapshot;
  {
    Store& s = store();
    std::unique_lock lock(s.mutex);
    const std::uint64_t asked_ns = monotonic_ns();
    const auto fresh = [&s, cmd, asked_ns] {
      const auto it = s.published.find(cmd);
      return s.asker == nullptr ||
             (it != s.published.end() && it->second.rendered_ns + s.fresh_ns >= asked_ns);
    };
    if (!fresh()) {
      s.asked.emplace_back(cmd, asked_ns);
      s.asker->notify();
      s.rendered.wait_for(lock, std::chrono::milliseconds(TelemetryEndpoints::kRenderWaitMs),
                          fresh);
    }
    const auto it = s.published.find(cmd);
    if (it != s.published.end()) snapshot = it->second.output;
  }
  rte_tel_data_start_dict(d);
  if (snapshot == nullptr) {
    rte_tel_data_add_dict_string(d, "status", "starting: no snapshot yet");
    return 0;
  }
  flatten(d, *snapshot, "");
  return 0;
}

bool valid_path(const std::string& path) {
  if (path.size() < 2 || path.size() > kMaxPathBytes || path[0] != '/') return false;
  for (char c : path) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '/';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

void TelemetryEndpoints::add(const std::string& path, const std::string& help, Producer producer) {
  if (!valid_path(path)) throw std::invalid_argument("bad telemetry path \"" + path + "\"");
  const int registered = rte_telemetry_register_cmd(path.c_str(), telemetry_callback, help.c_str());
  if (registered != 0) throw std::runtime_error("telemetry: cannot register " + path);
  paths_.push_back(path);
  producers_.push_back(std::move(producer));
}

void TelemetryEndpoints::add_command(const std::string& path, const std::string& help,
                                     const CommandRegistry& registry, std::string command_line) {
  add(path, help,
      [&registry, line = std::move(command_line)](Output& out) { registry.execute(line, out); });
}

TelemetryEndpoints::Rendered TelemetryEndpoints::render(std::size_t index) const {
  auto out = std::make_shared<Output>();
  try {
    producers_.at(index)(*out);
  } catch (const std::exception& error) {
    out->error(error.what());
  }
  return out;
}

void TelemetryEndpoints::publish(const std::string& path, Rendered rendered,
                                 std::uint64_t rendered_ns) {
  Store& s = store();
  {
    std::lock_guard lock(s.mutex);
    s.published[path] = {std::move(rendered), rendered_ns};
  }
  s.rendered.notify_all();
}

void TelemetryEndpoints::listen_for_asks(const Waker* asked, std::uint64_t fresh_ns) {
  Store& s = store();
  {
    std::lock_guard lock(s.mutex);
    s.asker = asked;
    s.fresh_ns = fresh_ns;
    s.asked.clear();
  }
  s.rendered.notify_all();  // waiting requests take what there is
}

std::vector<std::pair<std::string, std::uint64_t>> TelemetryEndpoints::take_asked() {
  std::lock_guard lock(store().mutex);
  return std::exchange(store().asked, {});
}

}  // namespace braid::control
