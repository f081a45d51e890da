// CudaTarget: the CUDA runtime calls behind DeviceTarget, each failure named with the device.
#include "runtime/backends/cuda/CudaTarget.h"

#include "runtime/backends/cuda/DeviceSetup.h"
#include "runtime/backends/cuda/PlanKernel.h"
#include "runtime/exec/RuntimeError.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

namespace collplan::cuda {

int visibleDevices(std::string *why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (why) *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
    return 0;
  }
  if (count == 0 && why) *why = "cudaGetDeviceCount found no device";
  return count;
}

void enablePeerAccess(const std::vector<int> &deviceOfRank) {
  checkPeerAccess(deviceOfRank, [](int from, int to) {
    int can = 0;
    return cudaDeviceCanAccessPeer(&can, from, to) == cudaSuccess && can;
  });
  std::vector<int> devices;
  for (int d : deviceOfRank)
    if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
  int previous = 0;
  cudaGetDevice(&previous);
  struct Restore {
    int device;
    ~Restore() { cudaSetDevice(device); }
  } restore{previous};
  for (int from : devices)
    for (int to : devices) {
      if (from == to) continue;
      cudaSetDevice(from);
      const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();  // not an error here: clear it
      } else if (status != cudaSuccess) {
        throw RuntimeError(ErrorCode::System,
                           "cudaDeviceEnablePeerAccess from device " + std::to_string(from) +
                               " to device " + std::to_string(to) + ": " +
                               cudaGetErrorString(status));
      }
    }
}

void CudaTarget::check(int status, const std::string &what) const {
  if (status == cudaSuccess) return;
  throw RuntimeError(ErrorCode::System, description_ + ": " + what + ": " +
                                            cudaGetErrorString(cudaError_t(status)));
}

CudaTarget::Selected::~Selected() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

CudaTarget::Selected CudaTarget::select() const {
  int previous = -1;
  check(cudaGetDevice(&previous), "cudaGetDevice");
  if (previous == device_) return Selected(-1);
  check(cudaSetDevice(device_), "cudaSetDevice");
  return Selected(previous);
}

CudaTarget::CudaTarget(int device) : device_(device), description_("device " + std::to_string(device)) {
  const Selected current = select();
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, device_), "cudaGetDeviceProperties");
  description_ += std::string(" (") + props.name + ")";
  if (!props.unifiedAddressing)
    throw RuntimeError(ErrorCode::Unsupported,
                       description_ + ": the cuda backend needs unified addressing (64-bit Linux)");
  int perMultiprocessor = 0;
  check(planKernelBlocksPerMultiprocessor(&perMultiprocessor), "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  residentBlocks_ = uint32_t(perMultiprocessor) * uint32_t(props.multiProcessorCount);
  void *record = nullptr;
  check(cudaHostAlloc(&record, sizeof(DeviceError), cudaHostAllocMapped | cudaHostAllocPortable),
        "cudaHostAlloc of the error record");
  error_ = new (record) DeviceError{};
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
  lastEvent_ = event;
}

CudaTarget::~CudaTarget() {
  cudaSetDevice(device_);
  if (lastEvent_) cudaEventDestroy(static_cast<cudaEvent_t>(lastEvent_));
  if (error_) cudaFreeHost(error_);
}

void *CudaTarget::allocate(size_t bytes) {
  const Selected current = select();
  void *p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes");
  check(cudaMemset(p, 0, bytes), "cudaMemset");
  return p;
}

void CudaTarget::release(void *p) noexcept {
  int previous = -1;
  if (cudaGetDevice(&previous) == cudaSuccess && previous != device_) cudaSetDevice(device_);
  cudaFree(p);  // fails only on a broken device, whose error was reported where it broke
  if (previous >= 0 && previous != device_) cudaSetDevice(previous);
}

void CudaTarget::upload(void *dst, const void *src, size_t bytes) { copyIn(dst, src, bytes); }

void CudaTarget::copyIn(void *dst, const void *src, size_t bytes) {
  const Selected current = select();
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

void CudaTarget::copyOut(void *dst, const void *src, size_t bytes) {
  const Selected current = select();
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
}

void CudaTarget::copyAsync(void *dst, const void *src, size_t bytes, StreamHandle stream) {
  const Selected current = select();
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cudaStream_t(stream)),
        "cudaMemcpyAsync of a staged input");
}

