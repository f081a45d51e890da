// CallSignature: what every rank must agree on for one collective call, carried by its messages.
#pragma once

#include "runtime/core/Collective.h"

#include <cstdint>
#include <string>

namespace collplan {

/// The arguments every rank of a call must pass alike (message sizes already catch counts and
/// dtype sizes), and the call's number on its rank, so a receiver can tell a message of another
/// call: a different collective, dtype, reduction op or root, or a rank that skipped or added a
/// call. Travels packed in 64 bits with every message.
struct CallSignature {
  CollectiveKind collective = CollectiveKind::AllReduce;
  DType dtype = DType::F32;
  ReduceOp op = ReduceOp::Sum;  ///< Sum for collectives that do not reduce
  int root = 0;                 ///< 0 for unrooted collectives
  uint64_t call = 0;            ///< calls this rank made before, counted modulo 2^34

  static constexpr int kMaxRootBits = 21;  ///< roots below 2^21 (ranks are at most 2^20)

  uint64_t pack() const;
  static CallSignature unpack(uint64_t packed);
  bool operator==(const CallSignature &o) const { return pack() == o.pack(); }

  /// "rank 1 called reduce with root 2, this rank reduce with root 0": what differs between
  /// this rank's call and `theirs`, received from `peer`.
  std::string differences(const CallSignature &theirs, int peer) const;
};

}  // namespace collplan
