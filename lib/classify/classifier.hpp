// A bond's traffic classifier: its ClassifierSpec compiled into lookup tables. Each rule is one
// bit of a 64-bit mask; per header level (outer, inner) every field has a table giving, for each
// value the field can take (absent included), the rules that accept it. A frame's class is the
// class of the lowest bit left after AND-ing its fields' masks (the first matching rule), or the
// default class. Small fields (PCP, DSCP, protocol, BTH opcode) are direct tables, ports a
// two-level direct table, QP ranges elementary intervals found by binary search. Ports and QPs no
// rule names cost nothing.
//
// Immutable once built, so workers may share one; the control thread builds a new one on a config
// change (and will publish it the way distribution tables are).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "classify/class_spec.hpp"
#include "classify/frame_fields.hpp"
#include "common/bytes.hpp"
#include "flow/flow_key.hpp"

namespace braid::classify {

using RuleMask = std::uint64_t;
static_assert(kMaxRules <= 64, "one bit per rule in a RuleMask");

// Sorted elementary intervals over a field's values: masks[i] holds for starts[i]..starts[i+1]-1.
struct IntervalTable {
  std::vector<std::uint32_t> starts;  // starts[0] == 0
  std::vector<RuleMask> masks;
  bool used = false;  // some rule names the field

  // The interval holding `value`: the last start not above it (starts[0] is 0, so there is
  // one). Branch-free halving: ports are random from packet to packet, and the compares of a
  // branchy binary search were mispredicted about every other step.
  RuleMask lookup(std::uint32_t value) const {
    const std::uint32_t* base = starts.data();
    for (std::size_t left = starts.size(); left > 1;) {
      const std::size_t half = left / 2;
      base = base[half] <= value ? base + half : base;
      left -= half;
    }
    return masks[static_cast<std::size_t>(base - starts.data())];
  }
};

// A port's masks in two levels: its high byte picks a block, its low byte the mask in it. A block
// whose 256 ports share one mask is that one mask (its low byte is ignored), and alike blocks are
// stored once: a config's few port ranges leave most ports in a handful of masks, so their lookups
// stay in a few cache lines (random ports into 2 KiB blocks missed L1 under the frames' own
// traffic), and a block with a range boundary in it costs 2 KiB. Two loads per lookup, where a
// binary search over the boundaries took one dependent load per halving (7 for 64 rules).
struct PortTable {
  // Per high byte: the block's first index in masks (low 24 bits) and 0xFF where the low byte
  // picks within it, 0 for a block of one mask (the top 8).
  std::array<std::uint32_t, 256> blocks{};
  std::vector<RuleMask> masks;
  bool used = false;  // some rule names the field

  RuleMask lookup(std::uint16_t port) const {
    const std::uint32_t block = blocks[port >> 8];
    return masks[(block & 0xFFFFFF) + (port & block >> 24)];
  }
};

struct LevelTables {
  RuleMask rules = 0;                         // the rules that read this level
  RuleMask port_rules = 0;                    // the rules that need ports (src_port or dst_port)
  std::array<RuleMask, kMaxPcp + 2> pcp{};    // [kNoPcp]: untagged
  std::array<RuleMask, kMaxDscp + 2> dscp{};  // [kNoDscp]: not IP
  std::array<RuleMask, kMaxProtocol + 2> protocol{};      // [kNoProtocol]: not IP
  std::array<RuleMask, kMaxBthOpcode + 2> roce_opcode{};  // [kNoRoceOpcode]: not RoCEv2
  PortTable src_port;
  PortTable dst_port;
  IntervalTable roce_dest_qp;
};

class Classifier {
 public:
  // Throws std::invalid_argument with spec_error(spec) when the spec is not valid. A spec with
  // no classes gives a classifier that puts every frame in class 0.
  explicit Classifier(const ClassifierSpec& spec);

  ClassId classify(const FrameFields& fields) const {
    const RuleMask matched = matches(fields);
    return matched == 0 ? default_class_ : rule_class_[__builtin_ctzll(matched)];
  }

  // For a frame the hash path has parsed.
  ClassId classify(const flow::FlowKey& key) const;
  // For a frame without a key: the fast path, or the flow parser for the other shapes.
  ClassId classify(ByteSpan frame) const;
  // For a frame the l34 hash path took, with the fields it read (flow/l34_fields.hpp): the tables
  // alone, unless the frame is VXLAN and some rule reads inner headers (then from the frame).
  ClassId classify(const flow::L34Fields& l34, ByteSpan frame) const {
    // One branch, rarely taken: UDP or not is random frame by frame on a storage mix.
    const bool vxlan = (l34.protocol == flow::kIpProtoUdp) & (l34.dst_port == flow::kUdpPortVxlan);
    if (has_inner_rules_ & vxlan) return classify(frame);
    const RuleMask matched = match(outer_, fields_from_l34(l34));
    return matched == 0 ? default_class_ : rule_class_[__builtin_ctzll(matched)];
  }

  // The first rule a frame matches (its index in the spec), or -1: the default class.
  int first_rule(const FrameFields& fields) const;

  const ClassifierSpec& spec() const { return spec_; }

 private:
  RuleMask matches(const FrameFields& fields) const {
    RuleMask matched = match(outer_, fields.outer);
    if (has_inner_rules_ && fields.tunnel) matched |= match(inner_, fields.inner);
    return matched;
  }

  // No branch on the frame's fields (mixed traffic makes them unpredictable): absent ports and
  // QPs select masks with conditional moves; only "does some rule name this field" branches, and
  // that is the same for every frame.
  static RuleMask match(const LevelTables& tables, const HeaderFields& fields) {
    const RuleMask matched = tables.rules & tables.pcp[fields.pcp] & tables.dscp[fields.dscp] &
                             tables.protocol[fields.protocol] &
                             tables.roce_opcode[fields.roce_opcode];
    RuleMask ports = ~RuleMask{0};
    if (tables.src_port.used) ports &= tables.src_port.lookup(fields.src_port);
    if (tables.dst_port.used) ports &= tables.dst_port.lookup(fields.dst_port);
    ports = fields.has_ports ? ports : ~tables.port_rules;
    // A frame that is not RoCEv2 already failed every rule that needs it (roce_opcode table).
    RuleMask queue_pair = ~RuleMask{0};
    if (tables.roce_dest_qp.used) queue_pair = tables.roce_dest_qp.lookup(fields.roce_dest_qp);
    return matched & ports & queue_pair;
  }

  ClassifierSpec spec_;
  LevelTables outer_;
  LevelTables inner_;
  std::array<ClassId, kMaxRules> rule_class_{};
  ClassId default_class_ = 0;
  bool has_inner_rules_ = false;
};

}  // namespace braid::classify
