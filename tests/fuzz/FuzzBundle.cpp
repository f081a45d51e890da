// libFuzzer target: bundle files (JSON or CBOR) through loadBundleFile, whole and for one rank.
#include "FuzzLoadOptions.h"
#include "ScratchFile.h"

#include "runtime/plan/BundleJson.h"

using namespace collplan;

namespace {

/// A bundle that loaded must load again for one rank alone and survive a write/read round trip
/// unchanged; anything else is a bug of the reader or the writer.
void checkValidBundle(const std::string &path, const Bundle &bundle) {
  const nlohmann::json written = bundleToJson(bundle);
  PlanLoadOptions trusted;
  trusted.verify = false;  // the same plans were just proven
  Bundle back;
  try {
    back = bundleFromJson(written, "round trip", {}, trusted);
  } catch (const PlanError &e) {
    fuzz::fail(std::string("a loaded bundle does not read back after bundleToJson: ") +
               e.what());
  }
  if (bundleToJson(back) != written) fuzz::fail("the round trip of a loaded bundle changed it");
  try {
    loadBundleFile(path, {}, fuzz::loadOptions(bundle.ranks - 1));
  } catch (const PlanError &e) {
    fuzz::fail(std::string("a bundle that loads whole fails for its last rank: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = fuzz::writeScratchFile(data, size);
  Bundle bundle;
  try {
    bundle = loadBundleFile(path, {}, fuzz::loadOptions());
  } catch (const PlanError &) {
    try {
      loadBundleFile(path, {}, fuzz::loadOptions(0));
    } catch (const PlanError &) {
    }
    return 0;
  }
  checkValidBundle(path, bundle);
  return 0;
}
