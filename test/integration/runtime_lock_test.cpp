// The file-prefix start-up check against the real thing: this test process is a DPDK 22.11
// primary (eal_environment.cpp), so its runtime directory and the lock on its config file are
// what a second braid with the same prefix would meet.
#include "engine/runtime_lock.hpp"

#include <gtest/gtest.h>
#include <rte_eal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace braid::engine {
namespace {

const std::string kPrefix = "braid-it-" + std::to_string(::getpid());

TEST(RuntimeLockWithEal, RuntimeDirectoryIsDpdks) {
  EXPECT_EQ(dpdk_runtime_dir(kPrefix), rte_eal_get_runtime_dir());
}

TEST(RuntimeLockWithEal, ASecondBraidWithThePrefixNamesThisProcess) {
  // F_GETLK does not report the asker's own locks: ask from a child, as a second braid would.
  const pid_t child = ::fork();
  if (child == 0) {
    const std::optional<std::string> message =
        check_file_prefix({"braid", "--file-prefix=" + kPrefix});
    const std::string expected = "braid: file prefix \"" + kPrefix + "\" is in use by process " +
                                 std::to_string(::getppid()) + " (/proc/" +
                                 std::to_string(::getppid()) + "/cmdline: ";
    ::_exit(message && message->starts_with(expected) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child did not see this process's lock";
  EXPECT_EQ(check_file_prefix({"braid", "--file-prefix=" + kPrefix + "-free"}), std::nullopt);
}

}  // namespace
}  // namespace braid::engine
