// readMscclAlgo: the MSCCL XML elements and attributes into MscclAlgo, with every check named.
#include "runtime/interop/MscclAlgo.h"

#include "runtime/interop/XmlReader.h"
#include "runtime/plan/PlanError.h"

#include <limits>
#include <set>

namespace collplan {

namespace {

/// An element under examination: errors name the origin, its line and the element.
class Element {
public:
  Element(const XmlElement &e, const std::string &origin) : e_(e), origin_(origin) {}

  const XmlElement &xml() const { return e_; }
  int line() const { return e_.line; }
  const std::string &origin() const { return origin_; }

  [[noreturn]] void fail(const std::string &reason) const {
    throw PlanError(origin_ + ":" + std::to_string(e_.line), describe(), reason);
  }
  /// `<step s="3">`: the name and the identifying attribute, as written.
  std::string describe() const {
    const char *key = e_.name == "step" ? "s" : "id";
    const std::string *v = e_.attribute(key);
    return "<" + e_.name + (v ? " " + std::string(key) + "=\"" + *v + "\"" : std::string()) + ">";
  }
  void checkAttributes(std::initializer_list<std::string_view> allowed) const {
    for (const auto &[key, value] : e_.attributes) {
      bool known = false;
      for (std::string_view a : allowed) known = known || a == key;
      if (!known) fail("unknown attribute " + key);
    }
  }
  const std::string &text(std::string_view key) const {
    const std::string *v = e_.attribute(key);
    if (!v) fail("missing attribute " + std::string(key));
    return *v;
  }
  /// An integer attribute in [lo, hi].
  int64_t integer(std::string_view key, int64_t lo, int64_t hi) const {
    const std::string &v = text(key);
    const bool negative = !v.empty() && v[0] == '-';
    const std::string notInteger =
        "attribute " + std::string(key) + ": \"" + v + "\" is not an integer";
    if (v.size() == size_t(negative)) fail(notInteger);
    uint64_t n = 0;
    for (size_t i = negative; i < v.size(); ++i) {
      if (v[i] < '0' || v[i] > '9') fail(notInteger);
      if (n > (uint64_t(std::numeric_limits<int64_t>::max()) - uint64_t(v[i] - '0')) / 10)
        fail("attribute " + std::string(key) + ": " + v + " is out of range [" +
             std::to_string(lo) + ", " + std::to_string(hi) + "]");
      n = n * 10 + uint64_t(v[i] - '0');
    }
    const int64_t value = negative ? -int64_t(n) : int64_t(n);
    if (value < lo || value > hi)
      fail("attribute " + std::string(key) + ": " + v + " is out of range [" + std::to_string(lo) +
           ", " + std::to_string(hi) + "]");
    return value;
  }
  bool flag(std::string_view key) const { return integer(key, 0, 1) == 1; }
  template <typename T>
  T named(std::string_view key, std::optional<T> (*parse)(std::string_view),
          const std::string &names) const {
    const std::string &v = text(key);
    if (std::optional<T> t = parse(v)) return *t;
    fail(std::string(key) + " \"" + v + "\" is not one of " + names);
  }
  std::vector<Element> children(std::string_view name) const {
    std::vector<Element> out;
    for (const XmlElement &c : e_.children) {
      if (c.name != name)
        Element(c, origin_)
            .fail("unexpected element in <" + e_.name + ">; expected <" + std::string(name) + ">");
      out.emplace_back(c, origin_);
    }
    return out;
  }

private:
  const XmlElement &e_;
  const std::string &origin_;
};

/// A step's buffer reference: its buffer, offset and the step's count within the GPU's chunks.
void readRef(const Element &el, const MscclGpu &gpu, const char *bufKey, const char *offKey,
             uint32_t cnt, BufferKind &buf, uint32_t &off) {
  buf = el.named<BufferKind>(bufKey, parseMscclBuffer, "i, o, s");
  const uint32_t chunks = buf == BufferKind::In    ? gpu.inChunks
                          : buf == BufferKind::Out ? gpu.outChunks
                                                   : gpu.scratchChunks;
  off = uint32_t(el.integer(offKey, 0, kMscclMaxChunks));
  if (uint64_t(off) + cnt > chunks)
    el.fail(std::string(offKey) + " " + std::to_string(off) + " + cnt " + std::to_string(cnt) +
            " exceeds the " + std::to_string(chunks) + " chunks of buffer " +
            std::string(mscclBufferName(buf)));
}

MscclStep readStep(const Element &el, const MscclGpu &gpu, const MscclThreadBlock &tb,
                   size_t position) {
  el.checkAttributes(
      {"s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt", "depid", "deps", "hasdep"});
  MscclStep s;
  s.line = el.line();
  if (el.integer("s", 0, kMscclMaxChunks) != int64_t(position))
    el.fail("steps of a thread block must be numbered 0, 1, ... in order; this is step " +
            std::to_string(position));
  s.type = el.named<MscclStepType>("type", parseMscclStepType, mscclStepTypeNames());
  s.depTb = int(el.integer("depid", -1, kMscclMaxThreadBlocks - 1));
  s.depStep = int(el.integer("deps", -1, kMscclMaxChunks));
  if ((s.depTb < 0) != (s.depStep < 0)) el.fail("depid and deps must both be -1 or both be set");
  s.hasDep = el.flag("hasdep");
  if (s.type == MscclStepType::Nop) return s;
  s.cnt = uint32_t(el.integer("cnt", 1, kMscclMaxCount - 1));
  if (stepReadsSrc(s.type)) readRef(el, gpu, "srcbuf", "srcoff", s.cnt, s.srcBuf, s.srcOff);
  if (stepWritesDst(s.type)) readRef(el, gpu, "dstbuf", "dstoff", s.cnt, s.dstBuf, s.dstOff);
  if (stepSends(s.type) && tb.send < 0)
    el.fail("a " + std::string(toString(s.type)) + " step in a thread block without a send peer");
  if (stepReceives(s.type) && tb.recv < 0)
    el.fail("a " + std::string(toString(s.type)) + " step in a thread block without a recv peer");
  return s;
}

MscclThreadBlock readThreadBlock(const Element &el, const MscclAlgo &algo, const MscclGpu &gpu,
                                 int gpuId) {
  el.checkAttributes({"id", "send", "recv", "chan"});
  MscclThreadBlock tb;
  tb.line = el.line();
  const int ngpus = int(algo.gpus.size());
  tb.send = int(el.integer("send", -1, ngpus - 1));
  tb.recv = int(el.integer("recv", -1, ngpus - 1));
  if (tb.send == gpuId || tb.recv == gpuId)
    el.fail("a thread block of gpu " + std::to_string(gpuId) +
            " cannot send to or receive from itself");
  tb.chan = uint32_t(el.integer("chan", 0, int64_t(algo.channels) - 1));
  size_t position = 0;
  for (const Element &step : el.children("step"))
    tb.steps.push_back(readStep(step, gpu, tb, position++));
  return tb;
}

/// Thread block ids dense from 0; one thread block per send peer and per recv peer of a chan.
void readThreadBlocks(const Element &el, const MscclAlgo &algo, MscclGpu &gpu, int gpuId) {
  const std::vector<Element> tbs = el.children("tb");
  if (tbs.size() > kMscclMaxThreadBlocks)
    el.fail("has " + std::to_string(tbs.size()) + " thread blocks; MSCCL allows " +
            std::to_string(kMscclMaxThreadBlocks));
  gpu.tbs.resize(tbs.size());
  std::vector<bool> seen(tbs.size());
  std::set<std::pair<uint32_t, int>> sends, recvs;
  for (const Element &t : tbs) {
    const size_t id = size_t(t.integer("id", 0, int64_t(tbs.size()) - 1));
    if (seen[id]) t.fail("duplicate thread block id " + std::to_string(id));
    seen[id] = true;
    gpu.tbs[id] = readThreadBlock(t, algo, gpu, gpuId);
    const MscclThreadBlock &tb = gpu.tbs[id];
    if (tb.send >= 0 && !sends.insert({tb.chan, tb.send}).second)
      t.fail("a second thread block sending to " + std::to_string(tb.send) + " on chan " +
             std::to_string(tb.chan));
    if (tb.recv >= 0 && !recvs.insert({tb.chan, tb.recv}).second)
      t.fail("a second thread block receiving from " + std::to_string(tb.recv) + " on chan " +
             std::to_string(tb.chan));
  }
}

/// Dependencies name an existing step of another thread block of the GPU, or an earlier step
/// of their own.
void checkDependencies(const MscclGpu &gpu, const std::string &origin) {
  for (size_t t = 0; t < gpu.tbs.size(); ++t)
    for (size_t i = 0; i < gpu.tbs[t].steps.size(); ++i) {
      const MscclStep &s = gpu.tbs[t].steps[i];
      if (s.depTb < 0) continue;
      const auto dt = size_t(s.depTb), ds = size_t(s.depStep);
      std::string reason;
      if (dt >= gpu.tbs.size())
        reason = "depid " + std::to_string(dt) + ": the gpu has no such thread block";
      else if (ds >= gpu.tbs[dt].steps.size())
        reason = "deps " + std::to_string(ds) + ": thread block " + std::to_string(dt) + " has " +
                 std::to_string(gpu.tbs[dt].steps.size()) + " steps";
      else if (dt == t && ds >= i)
        reason = "depends on itself or a later step of its thread block";
      if (!reason.empty())
        throw PlanError(origin + ":" + std::to_string(s.line),
                        "<step s=\"" + std::to_string(i) + "\">", reason);
    }
}

void readGpu(const Element &el, MscclAlgo &algo, std::vector<bool> &seen) {
  el.checkAttributes({"id", "i_chunks", "o_chunks", "s_chunks"});
  const int id = int(el.integer("id", 0, int64_t(algo.gpus.size()) - 1));
  if (seen[size_t(id)]) el.fail("duplicate gpu id " + std::to_string(id));
  seen[size_t(id)] = true;
  MscclGpu &gpu = algo.gpus[size_t(id)];
  gpu.line = el.line();
  gpu.inChunks = uint32_t(el.integer("i_chunks", 0, kMscclMaxChunks));
  gpu.outChunks = uint32_t(el.integer("o_chunks", 0, kMscclMaxChunks));
  gpu.scratchChunks = uint32_t(el.integer("s_chunks", 0, kMscclMaxChunks));
  readThreadBlocks(el, algo, gpu, id);
  checkDependencies(gpu, el.origin());
}

/// `minBytes`/`maxBytes` as the executor reads them (int64; `maxBytes` 0: no bound), with no
/// bound as UINT64_MAX.
void readSizeRange(const Element &el, MscclAlgo &algo) {
  const int64_t largest = std::numeric_limits<int64_t>::max();
  algo.minBytes =
      el.xml().attribute("minBytes") ? uint64_t(el.integer("minBytes", 0, largest)) : 0;
  const int64_t maxBytes =
      el.xml().attribute("maxBytes") ? el.integer("maxBytes", 0, largest) : largest;
  algo.maxBytes = maxBytes == 0 || maxBytes == largest ? UINT64_MAX : uint64_t(maxBytes);
  if (algo.minBytes > algo.maxBytes)
    el.fail("minBytes " + std::to_string(algo.minBytes) + " is above maxBytes " +
            std::to_string(algo.maxBytes) + ": the executor never chooses this algorithm");
}

void readHeader(const Element &el, MscclAlgo &algo) {
  if (el.xml().name != "algo") el.fail("the root element must be <algo>");
  el.checkAttributes({"name", "proto", "nchannels", "nchunksperloop", "ngpus", "coll", "inplace",
                      "outofplace", "minBytes", "maxBytes"});
  if (const std::string *name = el.xml().attribute("name")) algo.name = *name;
  algo.protocol = el.named<MscclProtocol>("proto", parseMscclProtocol, "Simple, LL, LL128");
  algo.channels = uint32_t(el.integer("nchannels", 1, kMaxChannels));
  algo.chunksPerLoop = uint32_t(el.integer("nchunksperloop", 1, kMscclMaxChunks));
  algo.gpus.resize(size_t(el.integer("ngpus", 1, kMscclMaxGpus)));
  algo.collective = el.named<CollectiveKind>("coll", parseMscclCollective, mscclCollectiveNames());
  algo.inplace = el.flag("inplace");
  // msccl-tools writes no outofplace: its programs run in place exactly when inplace is 1.
  algo.outofplace = el.xml().attribute("outofplace") ? el.flag("outofplace") : !algo.inplace;
  readSizeRange(el, algo);
}

} // namespace

MscclAlgo readMscclAlgo(std::string_view xml, const std::string &origin) {
  const XmlElement root = parseXml(xml, origin);
  const Element el(root, origin);
  MscclAlgo algo;
  readHeader(el, algo);
  std::vector<bool> seen(algo.gpus.size());
  const std::vector<Element> gpus = el.children("gpu");
  uint64_t chunks = 0;
  for (const Element &gpu : gpus) {
    readGpu(gpu, algo, seen);
    const MscclGpu &g = algo.gpus[size_t(gpu.integer("id", 0, kMscclMaxGpus))];
    chunks += uint64_t(g.inChunks) + g.outChunks + g.scratchChunks;
    if (chunks > kMscclMaxTotalChunks)
      gpu.fail("the gpus' buffers hold more than " + std::to_string(kMscclMaxTotalChunks) +
               " chunks in all (the proof's limit)");
  }
  for (size_t g = 0; g < seen.size(); ++g)
    if (!seen[g])
      el.fail("ngpus is " + std::to_string(seen.size()) + " but there is no <gpu id=\"" +
              std::to_string(g) + "\">");
  return algo;
}

} // namespace collplan
