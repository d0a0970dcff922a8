// Prometheus metrics as collectors: each feature adds a function that, on the control thread,
// writes its current values; render() turns all of them into the text exposition format 0.0.4
// (HELP and TYPE once per family, label values escaped). The HTTP thread only ever serves the
// last rendered text, so it never touches the engine.
//
//   metrics.add_collector([&](MetricWriter& w) {
//     w.family("braid_member_weight", "share of buckets, permille", MetricType::kGauge);
//     for (const auto& m : bond.members()) w.sample({{"bond", bond.name()}, {"member", m.name}},
//     m.weight);
//   });
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace braid::control {

enum class MetricType { kCounter, kGauge };

using Labels = std::vector<std::pair<std::string, std::string>>;

class MetricWriter {
 public:
  // Starts (or continues) a family; samples go to the last family named. Names must match
  // [a-zA-Z_:][a-zA-Z0-9_:]*; counters end in _total by convention.
  void family(const std::string& name, const std::string& help, MetricType type);
  void sample(const Labels& labels, double value);
  void sample(const Labels& labels, std::uint64_t value);

  std::string render() const;

 private:
  struct Family {
    std::string help;
    MetricType type;
    std::vector<std::string> samples;  // rendered lines without the name
  };
  void add_line(const Labels& labels, const std::string& value);

  std::vector<std::string> order_;
  std::map<std::string, Family> families_;
  Family* current_ = nullptr;
  std::string current_name_;
};

class MetricsRegistry {
 public:
  using Collector = std::function<void(MetricWriter&)>;
  void add_collector(Collector collector) { collectors_.push_back(std::move(collector)); }
  // Runs every collector; a collector that throws is skipped and reported as a comment.
  std::string render() const;

 private:
  std::vector<Collector> collectors_;
};

bool is_valid_metric_name(const std::string& name);
bool is_valid_label_name(const std::string& name);
std::string escape_label_value(const std::string& value);

}  // namespace braid::control
