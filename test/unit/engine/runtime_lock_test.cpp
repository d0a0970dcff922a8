#include "engine/runtime_lock.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace braid::engine {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "braid-lock-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A child process that holds a POSIX record lock on `path` (as DPDK's primary process holds one
// on <runtime dir>/config: a write lock on part of the file) until it is destroyed. A child,
// because F_GETLK never reports the asking process's own locks.
class LockingChild {
 public:
  LockingChild(const std::string& path, short type, off_t start, off_t length) {
    int ready[2];
    if (::pipe(ready) != 0 || ::pipe(release_) != 0) std::abort();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      ::close(release_[1]);
      const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0600);
      struct flock lock {};
      lock.l_type = type;
      lock.l_whence = SEEK_SET;
      lock.l_start = start;
      lock.l_len = length;
      const char status = fd >= 0 && ::fcntl(fd, F_SETLK, &lock) == 0 ? 'y' : 'n';
      [[maybe_unused]] ssize_t io = ::write(ready[1], &status, 1);
      char done;
      io = ::read(release_[0], &done, 1);  // returns when the parent closes its end
      ::_exit(0);
    }
    ::close(ready[1]);
    ::close(release_[0]);
    char status = 'n';
    locked_ = ::read(ready[0], &status, 1) == 1 && status == 'y';
    ::close(ready[0]);
  }
  ~LockingChild() {
    ::close(release_[1]);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  bool locked() const { return locked_; }

 private:
  pid_t pid_ = -1;
  int release_[2] = {-1, -1};
  bool locked_ = false;
};

TEST(RuntimeLock, RuntimeDirectoryFollowsDpdk) {
  EXPECT_EQ(dpdk_runtime_dir("braid", true, "/run/user/1000"), "/var/run/dpdk/braid");
  EXPECT_EQ(dpdk_runtime_dir("gw1", false, "/run/user/1000"), "/run/user/1000/dpdk/gw1");
  EXPECT_EQ(dpdk_runtime_dir("gw1", false, nullptr), "/tmp/dpdk/gw1");
  // systemd's RuntimeDirectory= (braid's unit sets it) comes first, for root too (issue 37).
  EXPECT_EQ(dpdk_runtime_dir("braid", true, nullptr, "/run/braid"), "/run/braid/dpdk/braid");
  EXPECT_EQ(dpdk_runtime_dir("gw1", false, "/run/user/1000", "/run/braid"), "/run/braid/dpdk/gw1");
}

TEST(RuntimeLock, ReportsTheProcessHoldingTheLock) {
  const TempDir dir;
  const std::string config = dir / "config";
  // DPDK 22.11 locks the memsegs field only, not from byte 0: the question covers the file.
  const LockingChild holder(config, F_WRLCK, 4096, 1024);
  ASSERT_TRUE(holder.locked());
  EXPECT_EQ(lock_holder(config), holder.pid());
}

TEST(RuntimeLock, ReadLocksCountToo) {
  const TempDir dir;
  const LockingChild holder(dir / "config", F_RDLCK, 0, 0);
  ASSERT_TRUE(holder.locked());
  EXPECT_EQ(lock_holder(dir / "config"), holder.pid());
}

TEST(RuntimeLock, NoLockNoFileAndOwnLockAreNobody) {
  const TempDir dir;
  EXPECT_EQ(lock_holder(dir / "config"), std::nullopt);   // no such file: nobody ever used it
  EXPECT_FALSE(std::filesystem::exists(dir / "config"));  // and asking did not create it
  std::ofstream(dir / "config") << "stale";
  EXPECT_EQ(lock_holder(dir / "config"), std::nullopt);  // left behind by a process gone
  const int fd = ::open((dir / "config").c_str(), O_RDWR);
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  ASSERT_EQ(::fcntl(fd, F_SETLK, &lock), 0);
  EXPECT_EQ(lock_holder(dir / "config"), std::nullopt);  // F_GETLK ignores the caller's locks
  ::close(fd);
}

TEST(RuntimeLock, TheLockIsGoneWithItsProcess) {
  const TempDir dir;
  { const LockingChild holder(dir / "config", F_WRLCK, 0, 0); }
  EXPECT_EQ(lock_holder(dir / "config"), std::nullopt);
}

