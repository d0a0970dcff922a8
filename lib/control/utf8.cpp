#include "control/utf8.hpp"

namespace braid::control {

Utf8Char decode_utf8(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {lead, 1, true};
  // Table 3-7: the lead byte fixes the length and the range of the second byte; the rest are
  // 80..BF. C0, C1 and F5..FF never appear; E0 A0.., ED ..9F and F0 90.., F4 ..8F exclude
  // overlong forms, surrogates and code points past U+10FFFF.
  std::size_t length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xbf;
  char32_t code_point = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code_point = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code_point = lead & 0x0f;
    if (lead == 0xe0) second_min = 0xa0;
    if (lead == 0xed) second_max = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code_point = lead & 0x07;
    if (lead == 0xf0) second_min = 0x90;
    if (lead == 0xf4) second_max = 0x8f;
  } else {
    return {};  // a continuation byte without a lead, C0, C1 or F5..FF
  }
  for (std::size_t i = 1; i < length; ++i) {
    if (at + i >= text.size()) return {kReplacementCharacter, i, false};  // truncated
    const unsigned char next = byte(i);
    const unsigned char min = i == 1 ? second_min : 0x80;
    const unsigned char max = i == 1 ? second_max : 0xbf;
    if (next < min || next > max) return {kReplacementCharacter, i, false};
    code_point = code_point << 6 | (next & 0x3f);
  }
  return {code_point, length, true};
}

std::size_t find_invalid_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const Utf8Char c = decode_utf8(text, at);
    if (!c.valid) return at;
    at += c.length;
  }
  return std::string_view::npos;
}

}  // namespace braid::control
