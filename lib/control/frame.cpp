#include "control/frame.hpp"

#include <cstdio>

#include "control/utf8.hpp"

namespace braid::control {

std::string encode_frame(std::string_view payload) {
  const auto size = static_cast<std::uint32_t>(payload.size());
  std::string frame;
  frame.reserve(4 + payload.size());
  for (int shift = 24; shift >= 0; shift -= 8)
    frame += static_cast<char>((size >> shift) & 0xff);
  frame += payload;
  return frame;
}

std::optional<std::string> FrameReader::next() {
  if (oversized_ || buffer_.size() < 4) return std::nullopt;
  std::uint32_t size = 0;
  for (int i = 0; i < 4; ++i)
    size = size << 8 | static_cast<std::uint8_t>(buffer_[static_cast<std::size_t>(i)]);
  if (size > max_bytes_) {
    oversized_ = true;
    return std::nullopt;
  }
  if (buffer_.size() < 4 + std::size_t{size}) return std::nullopt;
  std::string payload = buffer_.substr(4, size);
  buffer_.erase(0, 4 + std::size_t{size});
  return payload;
}

std::string encode_request(const Request& request) {
  const char* mode = request.mode == Request::Mode::kJson       ? "json"
                     : request.mode == Request::Mode::kComplete ? "complete"
                                                                : "text";
  return std::string(mode) + " " + request.line;
}

RequestDecode parse_request(std::string_view payload) {
  const std::size_t space = payload.find(' ');
  const std::string_view mode = payload.substr(0, space);
  Request request;
  if (mode == "text") {
    request.mode = Request::Mode::kText;
  } else if (mode == "json") {
    request.mode = Request::Mode::kJson;
  } else if (mode == "complete") {
    request.mode = Request::Mode::kComplete;
  } else {
    return {std::nullopt, "bad request: expected \"text|json|complete <line>\""};
  }
  if (space != std::string_view::npos) {
    const std::string_view line = payload.substr(space + 1);
    if (const std::size_t bad = find_invalid_utf8(line); bad != std::string_view::npos) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(line[bad]));
      return {std::nullopt, "bad request: the command line is not valid UTF-8 (byte " +
                                std::to_string(bad) + " is " + byte +
                                "); send commands as UTF-8 text"};
    }
    request.line = std::string(line);
  }
  return {std::move(request), ""};
}

std::optional<Request> decode_request(std::string_view payload) {
  return parse_request(payload).request;
}

std::string encode_reply(const Reply& reply) {
  return (reply.ok ? "ok\n" : "error\n") + reply.body;
}

std::optional<Reply> decode_reply(std::string_view payload) {
  const std::size_t newline = payload.find('\n');
  if (newline == std::string_view::npos) return std::nullopt;
  const std::string_view status = payload.substr(0, newline);
  if (status != "ok" && status != "error") return std::nullopt;
  return Reply{status == "ok", std::string(payload.substr(newline + 1))};
}

}  // namespace braid::control
