#include "engine/health_endpoint.hpp"

#include <cstdio>
#include <memory>
#include <string>

#include "common/stall_watch.hpp"
#include "control/control_plane.hpp"
#include "engine/engine.hpp"
#include "engine/protocol_loop.hpp"
#include "engine/worker.hpp"

namespace braid::engine {
namespace {

constexpr std::uint64_t kHealthSamplePeriodNs = 250'000'000;

std::string seconds(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ns) / 1e9);
  return text;
}

}  // namespace

void register_health_endpoint(control::ControlPlane& control, const Engine& engine,
                              const ProtocolLoop& loop) {
  // Only the management thread touches it (one request at a time).
  auto watch = std::make_shared<StallWatch>(kStallLimitNs);
  watch->add("protocol loop");
  for (const auto& worker : engine.workers())
    watch->add("worker lcore " + std::to_string(worker->lcore));
  auto observe = [watch, &engine, &loop](std::uint64_t now_ns) {
    watch->observe(0, loop.iterations(), now_ns);
    for (std::size_t w = 0; w < engine.workers().size(); ++w)
      watch->observe(w + 1, engine.workers()[w]->counters.loops.get(), now_ns);
  };
  // Sampled between requests too, so that the first request after a stall began knows how
  // long ago the counter last moved.
  control.every_here("health", kHealthSamplePeriodNs, observe);
  control.add_http_live("/healthz", [watch, observe](std::uint64_t now_ns, std::uint64_t) {
    observe(now_ns);
    std::string lines;
    std::size_t stalled = 0;
    for (std::size_t t = 0; t < watch->threads().size(); ++t) {
      const StallWatch::Thread& thread = watch->threads()[t];
      const std::string unit = t == 0 ? " iterations" : " poll loops";
      if (watch->is_stalled(t, now_ns)) {
        ++stalled;
        lines += thread.name + ": stalled, no progress for " +
                 seconds(watch->still_for_ns(t, now_ns)) + " (limit " + seconds(watch->limit_ns()) +
                 ", at " + std::to_string(thread.value) + unit + ")\n";
      } else {
        lines += thread.name + ": running, " + std::to_string(thread.value) + unit + "\n";
      }
    }
    if (stalled == 0) return control::HttpAnswer{200, "ok\n" + lines};
    return control::HttpAnswer{503, "stalled: " + std::to_string(stalled) + " of " +
                                        std::to_string(watch->threads().size()) + " threads\n" +
                                        lines};
  });
}

}  // namespace braid::engine
