#include "report.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

namespace braid::sim {
namespace {

struct Row {
  std::string scenario;
  double seconds;
  std::string note;
};

std::vector<Row>& rows() {
  static std::vector<Row> table;
  return table;
}

class PrintTable : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("\n%-44s %12s  %s\n", "scenario", "simulated", "what was measured");
    for (const Row& row : rows()) {
      if (row.seconds < 0) {
        std::printf("%-44s %12s  %s\n", row.scenario.c_str(), "never", row.note.c_str());
      } else {
        std::printf("%-44s %10.4f s  %s\n", row.scenario.c_str(), row.seconds, row.note.c_str());
      }
    }
  }
};

const auto* const kRegistered = ::testing::AddGlobalTestEnvironment(new PrintTable);

}  // namespace

void report(const std::string& scenario, double value, const std::string& note) {
  (void)kRegistered;
  rows().push_back({scenario, value, note});
  if (value < 0) {
    std::printf("[sim] %s: never (%s)\n", scenario.c_str(), note.c_str());
  } else {
    std::printf("[sim] %s: %.4f s (%s)\n", scenario.c_str(), value, note.c_str());
  }
}

double seconds(std::uint64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

}  // namespace braid::sim
