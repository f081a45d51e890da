// plotSvg: log-log time against size, one line per measured variant, winners marked.
#include "tuner/TuneReport.h"
#include "runtime/core/Text.h"

#include "tuner/bench/ByteSize.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace collplan::tune {
namespace {

constexpr double kWidth = 980, kHeight = 600;
constexpr double kLeft = 80, kRight = 300, kTop = 56, kBottom = 64;  // margins; legend at right
const char *const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                                "#393b79", "#ad494a"};
const char *const kDashes[] = {"", "6,3", "2,3", "8,3,2,3"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string timeLabel(double us) {
  char buf[32];
  if (us >= 1e6) std::snprintf(buf, sizeof buf, "%g s", us / 1e6);
  else if (us >= 1e3) std::snprintf(buf, sizeof buf, "%g ms", us / 1e3);
  else std::snprintf(buf, sizeof buf, "%g us", us);
  return buf;
}

/// The variants with a measurement and the range of their sizes and times: what the axes span.
struct PlotData {
  std::vector<size_t> shown;  ///< variants with at least one measurement, in report order
  double tMin = std::numeric_limits<double>::infinity(), tMax = 0;
  double sMin = std::numeric_limits<double>::infinity(), sMax = 0;
};

PlotData plotData(const TableResult &t) {
  PlotData p;
  const auto &sizes = t.measurements.sizes;
  for (size_t v = 0; v < t.variants.size(); ++v) {
    bool any = false;
    for (size_t s = 0; s < sizes.size(); ++s) {
      const Measurement &m = t.measurements.byVariant[v][s];
      if (!m.done || m.medianUs <= 0) continue;
      any = true;
      p.tMin = std::min(p.tMin, m.medianUs);
      p.tMax = std::max(p.tMax, m.medianUs);
      p.sMin = std::min(p.sMin, double(std::max<uint64_t>(1, sizes[s].bytes)));
      p.sMax = std::max(p.sMax, double(sizes[s].bytes));
    }
    if (any) p.shown.push_back(v);
  }
  return p;
}

/// Log-log axes: x in log2 bytes over [sMin, sMax], y in log10 µs over whole decades around
/// the data.
struct Axes {
  explicit Axes(const PlotData &p)
      : x0(std::log2(p.sMin)), x1(std::max(std::log2(p.sMax), x0 + 1)),
        y0(std::floor(std::log10(p.tMin))),
        y1(std::max(std::ceil(std::log10(p.tMax)), y0 + 1)) {}
  double X(double bytes) const {
    return kLeft + (std::log2(std::max(1.0, bytes)) - x0) / (x1 - x0) * kPlotW;
  }
  double Y(double us) const { return kTop + kPlotH - (std::log10(us) - y0) / (y1 - y0) * kPlotH; }
  /// Powers of two labelled on x: about ten of them.
  int xStep() const { return std::max(1, int(std::ceil((x1 - x0) / 10))); }

  static constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
  double x0, x1, y0, y1;
};

std::string titles(const TuneResult &r, const TableResult &t) {
  return "<text x=\"" + num(kLeft) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" +
         xmlEscape("plan-tune: " + t.name() + " on " + std::to_string(t.benchCase.ranks) +
                   " ranks, " + r.settings.backend + ", " + r.settings.topologySpec) +
         "</text>\n" + "<text x=\"" + num(kLeft) + "\" y=\"42\" fill=\"#555\">" +
         xmlEscape("median time per call against message size M (log-log); circles: the winner "
                   "at each size" + std::string(r.partial() ? "; PARTIAL run" : "")) +
         "</text>\n";
}

std::string gridAndTicks(const Axes &a) {
  const double plotW = Axes::kPlotW, plotH = Axes::kPlotH;
  std::string svg = "<g class=\"axes\" stroke=\"#ccc\" fill=\"none\">\n";
  svg += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(plotW) +
         "\" height=\"" + num(plotH) + "\" stroke=\"#888\"/>\n";
  for (double d = a.y0; d <= a.y1 + 1e-9; d += 1)
    svg += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(a.Y(std::pow(10, d))) + "\" x2=\"" +
           num(kLeft + plotW) + "\" y2=\"" + num(a.Y(std::pow(10, d))) + "\"/>\n";
  for (int e = int(std::ceil(a.x0)); e <= int(std::floor(a.x1)); e += a.xStep())
    svg += "<line x1=\"" + num(a.X(std::ldexp(1.0, e))) + "\" y1=\"" + num(kTop) + "\" x2=\"" +
           num(a.X(std::ldexp(1.0, e))) + "\" y2=\"" + num(kTop + plotH) + "\"/>\n";
  svg += "</g>\n<g class=\"ticks\" fill=\"#333\">\n";
  for (double d = a.y0; d <= a.y1 + 1e-9; d += 1)
    svg += "<text x=\"" + num(kLeft - 6) + "\" y=\"" + num(a.Y(std::pow(10, d)) + 4) +
           "\" text-anchor=\"end\">" + xmlEscape(timeLabel(std::pow(10, d))) + "</text>\n";
  for (int e = int(std::ceil(a.x0)); e <= int(std::floor(a.x1)); e += a.xStep())
    svg += "<text x=\"" + num(a.X(std::ldexp(1.0, e))) + "\" y=\"" + num(kTop + plotH + 18) +
           "\" text-anchor=\"middle\">" + xmlEscape(bench::formatBytes(uint64_t(1) << e)) +
           "</text>\n";
  svg += "<text x=\"" + num(kLeft + plotW / 2) + "\" y=\"" + num(kHeight - 18) +
         "\" text-anchor=\"middle\">message size M</text>\n";
  svg += "<text transform=\"translate(18," + num(kTop + plotH / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">time (median)</text>\n</g>\n";
  return svg;
}

/// One polyline per shown variant, the k-th in colour k (and a dash pattern past 12).
std::string variantLines(const TableResult &t, const PlotData &p, const Axes &a) {
  const auto &sizes = t.measurements.sizes;
  std::string svg;
  for (size_t k = 0; k < p.shown.size(); ++k) {
    const size_t v = p.shown[k];
    std::string points;
    for (size_t s = 0; s < sizes.size(); ++s) {
      const Measurement &m = t.measurements.byVariant[v][s];
      if (!m.done || m.medianUs <= 0) continue;
      points += num(a.X(double(sizes[s].bytes))) + "," + num(a.Y(m.medianUs)) + " ";
    }
    const std::string dash = kDashes[(k / 12) % 4];
    svg += "<polyline class=\"variant\" data-variant=\"" + xmlEscape(t.variants[v].variant.label) +
           "\" fill=\"none\" stroke=\"" + kColours[k % 12] + "\" stroke-width=\"1.5\"" +
           (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + " points=\"" + points +
           "\"><title>" + xmlEscape(t.variants[v].variant.label) + "</title></polyline>\n";
  }
  return svg;
}

/// A circle at each size's winner, in its line's colour.
std::string winnerMarkers(const TableResult &t, const PlotData &p, const Axes &a) {
  const auto &sizes = t.measurements.sizes;
  std::string svg;
  for (size_t s = 0; s < sizes.size() && s < t.choices.size(); ++s) {
    const int w = t.choices[s].winner;
    if (w < 0) continue;
    const Measurement &m = t.measurements.byVariant[size_t(w)][s];
    const size_t k =
        size_t(std::find(p.shown.begin(), p.shown.end(), size_t(w)) - p.shown.begin());
    char title[160];
    std::snprintf(title, sizeof title, "%s at %s: %.2f us",
                  t.variants[size_t(w)].variant.label.c_str(),
                  bench::formatBytes(sizes[s].bytes).c_str(), m.medianUs);
    svg += "<circle class=\"winner\" cx=\"" + num(a.X(double(sizes[s].bytes))) + "\" cy=\"" +
           num(a.Y(m.medianUs)) + "\" r=\"4.5\" fill=\"" + kColours[k % 12] +
           "\" stroke=\"black\" stroke-width=\"1.2\"><title>" + xmlEscape(title) +
           "</title></circle>\n";
  }
  return svg;
}

/// The legend at the right: each shown variant's line style and label, winners in bold.
std::string legend(const TableResult &t, const PlotData &p) {
  std::string svg = "<g class=\"legend\">\n";
  const double lx = kWidth - kRight + 16;
  const double rowH = std::min(16.0, (kHeight - kTop - 10) / double(p.shown.size() + 1));
  for (size_t k = 0; k < p.shown.size(); ++k) {
    const size_t v = p.shown[k];
    bool wins = false;
    for (const SizeChoice &c : t.choices) wins = wins || c.winner == int(v);
    const double y = kTop + 8 + double(k) * rowH;
    const std::string dash = kDashes[(k / 12) % 4];
    svg += "<line x1=\"" + num(lx) + "\" y1=\"" + num(y) + "\" x2=\"" + num(lx + 22) +
           "\" y2=\"" + num(y) + "\" stroke=\"" + kColours[k % 12] + "\" stroke-width=\"2\"" +
           (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + "/>\n";
    svg += "<text x=\"" + num(lx + 28) + "\" y=\"" + num(y + 4) + "\" font-size=\"" +
           num(std::min(12.0, rowH - 1)) + "\"" + (wins ? " font-weight=\"bold\"" : "") + ">" +
           xmlEscape(t.variants[v].variant.label + (wins ? " (wins)" : "")) + "</text>\n";
  }
  return svg + "</g>\n";
}

}  // namespace

std::string plotSvg(const TuneResult &r, const TableResult &t) {
  const PlotData p = plotData(t);
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" +
         num(kHeight) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += titles(r, t);
  if (p.shown.empty())
    return svg + "<text x=\"" + num(kLeft + 20) + "\" y=\"" + num(kTop + Axes::kPlotH / 2) +
           "\">nothing was measured</text>\n</svg>\n";
  const Axes a(p);
  svg += gridAndTicks(a);
  svg += variantLines(t, p, a);  // then the winner markers on top, then the legend
  svg += winnerMarkers(t, p, a);
  return svg + legend(t, p) + "</svg>\n";
}

}  // namespace collplan::tune
