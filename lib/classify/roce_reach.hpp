// Which traffic classes RoCEv2 frames can reach, for the one policy that reorders within a flow
// (spray). A RoCE RC receiver takes a packet that arrives out of order as a loss: it NAKs and the
// sender goes back N, sending everything after it again, so a sprayed RoCE flow collapses unless
// every receiver places packets out of order (the operator says so: scheduler.
// out_of_order_placement). RoCE inside a tunnel (VXLAN, GRE) is not considered.
#pragma once

#include <string>
#include <string_view>

#include "classify/class_spec.hpp"

namespace braid::classify {

// Why RoCEv2 frames may be classified into class `id` ("rules[2] can match RoCEv2", "it is the
// default class and no rule before takes every RoCEv2 frame"), or "" when none can: a rule can
// match RoCEv2 unless it names a protocol other than UDP or destination ports without 4791 (its
// DSCP or PCP may be RoCE's), and an outer rule that names nothing else takes every RoCEv2 frame
// (none reaches a later rule or the default). A spec without classes: the bond's one table.
std::string roce_reach(const ClassifierSpec& spec, ClassId id);

// The refusal of spray on class `id` (a spec without classes: the bond itself) when RoCEv2 may
// reach it, naming `subject` ("class \"bulk\"", "bond uplink"); "" when none can.
std::string spray_on_roce_error(const ClassifierSpec& spec, ClassId id, std::string_view subject);

}  // namespace braid::classify
