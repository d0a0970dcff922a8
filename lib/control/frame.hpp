// The control socket's framing (doc/console.md): every message is a 4-byte big-endian length
// followed by that many bytes. A request is "<mode> <command line>" with mode "text", "json" or
// "complete"; a reply is "ok\n" or "error\n" followed by the body (text, a JSON document, or
// completion candidates one per line). Pure, shared by braid and braidctl.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace braid::control {

// A reply (braidctl reads every reply braid may give) and a request (a command line is at most
// 4 KiB, command_registry.cpp; a request frame needs little more).
inline constexpr std::size_t kMaxFrameBytes = 1 << 20;
inline constexpr std::size_t kMaxRequestFrameBytes = 8 << 10;

std::string encode_frame(std::string_view payload);

// Accumulates bytes from a stream and cuts them into frames.
class FrameReader {
 public:
  explicit FrameReader(std::size_t max_bytes = kMaxFrameBytes) : max_bytes_(max_bytes) {}
  void append(const char* data, std::size_t size) { buffer_.append(data, size); }
  // The next complete frame, if one has arrived. A frame announcing more than max_bytes sets
  // oversized() and yields nothing more: the peer is broken or hostile; close it.
  std::optional<std::string> next();
  bool oversized() const { return oversized_; }

 private:
  std::size_t max_bytes_;
  std::string buffer_;
  bool oversized_ = false;
};

struct Request {
  enum class Mode { kText, kJson, kComplete };
  Mode mode = Mode::kText;
  std::string line;
};

// What decode_request made of a payload: the request, or why there is none, as the text of the
// error reply ("bad request: ...").
struct RequestDecode {
  std::optional<Request> request;
  std::string error;  // empty when request is set

  bool ok() const { return request.has_value(); }
};

std::string encode_request(const Request& request);
// Refuses an unknown mode and a command line that is not UTF-8 (utf8.hpp): every word of a
// request may end up in a JSON reply, and the registry matches words as UTF-8 text.
RequestDecode parse_request(std::string_view payload);
// parse_request without the reason; nullopt for what it refuses.
std::optional<Request> decode_request(std::string_view payload);

struct Reply {
  bool ok = true;
  std::string body;
};

std::string encode_reply(const Reply& reply);
std::optional<Reply> decode_reply(std::string_view payload);

}  // namespace braid::control
