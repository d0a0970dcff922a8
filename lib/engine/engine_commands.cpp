#include "engine/engine_commands.hpp"

#include <rte_ethdev.h>

#include <memory>
#include <string>
#include <vector>

#include "control/control_plane.hpp"
#include "engine/engine.hpp"
#include "engine/engine_metrics.hpp"
#include "engine/engine_view.hpp"
#include "engine/stats_line.hpp"
#include "linkemu/link_registry.hpp"
#include "port/ethdev_xstats.hpp"

namespace braid::engine {
namespace {

using control::Args;
using control::Output;
using control::Value;

constexpr std::uint64_t kRateSamplePeriodNs = 1'000'000'000;

Value rate(double per_second) {
  return Value::displayed(per_second, format_rate(per_second));
}

Value percent(double ratio) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", ratio * 100.0);
  return Value::displayed(ratio, text);
}

// A duration in seconds, shown in ms ("412.0ms").
Value duration(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1fms", static_cast<double>(ns) / 1e6);
  return Value::displayed(static_cast<double>(ns) / 1e9, text);
}

// The ports a command names: the one given, or all.
std::vector<std::size_t> chosen_ports(const Engine& engine, const Args& args) {
  std::vector<std::size_t> ports;
  for (std::size_t i = 0; i < engine.port_count(); ++i) {
    if (!args.has("port") || engine.port(i).name() == args.get("port")) ports.push_back(i);
  }
  return ports;
}

void show_port_stats(EngineView& view, const Args& args, Output& out) {
  control::Table& table =
      out.table("ports", {"port", "rx_packets", "tx_packets", "rx_pps", "tx_pps", "rx_bytes",
                          "tx_bytes", "rx_missed", "rx_no_mbuf", "rx_errors", "tx_errors"});
  for (std::size_t i : chosen_ports(view.engine(), args)) {
    const datapath::NicCounters nic = view.nic(i);
    const PortRates rates = i < view.port_rates().size() ? view.port_rates()[i] : PortRates{};
    table.row({view.engine().port(i).name(), nic.rx_packets, nic.tx_packets, rate(rates.rx_pps),
               rate(rates.tx_pps), nic.rx_bytes, nic.tx_bytes, nic.rx_missed, nic.rx_no_mbuf,
               nic.rx_errors, nic.tx_errors});
  }
}

void show_port_xstats(EngineView& view, const Args& args, Output& out) {
  for (std::size_t i : chosen_ports(view.engine(), args)) {
    const auto& port = view.engine().port(i);
    // On the SlowReads helper (the command's ReadsDriver): it may wait for the port.
    const drivers::CounterReadLock reading(port.id(), drivers::CounterReadLock::Wait::kYes);
    linkemu::emulate_counter_read(port.id());  // an emulated NIC whose reads block
    const int count = rte_eth_xstats_get_names(port.id(), nullptr, 0);
    if (count < 0) {
      out.error("port " + port.name() + ": xstats unavailable (" + std::to_string(count) + ")");
      continue;
    }
    Output& section = out.section(port.name());
    control::Table& table = section.table("xstats", {"name", "value"});
    for (const auto& [name, value] : drivers::read_ethdev_xstats_held(port.id()))
      table.row({name, value});
  }
}

std::string mac_text(std::uint16_t port_id) {
  rte_ether_addr mac{};
  if (rte_eth_macaddr_get(port_id, &mac) != 0) return "?";
  char text[RTE_ETHER_ADDR_FMT_SIZE];
  rte_ether_format_addr(text, sizeof text, &mac);
  return text;
}

void show_port_info(EngineView& view, const Args& args, Output& out) {
  for (std::size_t i : chosen_ports(view.engine(), args)) {
    const auto& port = view.engine().port(i);
    Output& section = out.section(port.name());
    rte_eth_link link{};
    rte_eth_link_get_nowait(port.id(), &link);
    std::uint16_t mtu = 0;
    rte_eth_dev_get_mtu(port.id(), &mtu);
    section.value("ethdev", port.id());
    section.value("driver", port.driver());
    section.value("socket", port.socket());
    section.value("mac", mac_text(port.id()));
    section.value("link", link.link_status ? "up" : "down");
    section.value("speed_mbps", std::uint64_t{link.link_speed});
    section.value("duplex", link.link_duplex ? "full" : "half");
    section.value("mtu", mtu);
    section.value("promiscuous", rte_eth_promiscuous_get(port.id()) == 1);
    section.value("rx_queues", port.rx_queues());
    const std::optional<std::uint16_t> slow_queue = port.slow_rx_queue();
    section.value("slow_rx_queue", slow_queue ? std::to_string(*slow_queue) + " (" +
                                                    port.slow_steering_description() + ")"
                                              : std::string("none"));
    section.value("tx_queues", port.tx_queues());
    section.value("rx_descriptors", port.rx_descriptors());
    section.value("tx_descriptors", port.tx_descriptors());
  }
}

void show_workers(EngineView& view, Output& out) {
  const Engine& engine = view.engine();
  const WorkerLiveness& liveness = engine.liveness();
  out.value("forwarding", engine.forwarding() ? "started" : "stopped");
  out.value("stalled", std::to_string(liveness.stalled_count()) + " of " +
                           std::to_string(engine.workers().size()) + " (limit " +
                           std::to_string(liveness.stall_limit_ns() / 1'000'000) + " ms)");
  control::Table& table =
      out.table("workers", {"lcore", "socket", "queues", "rx_pps", "tx_pps", "busy", "loops",
                            "state", "stalled_for", "stalls", "last_stall"});
  for (std::size_t w = 0; w < engine.workers().size(); ++w) {
    const Worker& worker = *engine.workers()[w];
    const WorkerRates rates =
        w < view.worker_rates().size() ? view.worker_rates()[w] : WorkerRates{};
    const WorkerLiveness::Worker& alive = liveness.workers()[w];
    const std::string state = !engine.running() ? "stopped" : alive.stalled ? "stalled" : "running";
    table.row({worker.lcore, worker.socket, engine.queues_of(worker), rate(rates.rx_pps),
               rate(rates.tx_pps), percent(rates.busy_ratio), worker.counters.loops.get(), state,
               alive.stalled ? duration(liveness.still_ns(w)) : Value::missing(), alive.stalls,
               alive.last_stall_ns == 0 ? Value::missing() : duration(alive.last_stall_ns)});
  }
}

void show_drops(EngineView& view, Output& out) {
  const datapath::CounterTotals totals = view.totals();
  control::Table& reasons = out.table("drops", {"reason", "packets"});
  for (std::size_t r = 0; r < datapath::kDropReasonCount; ++r)
    reasons.row({std::string(datapath::kDropReasonNames[r]), totals.drops[r]});
  out.value("total", totals.dropped());
  control::Table& nic =
      out.table("nic", {"port", "rx_missed", "rx_no_mbuf", "rx_errors", "tx_errors"});
  for (std::size_t i = 0; i < view.engine().port_count(); ++i) {
    const datapath::NicCounters counters = view.nic(i);
    nic.row({view.engine().port(i).name(), counters.rx_missed, counters.rx_no_mbuf,
             counters.rx_errors, counters.tx_errors});
  }
}

}  // namespace

