// The MPI calls libcollplan-mpi.so defines besides the blocking collectives: communicator
// release and MPI_Finalize (collplan communicators go first), and the non-blocking collectives,
// which go to the MPI library and are counted.
#include "runtime/pmpi/Interposer.h"

using namespace collplan::pmpi;

namespace {

/// Counts a non-blocking call the program made (collplan's own go uncounted) and returns `fn`'s
/// MPI library call.
template <class Forward>
int nonBlocking(Function fn, Forward forward) {
  if (!InsideCollplan::active()) Interposer::instance().count(fn, Fallback::NonBlocking);
  return forward();
}

}  // namespace

extern "C" {

int MPI_Comm_free(MPI_Comm *comm) {
  if (!InsideCollplan::active() && comm) Interposer::instance().forget(*comm);
  return PMPI_Comm_free(comm);
}

int MPI_Comm_disconnect(MPI_Comm *comm) {
  if (!InsideCollplan::active() && comm) Interposer::instance().forget(*comm);
  return PMPI_Comm_disconnect(comm);
}

int MPI_Finalize(void) {
  Interposer::instance().finalize();
  return PMPI_Finalize();
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  return nonBlocking(Function::Iallreduce, [&] {
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  });
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  return nonBlocking(Function::Iallgather, [&] {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           request);
  });
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request) {
  return nonBlocking(Function::IreduceScatterBlock, [&] {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
  });
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  return nonBlocking(Function::Ialltoall, [&] {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request);
  });
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request) {
  return nonBlocking(Function::Ibcast, [&] {
    return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  });
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request) {
  return nonBlocking(Function::Ireduce, [&] {
    return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
  });
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request) {
  return nonBlocking(Function::Igather, [&] {
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        request);
  });
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request) {
  return nonBlocking(Function::Iscatter, [&] {
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         request);
  });
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  return nonBlocking(Function::Ibarrier, [&] { return PMPI_Ibarrier(comm, request); });
}

}  // extern "C"
