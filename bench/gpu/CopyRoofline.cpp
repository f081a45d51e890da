// collplan-copy-roofline: device-to-device copy time and GB/s per size, the GPU's copy roofline.
#include "bench/gpu/CopyKernel.h"
#include "tuner/measure/ByteSize.h"
#include "tools/CommandLine.h"

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace collplan;

namespace {

struct Options {
  int device = 0;
  std::string minBytes = "8", maxBytes = "1G";
  int64_t stepFactor = 2;  ///< signed, so "-1" is refused rather than wrapped
  int warmup = 5, reps = 0;
  int barrierBlocks = 8;  ///< the launch floor's barrier: one block per rank of 8 virtual ranks
  std::string csvPath, jsonPath;
  bool list = false;
};

/// One size: the median time of each way to copy, and the faster one (the roofline).
struct Row {
  uint64_t bytes = 0;
  double memcpyUs = 0, kernelUs = 0;
  double timeUs() const { return std::min(memcpyUs, kernelUs); }
  double gbps() const { return timeUs() > 0 ? double(bytes) / timeUs() / 1e3 : 0.0; }
  const char *best() const { return memcpyUs <= kernelUs ? "memcpy" : "kernel"; }
};

/// What the header and the JSON say about the run.
struct RunInfo {
  int device = 0;
  std::string name;
  int sms = 0;
  int warmup = 0, reps = 0;  ///< reps 0: auto
};

void check(cudaError_t status, const std::string &what) {
  if (status != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorString(status));
}

/// Timed copies per size when --reps is 0: many where a copy takes microseconds.
int autoReps(uint64_t bytes) { return bytes <= (1u << 20) ? 200 : bytes <= (64u << 20) ? 50 : 20; }

/// The number of visible devices; a clear error where there is none.
int visibleDevices() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
    throw std::runtime_error(
        std::string("no CUDA device is visible (cudaGetDeviceCount: ") +
        (status != cudaSuccess ? cudaGetErrorString(status) : "found none") +
        "): run this on a machine with a GPU and its driver (check nvidia-smi and "
        "CUDA_VISIBLE_DEVICES)");
  return count;
}

/// "0: NVIDIA H100 80GB HBM3, 132 SMs, 79.1 GiB" per visible device.
void listDevices() {
  const int count = visibleDevices();
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties(" + std::to_string(d) + ")");
    std::printf("%d: %s, %d SMs, %s\n", d, prop.name, prop.multiProcessorCount,
                measure::formatBytes(prop.totalGlobalMem).c_str());
  }
}

/// Selects `device` and describes it.
RunInfo openDevice(int device) {
  const int count = visibleDevices();
  if (device < 0 || device >= count)
    throw std::runtime_error("--device " + std::to_string(device) + ": " + std::to_string(count) +
                             " device(s) are visible (0.." + std::to_string(count - 1) + ")");
  check(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  RunInfo info;
  info.device = device;
  info.name = prop.name;
  info.sms = prop.multiProcessorCount;
  return info;
}

/// Device memory for the source and destination of the largest copy, refused up front if the
/// device does not have it free.
void allocate(uint64_t maxBytes, void **src, void **dst) {
  size_t freeBytes = 0, totalBytes = 0;
  check(cudaMemGetInfo(&freeBytes, &totalBytes), "cudaMemGetInfo");
  if (maxBytes > freeBytes / 2)
    throw std::runtime_error("--max-bytes " + measure::formatBytes(maxBytes) + " needs " +
                             measure::formatBytes(2 * maxBytes) +
                             " of device memory (source and destination), the device has " +
                             measure::formatBytes(freeBytes) + " free: lower --max-bytes");
  check(cudaMalloc(src, maxBytes), "cudaMalloc(" + measure::formatBytes(maxBytes) + ")");
  check(cudaMalloc(dst, maxBytes), "cudaMalloc(" + measure::formatBytes(maxBytes) + ")");
}

/// Median over `reps` of one `copy`, after `warmup` untimed ones: the copies are enqueued back to
/// back with an event before each and one after the last, and each is timed from its event to
/// the next (as plan-bench times calls), so a launch's host work overlaps the copy before it.
double medianUs(const std::function<cudaError_t()> &copy, int warmup, int reps,
                cudaStream_t stream) {
  std::vector<cudaEvent_t> events(static_cast<size_t>(reps) + 1);
  for (cudaEvent_t &e : events) check(cudaEventCreate(&e), "cudaEventCreate");
  for (int i = 0; i < warmup; ++i) check(copy(), "warm-up copy");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(events[size_t(i)], stream), "cudaEventRecord");
    check(copy(), "timed copy");
  }
  check(cudaEventRecord(events.back(), stream), "cudaEventRecord");
  check(cudaEventSynchronize(events.back()), "cudaEventSynchronize");
  std::vector<float> ms(static_cast<size_t>(reps));
  for (size_t i = 0; i < ms.size(); ++i)
    check(cudaEventElapsedTime(&ms[i], events[i], events[i + 1]), "cudaEventElapsedTime");
  for (cudaEvent_t e : events) cudaEventDestroy(e);
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return double(ms[ms.size() / 2]) * 1e3;
}

