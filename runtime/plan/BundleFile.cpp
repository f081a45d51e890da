// loadBundleFile / saveBundleFile: bundle documents on disk.
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/Composition.h"
#include "runtime/core/Sha256.h"
#include "runtime/plan/JsonFile.h"

namespace collplan {

Bundle loadBundleFile(const std::string &path, const BundleExpectations &expectations,
                      const PlanLoadOptions &options) {
  return bundleFromJson(readPlanDocument(path, options.onlyRank), path, expectations, options);
}

Bundle loadBundleFileForRank(const std::string &path, const BundleExpectations &expectations,
                             int rank, const ProofRecords &records,
                             std::chrono::milliseconds timeout) {
  const std::string bytes = readPlanBytes(path);
  PlanLoadOptions only;
  only.onlyRank = rank;
  // The rank's own part first: a bundle for another machine says so before any proof.
  Bundle bundle = bundleFromJson(parsePlanDocument(bytes, path, rank), path, expectations, only);
  records.proveOnce(sha256Hex(bytes), [&] { bundleFromJson(parsePlanDocument(bytes, path), path); },
                    timeout);
  return bundle;
}

void saveBundleFile(const Bundle &bundle, const std::string &path, DocumentEncoding encoding) {
  for (const BucketTable &table : bundle.tables)
    for (const Bucket &bucket : table.buckets)
      if (bucket.plan.onlyRank >= 0 && !buildableFromStages(bucket.plan))
        throw PlanError(path, "tables",
                        "holds plans loaded for rank " + std::to_string(bucket.plan.onlyRank) +
                            " only: a bundle file needs every rank's programs");
  validateBundle(bundle, path);
  writePlanDocument(bundleToJson(bundle), path, encoding);
}

void saveBundleFile(const Bundle &bundle, const std::string &path) {
  saveBundleFile(bundle, path, encodingForPath(path));
}

}  // namespace collplan
