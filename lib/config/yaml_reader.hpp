// Strict, error-rich access to a YAML tree: every value is range-checked where it is read, and
// every map rejects keys it does not know. Errors carry file, line and key path.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace braid::config {

// Where a second document of `text` starts, if it has one. YAML::Load reads the first document
// and drops the rest without a word; YAML::LoadAll would see them, but yaml-cpp 0.7's LoadAll
// never returns on some malformed input ("[], a"), so this asks the parser for two documents at
// most. Throws YAML::ParserException as YAML::Load does.
std::optional<YAML::Mark> second_document(std::string_view text);

// A whole-number key's range as get_uint checks it: the table doc/config.md's and braid.yaml(5)'s
// limits are generated from (config_limits(), test/docs). `path` names list entries `[]`.
// (Defaults are not here: for some keys the loader's fallback stands for "inherited" or "off",
// which the prose tables say.)
struct UintLimit {
  std::string path;  // "bonds[].scheduler.period_ms"
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  bool operator==(const UintLimit&) const = default;
};

class YamlReader {
 public:
  explicit YamlReader(std::string origin) : origin_(std::move(origin)) {}
  // From now on every get_uint, present or not, adds its key to `limits` (once per path).
  void record_limits(std::vector<UintLimit>* limits) { limits_ = limits; }

  // From now on warn() adds its lines to `warnings`.
  void record_warnings(std::vector<std::string>* warnings) { warnings_ = warnings; }

  [[noreturn]] void fail(const YAML::Node& node, std::string_view where,
                         std::string_view what) const;
  // What the config may do but likely should not: "config: <file>:<line>: <where>: <what>",
  // kept for --check and start-up to print.
  void warn(const YAML::Node& node, std::string_view where, std::string_view what) const;

  // Rejects any key of `map` that is not in `allowed`, naming the ones that are.
  void expect_map(const YAML::Node& map, std::string_view where,
                  std::initializer_list<std::string_view> allowed) const;
  void expect_sequence(const YAML::Node& node, std::string_view where) const;

  std::uint64_t get_uint(const YAML::Node& map, std::string_view key, std::string_view where,
                         std::uint64_t min, std::uint64_t max, std::uint64_t fallback) const;
  bool get_bool(const YAML::Node& map, std::string_view key, std::string_view where,
                bool fallback) const;
  std::string get_string(const YAML::Node& map, std::string_view key, std::string_view where,
                         std::string fallback) const;
  std::string required_string(const YAML::Node& map, std::string_view key,
                              std::string_view where) const;
  std::string scalar(const YAML::Node& node, std::string_view where) const;

  const std::string& origin() const { return origin_; }

 private:
  std::string origin_;
  std::vector<UintLimit>* limits_ = nullptr;
  std::vector<std::string>* warnings_ = nullptr;

  std::string located(const YAML::Node& node, std::string_view where, std::string_view what) const;
};

}  // namespace braid::config
