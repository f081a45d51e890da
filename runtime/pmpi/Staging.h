// Buffers as collplan takes them: derived-datatype data packed into one contiguous range, and
// reduction buffers aligned to their element size, copied through the communicator's stages.
#pragma once

#include "runtime/pmpi/Interposer.h"

#include <cstddef>

namespace collplan::pmpi {

/// The data of `count` elements of `type` at `buf` as contiguous bytes: `buf` itself for a
/// predefined type, else packed into `stage` (MPI_Pack).
const void *contiguousSend(const void *buf, int count, MPI_Datatype type, MPI_Comm comm,
                           std::vector<unsigned char> &stage);

/// Where `count` elements of `type` at `buf` are received as bytes: `buf` itself for a
/// predefined type, else `stage`, unpacked into `buf` by finish(). `keep`: the buffer is also an
/// input (in place), so a staged one starts with its packed contents.
class ContiguousRecv {
public:
  ContiguousRecv(void *buf, int count, MPI_Datatype type, MPI_Comm comm,
                 std::vector<unsigned char> &stage, bool keep);
  unsigned char *bytes() const { return bytes_; }
  /// Unpacks a staged buffer into the caller's.
  void finish();

private:
  void *buf_;
  int count_;
  MPI_Datatype type_;
  MPI_Comm comm_;
  std::vector<unsigned char> &stage_;
  unsigned char *bytes_;
};

/// A reduction's buffers aligned to `element` bytes (collplan's requirement): the caller's, or
/// copies in the communicator's stages. The receive region [recv, recv + recvBytes) is copied
/// in when staged (in-place calls read it) and back by finish(); a send inside it (in place)
/// maps into the staged copy.
class AlignedReduction {
public:
  AlignedReduction(CommEntry &entry, size_t element, const void *send, size_t sendBytes,
                   void *recv, size_t recvBytes);
  const void *send() const { return send_; }
  void *recv() const { return recv_; }
  /// The staged address of `p`, a pointer into the receive region.
  void *inRecv(void *p) const;
  void finish();

private:
  unsigned char *userRecv_;
  size_t recvBytes_;
  const void *send_;
  void *recv_;
};

}  // namespace collplan::pmpi
