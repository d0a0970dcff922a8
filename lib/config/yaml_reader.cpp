#include "config/yaml_reader.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "config/config.hpp"

namespace braid::config {
namespace {

// Parser events, ignored but for where each document starts.
class DocumentStarts : public YAML::EventHandler {
 public:
  const YAML::Mark& last() const { return last_; }

  void OnDocumentStart(const YAML::Mark& mark) override { last_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  YAML::Mark last_ = YAML::Mark::null_mark();
};

// `bonds[0] "uplink".lacp.key` -> `bonds[].lacp.key`: a list entry's index and the name an error
// message shows with it.
std::string list_entries_unnamed(const std::string& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    out += path[i];
    if (path[i] != '[') continue;
    std::size_t close = path.find(']', i);
    if (close == std::string::npos) continue;
    out += ']';
    i = close;
    if (path.compare(i + 1, 2, " \"") == 0) {
      const std::size_t quote_end = path.find('"', i + 3);
      if (quote_end != std::string::npos) i = quote_end;
    }
  }
  return out;
}

}  // namespace

std::optional<YAML::Mark> second_document(std::string_view text) {
  std::istringstream stream{std::string(text)};
  YAML::Parser parser(stream);
  DocumentStarts starts;
  if (!parser.HandleNextDocument(starts) || !parser.HandleNextDocument(starts)) return std::nullopt;
  return starts.last();
}

std::string YamlReader::located(const YAML::Node& node, std::string_view where,
                                std::string_view what) const {
  std::string message = "config: " + origin_;
  if (node.IsDefined() && node.Mark().line >= 0) {
    message += ":" + std::to_string(node.Mark().line + 1);
  }
  message += ": ";
  message += where;
  message += ": ";
  message += what;
  return message;
}

void YamlReader::fail(const YAML::Node& node, std::string_view where, std::string_view what) const {
  throw ConfigError(located(node, where, what));
}

void YamlReader::warn(const YAML::Node& node, std::string_view where, std::string_view what) const {
  if (warnings_ != nullptr) warnings_->push_back(located(node, where, what));
}

void YamlReader::expect_map(const YAML::Node& map, std::string_view where,
                            std::initializer_list<std::string_view> allowed) const {
  if (!map.IsMap()) fail(map, where, "expected a map of settings");
  // yaml-cpp keeps every pair of a map, a repeated key included, and a lookup finds the first:
  // a second `bonds:` would be ignored without a word. Each key is looked up once here.
  std::map<std::string, YAML::Mark, std::less<>> seen;
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    bool known = false;
    for (std::string_view name : allowed)
      known = known || name == key;
    if (!known) {
      std::string names;
      for (std::string_view name : allowed) {
        if (!names.empty()) names += ", ";
        names += name;
      }
      fail(entry.first, where, "unknown key \"" + key + "\" (known: " + names + ")");
    }
    const auto [first, inserted] = seen.emplace(key, entry.first.Mark());
    if (!inserted) {
      fail(entry.first, where,
           "duplicate key \"" + key + "\" (first at line " +
               std::to_string(first->second.line + 1) +
               "); a key may appear once in a map: merge the two or delete one");
    }
  }
}

void YamlReader::expect_sequence(const YAML::Node& node, std::string_view where) const {
  if (!node.IsSequence()) fail(node, where, "expected a list");
}

std::string YamlReader::scalar(const YAML::Node& node, std::string_view where) const {
  if (!node.IsScalar()) fail(node, where, "expected a single value");
  return node.Scalar();
}

std::uint64_t YamlReader::get_uint(const YAML::Node& map, std::string_view key,
                                   std::string_view where, std::uint64_t min, std::uint64_t max,
                                   std::uint64_t fallback) const {
  const std::string path = std::string(where) + "." + std::string(key);
  if (limits_ != nullptr) {
    const UintLimit limit{list_entries_unnamed(path), min, max};
    if (std::none_of(limits_->begin(), limits_->end(),
                     [&](const UintLimit& known) { return known.path == limit.path; })) {
      limits_->push_back(limit);
    }
  }
  const YAML::Node node = map[std::string(key)];
  if (!node.IsDefined() || node.IsNull()) return fallback;
  const std::string text = scalar(node, path);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  if (error != std::errc{} || end != text.data() + text.size()) {
    fail(node, path, "expected a whole number " + range + ", got \"" + text + "\"");
  }
  if (value < min || value > max) {
    fail(node, path, "must be " + range + ", got " + text);
  }
  return value;
}

bool YamlReader::get_bool(const YAML::Node& map, std::string_view key, std::string_view where,
                          bool fallback) const {
  const YAML::Node node = map[std::string(key)];
  if (!node.IsDefined() || node.IsNull()) return fallback;
  const std::string path = std::string(where) + "." + std::string(key);
  const std::string text = scalar(node, path);
  if (text == "true" || text == "yes" || text == "on") return true;
  if (text == "false" || text == "no" || text == "off") return false;
  fail(node, path, "expected true or false, got \"" + text + "\"");
}

std::string YamlReader::get_string(const YAML::Node& map, std::string_view key,
                                   std::string_view where, std::string fallback) const {
  const YAML::Node node = map[std::string(key)];
  if (!node.IsDefined() || node.IsNull()) return fallback;
  return scalar(node, std::string(where) + "." + std::string(key));
}

std::string YamlReader::required_string(const YAML::Node& map, std::string_view key,
                                        std::string_view where) const {
  const YAML::Node node = map[std::string(key)];
  if (!node.IsDefined() || node.IsNull()) {
    fail(map, where, "missing required key \"" + std::string(key) + "\"");
  }
  std::string value = scalar(node, std::string(where) + "." + std::string(key));
  if (value.empty()) fail(node, std::string(where) + "." + std::string(key), "must not be empty");
  return value;
}

}  // namespace braid::config
