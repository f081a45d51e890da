// backendMeasure: calibration plans timed by the measurement layer on cpu-threads or cpu-shm.
#include "tuner/measure/ByteSize.h"
#include "tuner/measure/Runner.h"
#include "tuner/calibrate/Calibrate.h"

#include <stdexcept>

namespace collplan::calibrate {

MeasureFn backendMeasure(const CalibrationSettings &settings,
                         std::function<void(const std::string &)> progress) {
  return [settings, progress](const Plan &plan, const std::vector<uint64_t> &sizes) {
    measure::BenchCase c;
    c.kind = CollectiveKind::AllReduce;
    c.dtype = DType::F32;
    c.op = ReduceOp::Sum;
    c.ranks = plan.ranks;
    std::vector<measure::SizePoint> points = measure::sizePoints(c, sizes);
    bool same = points.size() == sizes.size();
    for (size_t i = 0; same && i < sizes.size(); ++i) same = points[i].bytes == sizes[i];
    if (!same)
      throw std::invalid_argument("sizes must be whole f32 elements per unit (multiples of " +
                                  std::to_string(4 * plan.units) + " bytes for " + plan.algorithm +
                                  ")");
    measure::LoopSettings loop;
    loop.warmup = settings.warmup;
    loop.reps = settings.reps;
    loop.check = plan.params.value("calibration", false) ? false : true;
    measure::PlanSource source = measure::PlanSource::fromPlan(plan, plan.algorithm, c);
    measure::ProgressFn each;
    if (progress)
      each = [&](size_t index, const measure::SizePoint &size) {
        progress(plan.algorithm + " " + measure::formatBytes(size.bytes) + " (" +
                 std::to_string(index + 1) + "/" + std::to_string(sizes.size()) + ")");
      };
    const std::vector<measure::SizeResult> results =
        measure::makeRunner(requireBackend(settings.backend))->run(source, c, points, loop, each);
    std::vector<double> times;
    for (const measure::SizeResult &r : results) {
      if (r.wrong > 0)
        throw std::runtime_error(plan.algorithm + ": " + std::to_string(r.wrong) +
                                 " wrong elements: the backend computed a wrong result");
      times.push_back(r.timeUs);
    }
    return times;
  };
}

}  // namespace collplan::calibrate
