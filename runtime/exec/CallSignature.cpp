// CallSignature: bit packing, and the description of two calls that differ.
#include "runtime/exec/CallSignature.h"

namespace collplan {
namespace {

// Field widths, low bits first: collective 4, dtype 3, op 2, root 21, call 34.
constexpr int kKindBits = 4, kDTypeBits = 3, kOpBits = 2, kCallBits = 34;
constexpr int kDTypeShift = kKindBits, kOpShift = kDTypeShift + kDTypeBits;
constexpr int kRootShift = kOpShift + kOpBits;
constexpr int kCallShift = kRootShift + CallSignature::kMaxRootBits;
static_assert(kCallShift + kCallBits == 64);

constexpr uint64_t mask(int bits) { return (uint64_t(1) << bits) - 1; }

std::string describeCall(const CallSignature &s) {
  std::string text = std::string(toString(s.collective)) + " of " + std::string(toString(s.dtype));
  if (needsReduceOp(s.collective)) text += " with op " + std::string(toString(s.op));
  if (needsRoot(s.collective)) text += " with root " + std::to_string(s.root);
  return text;
}

}  // namespace

uint64_t CallSignature::pack() const {
  return uint64_t(collective) | uint64_t(dtype) << kDTypeShift | uint64_t(op) << kOpShift |
         (uint64_t(uint32_t(root)) & mask(kMaxRootBits)) << kRootShift |
         (call & mask(kCallBits)) << kCallShift;
}

CallSignature CallSignature::unpack(uint64_t packed) {
  CallSignature s;
  s.collective = CollectiveKind(packed & mask(kKindBits));
  s.dtype = DType(packed >> kDTypeShift & mask(kDTypeBits));
  s.op = ReduceOp(packed >> kOpShift & mask(kOpBits));
  s.root = int(packed >> kRootShift & mask(kMaxRootBits));
  s.call = packed >> kCallShift;
  return s;
}

std::string CallSignature::differences(const CallSignature &theirs, int peer) const {
  const std::string them = "rank " + std::to_string(peer);
  if ((call & mask(kCallBits)) != theirs.call)
    return them + " sent a message of its call " + std::to_string(theirs.call + 1) + " (" +
           describeCall(theirs) + ") to this rank's call " +
           std::to_string((call & mask(kCallBits)) + 1) + " (" + describeCall(*this) +
           "): a rank skipped a call or made an extra one";
  return them + " called " + describeCall(theirs) + ", this rank " + describeCall(*this);
}

}  // namespace collplan
