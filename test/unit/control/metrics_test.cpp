#include <gtest/gtest.h>

#include <stdexcept>

#include "control/metrics_registry.hpp"

namespace braid::control {
namespace {

TEST(Metrics, RendersExpositionFormatWithOneHelpPerFamily) {
  MetricsRegistry metrics;
  metrics.add_collector([](MetricWriter& w) {
    w.family("braid_port_rx_packets_total", "packets received", MetricType::kCounter);
    w.sample({{"port", "p0"}}, std::uint64_t{10});
    w.family("braid_up", "up", MetricType::kGauge);
    w.sample({}, std::uint64_t{1});
  });
  metrics.add_collector([](MetricWriter& w) {
    w.family("braid_port_rx_packets_total", "packets received", MetricType::kCounter);
    w.sample({{"port", "a\"b\\c\nd"}}, std::uint64_t{3});
    w.family("braid_member_weight", "weight", MetricType::kGauge);
    w.sample({{"bond", "uplink"}, {"member", "p1"}}, 0.25);
  });
  EXPECT_EQ(metrics.render(),
            "# HELP braid_port_rx_packets_total packets received\n"
            "# TYPE braid_port_rx_packets_total counter\n"
            "braid_port_rx_packets_total{port=\"p0\"} 10\n"
            "braid_port_rx_packets_total{port=\"a\\\"b\\\\c\\nd\"} 3\n"
            "# HELP braid_up up\n"
            "# TYPE braid_up gauge\n"
            "braid_up 1\n"
            "# HELP braid_member_weight weight\n"
            "# TYPE braid_member_weight gauge\n"
            "braid_member_weight{bond=\"uplink\",member=\"p1\"} 0.25\n");
}

TEST(Metrics, BadNamesAndFailingCollectorsAreContained) {
  MetricsRegistry metrics;
  metrics.add_collector([](MetricWriter& w) { w.family("9bad", "x", MetricType::kGauge); });
  metrics.add_collector([](MetricWriter& w) {
    w.family("ok_metric", "fine", MetricType::kGauge);
    w.sample({}, 1.5);
  });
  const std::string text = metrics.render();
  EXPECT_NE(text.find("ok_metric 1.5\n"), std::string::npos);
  EXPECT_NE(text.find("# collector failed: bad metric name \"9bad\"\n"), std::string::npos);
  EXPECT_TRUE(is_valid_metric_name("braid:x_1"));
  EXPECT_FALSE(is_valid_label_name("__reserved"));
  EXPECT_FALSE(is_valid_label_name("a:b"));
}

TEST(Metrics, SpecialFloats) {
  MetricWriter w;
  w.family("m", "h", MetricType::kGauge);
  w.sample({}, 1.0 / 0.0);
  w.sample({{"k", "v"}}, 0.0 / 0.0);
  EXPECT_EQ(w.render(), "# HELP m h\n# TYPE m gauge\nm +Inf\nm{k=\"v\"} NaN\n");
}

}  // namespace
}  // namespace braid::control
