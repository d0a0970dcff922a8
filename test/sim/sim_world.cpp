#include "sim_world.hpp"

#include <algorithm>
#include <tuple>

namespace braid::lacp::sim {

SystemConfig system_config(std::uint8_t id, std::uint16_t priority) {
  SystemConfig system;
  system.system_priority = priority;
  system.system_mac = {0x02, 0x00, 0x00, 0x00, 0x00, id};
  return system;
}

std::vector<PortConfig> port_configs(std::uint8_t id, int count, LacpActivity activity,
                                     LacpTimeout timeout) {
  std::vector<PortConfig> ports;
  for (int i = 0; i < count; ++i) {
    PortConfig port;
    port.port_number = static_cast<std::uint16_t>(i + 1);
    port.port_mac = {0x02, 0x00, 0x00, id, 0x01, static_cast<std::uint8_t>(i + 1)};
    port.activity = activity;
    port.timeout = timeout;
    ports.push_back(port);
  }
  return ports;
}

World::World(std::uint64_t seed, std::uint64_t tick_ns) : random_(seed), tick_ns_(tick_ns) {}

int World::add_engine(const SystemConfig& system, const std::vector<PortConfig>& ports) {
  const int id = static_cast<int>(engines_.size());
  engines_.push_back(std::make_unique<LacpSystem>(
      system, ports,
      [this, id](std::size_t port, ByteSpan frame) { return transmit(id, port, frame); }, now_ns_));
  muted_.push_back(false);
  return id;
}

void World::restart_engine(int engine_id, const SystemConfig& system,
                           const std::vector<PortConfig>& ports, std::uint64_t down_ns) {
  const auto index = static_cast<std::size_t>(engine_id);
  std::vector<int> its_cables;
  for (std::size_t i = 0; i < cables_.size(); ++i) {
    if ((cables_[i].a.engine == engine_id || cables_[i].b.engine == engine_id) && cables_[i].up) {
      its_cables.push_back(static_cast<int>(i));
      set_link(static_cast<int>(i), false);
    }
  }
  engines_[index] = std::make_unique<LacpSystem>(
      system, ports,
      [this, engine_id](std::size_t port, ByteSpan frame) {
        return transmit(engine_id, port, frame);
      },
      now_ns_);
  at(now_ns_ + down_ns, [this, its_cables] {
    for (const int cable : its_cables)
      set_link(cable, true);
  });
}

void World::restart_in_place(int engine_id, const SystemConfig& system,
                             const std::vector<PortConfig>& ports, std::uint64_t gap_ns,
                             std::function<void(LacpSystem&)> prepare) {
  mute(engine_id, true);
  at(now_ns_ + gap_ns, [this, engine_id, system, ports, prepare = std::move(prepare)] {
    engines_.at(static_cast<std::size_t>(engine_id)) = std::make_unique<LacpSystem>(
        system, ports,
        [this, engine_id](std::size_t port, ByteSpan frame) {
          return transmit(engine_id, port, frame);
        },
        now_ns_);
    mute(engine_id, false);
    if (prepare) prepare(engine(engine_id));
    for (const Cable& cable : cables_) {
      if (!cable.up) continue;
      if (cable.a.engine == engine_id) link_event(cable.a, true, cable.spec.speed_mbps);
      if (cable.b.engine == engine_id) link_event(cable.b, true, cable.spec.speed_mbps);
    }
  });
}

int World::connect(Endpoint a, Endpoint b, const CableSpec& spec) {
  cables_.push_back(Cable{a, b, spec, false, 0});
  const int id = static_cast<int>(cables_.size() - 1);
  set_link(id, true);
  return id;
}

void World::link_event(const Endpoint& end, bool up, std::uint32_t speed_mbps) {
  engine(end.engine).on_link(end.port, up, speed_mbps, true, now_ns_);
}

void World::set_link(int id, bool up) {
  Cable& cable = cables_.at(static_cast<std::size_t>(id));
  if (cable.up == up) return;
  cable.up = up;
  ++cable.epoch;
  link_event(cable.a, up, cable.spec.speed_mbps);
  link_event(cable.b, up, cable.spec.speed_mbps);
}

void World::move_cable(int id, Endpoint to, std::uint64_t down_ns) {
  set_link(id, false);
  at(now_ns_ + down_ns, [this, id, to] {
    cables_.at(static_cast<std::size_t>(id)).b = to;
    set_link(id, true);
  });
}

void World::set_loss(int id, double a_to_b, double b_to_a) {
  Cable& cable = cables_.at(static_cast<std::size_t>(id));
  cable.spec.loss_a_to_b = a_to_b;
  cable.spec.loss_b_to_a = b_to_a;
}

void World::mute(int engine_id, bool muted) {
  muted_.at(static_cast<std::size_t>(engine_id)) = muted;
}

std::optional<int> World::cable_at(const Endpoint& end) const {
  for (std::size_t i = 0; i < cables_.size(); ++i) {
    if (cables_[i].a == end || cables_[i].b == end) return static_cast<int>(i);
  }
  return std::nullopt;
}

void World::set_traffic(int cable, bool on) {
  cables_.at(static_cast<std::size_t>(cable)).traffic = on;
}

void World::refuse_tx(Endpoint from, unsigned frames) {
  refusals_[{from.engine, from.port}] = frames;
}

bool World::transmit(int engine_id, std::size_t port, ByteSpan frame) {
  const Endpoint from{engine_id, port};
  if (auto refusal = refusals_.find({engine_id, port});
      refusal != refusals_.end() && refusal->second > 0) {
    --refusal->second;
    return false;
  }
  if (capture_) captured_.push_back({now_ns_, from, {frame.begin(), frame.end()}});
  const auto id = cable_at(from);
  if (!id) return true;  // sent into an unplugged port: gone, as on a NIC
  const Cable& cable = cables_[static_cast<std::size_t>(*id)];
  if (!cable.up) return true;
  const bool from_a = cable.a == from;
  const double loss = from_a ? cable.spec.loss_a_to_b : cable.spec.loss_b_to_a;
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double roll = uniform(random_);  // always drawn, so loss settings don't shift the stream
  if (muted_[static_cast<std::size_t>(engine_id)] || roll < loss) {
    ++frames_lost_;
    return true;
  }
  const Endpoint to = from_a ? cable.b : cable.a;
  const std::uint64_t epoch = cable.epoch;
  const int cable_id = *id;
  std::vector<std::uint8_t> bytes(frame.begin(), frame.end());
  at(now_ns_ + cable.spec.delay_ns, [this, cable_id, epoch, to, bytes = std::move(bytes)] {
    const Cable& now_cable = cables_[static_cast<std::size_t>(cable_id)];
    if (!now_cable.up || now_cable.epoch != epoch) {
      ++frames_lost_;
      return;
    }
    engine(to.engine).on_frame(to.port, ByteSpan(bytes), now_ns_);
  });
  return true;
}

void World::inject(Endpoint to, std::vector<std::uint8_t> frame, std::uint64_t delay_ns) {
  at(now_ns_ + delay_ns, [this, to, frame = std::move(frame)] {
    engine(to.engine).on_frame(to.port, ByteSpan(frame), now_ns_);
  });
}

void World::at(std::uint64_t time_ns, std::function<void()> action) {
  queue_.push(Pending{std::max(time_ns, now_ns_), sequence_++, std::move(action)});
}

void World::step(std::uint64_t limit_ns) {
  std::uint64_t next = std::min(limit_ns, std::max(next_tick_ns_, now_ns_));
  if (!queue_.empty()) next = std::min(next, queue_.top().time_ns);
  for (const auto& engine_ptr : engines_) {
    next = std::min(next, std::max(engine_ptr->next_deadline_ns(), now_ns_));
  }
  now_ns_ = next;
  while (!queue_.empty() && queue_.top().time_ns <= now_ns_) {
    // Copy out before pop: the action may push new work.
    Pending pending = queue_.top();
    queue_.pop();
    pending.action();
  }
  if (now_ns_ >= next_tick_ns_) {
    for (const Cable& cable : cables_) {
      if (!cable.up || !cable.traffic) continue;
      for (const Endpoint& end : {cable.a, cable.b})
        engine(end.engine).on_neighbour_frames(end.port, now_ns_);
    }
  }
  for (const auto& engine_ptr : engines_)
    engine_ptr->tick(now_ns_);
  if (now_ns_ >= next_tick_ns_) next_tick_ns_ = now_ns_ + tick_ns_;
}

}  // namespace braid::lacp::sim
