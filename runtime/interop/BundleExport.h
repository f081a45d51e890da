// A bundle as MSCCL XML algorithms or MSCCL++ execution plans: one file per size bucket.
#pragma once

#include "runtime/plan/Plan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

/// The other libraries' formats a bundle exports to.
enum class InteropFormat : uint8_t { MscclXml, MscclppJson };

/// "msccl-xml", "mscclpp-json": the tools' `--emit` names.
std::string_view toString(InteropFormat format);
std::optional<InteropFormat> parseInteropFormat(std::string_view name);

/// What became of one bucket of the bundle.
struct ExportedBucket {
  std::string bucket;  ///< "tables[t].buckets[b]", the bundle's JSON path
  CollectiveKind collective = CollectiveKind::AllReduce;
  uint64_t minBytes = 0, maxBytes = 0;
  std::string file;    ///< the path written; empty when skipped
  std::string skipped; ///< why the bucket has no file; empty when written
};

struct BundleExport {
  std::vector<ExportedBucket> buckets; ///< every bucket of the bundle, in table order
  size_t written() const;
};

/// The file name of one bucket: "<collective>-n<ranks>-<min>-<max>" with "max" for no upper
/// bound, and ".xml" or ".mscclpp.json" (the names plan-verify reads them by), e.g.
/// "allreduce-n8-0-65535.xml", "allgather-n4-65536-max.mscclpp.json".
std::string bucketFileName(CollectiveKind collective, int ranks, uint64_t minBytes,
                           uint64_t maxBytes, InteropFormat format);

/// Writes each bucket of `bundle` (every rank's program loaded) into `directory` (created when
/// missing) as one file in `format`, its size range in the format's own fields (MSCCL's
/// `minBytes`/`maxBytes`, MSCCL++'s `min_message_size`/`max_message_size`), so that the
/// library's executor picks the bucket's plan for the sizes the bundle does.
///
/// A bucket the format cannot express is skipped, with the exporter's reason, rather than
/// failing the others: both executors fall back to their own algorithms for sizes no file
/// covers, so the other buckets stay useful. Skipped: buckets whose plan the exporter refuses
/// (a rooted collective in MSCCL XML, more than MAX_OPERATION ops in an MSCCL++ thread block,
/// ...), and every table after the first of one collective (the executors choose by collective,
/// rank count and size, not by dtype or operation, so two tables would claim the same sizes).
/// Every file is converted before any is written; files of other names in `directory` are left
/// alone (the executors load every file of theirs in a directory, so use a directory of its
/// own). Throws std::runtime_error naming the directory or file and the reason when the
/// directory cannot be made or a file cannot be written.
BundleExport exportBundle(const Bundle &bundle, InteropFormat format,
                          const std::string &directory);

/// One line per bucket, for the tools: "wrote DIR/allreduce-n8-0-65535.xml (tables[0].buckets[0])"
/// or "skipped tables[1].buckets[0] (broadcast, 0..max bytes): <reason>".
std::string describe(const ExportedBucket &bucket);

} // namespace collplan
