#include "control/frame.hpp"

#include <gtest/gtest.h>

namespace braid::control {
namespace {

TEST(Frame, RoundTripsAcrossArbitrarySplits) {
  const std::string stream =
      encode_frame("text show drops") + encode_frame("") + encode_frame(std::string(70000, 'x'));
  for (std::size_t chunk : {1u, 3u, 4096u}) {
    FrameReader reader;
    std::vector<std::string> frames;
    for (std::size_t i = 0; i < stream.size(); i += chunk) {
      reader.append(stream.data() + i, std::min(chunk, stream.size() - i));
      while (auto frame = reader.next())
        frames.push_back(*frame);
    }
    ASSERT_EQ(frames.size(), 3u);
    EXPECT_EQ(frames[0], "text show drops");
    EXPECT_EQ(frames[1], "");
    EXPECT_EQ(frames[2].size(), 70000u);
  }
}

TEST(Frame, OversizedFrameStopsTheReader) {
  FrameReader reader;
  const char header[4] = {0x7f, 0, 0, 0};
  reader.append(header, 4);
  EXPECT_FALSE(reader.next());
  EXPECT_TRUE(reader.oversized());
}

TEST(Frame, ARequestReaderRefusesMoreThanACommandLineNeeds) {
  FrameReader requests(kMaxRequestFrameBytes);
  const std::string fits = encode_frame("text " + std::string(4096, 'x'));
  requests.append(fits.data(), fits.size());
  EXPECT_TRUE(requests.next());
  const std::string too_big = encode_frame(std::string(kMaxRequestFrameBytes + 1, 'x'));
  requests.append(too_big.data(), 4);
  EXPECT_FALSE(requests.next());
  EXPECT_TRUE(requests.oversized());
  FrameReader replies;  // a reply may be far larger
  replies.append(too_big.data(), too_big.size());
  EXPECT_TRUE(replies.next());
}

TEST(Frame, RequestsAndReplies) {
  const auto request = decode_request(encode_request({Request::Mode::kJson, "show port p0"}));
  ASSERT_TRUE(request);
  EXPECT_EQ(request->mode, Request::Mode::kJson);
  EXPECT_EQ(request->line, "show port p0");
  EXPECT_EQ(encode_request({Request::Mode::kComplete, "sh"}), "complete sh");
  EXPECT_FALSE(decode_request("shout hello"));
  EXPECT_EQ(decode_request("text")->line, "");

  EXPECT_EQ(encode_reply({false, "error: x\n"}), "error\nerror: x\n");
  const auto reply = decode_reply("ok\nline1\nline2\n");
  ASSERT_TRUE(reply);
  EXPECT_TRUE(reply->ok);
  EXPECT_EQ(reply->body, "line1\nline2\n");
  EXPECT_FALSE(decode_reply("maybe\n"));
  EXPECT_FALSE(decode_reply("ok"));
}

}  // namespace
}  // namespace braid::control
