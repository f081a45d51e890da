// Test support: inputs, scalar reference and byte-exact checks of collective results.
#include "ExecTestSupport.h"

#include "runtime/core/Reduce.h"
#include "runtime/plan/DefaultPlans.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <dirent.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>

namespace collplan::test {
namespace {

constexpr uint8_t kPoison = 0xA5;
constexpr size_t kGuard = 64;

double combine(ReduceOp op, DType dtype, double a, double b) {
  switch (op) {
  case ReduceOp::Sum: return a + b;
  case ReduceOp::Prod: {
    const double p = a * b;
    return dtype == DType::U8 ? std::fmod(p, 256.0) : p;  // u8 wraps
  }
  case ReduceOp::Min: return std::min(a, b);
  case ReduceOp::Max: return std::max(a, b);
  }
  return 0;
}

/// The expected value of element `index` of rank `rank`'s output.
double expectedValue(const CollCase &c, int ranks, int rank, size_t index) {
  const size_t n = c.count;
  auto fold = [&](size_t inputIndex) {
    double acc = inputValue(c, 0, inputIndex);
    for (int s = 1; s < ranks; ++s) acc = combine(c.op, c.dtype, acc, inputValue(c, s, inputIndex));
    return acc;
  };
  switch (c.kind) {
  case CollectiveKind::AllReduce: case CollectiveKind::Reduce: return fold(index);
  case CollectiveKind::ReduceScatter: return fold(size_t(rank) * n + index);
  case CollectiveKind::AllGather: case CollectiveKind::Gather:
    return inputValue(c, int(index / n), index % n);
  case CollectiveKind::AllToAll: return inputValue(c, int(index / n), size_t(rank) * n + index % n);
  case CollectiveKind::Broadcast: return inputValue(c, c.root, index);
  case CollectiveKind::Scatter: return inputValue(c, c.root, size_t(rank) * n + index);
  case CollectiveKind::Barrier: return 0;
  }
  return 0;
}

const char *placementName(Placement p) {
  switch (p) {
  case Placement::OutOfPlace: return "out-of-place";
  case Placement::InPlace: return "in-place";
  case Placement::SameStart: return "send==recv";
  }
  return "?";
}

}  // namespace

std::string CollCase::describe(int ranks) const {
  return std::string(toString(kind)) + " N=" + std::to_string(ranks) + " " +
         std::string(toString(dtype)) + (needsReduceOp(kind) ? " " + std::string(toString(op)) : "") +
         " count=" + std::to_string(count) + " " + placementName(placement) +
         (needsRoot(kind) ? " root=" + std::to_string(root) : "") +
         (sharedBuffers ? " shared-buffers" : "");
}

double inputValue(const CollCase &c, int rank, size_t index) {
  const bool unsignedType = c.dtype == DType::U8;
  const size_t h = size_t(rank) * 7 + index * 3 + size_t(c.root);
  if (needsReduceOp(c.kind)) {
    switch (c.op) {
    case ReduceOp::Sum: return unsignedType ? double(h % 9) : double(h % 9) - 4;
    case ReduceOp::Prod: {
      static const double kSigned[4] = {1, 2, -1, 1}, kFloat[4] = {1, 2, -1, 0.5},
                          kUnsigned[4] = {1, 2, 3, 1};
      const bool isFloat = c.dtype == DType::F32 || c.dtype == DType::F64 ||
                           c.dtype == DType::F16 || c.dtype == DType::BF16;
      return unsignedType ? kUnsigned[h % 4] : isFloat ? kFloat[h % 4] : kSigned[h % 4];
    }
    case ReduceOp::Min: case ReduceOp::Max:
      return unsignedType ? double((h * 5) % 17) : double((h * 5) % 17) - 8;
    }
  }
  return double(h % 97) + (unsignedType ? 0 : -40);
}

void encode(DType dtype, double v, void *dst) {
  switch (dtype) {
  case DType::F32: { const float f = float(v); std::memcpy(dst, &f, 4); return; }
  case DType::F64: std::memcpy(dst, &v, 8); return;
  case DType::F16: { const uint16_t h = floatToHalf(float(v)); std::memcpy(dst, &h, 2); return; }
  case DType::BF16: { const uint16_t h = floatToBf16(float(v)); std::memcpy(dst, &h, 2); return; }
  case DType::I32: { const int32_t i = int32_t(v); std::memcpy(dst, &i, 4); return; }
  case DType::I64: { const int64_t i = int64_t(v); std::memcpy(dst, &i, 8); return; }
  case DType::U8: { const uint8_t u = uint8_t(int64_t(v) & 0xff); std::memcpy(dst, &u, 1); return; }
  }
}

double decode(DType dtype, const void *src) {
  switch (dtype) {
  case DType::F32: { float f; std::memcpy(&f, src, 4); return f; }
  case DType::F64: { double d; std::memcpy(&d, src, 8); return d; }
  case DType::F16: { uint16_t h; std::memcpy(&h, src, 2); return halfToFloat(h); }
  case DType::BF16: { uint16_t h; std::memcpy(&h, src, 2); return bf16ToFloat(h); }
  case DType::I32: { int32_t i; std::memcpy(&i, src, 4); return i; }
  case DType::I64: { int64_t i; std::memcpy(&i, src, 8); return double(i); }
  case DType::U8: { uint8_t u; std::memcpy(&u, src, 1); return u; }
  }
  return 0;
}

namespace {

/// A call buffer from the heap or, for CollCase::sharedBuffers, from Comm::alloc.
class CallBuffer {
public:
  CallBuffer(Comm &comm, bool shared) : comm_(comm), shared_(shared) {}
  ~CallBuffer() { reset(); }
  CallBuffer(const CallBuffer &) = delete;
  CallBuffer &operator=(const CallBuffer &) = delete;

