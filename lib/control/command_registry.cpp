#include "control/command_registry.hpp"

#include <algorithm>
#include <exception>
#include <set>
#include <stdexcept>

#include "control/command_matcher.hpp"
#include "control/edit_distance.hpp"

namespace braid::control {
namespace {

constexpr std::size_t kMaxLineBytes = 4096;
constexpr std::size_t kMaxUsageLines = 6;

std::string join(const std::vector<std::string>& words, std::size_t count,
                 const char* separator = " ") {
  std::string text;
  for (std::size_t i = 0; i < count && i < words.size(); ++i)
    text += (i ? separator : "") + words[i];
  return text;
}

// True when the command's leading literal words are `words` (all of them).
bool starts_with_words(const std::vector<PatternElement>& elements,
                       const std::vector<std::string>& words) {
  if (words.size() > elements.size()) return false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const PatternElement& element = elements[i];
    if (element.kind == PatternElement::Kind::kParam || element.kind == PatternElement::Kind::kRest)
      return true;  // a parameter: anything the user typed may fit
    if (std::find(element.words.begin(), element.words.end(), words[i]) == element.words.end())
      return false;
  }
  return true;
}

}  // namespace

CommandRegistry::CommandRegistry() {
  add("help [<command>...]", "list the commands, or explain the ones starting with <command>",
      [this](const Args& args, Output& out) { help(args.rest(), out); });
}

void CommandRegistry::add(std::string_view pattern, std::string help, Handler handler,
                          ReadsDriver reads_driver) {
  std::vector<PatternElement> elements = parse_pattern(pattern);
  std::string canonical;
  for (const PatternElement& element : elements)
    canonical += (canonical.empty() ? "" : " ") + element.text();
  for (const Command& command : commands_) {
    if (command.pattern == canonical)
      throw std::invalid_argument("command \"" + canonical + "\" is registered twice");
  }
  commands_.push_back({std::move(canonical), std::move(elements), std::move(help),
                       std::move(handler), std::move(reads_driver)});
}

void CommandRegistry::define_param(std::string name, ParamType type) {
  params_[std::move(name)] = std::move(type);
}

const ParamType* CommandRegistry::param(const std::string& name) const {
  const auto it = params_.find(name);
  return it == params_.end() ? nullptr : &it->second;
}

void CommandRegistry::execute(std::string_view line, Output& out) const {
  if (line.size() > kMaxLineBytes) {
    out.error("line too long (" + std::to_string(line.size()) + " bytes, at most " +
              std::to_string(kMaxLineBytes) + ")");
    return;
  }
  const std::vector<std::string> words = split_words(line);
  if (words.empty()) return;
  const ParamLookup lookup = [this](const std::string& name) { return param(name); };
  for (const Command& command : commands_) {
    MatchResult result = match_pattern(command.elements, words, lookup);
    if (!result.ok) continue;
    try {
      command.handler(result.args, out);
    } catch (const std::exception& error) {
      out.error(join(words, words.size()) + ": " + error.what());
    }
    return;
  }
  explain_failure(words, out);
}

bool CommandRegistry::reads_driver(std::string_view line) const {
  if (line.size() > kMaxLineBytes) return false;
  const std::vector<std::string> words = split_words(line);
  if (words.empty()) return false;
  const ParamLookup lookup = [this](const std::string& name) { return param(name); };
  for (const Command& command : commands_) {
    MatchResult result = match_pattern(command.elements, words, lookup);
    if (result.ok) return command.reads_driver && command.reads_driver(result.args);
  }
  return false;
}

