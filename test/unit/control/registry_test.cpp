#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "control/command_registry.hpp"

namespace braid::control {
namespace {

// A registry shaped like braid's: port stats with optional view and port, a member admin
// command, log levels, and a numeric parameter.
class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry.define_param("port", {.help = "a configured port name",
                                   .values =
                                       [] {
                                         return std::vector<std::string>{"p0", "p1"};
                                       },
                                   .strict = true});
    registry.define_param("member", {.help = "a bond member",
                                     .values = [] { return std::vector<std::string>{"p0"}; },
                                     .strict = true});
    registry.define_param("level", {.help = "a log level",
                                    .values =
                                        [] {
                                          return std::vector<std::string>{"err", "info", "debug"};
                                        },
                                    .strict = true});
    registry.define_param("gap_us",
                          {.help = "microseconds", .numeric = true, .min = 1, .max = 100000});
    auto record = [this](std::string name) {
      return [this, name](const Args& args, Output& out) {
        ran = name;
        last = args;
        out.value("ran", name);
      };
    };
    registry.add("show port [stats|xstats|info] [<port>]", "port counters", record("port"),
                 [](const Args& args) {
                   return args.pick({"stats", "xstats", "info"}, "stats") == "xstats";
                 });
    registry.add("show workers", "workers", record("workers"));
    registry.add("show drops", "drops", record("drops"));
    registry.add("set member <member> up|down", "member admin state", record("member"));
    registry.add("set log <type> <level>", "log level", record("log"));
    registry.add("set bond flowlet gap <gap_us>", "flowlet gap", record("gap"));
    registry.add("boom", "throws", [](const Args&, Output&) { throw std::runtime_error("bang"); });
  }

  std::string run(const std::string& line) {
    ran.clear();
    Output out;
    registry.execute(line, out);
    return out.render_text();
  }

  CommandRegistry registry;
  std::string ran;
  Args last;
};

TEST_F(RegistryTest, MatchesOptionalChoicesAndParameters) {
  run("show port");
  EXPECT_EQ(ran, "port");
  EXPECT_EQ(last.pick({"stats", "xstats", "info"}, "stats"), "stats");
  EXPECT_FALSE(last.has("port"));

  run("show port xstats p1");
  EXPECT_EQ(last.pick({"stats", "xstats", "info"}, "stats"), "xstats");
  EXPECT_EQ(last.get("port"), "p1");

  run("show port p0");  // the optional choice is skipped, the port fills <port>
  EXPECT_EQ(ran, "port");
  EXPECT_EQ(last.get("port"), "p0");

  run("  set   member p0 down ");
  EXPECT_EQ(ran, "member");
  EXPECT_TRUE(last.used("down"));
  EXPECT_FALSE(last.used("up"));

  run("set bond flowlet gap 500");
  EXPECT_EQ(last.get("gap_us"), "500");
  EXPECT_EQ(last.number("gap_us"), 500u);
}

TEST_F(RegistryTest, UnknownCommandSuggestsTheClosest) {
  EXPECT_EQ(run("shwo drops"),
            "error: unknown command \"shwo\" (did you mean \"show\"?); \"help\" lists the "
            "commands\n");
  EXPECT_EQ(ran, "");
}

TEST_F(RegistryTest, UnknownWordListsTheChoices) {
  EXPECT_EQ(run("show prot"),
            "error: unknown word \"prot\" after \"show\" (did you mean \"port\"?); expected one "
            "of: drops, port, workers\n"
            "usage: show port [stats|xstats|info] [<port>]\n"
            "usage: show workers\n"
            "usage: show drops\n");
}

TEST_F(RegistryTest, BadValueNamesTheParameterAndTheValidOnes) {
  EXPECT_EQ(run("set member p9 up"),
            "error: no member \"p9\"; did you mean \"p0\"? (known: p0)\n"
            "usage: set member <member> up|down\n");
  EXPECT_EQ(run("set log braid.bond loud"),
            "error: no level \"loud\" (known: err, info, debug)\n"
            "usage: set log <type> <level>\n");
  EXPECT_EQ(run("set bond flowlet gap 0"),
            "error: invalid <gap_us> \"0\": must be 1..100000\n"
            "usage: set bond flowlet gap <gap_us>\n");
  EXPECT_EQ(run("set bond flowlet gap fast"),
            "error: invalid <gap_us> \"fast\": expected a whole number\n"
            "usage: set bond flowlet gap <gap_us>\n");
  EXPECT_EQ(run("show port stats p7"),
            "error: no port \"p7\"; did you mean \"p0\"? (known: p0, p1)\n"
            "usage: show port [stats|xstats|info] [<port>]\n");
}

