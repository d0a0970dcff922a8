#include "control/command_matcher.hpp"

#include <algorithm>
#include <charconv>

#include "control/edit_distance.hpp"

namespace braid::control {
namespace {

using Kind = PatternElement::Kind;

// Empty when `word` is acceptable for parameter `element`, else what is wrong with it.
std::string check_value(const PatternElement& element, const std::string& word,
                        const ParamLookup& params) {
  const ParamType* type = params ? params(element.name) : nullptr;
  if (type == nullptr) return "";
  const std::string invalid = "invalid <" + element.name + "> \"" + word + "\": ";
  if (type->numeric) {
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), number);
    if (error != std::errc{} || end != word.data() + word.size())
      return invalid + "expected a whole number";
    if (number < type->min || number > type->max)
      return invalid + "must be " + std::to_string(type->min) + ".." + std::to_string(type->max);
    return "";
  }
  if (type->strict && type->values) {
    const std::vector<std::string> known = type->values();
    if (std::find(known.begin(), known.end(), word) == known.end()) {
      std::string list;
      for (const std::string& value : known)
        list += (list.empty() ? "" : ", ") + value;
      // `show bond uplnk`: no bond "uplnk"; did you mean "uplink"? (known: uplink, switch)
      const std::string_view guess = closest(word, known);
      return "no " + element.name + " \"" + word + "\"" +
             (guess.empty() ? "" : "; did you mean \"" + std::string(guess) + "\"?") +
             (list.empty() ? " (none configured)" : " (known: " + list + ")");
    }
  }
  return "";
}

class Matcher {
 public:
  Matcher(const std::vector<PatternElement>& elements, const std::vector<std::string>& words,
          const ParamLookup& params)
      : elements_(elements), words_(words), params_(params) {}

  MatchResult run() {
    Args args;
    if (step(0, 0, args)) return {true, std::move(best_args_), {}};
    return {false, {}, best_failure_};
  }

 private:
  bool step(std::size_t e, std::size_t w, const Args& args) {
    if (e == elements_.size()) {
      if (w == words_.size()) {
        best_args_ = args;
        return true;
      }
      fail({MatchFailure::Kind::kExtra, w, {}, ""});
      return false;
    }
    const PatternElement& element = elements_[e];
    if (w == words_.size()) {
      if (element.optional) return step(e + 1, w, args);
      fail({MatchFailure::Kind::kMissing, w, {}, element.text()});
      return false;
    }
    const std::string& word = words_[w];
    switch (element.kind) {
      case Kind::kLiteral:
      case Kind::kChoice:
        if (std::find(element.words.begin(), element.words.end(), word) != element.words.end()) {
          Args next = args;
          next.add_word(word);
          if (step(e + 1, w + 1, next)) return true;
        } else {
          fail({MatchFailure::Kind::kWord, w, element.words, ""});
        }
        break;
      case Kind::kParam:
        if (const std::string problem = check_value(element, word, params_); problem.empty()) {
          Args next = args;
          next.set_value(element.name, word);
          if (step(e + 1, w + 1, next)) return true;
        } else {
          fail({MatchFailure::Kind::kValue, w, {}, problem});
        }
        break;
      case Kind::kRest: {
        Args next = args;
        next.set_value(element.name, word);
        for (std::size_t i = w; i < words_.size(); ++i)
          next.add_rest(words_[i]);
        return step(e + 1, words_.size(), next);
      }
    }
    return element.optional && step(e + 1, w, args);
  }

  // Keeps the failure that got furthest; at equal depth a value problem says the most.
  void fail(MatchFailure failure) {
    const bool first = best_failure_.kind == MatchFailure::Kind::kNone;
    if (first || failure.depth > best_failure_.depth) {
      best_failure_ = std::move(failure);
    } else if (failure.depth == best_failure_.depth) {
      if (failure.kind == MatchFailure::Kind::kWord &&
          best_failure_.kind == MatchFailure::Kind::kWord) {
        for (std::string& word : failure.expected_words)
          best_failure_.expected_words.push_back(std::move(word));
      } else if (failure.kind == MatchFailure::Kind::kValue) {
        best_failure_ = std::move(failure);
      }
    }
  }

  const std::vector<PatternElement>& elements_;
  const std::vector<std::string>& words_;
  const ParamLookup& params_;
  Args best_args_;
  MatchFailure best_failure_;
};

void collect_next(const std::vector<PatternElement>& elements, std::size_t e,
                  const std::vector<std::string>& words, std::size_t w, const ParamLookup& params,
                  std::vector<std::string>& out, std::string* param_hint, int budget) {
  if (e == elements.size() || --budget < 0) return;
  const PatternElement& element = elements[e];
  if (w == words.size()) {
    if (element.kind == Kind::kLiteral || element.kind == Kind::kChoice) {
      out.insert(out.end(), element.words.begin(), element.words.end());
    } else {
      const ParamType* type = params ? params(element.name) : nullptr;
      if (type && type->values) {
        for (std::string& value : type->values())
          out.push_back(std::move(value));
      } else if (param_hint && param_hint->empty()) {
        *param_hint = element.text() + (type ? ": " + type->help : "");
      }
    }
    if (element.optional) collect_next(elements, e + 1, words, w, params, out, param_hint, budget);
    return;
  }
  const std::string& word = words[w];
  bool accepted = false;
  switch (element.kind) {
    case Kind::kLiteral:
    case Kind::kChoice:
      accepted = std::find(element.words.begin(), element.words.end(), word) != element.words.end();
      break;
    case Kind::kParam:
      accepted = check_value(element, word, params).empty();
      break;
    case Kind::kRest:
      return;  // free text: nothing to suggest
  }
  if (accepted) collect_next(elements, e + 1, words, w + 1, params, out, param_hint, budget);
  if (element.optional) collect_next(elements, e + 1, words, w, params, out, param_hint, budget);
}

}  // namespace

MatchResult match_pattern(const std::vector<PatternElement>& elements,
                          const std::vector<std::string>& words, const ParamLookup& params) {
  return Matcher(elements, words, params).run();
}

std::vector<std::string> next_words(const std::vector<PatternElement>& elements,
                                    const std::vector<std::string>& words,
                                    const ParamLookup& params, std::string* param_hint) {
  std::vector<std::string> out;
  collect_next(elements, 0, words, 0, params, out, param_hint, 4096);
  return out;
}

}  // namespace braid::control
