// Communicator bindings: collectives on NumPy arrays, the GIL released while a call runs.
#include "PyComm.h"

#include "PyConvert.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace collplan::python {
namespace {

using Array = std::optional<py::array>;

int sizeOf(PyComm &c) { return c.comm().size(); }
int rankOf(PyComm &c) { return c.comm().rank(); }

/// Runs a C API call without the GIL (peers in other threads need it to reach the same call),
/// turning a failure into collplan.Error.
template <typename Call> void callReleased(Call &&call) {
  collplan_status_t status;
  {
    py::gil_scoped_release released;
    status = call();
  }
  if (status != COLLPLAN_SUCCESS) throw Error(status, collplan_last_error());
}

/// `recv`, or a new zero-filled array of `count` elements like `send`.
py::array recvOrNew(const Array &recv, const py::array &send, size_t count) {
  return recv ? *recv : zerosLike(send, count);
}

void requireSize(const Buffer &b, size_t count, const char *what) {
  if (b.count != count)
    throw py::value_error(std::string(what) + " has " + std::to_string(b.count) +
                          " elements, this call needs " + std::to_string(count));
}

void requireSameDtype(const Buffer &a, const Buffer &b) {
  if (a.dtype != b.dtype) throw py::type_error("send and recv must have the same dtype");
}

/// The per-rank block of `send` for collectives whose send holds one block per rank.
size_t blockOf(const Buffer &send, int ranks, const char *collective) {
  if (send.count % size_t(ranks) != 0)
    throw py::value_error(std::string(collective) + ": send has " + std::to_string(send.count) +
                          " elements, not a multiple of the " + std::to_string(ranks) + " ranks");
  return send.count / size_t(ranks);
}

py::array allreduce(PyComm &c, const py::array &send, const Array &recvArg, const std::string &op) {
  const Buffer s = bufferOf(send, "send", false);
  py::array recv = recvOrNew(recvArg, send, s.count);
  const Buffer r = bufferOf(recv, "recv", true);
  requireSameDtype(s, r);
  requireSize(r, s.count, "recv");
  const collplan_op_t o = parseOp(op);
  callReleased([&] { return collplan_allreduce(c.handle(), s.data, r.data, s.count, s.dtype, o); });
  return recv;
}

py::array allgather(PyComm &c, const py::array &send, const Array &recvArg) {
  const Buffer s = bufferOf(send, "send", false);
  const size_t total = s.count * size_t(sizeOf(c));
  py::array recv = recvOrNew(recvArg, send, total);
  const Buffer r = bufferOf(recv, "recv", true);
  requireSameDtype(s, r);
  requireSize(r, total, "recv");
  callReleased([&] { return collplan_allgather(c.handle(), s.data, r.data, s.count, s.dtype); });
  return recv;
}

py::array reduceScatter(PyComm &c, const py::array &send, const Array &recvArg,
                        const std::string &op) {
  const Buffer s = bufferOf(send, "send", false);
  const size_t block = blockOf(s, sizeOf(c), "reduce_scatter");
  py::array recv = recvOrNew(recvArg, send, block);
  const Buffer r = bufferOf(recv, "recv", true);
  requireSameDtype(s, r);
  requireSize(r, block, "recv");
  const collplan_op_t o = parseOp(op);
  callReleased(
      [&] { return collplan_reduce_scatter(c.handle(), s.data, r.data, block, s.dtype, o); });
  return recv;
}

py::array alltoall(PyComm &c, const py::array &send, const Array &recvArg) {
  const Buffer s = bufferOf(send, "send", false);
  const size_t block = blockOf(s, sizeOf(c), "alltoall");
  py::array recv = recvOrNew(recvArg, send, s.count);
  const Buffer r = bufferOf(recv, "recv", true);
  requireSameDtype(s, r);
  requireSize(r, s.count, "recv");
  callReleased([&] { return collplan_alltoall(c.handle(), s.data, r.data, block, s.dtype); });
  return recv;
}

py::array broadcast(PyComm &c, const py::array &buffer, int root) {
  const Buffer b = bufferOf(buffer, "buffer", true);
  callReleased(
      [&] { return collplan_broadcast(c.handle(), b.data, b.data, b.count, b.dtype, root); });
  return buffer;
}

/// The root's result array (the given recv or a new one); None elsewhere.
py::object reduce(PyComm &c, const py::array &send, const Array &recvArg, const std::string &op,
                  int root) {
  const Buffer s = bufferOf(send, "send", false);
  const bool isRoot = rankOf(c) == root;
  std::optional<py::array> recv;
  if (isRoot) recv = recvOrNew(recvArg, send, s.count);
  Buffer r;
  if (recv) {
    r = bufferOf(*recv, "recv", true);
    requireSameDtype(s, r);
    requireSize(r, s.count, "recv");
  }
  const collplan_op_t o = parseOp(op);
  callReleased(
      [&] { return collplan_reduce(c.handle(), s.data, r.data, s.count, s.dtype, o, root); });
  return recv ? py::object(*recv) : py::none();
}

py::object gather(PyComm &c, const py::array &send, const Array &recvArg, int root) {
  const Buffer s = bufferOf(send, "send", false);
  std::optional<py::array> recv;
  const size_t total = s.count * size_t(sizeOf(c));
  if (rankOf(c) == root) recv = recvOrNew(recvArg, send, total);
  Buffer r;
  if (recv) {
    r = bufferOf(*recv, "recv", true);
    requireSameDtype(s, r);
    requireSize(r, total, "recv");
  }
  callReleased([&] { return collplan_gather(c.handle(), s.data, r.data, s.count, s.dtype, root); });
  return recv ? py::object(*recv) : py::none();
}

py::array scatter(PyComm &c, const Array &send, const py::array &recv, int root) {
  const Buffer r = bufferOf(recv, "recv", true);
  Buffer s;
  if (rankOf(c) == root) {
    if (!send) throw py::value_error("scatter: the root needs send (ranks x recv.size elements)");
    s = bufferOf(*send, "send", false);
    requireSameDtype(s, r);
    requireSize(s, r.count * size_t(sizeOf(c)), "send");
  }
  callReleased([&] { return collplan_scatter(c.handle(), s.data, r.data, r.count, r.dtype, root); });
  return recv;
}

/// Runs body(comm) on one thread per rank of a new cpu-threads world; returns what each rank's
/// body returned, in rank order. The first exception a body raised is raised again here.
py::list runThreads(int ranks, const py::function &body, const std::optional<std::string> &bundle,
                    const std::optional<std::string> &topology) {
  auto world = std::make_shared<World>(World::threads(
      ranks, bundle ? bundle->c_str() : nullptr, topology ? topology->c_str() : nullptr));
  std::vector<std::shared_ptr<PyComm>> comms;
  for (int r = 0; r < ranks; ++r) comms.push_back(std::make_shared<PyComm>(nullptr, world->comm(r)));
  std::vector<py::object> results(static_cast<size_t>(ranks));
  std::vector<std::optional<py::error_already_set>> errors(static_cast<size_t>(ranks));
  {
    py::gil_scoped_release released;
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&, r] {
        py::gil_scoped_acquire acquired;
        try {
          results[size_t(r)] = body(comms[size_t(r)]);
        } catch (py::error_already_set &e) {
          errors[size_t(r)] = std::move(e);
        }
      });
    for (std::thread &t : threads) t.join();
  }
  for (auto &c : comms) c->release();
  for (auto &e : errors)
    if (e) throw std::move(*e);
  py::list out;
  for (py::object &o : results) out.append(std::move(o));
  return out;
}

