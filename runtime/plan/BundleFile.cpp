// loadBundleFile / saveBundleFile: bundle documents on disk.
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/JsonFile.h"

namespace collplan {

Bundle loadBundleFile(const std::string &path, const BundleExpectations &expectations) {
  return bundleFromJson(readJsonFile(path), path, expectations);
}

void saveBundleFile(const Bundle &bundle, const std::string &path) {
  validateBundle(bundle, path);
  writeJsonFile(bundleToJson(bundle), path);
}

}  // namespace collplan
