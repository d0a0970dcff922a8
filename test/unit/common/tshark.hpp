// A test fixture that hands capture files to Wireshark's dissectors: an independent check that
// encoded fields sit where the standard puts them. Tests using it skip when tshark is not
// installed.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace braid::tshark {

inline bool have_tshark() {
  return std::system("command -v tshark >/dev/null 2>&1") == 0;
}

inline std::string run(const std::string& command) {
  std::string out;
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr)
    out += buffer;
  ::pclose(pipe);
  return out;
}

inline std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, separator))
    fields.push_back(field);
  return fields;
}

class TsharkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_tshark()) GTEST_SKIP() << "tshark not on PATH";
    std::string pattern = (std::filesystem::temp_directory_path() / "braid-tshark-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  // One line per frame, fields separated by '|'. `options` go before the fields (-o pref:value).
  std::vector<std::vector<std::string>> dissect(const std::string& pcap,
                                                const std::vector<std::string>& fields,
                                                const std::string& options = "") {
    std::string command = "tshark -r '" + pcap + "' " + options + " -T fields -E separator='|'";
    for (const std::string& field : fields)
      command += " -e " + field;
    command += " 2>/dev/null";
    std::vector<std::vector<std::string>> rows;
    for (const std::string& line : split(run(command), '\n'))
      rows.push_back(split(line, '|'));
    return rows;
  }

  std::filesystem::path dir_;
};

}  // namespace braid::tshark
