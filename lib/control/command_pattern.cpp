#include "control/command_pattern.hpp"

#include <stdexcept>

namespace braid::control {
namespace {

bool is_word(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c == ' ' || c == '[' || c == ']' || c == '<' || c == '>' || c == '|') return false;
  }
  return true;
}

[[noreturn]] void bad(std::string_view pattern, std::string_view what) {
  throw std::invalid_argument("command pattern \"" + std::string(pattern) +
                              "\": " + std::string(what));
}

}  // namespace

std::string PatternElement::text() const {
  std::string body;
  switch (kind) {
    case Kind::kLiteral:
      body = words.front();
      break;
    case Kind::kChoice:
      for (std::size_t i = 0; i < words.size(); ++i)
        body += (i ? "|" : "") + words[i];
      break;
    case Kind::kParam:
      body = "<" + name + ">";
      break;
    case Kind::kRest:
      body = "<" + name + ">...";
      break;
  }
  return optional ? "[" + body + "]" : body;
}

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() &&
           (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r'))
      ++i;
    if (i >= line.size()) break;
    std::size_t end = i;
    if (words.size() + 1 == kMaxWords) {
      end = line.size();  // the tail, so nothing the user typed silently disappears
    } else {
      while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\n' &&
             line[end] != '\r')
        ++end;
    }
    words.emplace_back(line.substr(i, end - i));
    i = end;
  }
  return words;
}

std::vector<PatternElement> parse_pattern(std::string_view pattern) {
  std::vector<PatternElement> elements;
  for (std::string& token : split_words(pattern)) {
    PatternElement element;
    std::string_view body = token;
    if (body.front() == '[') {
      if (body.size() < 3 || body.back() != ']') bad(pattern, "unbalanced [ ]");
      element.optional = true;
      body = body.substr(1, body.size() - 2);
    }
    if (body.front() == '<') {
      const bool rest = body.ends_with(">...");
      const std::size_t close = body.find('>');
      if (close == std::string_view::npos || (!rest && close + 1 != body.size()))
        bad(pattern, "bad parameter \"" + token + "\"");
      element.kind = rest ? PatternElement::Kind::kRest : PatternElement::Kind::kParam;
      element.name = std::string(body.substr(1, close - 1));
      if (!is_word(element.name)) bad(pattern, "bad parameter name in \"" + token + "\"");
    } else {
      std::size_t start = 0;
      while (true) {
        const std::size_t bar = body.find('|', start);
        const std::string_view word = body.substr(start, bar - start);
        if (!is_word(word)) bad(pattern, "bad word in \"" + token + "\"");
        element.words.emplace_back(word);
        if (bar == std::string_view::npos) break;
        start = bar + 1;
      }
      element.kind =
          element.words.size() > 1 ? PatternElement::Kind::kChoice : PatternElement::Kind::kLiteral;
    }
    if (!elements.empty() && elements.back().kind == PatternElement::Kind::kRest)
      bad(pattern, "<name>... must be last");
    elements.push_back(std::move(element));
  }
  if (elements.empty()) bad(pattern, "empty");
  if (elements.front().kind != PatternElement::Kind::kLiteral || elements.front().optional)
    bad(pattern, "must start with a literal word");
  return elements;
}

}  // namespace braid::control