TEST_F(RegistryTest, MistypedValueSuggestsTheClosest) {
  EXPECT_EQ(run("show port stats p"),
            "error: no port \"p\"; did you mean \"p0\"? (known: p0, p1)\n"
            "usage: show port [stats|xstats|info] [<port>]\n");
  EXPECT_EQ(run("set log braid.bond inof"),
            "error: no level \"inof\"; did you mean \"info\"? (known: err, info, debug)\n"
            "usage: set log <type> <level>\n");
}

TEST_F(RegistryTest, MissingAndExtraWords) {
  EXPECT_EQ(run("set member p0"),
            "error: \"set member p0\" is incomplete: up|down is missing\n"
            "usage: set member <member> up|down\n");
  EXPECT_EQ(run("show drops now"),
            "error: unexpected \"now\" after \"show drops\"\n"
            "usage: show drops\n");
}

TEST_F(RegistryTest, HandlerExceptionsBecomeErrors) {
  Output out;
  registry.execute("boom", out);
  EXPECT_TRUE(out.failed());
  EXPECT_EQ(out.render_text(), "error: boom: bang\n");
}

TEST_F(RegistryTest, EmptyLineDoesNothing) {
  Output out;
  registry.execute("   ", out);
  EXPECT_FALSE(out.failed());
  EXPECT_TRUE(out.empty());
}

TEST_F(RegistryTest, CompletesWordsChoicesAndValues) {
  using V = std::vector<std::string>;
  EXPECT_EQ(registry.complete(""), (V{"boom", "help", "set", "show"}));
  EXPECT_EQ(registry.complete("sh"), (V{"show"}));
  EXPECT_EQ(registry.complete("show "), (V{"drops", "port", "workers"}));
  EXPECT_EQ(registry.complete("show port "), (V{"info", "p0", "p1", "stats", "xstats"}));
  EXPECT_EQ(registry.complete("show port x"), (V{"xstats"}));
  EXPECT_EQ(registry.complete("show port xstats "), (V{"p0", "p1"}));
  EXPECT_EQ(registry.complete("set member p0 "), (V{"down", "up"}));
  EXPECT_EQ(registry.complete("set log braid.bond d"), (V{"debug"}));
  EXPECT_EQ(registry.complete("show drops "), V{});
  EXPECT_EQ(registry.complete("help sh"), (V{"show"}));
  std::string hint;
  EXPECT_EQ(registry.complete("set bond flowlet gap ", &hint), V{});
  EXPECT_EQ(hint, "<gap_us>: microseconds");
}

TEST_F(RegistryTest, HelpListsEveryCommandSorted) {
  EXPECT_EQ(run("help"),
            "command                                 description\n"
            "boom                                    throws\n"
            "help [<command>...]                     list the commands, or explain the ones "
            "starting with <command>\n"
            "set bond flowlet gap <gap_us>           flowlet gap\n"
            "set log <type> <level>                  log level\n"
            "set member <member> up|down             member admin state\n"
            "show drops                              drops\n"
            "show port [stats|xstats|info] [<port>]  port counters\n"
            "show workers                            workers\n");
}

TEST_F(RegistryTest, HelpOnATopicExplainsItsParameters) {
  EXPECT_EQ(run("help set member"),
            "command                      description\n"
            "set member <member> up|down  member admin state\n"
            "<member>: a bond member\n");
  EXPECT_EQ(run("help shw"), "error: no command starts with \"shw\" (did you mean \"show\"?)\n");
}

TEST_F(RegistryTest, JsonOutputOfACommand) {
  Output out;
  registry.execute("show workers", out);
  EXPECT_EQ(out.render_json(), R"({"ran":"workers"})");
  Output failed;
  registry.execute("nope", failed);
  EXPECT_EQ(failed.render_json(),
            R"({"errors":["unknown command \"nope\"; \"help\" lists the commands"]})");
}

