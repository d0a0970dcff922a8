// The arguments a matched command hands to its handler: the value of each <param> by name, and
// which literal words (choice alternatives included) the line used.
#pragma once

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace braid::control {

class Args {
 public:
  // True when the line gave parameter <name> (an optional one may be left out).
  bool has(std::string_view name) const { return values_.contains(std::string(name)); }
  // True when the line used this literal word ("xstats" in `show port xstats`, "down").
  bool used(std::string_view word) const { return words_.contains(std::string(word)); }
  // The value of <name>, or `fallback` when the optional parameter was left out.
  std::string get(std::string_view name, std::string fallback = "") const {
    const auto it = values_.find(std::string(name));
    return it == values_.end() ? fallback : it->second;
  }
  // <name>... collects the rest of the line.
  const std::vector<std::string>& rest() const { return rest_; }
  // The first of `alternatives` the line used, else `fallback` (for `[stats|xstats|info]`).
  std::string pick(std::initializer_list<std::string_view> alternatives,
                   std::string fallback) const {
    for (std::string_view word : alternatives) {
      if (words_.contains(std::string(word))) return std::string(word);
    }
    return fallback;
  }
  // <name> as a whole number (the registry checked it when the parameter type is numeric).
  std::optional<std::uint64_t> number(std::string_view name) const {
    const std::string text = get(name);
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size())
      return std::nullopt;
    return value;
  }

  void set_value(std::string name, std::string value) {
    values_[std::move(name)] = std::move(value);
  }
  void add_word(std::string word) { words_.insert(std::move(word)); }
  void add_rest(std::string word) { rest_.push_back(std::move(word)); }

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> words_;
  std::vector<std::string> rest_;
};

}  // namespace braid::control
