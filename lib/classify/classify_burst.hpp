// The workers' classification of a burst, done inside the hash pass (flow/l34_burst.hpp): for each
// group of frames the pass hashed, while their bytes are in L1, each frame's class from the fields
// at the offsets the l34 fast path checked where it took the frame (flow/l34_fields.hpp), else
// from the frame. Free of DPDK so the benchmark times the code the workers run
// (lib/bond/dpdk/bond_datapath.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "classify/classifier.hpp"
#include "flow/l34_burst.hpp"
#include "flow/l34_fields.hpp"

namespace braid::classify {

class BurstClassifier {
 public:
  // classes[i] receives the class of the burst's frame i.
  BurstClassifier(const Classifier& classifier, ClassId* classes)
      : classifier_(classifier), classes_(classes) {}

  void operator()(const flow::L34Lanes& group) const {
    for (unsigned i = 0; i < group.count; ++i) {
      const ByteSpan frame = group.frames[i];
      ClassId class_id = 0;
      if ((group.taken >> i & 1) != 0) {
        flow::L34Fields fields;
        flow::l34_fields(frame, fields);
        class_id = classifier_.classify(fields, frame);
      } else {
        class_id = classifier_.classify(frame);
      }
      classes_[group.start + i] = class_id;
    }
  }

  // For the hash pass's lane visitor.
  flow::LaneVisitor visitor() {
    return {[](void* self, const flow::L34Lanes& group) {
              (*static_cast<const BurstClassifier*>(self))(group);
            },
            this};
  }

 private:
  const Classifier& classifier_;
  ClassId* classes_;
};

using ClassCounts = std::array<std::uint64_t, kMaxClasses>;

// counts[c] += the frames of class c among classes[0..count): a compare per class over the burst,
// which the compiler vectorises; an increment in memory per frame instead waited for the one
// before whenever frames of a class followed each other.
inline void count_classes(const ClassId* classes, std::size_t count, std::size_t class_count,
                          ClassCounts& counts) {
  for (std::size_t c = 0; c < class_count; ++c)
    counts[c] +=
        static_cast<std::uint64_t>(std::count(classes, classes + count, static_cast<ClassId>(c)));
}

}  // namespace braid::classify
