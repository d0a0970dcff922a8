// Prints the limits table of doc/config.md and braid.yaml(5): every whole-number key the config
// loader range-checks, with its range and default, as the loader itself records them while it
// reads a config with every section (config/every-section.yaml). test_man_pages.py compares the
// docs with it; test/docs/config_limits.py --update rewrites them.
//
//   config_limits config/every-section.yaml
#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_loader.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: config_limits <config with every section>\n");
    return 2;
  }
  std::ifstream file(argv[1]);
  if (!file) {
    std::fprintf(stderr, "config_limits: cannot read %s\n", argv[1]);
    return 1;
  }
  std::stringstream text;
  text << file.rdbuf();
  try {
    // Health signals share their ranges: one row for signals.NAME (config.md's spelling).
    std::vector<std::string> rows;
    for (const braid::config::UintLimit& limit : braid::config::config_limits(text.str())) {
      std::string path = limit.path;
      if (const std::size_t at = path.find(".signals."); at != std::string::npos) {
        const std::size_t name = at + std::string(".signals.").size();
        const std::size_t end = path.find('.', name);
        if (end != std::string::npos) path.replace(name, end - name, "NAME");
      }
      const std::string row = "| `" + path + "` | " + std::to_string(limit.min) + ".." +
                              std::to_string(limit.max) + " |";
      if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
    }
    std::printf("| key | range |\n|---|---|\n");
    for (const std::string& row : rows)
      std::printf("%s\n", row.c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "config_limits: %s\n", error.what());
    return 1;
  }
  return 0;
}
