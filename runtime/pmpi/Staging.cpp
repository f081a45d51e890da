// Packing of derived datatypes and alignment of reduction buffers for libcollplan-mpi.so.
#include "runtime/pmpi/Staging.h"

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace collplan::pmpi {
namespace {

/// MPI_Pack and MPI_Unpack take int sizes.
int packSize(size_t bytes) {
  if (bytes > size_t(INT_MAX)) {
    std::fprintf(stderr, "collplan-mpi: a derived-datatype buffer of %zu bytes is over MPI_Pack's "
                         "INT_MAX limit\n", bytes);
    PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_COUNT);
  }
  return int(bytes);
}

bool isAligned(const void *p, size_t element) {
  return element <= 1 || reinterpret_cast<uintptr_t>(p) % element == 0;
}

}  // namespace

const void *contiguousSend(const void *buf, int count, MPI_Datatype type, MPI_Comm comm,
                           std::vector<unsigned char> &stage) {
  if (isPredefined(type)) return buf;
  stage.resize(dataBytes(count, type));
  int position = 0;
  PMPI_Pack(buf, count, type, stage.data(), packSize(stage.size()), &position, comm);
  return stage.data();
}

ContiguousRecv::ContiguousRecv(void *buf, int count, MPI_Datatype type, MPI_Comm comm,
                               std::vector<unsigned char> &stage, bool keep)
    : buf_(buf), count_(count), type_(type), comm_(comm), stage_(stage),
      bytes_(static_cast<unsigned char *>(buf)) {
  if (isPredefined(type)) return;
  stage.resize(dataBytes(count, type));
  bytes_ = stage.data();
  if (!keep) return;
  int position = 0;
  PMPI_Pack(buf, count, type, stage.data(), packSize(stage.size()), &position, comm);
}

void ContiguousRecv::finish() {
  if (bytes_ == buf_) return;
  int position = 0;
  PMPI_Unpack(stage_.data(), packSize(stage_.size()), &position, buf_, count_, type_, comm_);
}

AlignedReduction::AlignedReduction(CommEntry &entry, size_t element, const void *send,
                                   size_t sendBytes, void *recv, size_t recvBytes)
    : userRecv_(static_cast<unsigned char *>(recv)), recvBytes_(recvBytes), send_(send),
      recv_(recv) {
  const auto *sendBytesAt = static_cast<const unsigned char *>(send);
  const bool sendInRecv = recv && send && sendBytesAt >= userRecv_ &&
                          sendBytesAt < userRecv_ + recvBytes;
  if (recv && recvBytes > 0 && !isAligned(recv, element)) {
    entry.recvStage.assign(userRecv_, userRecv_ + recvBytes);
    recv_ = entry.recvStage.data();
  } else {
    userRecv_ = nullptr;  // nothing to copy back
  }
  if (sendInRecv) {
    send_ = userRecv_ ? entry.recvStage.data() + (sendBytesAt - static_cast<unsigned char *>(recv))
                      : send;
  } else if (send && sendBytes > 0 && !isAligned(send, element)) {
    entry.sendStage.assign(sendBytesAt, sendBytesAt + sendBytes);
    send_ = entry.sendStage.data();
  }
}

void *AlignedReduction::inRecv(void *p) const {
  if (!userRecv_) return p;
  return static_cast<unsigned char *>(recv_) + (static_cast<unsigned char *>(p) - userRecv_);
}

void AlignedReduction::finish() {
  if (userRecv_ && recvBytes_) std::memcpy(userRecv_, recv_, recvBytes_);
}

}  // namespace collplan::pmpi
