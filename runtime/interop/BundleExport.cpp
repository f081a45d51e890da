// exportBundle: a bundle's buckets as MSCCL XML or MSCCL++ JSON files, one per size bucket.
#include "runtime/interop/BundleExport.h"

#include "runtime/interop/MscclXml.h"
#include "runtime/interop/MscclppJson.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <system_error>

namespace collplan {
namespace {

namespace fs = std::filesystem;

std::string sizeText(uint64_t bytes) {
  return bytes == UINT64_MAX ? "max" : std::to_string(bytes);
}

/// The file's text, or std::invalid_argument with the exporter's reason.
std::string convert(const Bucket &bucket, InteropFormat format) {
  if (format == InteropFormat::MscclXml) {
    MscclExportOptions options;
    options.minBytes = bucket.minBytes;
    options.maxBytes = bucket.maxBytes; // no bound (UINT64_MAX) is written as INT64_MAX
    return planToMscclXml(bucket.plan, options);
  }
  MscclppExportOptions options;
  options.minMessageSize = bucket.minBytes;
  options.maxMessageSize = bucket.maxBytes;
  return planToMscclppJson(bucket.plan, options);
}

/// A converted bucket, waiting to be written.
struct Pending {
  size_t index; ///< into BundleExport::buckets
  std::string text;
};

void makeDirectory(const std::string &directory) {
  std::error_code error;
  if (fs::exists(directory, error) && !fs::is_directory(directory, error))
    throw std::runtime_error(directory + ": exists and is not a directory");
  fs::create_directories(directory, error);
  if (error)
    throw std::runtime_error(directory + ": cannot create the directory: " + error.message());
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
  out << text;
  out.close();
  if (!out) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
}

} // namespace

std::string_view toString(InteropFormat format) {
  return format == InteropFormat::MscclXml ? "msccl-xml" : "mscclpp-json";
}

std::optional<InteropFormat> parseInteropFormat(std::string_view name) {
  if (name == "msccl-xml") return InteropFormat::MscclXml;
  if (name == "mscclpp-json") return InteropFormat::MscclppJson;
  return std::nullopt;
}

size_t BundleExport::written() const {
  return size_t(std::count_if(buckets.begin(), buckets.end(),
                              [](const ExportedBucket &b) { return !b.file.empty(); }));
}

std::string bucketFileName(CollectiveKind collective, int ranks, uint64_t minBytes,
                           uint64_t maxBytes, InteropFormat format) {
  return std::string(toString(collective)) + "-n" + std::to_string(ranks) + "-" +
         sizeText(minBytes) + "-" + sizeText(maxBytes) +
         (format == InteropFormat::MscclXml ? ".xml" : ".mscclpp.json");
}

BundleExport exportBundle(const Bundle &bundle, InteropFormat format,
                          const std::string &directory) {
  BundleExport result;
  std::vector<Pending> pending;
  std::set<CollectiveKind> exported; // collectives whose first table was taken
  for (size_t t = 0; t < bundle.tables.size(); ++t) {
    const BucketTable &table = bundle.tables[t];
    const bool later = !exported.insert(table.collective).second;
    for (size_t b = 0; b < table.buckets.size(); ++b) {
      const Bucket &bucket = table.buckets[b];
      ExportedBucket out{"tables[" + std::to_string(t) + "].buckets[" + std::to_string(b) + "]",
                         table.collective, bucket.minBytes, bucket.maxBytes, {}, {}};
      if (later) {
        out.skipped = "an earlier table of " + std::string(toString(table.collective)) +
                      " was exported; the executor chooses by collective, rank count and size, "
                      "not by dtype or operation";
      } else {
        try {
          pending.push_back(Pending{result.buckets.size(), convert(bucket, format)});
        } catch (const std::invalid_argument &e) {
          out.skipped = e.what();
        }
      }
      result.buckets.push_back(std::move(out));
    }
  }
  makeDirectory(directory);
  for (Pending &p : pending) {
    ExportedBucket &out = result.buckets[p.index];
    const std::string path =
        (fs::path(directory) / bucketFileName(out.collective, bundle.ranks, out.minBytes,
                                              out.maxBytes, format))
            .string();
    writeFile(path, p.text);
    out.file = path;
  }
  return result;
}

std::string describe(const ExportedBucket &bucket) {
  if (!bucket.file.empty()) return "wrote " + bucket.file + " (" + bucket.bucket + ")";
  return "skipped " + bucket.bucket + " (" + std::string(toString(bucket.collective)) + ", " +
         sizeText(bucket.minBytes) + ".." + sizeText(bucket.maxBytes) +
         " bytes): " + bucket.skipped;
}

} // namespace collplan