TEST(RuntimeLock, FilePrefixEalWillLock) {
  EXPECT_EQ(locked_file_prefix({"braid", "--file-prefix=gw1", "-l", "0,1"}), "gw1");
  EXPECT_EQ(locked_file_prefix({"braid", "--file-prefix=gw1", "--file-prefix", "gw2"}), "gw2");
  EXPECT_EQ(locked_file_prefix({"braid", "-l", "0"}), "rte");  // DPDK's own default
  EXPECT_EQ(locked_file_prefix({"braid", "--file-prefix=a", "--", "--file-prefix=b"}), "a");
  EXPECT_EQ(locked_file_prefix({"braid", "--file-prefix=a", "--in-memory"}), std::nullopt);
  EXPECT_EQ(locked_file_prefix({"braid", "--no-shconf"}), std::nullopt);
  EXPECT_EQ(locked_file_prefix({"braid", "--proc-type=secondary"}), std::nullopt);
  EXPECT_EQ(locked_file_prefix({"braid", "--proc-type", "auto"}), std::nullopt);
  EXPECT_EQ(locked_file_prefix({"braid", "--proc-type=primary", "--file-prefix=p"}), "p");
}

TEST(RuntimeLock, MessageNamesTheProcessAndWhatToDo) {
  const TempDir dir;
  std::filesystem::create_directories(dir / "1234");
  std::ofstream(dir / "1234/cmdline", std::ios::binary)
      << std::string("braid\0--config\0/etc/braid/gw.yaml\0", 35);
  EXPECT_EQ(prefix_in_use_message("braid", 1234, dir / ""),
            "braid: file prefix \"braid\" is in use by process 1234 (" + (dir / "") +
                "/1234/cmdline: braid --config /etc/braid/gw.yaml); give this braid another "
                "eal.file_prefix or -- --file-prefix=NAME");
  EXPECT_EQ(prefix_in_use_message("braid", 77, dir / ""),
            "braid: file prefix \"braid\" is in use by process 77 (" + (dir / "") +
                "/77/cmdline is empty or unreadable); give this braid another eal.file_prefix or "
                "-- --file-prefix=NAME");
  EXPECT_EQ(prefix_in_use_message("gw", 0),
            "braid: file prefix \"gw\" is in use by a process in another PID namespace (a "
            "container?); give this braid another eal.file_prefix or -- --file-prefix=NAME");
}

TEST(RuntimeLock, CommandLineIsShownSafely) {
  const TempDir dir;
  std::filesystem::create_directories(dir / "9");
  std::ofstream(dir / "9/cmdline", std::ios::binary) << "evil\x1b[2J" << std::string(300, 'a');
  const std::string message = prefix_in_use_message("p", 9, dir / "");
  EXPECT_NE(message.find("9/cmdline: evil?[2J"), std::string::npos) << message;
  EXPECT_NE(message.find("aaa...);"), std::string::npos) << message;
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
}

TEST(RuntimeLock, StartUpCheckRefusesABadPrefixAfterTheDashes) {
  EXPECT_EQ(check_file_prefix({"braid", "--file-prefix=../../tmp/x"}),
            "braid: --file-prefix: \"../../tmp/x\" has '/': a file prefix is 1..32 letters, "
            "digits, '-', '_' or '.', not starting with '.' (DPDK makes a directory of that name "
            "under its runtime directory)");
  EXPECT_EQ(check_file_prefix({"braid", "--in-memory", "--file-prefix=../x"}), std::nullopt);
}

TEST(RuntimeLock, StartUpCheckFindsTheHolderInTheRuntimeDirectory) {
  // As a user with $XDG_RUNTIME_DIR (root's /var/run/dpdk is the integration test's).
  const TempDir dir;
  std::filesystem::create_directories(dir / "dpdk/held");
  const LockingChild holder(dir / "dpdk/held/config", F_WRLCK, 0, 0);
  ASSERT_TRUE(holder.locked());
  const std::string xdg = dir / "";
  const std::optional<std::string> message =
      check_file_prefix({"braid", "--file-prefix=held"}, false, xdg.c_str());
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("braid: file prefix \"held\" is in use by process " +
                          std::to_string(holder.pid()) + " (/proc/"),
            std::string::npos)
      << *message;
  EXPECT_EQ(check_file_prefix({"braid", "--file-prefix=free"}, false, xdg.c_str()), std::nullopt);
  EXPECT_EQ(check_file_prefix({"braid", "--file-prefix=held", "--proc-type=secondary"}, false,
                              xdg.c_str()),
            std::nullopt);
}

}  // namespace
}  // namespace braid::engine
