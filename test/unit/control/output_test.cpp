#include "control/output.hpp"

#include <gtest/gtest.h>

namespace braid::control {
namespace {

TEST(Output, TextAlignsValuesAndTables) {
  Output out;
  out.value("forwarding", "started");
  out.value("rx", Value::displayed(1520000.0, "1.52Mpps"));
  out.table("workers", {"lcore", "queues", "busy"})
      .row({1, "wire/0 sink/0", Value::displayed(0.25, "25.0%")})
      .row({12, "x", Value::displayed(1.0, "100.0%")});
  Output& port = out.section("wire");
  port.value("link", "up");
  port.value("mtu", 1500);
  out.line("done");
  EXPECT_EQ(out.render_text(),
            "forwarding: started\n"
            "rx:         1.52Mpps\n"
            "lcore  queues         busy\n"
            "1      wire/0 sink/0  25.0%\n"
            "12     x              100.0%\n"
            "wire:\n"
            "  link: up\n"
            "  mtu:  1500\n"
            "done\n");
}

TEST(Output, JsonKeepsTypes) {
  Output out;
  out.value("name", "a \"q\"\n");
  out.value("count", std::uint64_t{18446744073709551615u});
  out.value("delta", -3);
  out.value("ratio", Value::displayed(0.5, "50%"));
  out.value("up", true);
  out.table("t", {"k", "v"}).row({"x", 1}).row({"y"});
  out.section("s").value("inner", 2);
  out.line("hello");
  out.error("bad");
  EXPECT_EQ(out.render_json(),
            R"({"name":"a \"q\"\n","count":18446744073709551615,"delta":-3,"ratio":0.5,)"
            R"("up":true,"t":[{"k":"x","v":1},{"k":"y","v":""}],"s":{"inner":2},)"
            R"("messages":["hello"],"errors":["bad"]})");
  EXPECT_TRUE(out.failed());
}

TEST(Output, ControlBytesAreEscapedInJson) {
  EXPECT_EQ(json_quote(std::string("a\x01z", 3)), "\"a\\u0001z\"");
  Output out;
  out.value("nan", Value(0.0 / 0.0));
  EXPECT_EQ(out.render_json(), R"({"nan":null})");
}

TEST(Output, AMissingNumberIsADashInTextAndNullInJson) {
  Output out;
  out.table("members", {"member", "cnp", "queue_depth"})
      .row({"m0", Value::missing(), Value::optional(std::optional<std::uint32_t>{})})
      .row({"m1", 7u, Value::optional(std::optional<std::uint32_t>{12})});
  EXPECT_EQ(out.render_text(),
            "member  cnp  queue_depth\n"
            "m0      -    -\n"
            "m1      7    12\n");
  EXPECT_EQ(out.render_json(), R"({"members":[{"member":"m0","cnp":null,"queue_depth":null},)"
                               R"({"member":"m1","cnp":7,"queue_depth":12}]})");
}

}  // namespace
}  // namespace braid::control
