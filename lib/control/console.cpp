#include "control/console.hpp"

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_socket.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <vector>

namespace braid::control {
namespace {

// State the cmdline callbacks share: cmdline gives them no user pointer for dynamic tokens.
struct ConsoleState {
  Console* console = nullptr;
  const CommandRegistry* registry = nullptr;
  Console::Runner* runner = nullptr;
  std::vector<std::string> words;  // words parsed so far in this pass over the line
  bool more_after = false;         // the last parsed word is followed by another (or by the
                                   // end of a line being completed)
  std::size_t next_index = 0;      // index of the token get_token() handed out last
  std::vector<std::string> candidates;
  std::string hint;
};
ConsoleState state;

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

int word_parse(cmdline_parse_token_hdr_t*, const char* buf, void*, unsigned int) {
  std::size_t length = 0;
  while (!cmdline_isendoftoken(buf[length]))
    ++length;
  if (length == 0) return -1;
  state.words.resize(state.next_index);
  state.words.emplace_back(buf, length);
  std::size_t after = length;
  while (is_blank(buf[after]))
    ++after;
  // rdline hands a validated line over with its "\n"; a line being completed ends in '\0'.
  state.more_after =
      buf[after] == '\0' || !(buf[after] == '\n' || buf[after] == '\r' || buf[after] == '#');
  return static_cast<int>(length);
}

std::string joined_words() {
  std::string line;
  for (const std::string& word : state.words)
    line += word + " ";
  return line;
}

int word_complete_count(cmdline_parse_token_hdr_t*) {
  state.words.resize(state.next_index);
  state.hint.clear();
  state.candidates = state.registry->complete(joined_words(), &state.hint);
  return static_cast<int>(state.candidates.size());
}

int word_complete_element(cmdline_parse_token_hdr_t*, int index, char* out, unsigned int size) {
  if (index < 0 || static_cast<std::size_t>(index) >= state.candidates.size() || size == 0)
    return -1;
  const std::string& word = state.candidates[static_cast<std::size_t>(index)];
  if (word.size() + 1 > size) return -1;
  std::memcpy(out, word.c_str(), word.size() + 1);
  return 0;
}

int word_help(cmdline_parse_token_hdr_t*, char* out, unsigned int size) {
  std::snprintf(out, size, "%s", state.hint.empty() ? "choice" : state.hint.c_str());
  return 0;
}

cmdline_token_ops word_ops = {word_parse, word_complete_count, word_complete_element, word_help};
cmdline_parse_token_hdr_t word_token = {&word_ops, 0};

// cmdline_inst ends in a flexible array of tokens; with dynamic tokens only tokens[0] (NULL)
// is read, but the storage is sized for every index get_token() may pass.
constexpr std::size_t kMaxTokens = kMaxWords + 1;
alignas(cmdline_parse_inst_t) std::array<
    unsigned char, sizeof(cmdline_parse_inst_t) + kMaxTokens * sizeof(void*)> inst_storage{};
cmdline_parse_inst_t* instruction = nullptr;
std::array<cmdline_parse_inst_t*, 2> context{};

// Both the token generator (cl == nullptr) and the handler of a matched line.
void instruction_callback(void* result, cmdline* cl, void* data) {
  if (cl == nullptr) {
    auto** slot = static_cast<cmdline_parse_token_hdr_t**>(data);
    const auto index = static_cast<std::size_t>(slot - instruction->tokens);
    auto** out = static_cast<cmdline_parse_token_hdr_t**>(result);
    const bool wanted = index == 0 || (index < kMaxWords && state.more_after);
    if (index == 0) state.words.clear();
    state.more_after = false;
    state.next_index = index;
    *out = wanted ? &word_token : nullptr;
    return;
  }
  std::string line;
  for (const std::string& word : state.words)
    line += (line.empty() ? "" : " ") + word;
  const std::string text = (*state.runner)(line);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace

Console::Console(const CommandRegistry& registry, Runner runner, std::string prompt)
    : registry_(registry), runner_(std::move(runner)), prompt_(std::move(prompt)) {
  if (state.console != nullptr) throw std::logic_error("only one console per process");
  state = ConsoleState{};
  state.console = this;
  state.registry = &registry_;
  state.runner = &runner_;
  instruction = new (inst_storage.data()) cmdline_parse_inst_t{};
  instruction->f = instruction_callback;
  instruction->data = nullptr;
  instruction->help_str = "\"help <command>\" explains";
  context = {instruction, nullptr};
  cl_ = cmdline_stdin_new(context.data(), prompt_.c_str());
  if (cl_ == nullptr) {
    state.console = nullptr;
    throw std::runtime_error("console: cmdline_stdin_new failed");
  }
}

Console::~Console() {
  close();
  state = ConsoleState{};
}

void Console::close() {
  if (cl_ == nullptr) return;
  cmdline_stdin_exit(cl_);  // restores the terminal settings and frees cl_
  cl_ = nullptr;
}

bool Console::poll() {
  if (cl_ == nullptr) return false;
  char input[512];
  while (cl_ != nullptr) {
    pollfd waiting{STDIN_FILENO, POLLIN, 0};
    if (::poll(&waiting, 1, 0) <= 0) break;
    const ssize_t got = ::read(STDIN_FILENO, input, sizeof input);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0 || cmdline_in(cl_, input, static_cast<int>(got)) < 0) {
      // End of input, Ctrl-D on an empty line, or cmdline_quit(): the console is done.
      static constexpr char kNewline = '\n';
      [[maybe_unused]] const ssize_t n = ::write(STDOUT_FILENO, &kNewline, 1);
      close();
      return false;
    }
  }
  return cl_ != nullptr;
}

}  // namespace braid::control
