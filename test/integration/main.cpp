// The integration tests' entry point: one EAL for the whole process (see eal_environment.hpp).
#include <gtest/gtest.h>

#include "eal_environment.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new braid::test::EalEnvironment);
  return RUN_ALL_TESTS();
}