void CommandRegistry::explain_failure(const std::vector<std::string>& words, Output& out) const {
  const ParamLookup lookup = [this](const std::string& name) { return param(name); };
  MatchFailure best;
  std::vector<const Command*> nearest;  // the commands that got furthest
  for (const Command& command : commands_) {
    MatchFailure failure = match_pattern(command.elements, words, lookup).failure;
    if (nearest.empty() || failure.depth > best.depth) {
      best = std::move(failure);
      nearest = {&command};
    } else if (failure.depth == best.depth) {
      nearest.push_back(&command);
      if (failure.kind == MatchFailure::Kind::kWord && best.kind == MatchFailure::Kind::kWord) {
        best.expected_words.insert(best.expected_words.end(), failure.expected_words.begin(),
                                   failure.expected_words.end());
      } else if (failure.kind == MatchFailure::Kind::kValue ||
                 (failure.kind == MatchFailure::Kind::kMissing &&
                  best.kind != MatchFailure::Kind::kValue)) {
        best = std::move(failure);
      }
    }
  }
  std::sort(best.expected_words.begin(), best.expected_words.end());
  best.expected_words.erase(std::unique(best.expected_words.begin(), best.expected_words.end()),
                            best.expected_words.end());

  const std::string before = join(words, best.depth);
  std::string message;
  switch (best.kind) {
    case MatchFailure::Kind::kWord: {
      const std::string& word = words[best.depth];
      const std::string_view guess = closest(word, best.expected_words);
      message = best.depth == 0 ? "unknown command \"" + word + "\""
                                : "unknown word \"" + word + "\" after \"" + before + "\"";
      if (!guess.empty()) message += " (did you mean \"" + std::string(guess) + "\"?)";
      message += best.depth == 0 ? "; \"help\" lists the commands"
                                 : "; expected one of: " +
                                       join(best.expected_words, best.expected_words.size(), ", ");
      break;
    }
    case MatchFailure::Kind::kValue:
      message = best.detail;
      break;
    case MatchFailure::Kind::kMissing:
      message = "\"" + before + "\" is incomplete: " + best.detail + " is missing";
      break;
    case MatchFailure::Kind::kExtra:
      message = "unexpected \"" + words[best.depth] + "\" after \"" + before + "\"";
      break;
    case MatchFailure::Kind::kNone:
      message = "no such command";
      break;
  }
  out.error(message);
  if (best.depth == 0) return;
  std::size_t shown = 0;
  for (const Command* command : nearest) {
    if (shown++ == kMaxUsageLines) break;
    out.line("usage: " + command->pattern);
  }
}

std::vector<std::string> CommandRegistry::complete(std::string_view line, std::string* hint) const {
  if (line.size() > kMaxLineBytes) return {};
  std::vector<std::string> words = split_words(line);
  std::string partial;
  const bool ends_in_space = line.empty() || line.back() == ' ' || line.back() == '\t';
  if (!ends_in_space && !words.empty()) {
    partial = std::move(words.back());
    words.pop_back();
  }
  // `help <words>` completes the command words that follow it.
  if (!words.empty() && words.front() == "help") words.erase(words.begin());
  const ParamLookup lookup = [this](const std::string& name) { return param(name); };
  std::set<std::string> candidates;
  for (const Command& command : commands_) {
    for (std::string& word : next_words(command.elements, words, lookup, hint)) {
      if (word.starts_with(partial)) candidates.insert(std::move(word));
    }
  }
  return {candidates.begin(), candidates.end()};
}

void CommandRegistry::help(const std::vector<std::string>& topic, Output& out) const {
  std::vector<const Command*> chosen;
  for (const Command& command : commands_) {
    if (starts_with_words(command.elements, topic)) chosen.push_back(&command);
  }
  if (chosen.empty()) {
    std::vector<std::string> firsts;
    for (const Command& command : commands_)
      firsts.push_back(command.elements.front().words.front());
    const std::string_view guess = closest(topic.front(), firsts);
    out.error("no command starts with \"" + join(topic, topic.size()) + "\"" +
              (guess.empty() ? "" : " (did you mean \"" + std::string(guess) + "\"?)"));
    return;
  }
  std::sort(chosen.begin(), chosen.end(),
            [](const Command* a, const Command* b) { return a->pattern < b->pattern; });
  Table& table = out.table("commands", {"command", "description"});
  std::set<std::string> described;
  for (const Command* command : chosen)
    table.row({command->pattern, command->help});
  if (topic.empty()) return;
  // Narrowed down: explain the parameters too.
  for (const Command* command : chosen) {
    for (const PatternElement& element : command->elements) {
      const ParamType* type = param(element.name);
      if (element.name.empty() || type == nullptr || !described.insert(element.name).second)
        continue;
      out.line("<" + element.name + ">: " + type->help);
    }
  }
}

}  // namespace braid::control