std::shared_ptr<PyComm> shmComm(const std::string &job, int ranks, int rank,
                                const std::optional<std::string> &bundle,
                                const std::optional<std::string> &topology) {
  auto world = std::make_shared<World>(World::shm(job.c_str(), ranks, rank,
                                                  bundle ? bundle->c_str() : nullptr,
                                                  topology ? topology->c_str() : nullptr));
  return std::make_shared<PyComm>(world, world->comm(rank));
}

std::shared_ptr<PyComm> envComm() {
  auto world = std::make_shared<World>(World::fromEnv());
  const int rank = world->localRank();
  if (rank < 0)
    throw py::value_error("the environment describes a cpu-threads world (COLLPLAN_BACKEND): "
                          "use collplan.run_threads for it");
  return std::make_shared<PyComm>(world, world->comm(rank));
}

}  // namespace

void bindCommunicator(py::module_ &m) {
  py::class_<PyComm, std::shared_ptr<PyComm>>(m, "Communicator",
                                              "One rank of a collplan world. Collectives take "
                                              "C-contiguous NumPy arrays; results are returned.")
      .def_property_readonly("rank", &rankOf)
      .def_property_readonly("size", &sizeOf)
      .def_property_readonly("last_algorithm",
                             [](PyComm &c) { return c.comm().lastAlgorithm(); },
                             "The algorithm of the plan the last call ran")
      .def("allreduce", &allreduce, py::arg("send"), py::arg("recv") = py::none(),
           py::arg("op") = "sum", "Every rank gets the reduction of every send (recv=send: in place)")
      .def("allgather", &allgather, py::arg("send"), py::arg("recv") = py::none(),
           "recv (size x send.size) holds every rank's send, in rank order")
      .def("reduce_scatter", &reduceScatter, py::arg("send"), py::arg("recv") = py::none(),
           py::arg("op") = "sum", "Rank r gets block r of the reduction (send has size blocks)")
      .def("alltoall", &alltoall, py::arg("send"), py::arg("recv") = py::none(),
           "Block j of rank i's send lands as block i of rank j's recv")
      .def("broadcast", &broadcast, py::arg("buffer"), py::arg("root") = 0,
           "The root's buffer is copied into every rank's buffer (in place)")
      .def("reduce", &reduce, py::arg("send"), py::arg("recv") = py::none(),
           py::arg("op") = "sum", py::arg("root") = 0,
           "The root gets the reduction (returned; None on other ranks)")
      .def("gather", &gather, py::arg("send"), py::arg("recv") = py::none(), py::arg("root") = 0,
           "The root gets every rank's send in rank order (returned; None elsewhere)")
      .def("scatter", &scatter, py::arg("send"), py::arg("recv"), py::arg("root") = 0,
           "Rank r gets block r of the root's send in recv")
      .def("barrier", [](PyComm &c) { callReleased([&] { return collplan_barrier(c.handle()); }); });
  m.def("run_threads", &runThreads, py::arg("ranks"), py::arg("body"),
        py::arg("bundle") = py::none(), py::arg("topology") = py::none(),
        "Runs body(comm) on one thread per rank of a cpu-threads world; returns the results");
  m.def("shm_communicator", &shmComm, py::arg("job"), py::arg("ranks"), py::arg("rank"),
        py::arg("bundle") = py::none(), py::arg("topology") = py::none(),
        "This process's rank of the cpu-shm job `job`");
  m.def("communicator_from_env", &envComm,
        "This process's rank of the cpu-shm job that collplan-shm-launch describes in the "
        "environment (COLLPLAN_BACKEND, COLLPLAN_RANKS, COLLPLAN_RANK, COLLPLAN_SHM_JOB)");
}

}  // namespace collplan::python
