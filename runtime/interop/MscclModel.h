// The MSCCL XML vocabulary (step types, buffers, collectives) as enums, for import and export.
// MSCCL++ plans name buffers and collectives alike.
#pragma once

#include "runtime/core/Collective.h"

#include <optional>
#include <string>
#include <string_view>

namespace collplan {

/// A step's `type` (the executor's MSCCL_SEND ... MSCCL_REDUCE, and nop).
enum class MscclStepType : uint8_t {
  Send,               ///< s: send src
  Recv,               ///< r: receive into dst
  RecvCopySend,       ///< rcs: receive into dst and send it on
  RecvReduceSend,     ///< rrs: send src (op) received, store nothing
  RecvReduceCopy,     ///< rrc: dst = src (op) received
  RecvReduceCopySend, ///< rrcs: dst = src (op) received, and send it
  Copy,               ///< cpy: dst = src
  Reduce,             ///< re: dst = dst (op) src
  Nop,                ///< nop: waits for its dependency only
};

std::string_view toString(MscclStepType type);
std::optional<MscclStepType> parseMscclStepType(std::string_view name);
/// "s, r, rcs, rrs, rrc, rrcs, cpy, re, nop", for messages.
std::string mscclStepTypeNames();

bool stepReceives(MscclStepType type);
bool stepSends(MscclStepType type);
bool stepReadsSrc(MscclStepType type);
bool stepWritesDst(MscclStepType type);

/// `i`, `o`, `s` ⇄ in, out, tmp.
std::string_view mscclBufferName(BufferKind buf);
std::optional<BufferKind> parseMscclBuffer(std::string_view name);

/// The executor's `coll` name of a collective (reducescatter for reduce_scatter), or nothing
/// for the collectives the XML cannot express (barrier; the rooted ones, whose root it lacks).
std::optional<std::string_view> mscclCollectiveName(CollectiveKind kind);
std::optional<CollectiveKind> parseMscclCollective(std::string_view name);
/// The collective names import accepts, for messages.
std::string mscclCollectiveNames();

} // namespace collplan
