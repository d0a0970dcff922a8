// Matches a line's words against one command pattern (with backtracking over optional
// elements), reports how far a failed match got and why, and lists what may come next for tab
// completion. Pure: parameter types are looked up through a callback.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "control/args.hpp"
#include "control/command_pattern.hpp"

namespace braid::control {

using ParamLookup = std::function<const ParamType*(const std::string& name)>;

struct MatchFailure {
  enum class Kind { kNone, kWord, kValue, kMissing, kExtra };
  Kind kind = Kind::kNone;
  std::size_t depth = 0;                    // index of the word that failed (or words.size())
  std::vector<std::string> expected_words;  // kWord: literal words that would have fit
  std::string detail;                       // kValue: why the value is wrong; kMissing: what
};

struct MatchResult {
  bool ok = false;
  Args args;
  MatchFailure failure;  // the furthest one, when !ok
};

MatchResult match_pattern(const std::vector<PatternElement>& elements,
                          const std::vector<std::string>& words, const ParamLookup& params);

// Words that may follow `words` (already complete) in this pattern: literals, choice
// alternatives and known parameter values. `wants_value` is set when a parameter without known
// values may come next (so the console can show its help instead).
std::vector<std::string> next_words(const std::vector<PatternElement>& elements,
                                    const std::vector<std::string>& words,
                                    const ParamLookup& params, std::string* param_hint);

}  // namespace braid::control