void register_engine_commands(control::ControlPlane& control, Engine& engine) {
  auto view = std::make_shared<EngineView>(engine);
  control.set_slow_reads(&engine.slow_reads());
  control::CommandRegistry& commands = control.commands();
  // Names never change: the console completes them on the management thread.
  std::vector<std::string> port_names;
  for (std::size_t i = 0; i < engine.port_count(); ++i)
    port_names.push_back(engine.port(i).name());
  commands.define_param("port", {.help = "a configured port name",
                                 .values = [port_names] { return port_names; },
                                 .strict = true});
  commands.add(
      "show port [stats|xstats|info] [<port>]",
      "per-port counters and rates (default), the PMD's extended stats, or device info",
      [view](const Args& args, Output& out) {
        const std::string what = args.pick({"stats", "xstats", "info"}, "stats");
        if (what == "xstats") {
          show_port_xstats(*view, args, out);
        } else if (what == "info") {
          show_port_info(*view, args, out);
        } else {
          show_port_stats(*view, args, out);
        }
      },
      // xstats: mlx5 answers through an ethtool ioctl under the kernel's rtnl lock.
      [](const Args& args) {
        return args.pick({"stats", "xstats", "info"}, "stats") == "xstats";
      });
  commands.add("show workers",
               "each worker lcore: socket, (port/queue)s, rates, busy share, stalls",
               [view](const Args&, Output& out) { show_workers(*view, out); });
  commands.add("show drops", "drops by reason since the last clear, and what the NICs dropped",
               [view](const Args&, Output& out) { show_drops(*view, out); });
  commands.add("clear stats", "zero what show commands count (metrics stay monotonic)",
               [view](const Args&, Output& out) {
                 view->clear();
                 out.line("statistics cleared");
               });
  commands.add(
      "start", "start forwarding again (ports, links and LACP stayed up)",
      [&engine](const Args&, Output& out) {
        if (engine.forwarding()) {
          out.line("forwarding is already started");
          return;
        }
        if (engine.resume()) {
          out.line("forwarding started");
        } else {
          out.line("forwarding starting: " + worker_lcores_text(engine.workers_not_acknowledged()) +
                   " not forwarding yet (the log says when every worker is)");
        }
      });
  commands.add(
      "stop",
      "stop forwarding: workers drain, then drop data (counted `stopped`); links and "
      "LACP stay up",
      [&engine](const Args&, Output& out) {
        if (!engine.forwarding()) {
          out.line("forwarding is already stopped");
          return;
        }
        if (engine.pause()) {
          out.line("forwarding stopped");
        } else {
          out.line("forwarding stopping: " + worker_lcores_text(engine.workers_not_acknowledged()) +
                   " still forwarding what they have (the log says when every worker "
                   "stopped)");
        }
      });

  control.every("engine-rates", kRateSamplePeriodNs,
                [view](std::uint64_t now_ns) { view->sample(now_ns); });
  control.telemetry().add_command("/braid/ports", "per-port counters and rates", control.commands(),
                                  "show port stats");
  control.telemetry().add_command("/braid/workers", "worker lcores, queues, rates, busy share",
                                  control.commands(), "show workers");
  control.telemetry().add_command("/braid/drops", "drops by reason and NIC-side drops",
                                  control.commands(), "show drops");
  register_engine_metrics(control.metrics(), view);
}

}  // namespace braid::engine
