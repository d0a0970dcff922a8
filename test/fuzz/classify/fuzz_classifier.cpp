// libFuzzer target: hostile rules and hostile frames. The input's head builds a ClassifierSpec
// (any number of classes and rules, ranges out of bounds or reversed), the rest is a frame.
// Checks: spec_error() and the Classifier's constructor agree on what is valid; a valid spec's
// class for the frame is a configured class, is the same from the frame, from its parsed key and
// by the rules read literally (reference_classifier.hpp), and from the fields the l34 hash path
// reads where that path takes the frame, as the workers' burst pass does; and both fast field
// extractions (fields_from_frame, the hash path's l34_fields) agree with the parser wherever they
// take the frame.
//
// Input layout (test/fuzz/classify/make_corpus.py writes seeds in it):
//   u8 classes (low 4 bits), u8 default class, u8 rules (mod 70), then per rule:
//     u8 class, u8 flags (bit 0 inner, bit 1 roce), u8 fields (bit i: field i follows; fields in
//     order dscp, pcp, protocol, src_port, dst_port, roce_opcode, roce_dest_qp), and per field
//     u8 count (low 2 bits + 1 ranges; bit 7: keep reversed ranges) then per range two u24 values
//     (each taken modulo the field's maximum + 2, so one past the end occurs)
//   the frame: every byte left
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

#include "classify/classifier.hpp"
#include "classify/classify_burst.hpp"
#include "flow/l34_fast_path.hpp"
#include "flow/l34_fields.hpp"
#include "flow/parser.hpp"
#include "reference_classifier.hpp"

namespace {

using namespace braid;
using namespace braid::classify;

void check(bool condition) {
  if (!condition) std::abort();
}

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
  std::uint32_t u24() {
    const std::uint32_t high = u8();
    const std::uint32_t mid = u8();
    return high << 16 | mid << 8 | u8();
  }
  std::size_t offset() const { return std::min(at_, size_); }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

ValueSet read_values(Reader& in, std::uint32_t max) {
  const std::uint8_t count = in.u8();
  ValueSet values;
  for (unsigned i = 0; i < (count & 3U) + 1; ++i) {
    std::uint32_t first = in.u24() % (max + 2);
    std::uint32_t last = in.u24() % (max + 2);
    if ((count & 0x80U) == 0 && first > last) std::swap(first, last);
    values.push_back({first, last});
  }
  return values;
}

ClassifierSpec read_spec(Reader& in) {
  ClassifierSpec spec;
  const unsigned classes = in.u8() & 0x0FU;
  for (unsigned i = 0; i < classes; ++i)
    spec.classes.push_back({std::string(1, static_cast<char>('a' + i))});
  spec.default_class = in.u8();
  const unsigned rules = in.u8() % 70;
  for (unsigned i = 0; i < rules; ++i) {
    Rule rule;
    rule.class_id = in.u8();
    const std::uint8_t flags = in.u8();
    rule.header = (flags & 1U) != 0 ? HeaderLevel::inner : HeaderLevel::outer;
    rule.roce = (flags & 2U) != 0;
    const std::uint8_t fields = in.u8();
    const std::pair<ValueSet*, std::uint32_t> all[] = {
        {&rule.dscp, kMaxDscp},          {&rule.pcp, kMaxPcp},
        {&rule.protocol, kMaxProtocol},  {&rule.src_port, kMaxPort},
        {&rule.dst_port, kMaxPort},      {&rule.roce_opcode, kMaxBthOpcode},
        {&rule.roce_dest_qp, kMaxDestQp}};
    for (unsigned field = 0; field < 7; ++field) {
      if ((fields >> field & 1U) != 0) *all[field].first = read_values(in, all[field].second);
    }
    spec.rules.push_back(std::move(rule));
  }
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader in(data, size);
  const ClassifierSpec spec = read_spec(in);
  // Copy the frame into an exactly-sized heap buffer so ASan catches reads one byte past it.
  const std::vector<std::uint8_t> frame(data + in.offset(), data + size);
  const ByteSpan bytes(frame.data(), frame.size());

  const flow::FlowKey key = flow::parse_flow_key(bytes);
  FrameFields parsed;
  fields_from_key(key, parsed);
  FrameFields fast;
  if (fields_from_frame(bytes, fast)) check(fast == parsed);
  std::uint32_t hash = 0;
  const bool l34 = flow::try_hash_l34(bytes, hash);
  if (l34) check(fields_from_l34(flow::l34_fields(bytes)) == parsed.outer);

  const bool valid = spec_error(spec).empty();
  if (!valid) {
    try {
      const Classifier refused(spec);
      check(false);
    } catch (const std::invalid_argument&) {
    }
    return 0;
  }
  const Classifier classifier(spec);
  const ClassId id = classifier.classify(bytes);
  check(spec.classes.empty() ? id == 0 : id < spec.classes.size());
  check(id == classifier.classify(key));
  if (l34) check(id == classifier.classify(flow::l34_fields(bytes), bytes));
  // The workers' pass: the frame as the hash pass shows it (taken where the l34 path took it).
  ClassId in_burst = 0xFF;
  const BurstClassifier burst(classifier, &in_burst);
  burst(flow::L34Lanes{0, &bytes, 1, l34 ? 1u : 0u});
  check(in_burst == id);
  const int first = test::reference_first_rule(spec, parsed);
  check(classifier.first_rule(parsed) == first);
  check(id ==
        (first < 0 ? spec.default_class : spec.rules[static_cast<std::size_t>(first)].class_id));
  for (const Rule& rule : spec.rules)
    check(!describe(rule).empty());
  return 0;
}
