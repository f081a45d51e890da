// The mpi backend's wire format: the header every message starts with, tags, size limits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace collplan::mpi {

/// What every message of a connection starts with: the sender's CallSignature (packed), so the
/// receiver refuses a message of another call, and the payload's size, so it refuses one of
/// another count or dtype and knows how much body follows.
struct MessageHeader {
  uint64_t signature = 0;
  uint64_t bytes = 0;
};

/// Payloads up to this size travel inside the header's message (one MPI message, copied into
/// a slot buffer on both sides); larger ones follow it as body messages sent straight from the
/// sender's staging. Each receiving connection keeps kChannelDepth slots of kSlotBytes posted.
constexpr size_t kInlineBytes = 8192;
constexpr size_t kSlotBytes = sizeof(MessageHeader) + kInlineBytes;
/// The largest body message: MPI counts are ints, so a larger body goes as several.
constexpr size_t kMaxPieceBytes = size_t(1) << 30;

/// What a message is, the low bits of its tag; the rest of the tag is the channel. Heads and
/// bodies use distinct tags so each is matched in order on its own (MPI never lets messages of
/// one source, tag and communicator overtake each other).
enum class TagKind : int { Head = 0, Body = 1, Notice = 2 };
constexpr int kTagKinds = 4;

constexpr int tagOf(uint32_t channel, TagKind kind) {
  return int(channel) * kTagKinds + int(kind);
}
/// The number of channels whose tags stay within MPI_TAG_UB (at least 32767 by the standard).
constexpr uint32_t channelsWithin(int tagUpperBound) {
  return uint32_t(tagUpperBound / kTagKinds);
}
/// The body messages of a payload of `bytes` (0 when it travels inline).
constexpr size_t bodyPieces(size_t bytes) {
  return bytes <= kInlineBytes ? 0 : (bytes + kMaxPieceBytes - 1) / kMaxPieceBytes;
}

}  // namespace collplan::mpi
