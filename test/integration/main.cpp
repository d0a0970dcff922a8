// The integration tests' entry point: one EAL for the whole process (see eal_environment.hpp).
#include <gtest/gtest.h>

#include <cstdio>

#include "eal_environment.hpp"

namespace {

// gtest's summary goes to stdout, braid's log to stderr; a CI that keeps only the end of stderr
// would name no failed test. So each failure is also said on stderr, last thing before exit.
class FailuresOnStderr : public ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest& unit) override {
    for (int s = 0; s < unit.total_test_suite_count(); ++s) {
      const ::testing::TestSuite& suite = *unit.GetTestSuite(s);
      for (int t = 0; t < suite.total_test_count(); ++t) {
        const ::testing::TestInfo& test = *suite.GetTestInfo(t);
        if (test.result() != nullptr && test.result()->Failed())
          std::fprintf(stderr, "FAILED: %s.%s\n", suite.name(), test.name());
      }
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new braid::test::EalEnvironment);
  ::testing::UnitTest::GetInstance()->listeners().Append(new FailuresOnStderr);
  return RUN_ALL_TESTS();
}