  void assign(size_t size, uint8_t value) {
    reset();
    size_ = size;
    if (shared_) {
      data_ = static_cast<uint8_t *>(comm_.alloc(std::max<size_t>(size, 1)));
    } else {
      heap_.assign(size, value);
      return;
    }
    std::memset(data_, value, size);
  }
  uint8_t *data() { return shared_ ? data_ : heap_.data(); }
  size_t size() const { return size_; }
  uint8_t &operator[](size_t i) { return data()[i]; }

private:
  void reset() {
    if (data_) comm_.free(data_);
    data_ = nullptr;
  }
  Comm &comm_;
  bool shared_;
  uint8_t *data_ = nullptr;
  std::vector<uint8_t> heap_;
  size_t size_ = 0;
};

}  // namespace

namespace {

/// Where a call's pointers point in its buffers, and where its output starts in `buffer`.
struct CallLayout {
  const void *send = nullptr;
  void *recv = nullptr;
  size_t outOffset = 0;
};

/// One rank's input and the sizes of its call.
struct CallData {
  std::vector<uint8_t> input;
  size_t inBytes = 0, outBytes = 0, blockBytes = 0;
};

/// `buffer` sized for `size` bytes and the guard, all poisoned; the input copied in at `at`
/// when `at` is given.
void prepare(CallBuffer &buffer, const CallData &d, size_t size, std::optional<size_t> at) {
  buffer.assign(size + kGuard, kPoison);
  if (at && d.inBytes) std::memcpy(buffer.data() + *at, d.input.data(), d.inBytes);
}

/// The NCCL/MPI in-place convention of `c`'s collective in `buffer`.
CallLayout layOutInPlace(const CollCase &c, int rank, const CallData &d, CallBuffer &buffer) {
  const size_t both = std::max(d.inBytes, d.outBytes), own = size_t(rank) * d.blockBytes,
               root = size_t(c.root) * d.blockBytes;
  uint8_t *b = nullptr;
  switch (c.kind) {
  case CollectiveKind::AllGather:
    prepare(buffer, d, d.outBytes, own);
    b = buffer.data();
    return {b + own, b, 0};
  case CollectiveKind::ReduceScatter:
    prepare(buffer, d, d.inBytes, 0);
    b = buffer.data();
    return {b, b + own, own};
  case CollectiveKind::Gather:
    prepare(buffer, d, both, rank == c.root ? root : 0);
    b = buffer.data();
    return rank == c.root ? CallLayout{b + root, b, 0} : CallLayout{b, nullptr, 0};
  case CollectiveKind::Scatter:
    prepare(buffer, d, both, rank == c.root ? std::optional<size_t>(0) : std::nullopt);
    b = buffer.data();
    return rank == c.root ? CallLayout{b, b + root, root} : CallLayout{nullptr, b, 0};
  default:  // allreduce, alltoall, broadcast, reduce: the same pointer
    prepare(buffer, d, both, 0);
    return {buffer.data(), buffer.data(), 0};
  }
}

/// The call's pointers for `c.placement`: the input in `separateInput` or in `buffer`.
CallLayout layOut(const CollCase &c, int rank, const CallData &d, CallBuffer &buffer,
                  CallBuffer &separateInput) {
  Placement placement = c.placement;
  if (!(d.inBytes && d.outBytes) && placement == Placement::SameStart)
    placement = Placement::OutOfPlace;
  if (placement == Placement::OutOfPlace) {
    prepare(buffer, d, d.outBytes, std::nullopt);
    return {d.inBytes ? separateInput.data() : nullptr, d.outBytes ? buffer.data() : nullptr, 0};
  }
  if (placement == Placement::SameStart) {
    prepare(buffer, d, std::max(d.inBytes, d.outBytes), 0);
    return {buffer.data(), buffer.data(), 0};
  }
  return layOutInPlace(c, rank, d, buffer);
}

/// "" when the guard after the call's bytes is intact and every output element is the
/// reference's, else what differs first.
std::string checkResult(const CollCase &c, int ranks, int rank, const CallData &d,
                        CallBuffer &buffer, size_t outOffset, std::vector<uint8_t> *output) {
  const size_t es = dtypeSize(c.dtype);
  const std::string where = c.describe(ranks) + " rank " + std::to_string(rank) + ": ";
  for (size_t g = buffer.size() - kGuard; g < buffer.size(); ++g)
    if (buffer[g] != kPoison) return where + "wrote past the end of its buffer";
  if (d.outBytes == 0) return "";
  std::vector<uint8_t> expected(d.outBytes);
  for (size_t i = 0; i < d.outBytes / es; ++i)
    encode(c.dtype, expectedValue(c, ranks, rank, i), &expected[i * es]);
  const uint8_t *got = buffer.data() + outOffset;
  if (output) output->assign(got, got + d.outBytes);
  for (size_t i = 0; i < d.outBytes / es; ++i)
    if (std::memcmp(got + i * es, &expected[i * es], es) != 0)
      return where + "element " + std::to_string(i) + " is " +
             std::to_string(decode(c.dtype, got + i * es)) + ", expected " +
             std::to_string(decode(c.dtype, &expected[i * es]));
  return "";
}

}  // namespace

std::string runAndCheck(Comm &comm, const CollCase &c, std::vector<uint8_t> *output) {
  const int ranks = comm.size(), rank = comm.rank();
  const size_t es = dtypeSize(c.dtype);
  CallData d;
  d.blockBytes = c.count * es;
  d.inBytes = size_t(inputBlocks(c.kind, ranks, rank, c.root)) * d.blockBytes;
  d.outBytes = size_t(outputBlocks(c.kind, ranks, rank, c.root)) * d.blockBytes;
  d.input.resize(d.inBytes);
  for (size_t i = 0; i < d.inBytes / es; ++i)
    encode(c.dtype, inputValue(c, rank, i), &d.input[i * es]);

  // One buffer holds everything the call touches, followed by a guard that must stay poisoned.
  CallBuffer buffer(comm, c.sharedBuffers), separateInput(comm, c.sharedBuffers);
  separateInput.assign(d.inBytes, 0);
  if (d.inBytes) std::memcpy(separateInput.data(), d.input.data(), d.inBytes);
  const CallLayout at = layOut(c, rank, d, buffer, separateInput);

  collplan_call_t call;
  call.collective = collplan_collective_t(int(c.kind));
  call.send = at.send;
  call.send_bytes = COLLPLAN_SIZE_UNKNOWN;
  call.recv = at.recv;
  call.recv_bytes = COLLPLAN_SIZE_UNKNOWN;
  call.count = c.count;
  call.dtype = collplan_dtype_t(int(c.dtype));
  call.op = collplan_op_t(int(c.op));
  call.root = c.root;
  try {
    comm.call(call);
  } catch (const Error &e) {
    return c.describe(ranks) + ": rank " + std::to_string(rank) + " failed: " + e.what();
  }
  return checkResult(c, ranks, rank, d, buffer, at.outOffset, output);
}

std::vector<CollCase> sweepCases(CollectiveKind kind, int ranks, bool allOps) {
  std::vector<CollCase> cases;
  std::set<size_t> counts = {0, 1, size_t(std::max(ranks - 1, 0)), size_t(ranks + 1), 37, 263};
  std::vector<ReduceOp> ops = {ReduceOp::Sum};
  if (needsReduceOp(kind) && allOps) ops = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max};
  std::set<int> roots = {0};
  if (needsRoot(kind)) roots.insert(ranks - 1);
  for (int d = 0; d < kNumDTypes; ++d)
    for (ReduceOp op : ops)
      for (size_t count : counts)
        for (Placement p : {Placement::OutOfPlace, Placement::InPlace, Placement::SameStart})
          for (int root : roots) {
            CollCase c;
            c.kind = kind;
            c.dtype = DType(d);
            c.op = op;
            c.count = count;
            c.placement = p;
            c.root = root;
            cases.push_back(c);
          }
  return cases;
}

