// The calibration settings the calibrate tests sweep with: sizes 8 B, 32 B, ... up to a bound.
#pragma once

#include "tuner/calibrate/Calibrate.h"

#include <cstdint>

namespace collplan::test {

/// `ranks` ranks measured at 8 B and every fourfold size up to `maxBytes`.
inline calibrate::CalibrationSettings sweepSettings(int ranks, uint64_t maxBytes) {
  calibrate::CalibrationSettings s;
  s.ranks = ranks;
  for (uint64_t m = 8; m <= maxBytes; m *= 4) s.sizes.push_back(m);
  return s;
}

}  // namespace collplan::test
