// UTF-8 as the Unicode Standard defines it (chapter 3, table 3-7 "Well-Formed UTF-8 Byte
// Sequences"): no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF.
// Requests arrive as bytes from any client; replies are JSON, which must be UTF-8 (RFC 8259
// 8.1), so what comes in is checked and what goes out is repaired.
#pragma once

#include <cstddef>
#include <string_view>

namespace braid::control {

inline constexpr char32_t kReplacementCharacter = 0xfffd;

struct Utf8Char {
  char32_t code_point = kReplacementCharacter;  // U+FFFD when !valid
  std::size_t length = 1;                       // bytes consumed; at least 1
  bool valid = false;
};

// The character starting at text[at] (at < text.size()). An ill-formed sequence consumes its
// "maximal subpart" (Unicode 3.9, U+FFFD substitution of maximal subparts): the longest prefix
// that could still have begun a valid sequence, at least one byte. Replacing each such part
// with one U+FFFD is what the Standard, WHATWG and most decoders do.
Utf8Char decode_utf8(std::string_view text, std::size_t at);

// The offset of the first byte that is not part of a well-formed character, or npos.
std::size_t find_invalid_utf8(std::string_view text);

}  // namespace braid::control