/// What a collective's kernel cannot beat: a launch alone, and a launch with one device-wide
/// barrier among `barrierBlocks` blocks, timed as the copies are.
struct LaunchFloor {
  unsigned barrierBlocks = 0;
  double emptyUs = 0, barrierUs = 0;
};

LaunchFloor measureLaunchFloor(unsigned barrierBlocks, int warmup, int reps) {
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  void *counter = nullptr;
  check(cudaMalloc(&counter, sizeof(unsigned long long)), "cudaMalloc");
  check(cudaMemset(counter, 0, sizeof(unsigned long long)), "cudaMemset");
  LaunchFloor floor;
  floor.barrierBlocks = barrierBlocks;
  floor.emptyUs = medianUs([&] { return gpubench::launchEmpty(stream); }, warmup, reps, stream);
  floor.barrierUs = medianUs(
      [&] {
        return gpubench::launchGridBarrier(barrierBlocks,
                                           static_cast<unsigned long long *>(counter), stream);
      },
      warmup, reps, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  cudaFree(counter);
  cudaStreamDestroy(stream);
  return floor;
}

/// Times cudaMemcpyAsync and the vector kernel at every size; checks the kernel's copy once per
/// size against the source.
std::vector<Row> measure(const std::vector<uint64_t> &sizes, const Options &o) {
  void *src = nullptr, *dst = nullptr;
  void *counter = nullptr;
  allocate(sizes.back(), &src, &dst);
  check(cudaMalloc(&counter, sizeof(unsigned long long)), "cudaMalloc");
  auto *mismatches = static_cast<unsigned long long *>(counter);
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(gpubench::launchFillPattern(src, sizes.back(), stream), "fill the source");
  std::vector<Row> rows;
  for (uint64_t bytes : sizes) {
    const int reps = o.reps > 0 ? o.reps : autoReps(bytes);
    Row row;
    row.bytes = bytes;
    row.memcpyUs = medianUs(
        [&] { return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream); },
        o.warmup, reps, stream);
    check(cudaMemsetAsync(dst, 0, bytes, stream), "cudaMemsetAsync");
    row.kernelUs = medianUs([&] { return gpubench::launchVectorCopy(dst, src, bytes, stream); },
                            o.warmup, reps, stream);
    unsigned long long wrong = 0;
    check(cudaMemsetAsync(mismatches, 0, sizeof wrong, stream), "cudaMemsetAsync");
    check(gpubench::launchCountMismatches(src, dst, bytes, mismatches, stream), "check the copy");
    check(cudaMemcpyAsync(&wrong, mismatches, sizeof wrong, cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (wrong)
      throw std::runtime_error("the vector copy kernel copied " + std::to_string(wrong) + " of " +
                               std::to_string(bytes) + " bytes wrong");
    rows.push_back(row);
  }
  cudaStreamDestroy(stream);
  cudaFree(mismatches);
  cudaFree(src);
  cudaFree(dst);
  return rows;
}

void printTable(std::FILE *out, const RunInfo &info, const LaunchFloor &floor,
                const std::vector<Row> &rows) {
  std::fprintf(out, "# collplan-copy-roofline: device %d (%s, %d SMs), cudaMemcpyAsync and a "
                    "16-byte vector copy kernel\n",
               info.device, info.name.c_str(), info.sms);
  std::fprintf(out, "# %d warm-up, %s timed copies per size; time = median of the faster; "
                    "GB/s = bytes / time (each byte counted once)\n",
               info.warmup, info.reps > 0 ? std::to_string(info.reps).c_str() : "auto");
  std::fprintf(out, "# launch floor: empty kernel %.2f us; one device-wide barrier of %u blocks "
                    "%.2f us\n",
               floor.emptyUs, floor.barrierBlocks, floor.barrierUs);
  std::fprintf(out, "#%11s %12s %12s %12s %12s  %s\n", "size", "memcpy(us)", "kernel(us)",
               "time(us)", "GB/s", "best");
  for (const Row &r : rows)
    std::fprintf(out, "%12llu %12.2f %12.2f %12.2f %12.3f  %s\n",
                 static_cast<unsigned long long>(r.bytes), r.memcpyUs, r.kernelUs, r.timeUs(),
                 r.gbps(), r.best());
  std::fflush(out);
}

std::string toCsv(const std::vector<Row> &rows) {
  std::string csv = "size,memcpy_us,kernel_us,time_us,gbps,best\n";
  char line[160];
  for (const Row &r : rows) {
    std::snprintf(line, sizeof line, "%llu,%.3f,%.3f,%.3f,%.4f,%s\n",
                  static_cast<unsigned long long>(r.bytes), r.memcpyUs, r.kernelUs, r.timeUs(),
                  r.gbps(), r.best());
    csv += line;
  }
  return csv;
}

nlohmann::json toJson(const RunInfo &info, const LaunchFloor &floor, const std::vector<Row> &rows) {
  nlohmann::json j;
  j["tool"] = "collplan-copy-roofline";
  j["device"] = info.device;
  j["device_name"] = info.name;
  j["sms"] = info.sms;
  j["warmup"] = info.warmup;
  j["reps"] = info.reps > 0 ? nlohmann::json(info.reps) : nlohmann::json("auto");
  j["launch_floor"] = {{"empty_kernel_us", floor.emptyUs},
                       {"barrier_blocks", floor.barrierBlocks},
                       {"barrier_kernel_us", floor.barrierUs}};
  nlohmann::json out = nlohmann::json::array();
  for (const Row &r : rows)
    out.push_back({{"size", r.bytes}, {"memcpy_us", r.memcpyUs}, {"kernel_us", r.kernelUs},
                   {"time_us", r.timeUs()}, {"gbps", r.gbps()}, {"best", r.best()}});
  j["rows"] = std::move(out);
  return j;
}

/// Writes `text` to `path`, or to stdout for "-".
void writeOutput(const std::string &flag, const std::string &path, const std::string &text) {
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::ofstream file(path);
  file << text;
  if (!file.flush()) throw std::runtime_error(flag + " " + path + ": cannot write the file");
}

int run(const Options &o) {
  if (o.list) {
    listDevices();
    return 0;
  }
  if (o.warmup < 0) throw std::invalid_argument("--warmup must be at least 0");
  if (o.reps < 0) throw std::invalid_argument("--reps must be at least 0 (0: auto)");
  if (o.barrierBlocks < 1)
    throw std::invalid_argument("--barrier-blocks must be at least 1, got " +
                                std::to_string(o.barrierBlocks));
  if (o.csvPath == "-" && o.jsonPath == "-")
    throw std::invalid_argument("--csv - and --json -: only one of them can go to stdout");
  const std::vector<uint64_t> sizes = measure::sizeSweep(
      measure::parseByteSizeOption("--min-bytes", o.minBytes),
      measure::parseByteSizeOption("--max-bytes", o.maxBytes), o.stepFactor);
  RunInfo info = openDevice(o.device);
  info.warmup = o.warmup;
  info.reps = o.reps;
  // Every block of the barrier must be resident at once, or it waits forever: one per SM is.
  if (o.barrierBlocks > info.sms)
    throw std::invalid_argument("--barrier-blocks " + std::to_string(o.barrierBlocks) +
                                ": at most one per multiprocessor (" + std::to_string(info.sms) +
                                " on device " + std::to_string(info.device) + ")");
  const LaunchFloor floor =
      measureLaunchFloor(unsigned(o.barrierBlocks), std::max(o.warmup, 20), std::max(o.reps, 500));
  const std::vector<Row> rows = measure(sizes, o);
  if (o.csvPath != "-" && o.jsonPath != "-") printTable(stdout, info, floor, rows);
  if (!o.csvPath.empty()) writeOutput("--csv", o.csvPath, toCsv(rows));
  if (!o.jsonPath.empty()) writeOutput("--json", o.jsonPath, toJson(info, floor, rows).dump(2) + "\n");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"collplan-copy-roofline: time device-to-device copies (cudaMemcpyAsync and a "
               "16-byte vector kernel) over a size range with CUDA events; the faster of the two "
               "at each size is the GPU's copy roofline"};
  Options o;
  app.add_option("--device", o.device, "CUDA device")->capture_default_str();
  app.add_option("--min-bytes,-b", o.minBytes, "Smallest copy (K, M, G suffixes)")
      ->capture_default_str();
  app.add_option("--max-bytes,-e", o.maxBytes, "Largest copy")->capture_default_str();
  app.add_option("--step-factor,-f", o.stepFactor, "Multiply the size by this between rows")
      ->capture_default_str();
  app.add_option("--warmup,-w", o.warmup, "Untimed copies per size and method")
      ->capture_default_str();
  app.add_option("--reps", o.reps, "Timed copies per size and method (0: auto, 200 up to 1 MiB, "
                                   "50 up to 64 MiB, 20 above)")
      ->capture_default_str();
  app.add_option("--barrier-blocks", o.barrierBlocks,
                 "Blocks of the launch floor's device-wide barrier (one per rank's channel)")
      ->capture_default_str();
  app.add_option("--csv", o.csvPath, "Also write the rows as CSV to this file (\"-\": stdout, "
                                     "instead of the table)");
  app.add_option("--json", o.jsonPath, "Also write the run as JSON to this file (\"-\": stdout, "
                                       "instead of the table)");
  app.add_flag("--list", o.list, "List the visible CUDA devices and exit (non-zero if none)");
  if (const std::optional<int> exit = tools::parseCommandLine(app, argc, argv)) return *exit;
  try {
    return run(o);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "collplan-copy-roofline: %s\n", e.what());
  }
  return 1;
}
