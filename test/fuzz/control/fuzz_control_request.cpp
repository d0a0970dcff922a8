// libFuzzer target: the control socket's input path. The bytes arrive in chunks of sizes the
// fuzzer picks (as recv() would cut them), FrameReader cuts them into frames, each frame is
// decoded as a request, and what is decoded must survive encode/decode and JSON quoting. The
// same bytes given at once must give the same frames.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "control/frame.hpp"
#include "control/output.hpp"
#include "control/utf8.hpp"

namespace {

using namespace braid::control;

void check(bool condition) {
  if (!condition) std::abort();
}

// A JSON string literal as RFC 8259 7 has it: quotes around UTF-8 with no raw control
// character and only the defined escapes.
void check_json_string(const std::string& quoted) {
  check(quoted.size() >= 2 && quoted.front() == '"' && quoted.back() == '"');
  check(find_invalid_utf8(quoted) == std::string::npos);
  for (std::size_t i = 1; i + 1 < quoted.size(); ++i) {
    const auto c = static_cast<unsigned char>(quoted[i]);
    check(c >= 0x20 && c != 0x7f);
    check(c != '"');
    if (c == '\\') {
      ++i;
      check(i + 1 < quoted.size());
      const char escape = quoted[i];
      if (escape == 'u') {
        check(i + 4 < quoted.size());
        for (std::size_t h = 1; h <= 4; ++h)
          check(std::isxdigit(static_cast<unsigned char>(quoted[i + h])) != 0);
        i += 4;
      } else {
        check(std::string_view("\"\\/bfnrt").find(escape) != std::string_view::npos);
      }
    }
  }
}

void check_frame(const std::string& payload) {
  check(payload.size() <= kMaxFrameBytes);
  check_json_string(json_quote(payload));

  const RequestDecode decoded = parse_request(payload);
  check(decoded.ok() == decode_request(payload).has_value());
  check(decoded.ok() == decoded.error.empty());
  if (decoded.ok()) {
    const Request& request = *decoded.request;
    check(find_invalid_utf8(request.line) == std::string::npos);
    const RequestDecode again = parse_request(encode_request(request));
    check(again.ok() && again.request->mode == request.mode && again.request->line == request.line);
  } else {
    check(decoded.error.starts_with("bad request: "));
    check(find_invalid_utf8(decoded.error) == std::string::npos);  // safe to send back as is
  }

  if (const std::optional<Reply> reply = decode_reply(payload)) {
    const std::optional<Reply> again = decode_reply(encode_reply(*reply));
    check(again && again->ok == reply->ok && again->body == reply->body);
  }

  FrameReader reader;
  const std::string frame = encode_frame(payload);
  reader.append(frame.data(), frame.size());
  const std::optional<std::string> back = reader.next();
  check(back && *back == payload && !reader.next());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  // Chunk sizes first, then the stream (so a seed's stream is its tail, unchanged).
  std::vector<std::size_t> chunks;
  const std::size_t chunk_count = input.ConsumeIntegralInRange<std::size_t>(0, 8);
  for (std::size_t i = 0; i < chunk_count; ++i)
    chunks.push_back(input.ConsumeIntegralInRange<std::size_t>(1, 64));
  const std::string stream = input.ConsumeRemainingBytesAsString();

  FrameReader whole;
  whole.append(stream.data(), stream.size());
  std::vector<std::string> expected;
  while (std::optional<std::string> frame = whole.next())
    expected.push_back(std::move(*frame));

  FrameReader reader;
  std::vector<std::string> frames;
  std::size_t at = 0;
  for (std::size_t i = 0; at < stream.size(); ++i) {
    const std::size_t length =
        std::min(chunks.empty() ? stream.size() : chunks[i % chunks.size()], stream.size() - at);
    reader.append(stream.data() + at, length);
    at += length;
    while (std::optional<std::string> frame = reader.next())
      frames.push_back(std::move(*frame));
  }
  check(frames == expected);
  check(reader.oversized() == whole.oversized());
  for (const std::string& frame : frames)
    check_frame(frame);
  return 0;
}