std::string uniqueJob(const std::string &tag) {
  return tag + "-" + std::to_string(getpid()) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000);
}

std::vector<std::string> shmLeftovers(const std::string &job) {
  std::vector<std::string> found;
  if (DIR *dir = opendir("/dev/shm")) {
    while (dirent *e = readdir(dir)) {
      const std::string name = e->d_name, control = "collplan-" + job;
      if (name == control || name.rfind(control + "-", 0) == 0) found.push_back(name);
    }
    closedir(dir);
  }
  return found;
}

std::string runInProcesses(int ranks, const std::function<int(int rank)> &body,
                           int timeoutSeconds) {
  std::vector<pid_t> children;
  for (int r = 0; r < ranks; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      int code = 0;
      try {
        code = body(r);
      } catch (const std::exception &e) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.what());
        code = 2;
      }
      std::fflush(stderr);
      _exit(code);
    }
    children.push_back(pid);
  }
  std::string result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  std::vector<bool> finished(children.size(), false);
  for (size_t done = 0; done < children.size();) {
    for (size_t r = 0; r < children.size(); ++r) {
      int status = 0;
      if (finished[r] || waitpid(children[r], &status, WNOHANG) != children[r]) continue;
      finished[r] = true;
      ++done;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        result += "rank " + std::to_string(r) + " failed (status " + std::to_string(status) + "); ";
    }
    if (std::chrono::steady_clock::now() > deadline) {
      for (size_t r = 0; r < children.size(); ++r)
        if (!finished[r]) kill(children[r], SIGKILL), waitpid(children[r], nullptr, 0);
      return result + "timed out";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return result;
}

std::vector<std::string> launchedAllReduceReports(const Backend &backend, int ranks) {
  const Plan plan = defaultPlan(CollectiveKind::AllReduce, ranks, ReduceOp::Sum, 0);
  return backend.launch(ranks, [&](RankSession &session) {
    float in = float(session.rank() + 1), out = 0;
    CallBuffers call;
    call.in = &in;
    call.out = &out;
    call.inBytes = call.outBytes = sizeof(float);
    call.count = 1;
    call.dtype = DType::F32;
    call.op = ReduceOp::Sum;
    session.run(session.prepare(plan), call);
    return std::to_string(session.rank()) + ":" + std::to_string(int(out));
  });
}

Bucket bucketOf(uint64_t minBytes, uint64_t maxBytes, Plan plan) {
  Bucket b;
  b.minBytes = minBytes;
  b.maxBytes = maxBytes;
  b.winner.algorithm = plan.algorithm;
  b.plan = std::move(plan);
  return b;
}

}  // namespace collplan::test
