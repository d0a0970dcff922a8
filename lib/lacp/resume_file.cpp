#include "lacp/resume_file.hpp"

#include <charconv>
#include <cstdio>

#include "common/mac_text.hpp"

namespace braid::lacp {
namespace {

constexpr std::string_view kMagic = "braid-lacp-resume";
constexpr std::size_t kMaxNameLength = 64;

std::string info_text(const PortInfo& info) {
  char state[8];
  std::snprintf(state, sizeof state, "0x%02x", info.state);
  return std::to_string(info.system_priority) + " " + mac_string(info.system) + " " +
         std::to_string(info.key) + " " + std::to_string(info.port_priority) + " " +
         std::to_string(info.port_number) + " " + state;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t start = line.find_first_not_of(' ', at);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(line.find(' ', start), line.size());
    words.push_back(line.substr(start, end - start));
    at = end;
  }
  return words;
}

class LineParser {
 public:
  LineParser(std::size_t number, std::vector<std::string_view> words)
      : number_(number), words_(std::move(words)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ResumeFileError("line " + std::to_string(number_) + ": " + what);
  }
  std::string_view word(std::string_view what) {
    if (next_ >= words_.size()) fail("missing " + std::string(what));
    return words_[next_++];
  }
  void expect(std::string_view keyword) {
    if (word(keyword) != keyword) fail("expected \"" + std::string(keyword) + "\"");
  }
  std::uint64_t number(std::string_view what, std::uint64_t max, int base = 10) {
    std::string_view text = word(what);
    if (base == 16) {
      if (!text.starts_with("0x")) fail(std::string(what) + " must be 0x..");
      text.remove_prefix(2);
    }
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (error != std::errc{} || end != text.data() + text.size() || text.empty() || value > max)
      fail("bad " + std::string(what) + " \"" + std::string(text) + "\"");
    return value;
  }
  std::string name(std::string_view what) {
    const std::string_view text = word(what);
    if (text.size() > kMaxNameLength) fail(std::string(what) + " name too long");
    return std::string(text);
  }
  MacAddress mac() {
    const std::string_view text = word("system MAC");
    MacAddress mac{};
    if (!parse_mac(text, mac)) fail("bad MAC \"" + std::string(text) + "\"");
    return mac;
  }
  PortInfo info() {
    PortInfo info;
    info.system_priority = static_cast<std::uint16_t>(number("system priority", 0xffff));
    info.system = mac();
    info.key = static_cast<std::uint16_t>(number("key", 0xffff));
    info.port_priority = static_cast<std::uint16_t>(number("port priority", 0xffff));
    info.port_number = static_cast<std::uint16_t>(number("port number", 0xffff));
    info.state = static_cast<std::uint8_t>(number("state", 0xff, 16));
    return info;
  }
  void end() const {
    if (next_ != words_.size()) fail("unexpected \"" + std::string(words_[next_]) + "\"");
  }

 private:
  std::size_t number_;
  std::vector<std::string_view> words_;
  std::size_t next_ = 0;
};

}  // namespace

std::string encode_resume_file(const SavedLacpState& state) {
  std::string text = std::string(kMagic) + " " + std::to_string(kResumeFileVersion) + "\n";
  text += "saved_unix_ms " + std::to_string(state.saved_unix_ms) + "\n";
  for (const SavedBond& bond : state.bonds) {
    text += "bond " + bond.name + "\n";
    for (const SavedMember& member : bond.members) {
      text += "member " + member.name + " actor " + info_text(member.point.actor) + " partner " +
              info_text(member.point.partner) + " aggregator " +
              std::to_string(member.point.aggregator) + "\n";
    }
  }
  return text;
}

SavedLacpState decode_resume_file(std::string_view text) {
  SavedLacpState state;
  bool have_header = false;
  bool have_time = false;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos) {
      throw ResumeFileError("line " + std::to_string(number + 1) + ": no newline (cut short?)");
    }
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline + 1);
    ++number;
    std::vector<std::string_view> words = split(line);
    if (words.empty()) continue;
    LineParser parse(number, std::move(words));
    const std::string_view keyword = parse.word("keyword");
    if (!have_header) {
      if (keyword != kMagic) parse.fail("not a braid LACP resume file");
      const std::uint64_t version = parse.number("version", 0xffff);
      if (version != kResumeFileVersion)
        parse.fail("version " + std::to_string(version) + " (this braid reads version " +
                   std::to_string(kResumeFileVersion) + ")");
      have_header = true;
    } else if (keyword == "saved_unix_ms") {
      state.saved_unix_ms = parse.number("time", UINT64_MAX);
      have_time = true;
    } else if (keyword == "bond") {
      state.bonds.push_back({parse.name("bond"), {}});
    } else if (keyword == "member") {
      if (state.bonds.empty()) parse.fail("member before any bond");
      SavedMember member;
      member.name = parse.name("member");
      parse.expect("actor");
      member.point.actor = parse.info();
      parse.expect("partner");
      member.point.partner = parse.info();
      parse.expect("aggregator");
      member.point.aggregator = static_cast<int>(parse.number("aggregator", 0xffff));
      state.bonds.back().members.push_back(std::move(member));
    } else {
      parse.fail("unknown keyword \"" + std::string(keyword) + "\"");
    }
    parse.end();
  }
  if (!have_header) throw ResumeFileError("empty file");
  if (!have_time) throw ResumeFileError("no saved_unix_ms line");
  return state;
}

}  // namespace braid::lacp
