#include "control/frame.hpp"

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
  if (size > kMaxFrameBytes) {
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

std::optional<Request> decode_request(std::string_view payload) {
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
    return std::nullopt;
  }
  if (space != std::string_view::npos) request.line = std::string(payload.substr(space + 1));
  return request;
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