void CudaTarget::synchronize(StreamHandle stream) {
  const Selected current = select();
  check(cudaStreamSynchronize(cudaStream_t(stream)), "cudaStreamSynchronize");
}

bool CudaTarget::launch(const LaunchArgs &args, uint32_t blocks, StreamHandle stream) {
  const Selected current = select();
  const cudaEvent_t last = static_cast<cudaEvent_t>(lastEvent_);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(cudaStream_t(stream), &capture), "cudaStreamIsCapturing");
  if (capture != cudaStreamCaptureStatusNone) {
    // A captured launch runs when its graph does, ordered by the stream the graph is launched
    // on; a capture may not wait for an event recorded outside it.
    check(launchPlanKernel(args, blocks, cudaStream_t(stream)), "launching the plan kernel");
    return true;
  }
  // Launches of one world share FIFOs and counters: one on another stream waits for the last.
  if (launched_ && stream != lastStream_)
    check(cudaStreamWaitEvent(cudaStream_t(stream), last, 0), "cudaStreamWaitEvent");
  check(launchPlanKernel(args, blocks, cudaStream_t(stream)), "launching the plan kernel");
  check(cudaEventRecord(last, cudaStream_t(stream)), "cudaEventRecord");
  lastStream_ = stream;
  launched_ = true;
  return false;
}

IpcHandle CudaTarget::exportMemory(void *p) {
  static_assert(sizeof(cudaIpcMemHandle_t) == kIpcHandleBytes);
  const Selected current = select();
  cudaIpcMemHandle_t handle;
  check(cudaIpcGetMemHandle(&handle, p), "cudaIpcGetMemHandle");
  IpcHandle out;
  std::memcpy(out.bytes, &handle, kIpcHandleBytes);
  return out;
}

void *CudaTarget::openMemory(const IpcHandle &handle) {
  const Selected current = select();
  cudaIpcMemHandle_t theirs;
  std::memcpy(&theirs, handle.bytes, kIpcHandleBytes);
  void *p = nullptr;
  check(cudaIpcOpenMemHandle(&p, theirs, cudaIpcMemLazyEnablePeerAccess),
        "cudaIpcOpenMemHandle of a peer's arena");
  return p;
}

void CudaTarget::closeMemory(void *mapped) {
  const Selected current = select();
  check(cudaIpcCloseMemHandle(mapped), "cudaIpcCloseMemHandle");
}

}  // namespace collplan::cuda

namespace collplan::cuda {

CudaStream::CudaStream(CudaTarget &target) : target_(target) {
  const CudaTarget::Selected current = target_.select();
  cudaStream_t stream = nullptr;
  target_.check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  stream_ = stream;
}

CudaStream::~CudaStream() {
  cudaSetDevice(target_.device());
  for (void *event : events_) cudaEventDestroy(static_cast<cudaEvent_t>(event));
  if (stream_) cudaStreamDestroy(cudaStream_t(stream_));
}

void CudaStream::mark(size_t mark) {
  const CudaTarget::Selected current = target_.select();
  while (events_.size() <= mark) {
    cudaEvent_t event = nullptr;
    target_.check(cudaEventCreate(&event), "cudaEventCreate");
    events_.push_back(event);
  }
  target_.check(cudaEventRecord(static_cast<cudaEvent_t>(events_[mark]), cudaStream_t(stream_)),
                "cudaEventRecord");
}

double CudaStream::secondsBetween(size_t from, size_t to) {
  const CudaTarget::Selected current = target_.select();
  const cudaEvent_t end = static_cast<cudaEvent_t>(events_.at(to));
  target_.check(cudaEventSynchronize(end), "cudaEventSynchronize");
  float ms = 0;
  target_.check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(events_.at(from)), end),
                "cudaEventElapsedTime");
  return double(ms) / 1e3;
}

void CudaStream::synchronize() { target_.synchronize(stream_); }

}  // namespace collplan::cuda
