// spec_error names every way a ClassifierSpec can be wrong; describe() spells rules back.
#include <gtest/gtest.h>

#include <string>

#include "classify/class_spec.hpp"

namespace braid::classify {
namespace {

ClassifierSpec two_classes() {
  ClassifierSpec spec;
  spec.classes = {{"storage"}, {"bulk"}};
  spec.default_class = 1;
  Rule rule;
  rule.class_id = 0;
  rule.pcp = {{3, 3}};
  spec.rules = {rule};
  return spec;
}

void expect_error(const ClassifierSpec& spec, const std::string& part) {
  const std::string error = spec_error(spec);
  EXPECT_NE(error.find(part), std::string::npos) << "error: \"" << error << "\"";
}

TEST(ClassSpec, ValidSpecsHaveNoError) {
  EXPECT_EQ(spec_error(two_classes()), "");
  EXPECT_EQ(spec_error(ClassifierSpec{}), "");
}

TEST(ClassSpec, EveryProblemIsNamed) {
  ClassifierSpec spec = two_classes();
  spec.classes.resize(9, ClassSpec{"x"});
  for (std::size_t i = 2; i < 9; ++i)
    spec.classes[i].name = "c" + std::to_string(i);
  expect_error(spec, "9 classes: a bond has at most 8");

  spec = two_classes();
  spec.classes[1].name = "storage";
  expect_error(spec, "class \"storage\" is defined twice");

  spec = two_classes();
  spec.classes[1].name = "";
  expect_error(spec, "class 1 has no name");

  spec = two_classes();
  spec.default_class = 2;
  expect_error(spec, "the default class is not a class");

  spec = two_classes();
  spec.rules[0].class_id = 5;
  expect_error(spec, "rules[0] names class 5 of 2");

  spec = two_classes();
  spec.rules[0].dscp = {{64, 64}};
  expect_error(spec, "rules[0] dscp 64 is out of range (0..63)");
  spec.rules[0].dscp = {};
  spec.rules[0].pcp = {{8, 8}};
  expect_error(spec, "rules[0] pcp 8 is out of range (0..7)");
  spec.rules[0].pcp = {};
  spec.rules[0].dst_port = {{5000, 4000}};
  expect_error(spec, "rules[0] dst_port range 5000-4000 is reversed");
  spec.rules[0].dst_port = {};
  spec.rules[0].roce_dest_qp = {{0, 0x1000000}};
  expect_error(spec, "roce_dest_qp 16777216 is out of range (0..16777215)");
  spec.rules[0].roce_dest_qp = {};
  expect_error(spec, "rules[0] names no field, so it matches every frame");
  spec.rules[0].header = HeaderLevel::inner;
  EXPECT_EQ(spec_error(spec), "");  // every tunnelled frame: meaningful

  spec = two_classes();
  spec.rules.assign(65, spec.rules[0]);
  expect_error(spec, "65 rules: a bond has at most 64");

  spec = two_classes();
  spec.default_class = 0;
  expect_error(spec, "class \"bulk\" gets no traffic");

  spec = ClassifierSpec{};
  spec.rules = two_classes().rules;
  expect_error(spec, "rules but no classes");
  spec.rules.clear();
  spec.default_class = 1;
  expect_error(spec, "a default class but no classes");
}

TEST(ClassSpec, DescribeSpellsTheRule) {
  Rule rule;
  rule.dscp = {{46, 46}};
  rule.protocol = {{6, 6}, {200, 210}};
  rule.dst_port = {{4420, 4421}, {3260, 3260}};
  EXPECT_EQ(describe(rule), "dscp 46 protocol tcp,200-210 dst_port 4420-4421,3260");
  Rule roce;
  roce.roce = true;
  roce.pcp = {{3, 3}};
  EXPECT_EQ(describe(roce), "pcp 3 roce");
  roce.roce_dest_qp = {{16, 31}};
  EXPECT_EQ(describe(roce), "pcp 3 roce_dest_qp 16-31");
  Rule inner;
  inner.header = HeaderLevel::inner;
  EXPECT_EQ(describe(inner), "inner");
  EXPECT_EQ(describe(Rule{}), "any");
}

TEST(ClassSpec, ProtocolNames) {
  EXPECT_EQ(protocol_number("tcp"), 6);
  EXPECT_EQ(protocol_number("icmpv6"), 58);
  EXPECT_EQ(protocol_number("esp"), -1);
  EXPECT_EQ(protocol_name(132), "sctp");
  EXPECT_EQ(protocol_name(50), "");
}

}  // namespace
}  // namespace braid::classify
