// A console command's word pattern, e.g. `show port [stats|xstats|info] [<port>]`:
//   word       a literal word
//   a|b|c      exactly one of the alternatives
//   <name>     a parameter, checked by its ParamType (numbers, known names)
//   <name>...  the rest of the line (one or more words)
//   [ ... ]    makes the element optional
// Parsing throws std::invalid_argument: a bad pattern is a programming error found at start-up.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace braid::control {

struct ParamType {
  std::string help{};  // one line, e.g. "a port name"
  // Known values, for completion and (when strict) validation; called on the control thread.
  std::function<std::vector<std::string>()> values{};
  bool strict = false;   // only values() are accepted
  bool numeric = false;  // a whole number in [min, max]
  std::uint64_t min = 0;
  std::uint64_t max = UINT64_MAX;
};

struct PatternElement {
  enum class Kind { kLiteral, kChoice, kParam, kRest };
  Kind kind = Kind::kLiteral;
  std::vector<std::string> words;  // literal: one; choice: the alternatives
  std::string name;                // parameter name (kParam, kRest)
  bool optional = false;

  std::string text() const;  // as written in the pattern
};

std::vector<PatternElement> parse_pattern(std::string_view pattern);

// Whitespace-separated words; at most kMaxWords (the rest is one more word holding the tail).
std::vector<std::string> split_words(std::string_view line);
inline constexpr std::size_t kMaxWords = 64;

}  // namespace braid::control
