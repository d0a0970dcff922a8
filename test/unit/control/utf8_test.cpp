// Requests that are not UTF-8, and replies that must stay JSON whatever they quote.
#include "control/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

#include "control/command_registry.hpp"
#include "control/frame.hpp"
#include "control/output.hpp"

namespace braid::control {
namespace {

using namespace std::string_literals;

// Ill-formed sequences from the Unicode Standard's table 3-7 and Markus Kuhn's decoder test.
const std::string kIllFormed[] = {
    "\xff"s,              // never in UTF-8
    "\xfe"s,              //
    "\xc0\xaf"s,          // overlong '/'
    "\xe0\x80\xaf"s,      // overlong '/', three bytes
    "\xf0\x80\x80\xaf"s,  // overlong '/', four bytes
    "\xc1\xbf"s,          // overlong U+007F
    "\xed\xa0\x80"s,      // U+D800, a surrogate
    "\xed\xbf\xbf"s,      // U+DFFF
    "\xf4\x90\x80\x80"s,  // U+110000, past the last code point
    "\xf5\x80\x80\x80"s,  //
    "\x80"s,              // a continuation byte alone
    "\xc3"s,              // truncated two-byte sequence
    "\xe2\x82"s,          // truncated three-byte sequence (the euro sign without its end)
    "\xf0\x9f\x98"s,      // truncated four-byte sequence
};

TEST(Utf8, WellFormedTextPasses) {
  EXPECT_EQ(find_invalid_utf8(""), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("show port p0"), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbf"),
            std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf"),
            std::string_view::npos);  // U+D7FF, U+E000, U+10FFFF: the edges around the gaps
  const Utf8Char euro = decode_utf8("\xe2\x82\xac", 0);
  EXPECT_TRUE(euro.valid);
  EXPECT_EQ(euro.code_point, U'\u20ac');
  EXPECT_EQ(euro.length, 3u);
}

TEST(Utf8, IllFormedSequencesAreFound) {
  for (const std::string& bad : kIllFormed) {
    EXPECT_EQ(find_invalid_utf8("ok " + bad + " ok"), 3u) << testing::PrintToString(bad);
    EXPECT_FALSE(decode_utf8(bad, 0).valid) << testing::PrintToString(bad);
  }
}

TEST(Utf8, MaximalSubpartsAreReplacedOneEach) {
  // Unicode 3.9's example: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 -> a FFFD FFFD FFFD b FFFD c
  // FFFD FFFD d.
  EXPECT_EQ(json_quote("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64"),
            "\"a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
            "b\xef\xbf\xbd"
            "c\xef\xbf\xbd\xef\xbf\xbd"
            "d\"");
}

TEST(JsonQuote, InvalidUtf8BecomesTheReplacementCharacter) {
  for (const std::string& bad : kIllFormed) {
    const std::string quoted = json_quote("x" + bad + "y");
    EXPECT_EQ(find_invalid_utf8(quoted), std::string_view::npos) << testing::PrintToString(bad);
    EXPECT_TRUE(quoted.starts_with("\"x\xef\xbf\xbd")) << testing::PrintToString(quoted);
    EXPECT_TRUE(quoted.ends_with("\xef\xbf\xbdy\"")) << testing::PrintToString(quoted);
  }
  EXPECT_EQ(json_quote("\xff\xff"), "\"\xef\xbf\xbd\xef\xbf\xbd\"");
  EXPECT_EQ(json_quote("caf\xc3\xa9"), "\"caf\xc3\xa9\"");  // valid text is kept as it is
}

TEST(JsonQuote, EveryControlCharacterIsEscaped) {
  EXPECT_EQ(json_quote("\x1b[2J\x7f"), "\"\\u001b[2J\\u007f\"");
  EXPECT_EQ(json_quote("\xc2\x85\xc2\x9b"), "\"\\u0085\\u009b\"");  // C1: NEL, CSI
  EXPECT_EQ(json_quote("\xc2\xa0"), "\"\xc2\xa0\"");                // U+00A0 is not a control
  EXPECT_EQ(json_quote("a\"b\\c\n\t\r"), "\"a\\\"b\\\\c\\n\\t\\r\"");
  EXPECT_EQ(json_quote(std::string("\0", 1)), "\"\\u0000\"");
}

TEST(JsonQuote, AnUnknownCommandWithBadBytesStillGivesAJsonReply) {
  // What braidctl --json gets for a request whose word is not UTF-8: the registry quotes the
  // word in its error, and the document must still be UTF-8.
  CommandRegistry registry;
  Output out;
  registry.execute("sh\xffw \xc0\xaf", out);
  ASSERT_TRUE(out.failed());
  EXPECT_EQ(find_invalid_utf8(out.render_json()), std::string_view::npos) << out.render_json();
}

TEST(DecodeRequest, RejectsACommandLineThatIsNotUtf8) {
  const RequestDecode decoded = parse_request("json show port \xc0\xaf");
  EXPECT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error,
            "bad request: the command line is not valid UTF-8 (byte 10 is 0xc0); send commands "
            "as UTF-8 text");
  for (const std::string& bad : kIllFormed) {
    EXPECT_FALSE(parse_request("text show " + bad).ok()) << testing::PrintToString(bad);
    EXPECT_FALSE(decode_request("json " + bad)) << testing::PrintToString(bad);
  }
}

TEST(DecodeRequest, AcceptsUtf8AndSaysWhatAnUnknownModeIs) {
  const RequestDecode decoded = parse_request("text show port caf\xc3\xa9");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded.request->line, "show port caf\xc3\xa9");
  EXPECT_EQ(decoded.error, "");
  EXPECT_EQ(parse_request("shout hello").error,
            "bad request: expected \"text|json|complete <line>\"");
  EXPECT_EQ(parse_request("\xff show").error,
            "bad request: expected \"text|json|complete <line>\"");
}

}  // namespace
}  // namespace braid::control
