// The MPI collectives of libcollplan-mpi.so: each runs as a collplan call on the communicator's
// collplan communicator, or goes to the MPI library's PMPI_ function, counted with its reason.
#include "runtime/pmpi/Staging.h"

#include <cstdio>
#include <cstring>

namespace collplan::pmpi {
namespace {

/// Reports a failed collplan call through the communicator's error handler (fatal by default).
int failed(Function fn, MPI_Comm comm) {
  std::fprintf(stderr, "collplan-mpi: %s failed: %s\n", std::string(mpiName(fn)).c_str(),
               collplan_last_error());
  PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

/// Runs `run(entry)` (which returns a fallback, or makes the collplan call and returns
/// Fallback::None with its status in `status`) unless the call must go to MPI: `forward()`.
template <class Run, class Forward>
int intercept(Function fn, MPI_Comm comm, Run run, Forward forward) {
  if (InsideCollplan::active() || comm == MPI_COMM_NULL) return forward();
  Interposer &lib = Interposer::instance();
  if (lib.disabled()) {
    lib.count(fn, Fallback::Disabled);
    return forward();
  }
  CommEntry &entry = lib.entry(comm);
  Fallback why = entry.unavailable;
  collplan_status_t status = COLLPLAN_SUCCESS;
  if (why == Fallback::None) {
    InsideCollplan inside;
    why = run(entry, status);
  }
  lib.count(fn, why);
  if (why != Fallback::None) return forward();
  return status == COLLPLAN_SUCCESS ? MPI_SUCCESS : failed(fn, comm);
}

/// A call of collective `kind` moving bytes (every predefined type moves as its bytes).
collplan_call_t bytesCall(collplan_collective_t kind, size_t bytes, int root = 0) {
  collplan_call_t call{};
  call.collective = kind;
  call.send_bytes = call.recv_bytes = COLLPLAN_SIZE_UNKNOWN;
  call.count = bytes;
  call.dtype = COLLPLAN_U8;
  call.op = COLLPLAN_SUM;
  call.root = root;
  return call;
}

/// A reduction of `count` (checked: >= 0) elements of `type` by `op`, or why collplan cannot
/// run it.
Fallback reductionCall(collplan_collective_t kind, int count, MPI_Datatype type, MPI_Op op,
                       int root, collplan_call_t &call) {
  call = bytesCall(kind, size_t(count), root);
  if (Fallback why = reductionType(type, call.dtype); why != Fallback::None) return why;
  return reductionOp(op, call.op);
}

/// The element size of a reduction call's dtype.
size_t elementBytes(const collplan_call_t &call) { return collplan_dtype_size(call.dtype); }

}  // namespace
}  // namespace collplan::pmpi

using namespace collplan::pmpi;

extern "C" {

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  auto run = [&](CommEntry &entry, collplan_status_t &status) {
    if (Fallback why = checkArguments({count}); why != Fallback::None) return why;
    collplan_call_t call;
    if (Fallback why = reductionCall(COLLPLAN_ALLREDUCE, count, datatype, op, 0, call);
        why != Fallback::None)
      return why;
    const size_t bytes = call.count * elementBytes(call);
    AlignedReduction buffers(entry, elementBytes(call), sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                             bytes, recvbuf, bytes);
    call.send = buffers.send();
    call.recv = buffers.recv();
    if ((status = collplan_call(entry.comm, &call)) == COLLPLAN_SUCCESS) buffers.finish();
    return Fallback::None;
  };
  return intercept(Function::Allreduce, comm, run, [&] {
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  });
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  auto run = [&](CommEntry &entry, collplan_status_t &status) {
    if (Fallback why = checkArguments({count}, root, entry.size); why != Fallback::None)
      return why;
    collplan_call_t call;
    if (Fallback why = reductionCall(COLLPLAN_REDUCE, count, datatype, op, root, call);
        why != Fallback::None)
      return why;
    const size_t bytes = call.count * elementBytes(call);
    const bool atRoot = entry.rank == root;
    void *recv = atRoot ? recvbuf : nullptr;
    AlignedReduction buffers(entry, elementBytes(call), sendbuf == MPI_IN_PLACE ? recv : sendbuf,
                             bytes, recv, atRoot ? bytes : 0);
    call.send = buffers.send();
    call.recv = buffers.recv();
    if ((status = collplan_call(entry.comm, &call)) == COLLPLAN_SUCCESS) buffers.finish();
    return Fallback::None;
  };
  return intercept(Function::Reduce, comm, run, [&] {
    return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  });
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  auto run = [&](CommEntry &entry, collplan_status_t &status) {
    if (Fallback why = checkArguments({recvcount}); why != Fallback::None) return why;
    collplan_call_t call;
    if (Fallback why =
            reductionCall(COLLPLAN_REDUCE_SCATTER, recvcount, datatype, op, 0, call);
        why != Fallback::None)
      return why;
    const size_t block = call.count * elementBytes(call);
    const bool inPlace = sendbuf == MPI_IN_PLACE;
    // In place, MPI reads the whole input from recvbuf and leaves the result at its start;
    // collplan's in-place form leaves it at the rank's own block, moved to the start after.
    auto *whole = static_cast<unsigned char *>(recvbuf);
    AlignedReduction buffers(entry, elementBytes(call), inPlace ? recvbuf : sendbuf,
                             block * size_t(entry.size), recvbuf,
                             inPlace ? block * size_t(entry.size) : block);
    call.send = buffers.send();
    call.recv = inPlace ? buffers.inRecv(whole + block * size_t(entry.rank)) : buffers.recv();
    if ((status = collplan_call(entry.comm, &call)) != COLLPLAN_SUCCESS) return Fallback::None;
    buffers.finish();
    if (inPlace && entry.rank != 0) std::memmove(whole, whole + block * size_t(entry.rank), block);
    return Fallback::None;
  };
  return intercept(Function::ReduceScatterBlock, comm, run, [&] {
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  });
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto run = [&](CommEntry &entry, collplan_status_t &status) {
    const bool inPlace = sendbuf == MPI_IN_PLACE;  // the send arguments mean nothing then
    if (Fallback why = checkArguments({inPlace ? 0 : sendcount, recvcount}); why != Fallback::None)
      return why;
    const size_t block = dataBytes(recvcount, recvtype);
    ContiguousRecv recv(recvbuf, recvcount * entry.size, recvtype, comm, entry.recvStage, inPlace);
    collplan_call_t call = bytesCall(COLLPLAN_ALLGATHER, block);
    call.recv = recv.bytes();
    call.send = inPlace ? recv.bytes() + block * size_t(entry.rank)
                        : contiguousSend(sendbuf, sendcount, sendtype, comm, entry.sendStage);
    if ((status = collplan_call(entry.comm, &call)) == COLLPLAN_SUCCESS) recv.finish();
    return Fallback::None;
  };
  return intercept(Function::Allgather, comm, run, [&] {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto run = [&](CommEntry &entry, collplan_status_t &status) {
    const bool inPlace = sendbuf == MPI_IN_PLACE;  // the send arguments mean nothing then
    if (Fallback why = checkArguments({inPlace ? 0 : sendcount, recvcount}); why != Fallback::None)
      return why;
    ContiguousRecv recv(recvbuf, recvcount * entry.size, recvtype, comm, entry.recvStage, inPlace);
    collplan_call_t call = bytesCall(COLLPLAN_ALLTOALL, dataBytes(recvcount, recvtype));
    call.recv = recv.bytes();
    call.send = inPlace ? recv.bytes()
                        : contiguousSend(sendbuf, sendcount * entry.size, sendtype, comm,
                                         entry.sendStage);
    if ((status = collplan_call(entry.comm, &call)) == COLLPLAN_SUCCESS) recv.finish();
    return Fallback::None;
  };
  return intercept(Function::Alltoall, comm, run, [&] {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  auto run = [&](CommEntry &entry, collplan_status_t &status) {
    if (Fallback why = checkArguments({count}, root, entry.size); why != Fallback::None)
      return why;
    ContiguousRecv data(buffer, count, datatype, comm, entry.recvStage, entry.rank == root);
    collplan_call_t call = bytesCall(COLLPLAN_BROADCAST, dataBytes(count, datatype), root);
    call.send = call.recv = data.bytes();
    if ((status = collplan_call(entry.comm, &call)) == COLLPLAN_SUCCESS && entry.rank != root)
      data.finish();
    return Fallback::None;
  };
  return intercept(Function::Bcast, comm, run,
                   [&] { return PMPI_Bcast(buffer, count, datatype, root, comm); });
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto run = [&](CommEntry &entry, collplan_status_t &status) {
    // Receive arguments count at the root only, and the root's own send arguments not in place.
    const bool atRoot = entry.rank == root, inPlace = sendbuf == MPI_IN_PLACE;
    if (Fallback why = checkArguments({atRoot && inPlace ? 0 : sendcount, atRoot ? recvcount : 0},
                                      root, entry.size);
        why != Fallback::None)
      return why;
    collplan_call_t call = bytesCall(COLLPLAN_GATHER, 0, root);
    if (!atRoot) {
      call.count = dataBytes(sendcount, sendtype);
      call.send = contiguousSend(sendbuf, sendcount, sendtype, comm, entry.sendStage);
      status = collplan_call(entry.comm, &call);
      return Fallback::None;
    }
    call.count = dataBytes(recvcount, recvtype);
    ContiguousRecv recv(recvbuf, recvcount * entry.size, recvtype, comm, entry.recvStage, inPlace);
    call.recv = recv.bytes();
    call.send = inPlace ? recv.bytes() + call.count * size_t(root)
                        : contiguousSend(sendbuf, sendcount, sendtype, comm, entry.sendStage);
    if ((status = collplan_call(entry.comm, &call)) == COLLPLAN_SUCCESS) recv.finish();
    return Fallback::None;
  };
  return intercept(Function::Gather, comm, run, [&] {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto run = [&](CommEntry &entry, collplan_status_t &status) {
    // Send arguments count at the root only, and the root's own receive arguments not in place.
    const bool atRoot = entry.rank == root, inPlace = recvbuf == MPI_IN_PLACE;
    if (Fallback why = checkArguments({atRoot ? sendcount : 0, atRoot && inPlace ? 0 : recvcount},
                                      root, entry.size);
        why != Fallback::None)
      return why;
    collplan_call_t call = bytesCall(COLLPLAN_SCATTER, 0, root);
    if (!atRoot) {
      call.count = dataBytes(recvcount, recvtype);
      ContiguousRecv recv(recvbuf, recvcount, recvtype, comm, entry.recvStage, false);
      call.recv = recv.bytes();
      if ((status = collplan_call(entry.comm, &call)) == COLLPLAN_SUCCESS) recv.finish();
      return Fallback::None;
    }
    call.count = dataBytes(sendcount, sendtype);
    const auto *send = static_cast<const unsigned char *>(
        contiguousSend(sendbuf, sendcount * entry.size, sendtype, comm, entry.sendStage));
    call.send = send;
    if (inPlace) {  // the root's block stays where it is
      call.recv = const_cast<unsigned char *>(send) + call.count * size_t(root);
      status = collplan_call(entry.comm, &call);
      return Fallback::None;
    }
    ContiguousRecv recv(recvbuf, recvcount, recvtype, comm, entry.recvStage, false);
    call.recv = recv.bytes();
    if ((status = collplan_call(entry.comm, &call)) == COLLPLAN_SUCCESS) recv.finish();
    return Fallback::None;
  };
  return intercept(Function::Scatter, comm, run, [&] {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

int MPI_Barrier(MPI_Comm comm) {
  auto run = [&](CommEntry &entry, collplan_status_t &status) {
    status = collplan_barrier(entry.comm);
    return Fallback::None;
  };
  return intercept(Function::Barrier, comm, run, [&] { return PMPI_Barrier(comm); });
}

}  // extern "C"