TEST(RegistryPatterns, BadPatternsAreRejected) {
  CommandRegistry registry;
  const Handler nothing = [](const Args&, Output&) {};
  EXPECT_THROW(registry.add("", "x", nothing), std::invalid_argument);
  EXPECT_THROW(registry.add("<port> show", "x", nothing), std::invalid_argument);
  EXPECT_THROW(registry.add("show [port", "x", nothing), std::invalid_argument);
  EXPECT_THROW(registry.add("show <a>... more", "x", nothing), std::invalid_argument);
  EXPECT_THROW(registry.add("show a||b", "x", nothing), std::invalid_argument);
  registry.add("show thing", "x", nothing);
  EXPECT_THROW(registry.add("show  thing", "x", nothing), std::invalid_argument);  // twice
}

// Random token soup, including near-miss words, control bytes and very long lines: execute and
// complete must never crash or throw, and every failure must say something.
TEST_F(RegistryTest, NeverCrashesOnTokenSoup) {
  const std::vector<std::string> vocabulary = {"show",
                                               "port",
                                               "stats",
                                               "xstats",
                                               "info",
                                               "p0",
                                               "p1",
                                               "set",
                                               "member",
                                               "up",
                                               "down",
                                               "log",
                                               "level",
                                               "help",
                                               "bond",
                                               "flowlet",
                                               "gap",
                                               "0",
                                               "99999999999999999999999",
                                               "-1",
                                               "[",
                                               "]",
                                               "<",
                                               ">",
                                               "|",
                                               "...",
                                               "",
                                               "\t",
                                               "\n",
                                               "\x01",
                                               "\xff\xfe",
                                               "ünïcode",
                                               "%s%n"};
  std::mt19937 random(7);
  for (int round = 0; round < 20000; ++round) {
    std::string line;
    const int words = static_cast<int>(random() % 9);
    for (int w = 0; w < words; ++w) {
      line += vocabulary[random() % vocabulary.size()];
      line += (random() % 5 == 0) ? "" : " ";
    }
    if (round % 1000 == 0) line += std::string(5000, 'x');
    if (round % 777 == 0) {
      for (int w = 0; w < 100; ++w)
        line += " show";
    }
    Output out;
    ASSERT_NO_THROW(registry.execute(line, out)) << line;
    if (out.failed()) {
      EXPECT_FALSE(out.errors().front().empty());
    }
    ASSERT_NO_THROW(registry.complete(line)) << line;
    ASSERT_NO_THROW(out.render_text());
    ASSERT_NO_THROW(out.render_json());
  }
}

}  // namespace
}  // namespace braid::control

namespace braid::control {
namespace {

// Which lines the control plane runs on its driver-read helper instead of the protocol loop.
TEST(RegistryReadsDriver, OnlyTheArgumentsItsCommandNamesAndNeverAnUnknownLine) {
  CommandRegistry registry;
  registry.define_param("port", {.help = "a port",
                                 .values =
                                     [] {
                                       return std::vector<std::string>{"wire", "m0"};
                                     },
                                 .strict = true});
  registry.add(
      "show port [stats|xstats|info] [<port>]", "ports", [](const Args&, Output&) {},
      [](const Args& args) {
        return args.pick({"stats", "xstats", "info"}, "stats") == "xstats";
      });
  registry.add("show drops", "drops", [](const Args&, Output&) {});
  EXPECT_TRUE(registry.reads_driver("show port xstats"));
  EXPECT_TRUE(registry.reads_driver("show port xstats m0"));
  EXPECT_FALSE(registry.reads_driver("show port"));
  EXPECT_FALSE(registry.reads_driver("show port stats m0"));
  EXPECT_FALSE(registry.reads_driver("show drops"));
  EXPECT_FALSE(registry.reads_driver("show port xstats nosuch"));  // an error, on the loop
  EXPECT_FALSE(registry.reads_driver(""));
  EXPECT_FALSE(registry.reads_driver(std::string(100'000, 'x')));
}

}  // namespace
}  // namespace braid::control
