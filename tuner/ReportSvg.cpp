// plotSvg: time relative to the fastest variant at each size against size (log-log), for the
// winners and the next best few; bucket edges drawn, each bucket's plan named, winners marked.
#include "tuner/TuneReport.h"
#include "runtime/core/Text.h"

#include "tuner/measure/ByteSize.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstdio>
#include <limits>

namespace collplan::tune {
namespace {

constexpr double kWidth = 980, kHeight = 600;
constexpr double kLeft = 80, kRight = 300, kTop = 56, kBottom = 64;  // margins; legend at right
const char *const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                                "#393b79", "#ad494a"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// At most this many variants are drawn: every bucket's winner, then the best of the rest by
/// their median slowdown against the fastest, so a plot of 90 variants stays readable.
constexpr size_t kMaxShown = 8;
/// Slowdowns above this are drawn at it (the plot is about the close contenders).
constexpr double kMaxRatio = 100;

bool measured(const Measurement &m) { return m.done && m.medianUs > 0; }

/// What the plot shows: each size's fastest time, the variants drawn, and the axes' ranges.
struct PlotData {
  std::vector<double> bestUs;  ///< per size, the fastest measured median (0: none)
  std::vector<size_t> shown;   ///< variants drawn, bucket winners first
  size_t chosenCount = 0;      ///< how many of `shown` (its first ones) are bucket winners
  double sMin = std::numeric_limits<double>::infinity(), sMax = 0;
  double ratioMax = 1;         ///< the largest slowdown drawn (at most kMaxRatio)

  double ratio(const TableResult &t, size_t v, size_t s) const {
    return std::min(kMaxRatio, t.measurements.byVariant[v][s].medianUs / bestUs[s]);
  }
};

/// A variant's median slowdown over the sizes it was measured at (infinity: none).
double medianRatio(const TableResult &t, const std::vector<double> &bestUs, size_t v) {
  std::vector<double> ratios;
  for (size_t s = 0; s < bestUs.size(); ++s)
    if (measured(t.measurements.byVariant[v][s]))
      ratios.push_back(t.measurements.byVariant[v][s].medianUs / bestUs[s]);
  if (ratios.empty()) return std::numeric_limits<double>::infinity();
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  return ratios[ratios.size() / 2];
}

PlotData plotData(const TableResult &t) {
  PlotData p;
  const auto &sizes = t.measurements.sizes;
  p.bestUs.assign(sizes.size(), 0);
  for (size_t v = 0; v < t.variants.size(); ++v)
    for (size_t s = 0; s < sizes.size(); ++s) {
      const Measurement &m = t.measurements.byVariant[v][s];
      if (!measured(m)) continue;
      if (p.bestUs[s] == 0 || m.medianUs < p.bestUs[s]) p.bestUs[s] = m.medianUs;
      p.sMin = std::min(p.sMin, double(std::max<uint64_t>(1, sizes[s].bytes)));
      p.sMax = std::max(p.sMax, double(sizes[s].bytes));
    }
  auto show = [&](size_t v) {
    if (p.shown.size() < kMaxShown &&
        std::find(p.shown.begin(), p.shown.end(), v) == p.shown.end())
      p.shown.push_back(v);
  };
  for (const BucketChoice &b : t.buckets)
    if (b.winner >= 0) show(size_t(b.winner));
  p.chosenCount = p.shown.size();
  std::vector<std::pair<double, size_t>> rest;
  for (size_t v = 0; v < t.variants.size(); ++v) {
    const double r = medianRatio(t, p.bestUs, v);
    if (std::isfinite(r)) rest.emplace_back(r, v);
  }
  std::sort(rest.begin(), rest.end());
  for (const auto &[r, v] : rest) show(v);
  for (size_t v : p.shown)
    for (size_t s = 0; s < sizes.size(); ++s)
      if (measured(t.measurements.byVariant[v][s]))
        p.ratioMax = std::max(p.ratioMax, p.ratio(t, v, s));
  return p;
}

/// Log-log axes: x in log2 bytes over [sMin, sMax], y the slowdown from 1 to the largest drawn
/// (log10, at least up to 2x).
struct Axes {
  explicit Axes(const PlotData &p)
      : x0(std::log2(p.sMin)), x1(std::max(std::log2(p.sMax), x0 + 1)),
        y1(std::max(std::log10(p.ratioMax) * 1.05, std::log10(2.0))) {}
  double X(double bytes) const {
    return kLeft + (std::log2(std::max(1.0, bytes)) - x0) / (x1 - x0) * kPlotW;
  }
  double Y(double ratio) const { return kTop + kPlotH - std::log10(ratio) / y1 * kPlotH; }
  /// Powers of two labelled on x: about ten of them.
  int xStep() const { return std::max(1, int(std::ceil((x1 - x0) / 10))); }

  static constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
  double x0, x1, y1;
};

std::string titles(const TuneResult &r, const TableResult &t, const PlotData &p) {
  const size_t measuredVariants = size_t(t.measuredVariants());
  const std::string drawn = p.shown.size() < measuredVariants
                                ? "; the " + std::to_string(p.shown.size()) + " best of " +
                                      std::to_string(measuredVariants) + " measured variants"
                                : "";
  return "<text x=\"" + num(kLeft) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" +
         xmlEscape("plan-tune: " + t.name() + " on " + std::to_string(t.benchCase.ranks) +
                   " ranks, " + r.settings.backend + ", " + r.settings.topologySpec) +
         "</text>\n" + "<text x=\"" + num(kLeft) + "\" y=\"42\" fill=\"#555\">" +
         xmlEscape("median time per call relative to the fastest variant at each size (1 = "
                   "fastest); circles: the winner at each size" + drawn +
                   std::string(r.partial() ? "; PARTIAL run" : "")) +
         "</text>\n";
}

/// The slowdowns labelled on y: 1, 1.25, 1.5, 2, 3, 5, 10, ... up to the axis' top.
std::vector<double> ratioTicks(const Axes &a) {
  std::vector<double> ticks;
  for (double t : {1.0, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0})
    if (std::log10(t) <= a.y1 + 1e-9) ticks.push_back(t);
  return ticks;
}

std::string gridAndTicks(const Axes &a) {
  const double plotW = Axes::kPlotW, plotH = Axes::kPlotH;
  std::string svg = "<g class=\"axes\" stroke=\"#ccc\" fill=\"none\">\n";
  svg += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(plotW) +
         "\" height=\"" + num(plotH) + "\" stroke=\"#888\"/>\n";
  for (double r : ratioTicks(a))
    svg += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(a.Y(r)) + "\" x2=\"" +
           num(kLeft + plotW) + "\" y2=\"" + num(a.Y(r)) + "\"/>\n";
  for (int e = int(std::ceil(a.x0)); e <= int(std::floor(a.x1)); e += a.xStep())
    svg += "<line x1=\"" + num(a.X(std::ldexp(1.0, e))) + "\" y1=\"" + num(kTop) + "\" x2=\"" +
           num(a.X(std::ldexp(1.0, e))) + "\" y2=\"" + num(kTop + plotH) + "\"/>\n";
  svg += "</g>\n<g class=\"ticks\" fill=\"#333\">\n";
  for (double r : ratioTicks(a)) {
    char label[16];
    std::snprintf(label, sizeof label, "%g×", r);
    svg += "<text x=\"" + num(kLeft - 6) + "\" y=\"" + num(a.Y(r) + 4) +
           "\" text-anchor=\"end\">" + label + "</text>\n";
  }
  for (int e = int(std::ceil(a.x0)); e <= int(std::floor(a.x1)); e += a.xStep())
    svg += "<text x=\"" + num(a.X(std::ldexp(1.0, e))) + "\" y=\"" + num(kTop + plotH + 18) +
           "\" text-anchor=\"middle\">" + xmlEscape(measure::formatBytes(uint64_t(1) << e)) +
           "</text>\n";
  svg += "<text x=\"" + num(kLeft + plotW / 2) + "\" y=\"" + num(kHeight - 18) +
         "\" text-anchor=\"middle\">message size M</text>\n";
  svg += "<text transform=\"translate(18," + num(kTop + plotH / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">time / fastest at that size</text>\n</g>\n";
  return svg;
}

/// A dashed line at each bucket's lower edge and the bucket's plan named above its span.
std::string bucketEdges(const TableResult &t, const Axes &a) {
  const auto &sizes = t.measurements.sizes;
  std::string svg = "<g class=\"buckets\" font-size=\"10\" fill=\"#444\">\n";
  for (size_t i = 0; i < t.buckets.size(); ++i) {
    const BucketChoice &b = t.buckets[i];
    if (b.winner < 0 || b.firstSize >= sizes.size() || b.lastSize >= sizes.size()) continue;
    const double left = i == 0 ? kLeft : a.X(double(sizes[b.firstSize].bytes)) - 6;
    const double right = i + 1 == t.buckets.size() ? kLeft + Axes::kPlotW
                                                   : a.X(double(sizes[b.lastSize].bytes)) + 6;
    if (i > 0)
      svg += "<line class=\"bucket-edge\" x1=\"" + num(left) + "\" y1=\"" + num(kTop) +
             "\" x2=\"" + num(left) + "\" y2=\"" + num(kTop + Axes::kPlotH) +
             "\" stroke=\"#999\" stroke-dasharray=\"5,4\"/>\n";
    std::string label = t.variants[size_t(b.winner)].variant.label;
    const size_t fits = size_t(std::max(0.0, (right - left - 4) / 5.6));  // ~5.6 px a character
    if (fits < 3) continue;
    if (label.size() > fits) label = label.substr(0, fits - 1) + "…";
    svg += "<text class=\"bucket-plan\" x=\"" + num((left + right) / 2) + "\" y=\"" +
           num(kTop + 12) + "\" text-anchor=\"middle\">" + xmlEscape(label) + "</text>\n";
    const double fraction = boundFraction(t, b);
    if (!std::isnan(fraction))
      svg += "<text class=\"bucket-bound\" x=\"" + num((left + right) / 2) + "\" y=\"" +
             num(kTop + 24) + "\" text-anchor=\"middle\">" + num(100 * fraction) +
             "% of bound</text>\n";
  }
  return svg + "</g>\n";
}

/// One polyline per shown variant, the k-th in colour k; a bucket winner's line is thicker.
std::string variantLines(const TableResult &t, const PlotData &p, const Axes &a) {
  const auto &sizes = t.measurements.sizes;
  std::string svg;
  for (size_t k = 0; k < p.shown.size(); ++k) {
    const size_t v = p.shown[k];
    const bool chosen = k < p.chosenCount;
    std::string points;
    for (size_t s = 0; s < sizes.size(); ++s)
      if (measured(t.measurements.byVariant[v][s]))
        points += num(a.X(double(sizes[s].bytes))) + "," + num(a.Y(p.ratio(t, v, s))) + " ";
    svg += "<polyline class=\"variant\" data-variant=\"" + xmlEscape(t.variants[v].variant.label) +
           "\" fill=\"none\" stroke=\"" + kColours[k % 12] + "\" stroke-width=\"" +
           (chosen ? "3" : "1.5") + "\"" + (chosen ? "" : " stroke-dasharray=\"6,3\"") +
           " points=\"" + points + "\"><title>" + xmlEscape(t.variants[v].variant.label) +
           "</title></polyline>\n";
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
    const auto it = std::find(p.shown.begin(), p.shown.end(), size_t(w));
    if (it == p.shown.end()) continue;
    const size_t k = size_t(it - p.shown.begin());
    const Measurement &m = t.measurements.byVariant[size_t(w)][s];
    char title[160];
    std::snprintf(title, sizeof title, "%s at %s: %.2f us",
                  t.variants[size_t(w)].variant.label.c_str(),
                  measure::formatBytes(sizes[s].bytes).c_str(), m.medianUs);
    svg += "<circle class=\"winner\" cx=\"" + num(a.X(double(sizes[s].bytes))) + "\" cy=\"" +
           num(a.Y(p.ratio(t, size_t(w), s))) + "\" r=\"4.5\" fill=\"" + kColours[k % 12] +
           "\" stroke=\"black\" stroke-width=\"1.2\"><title>" + xmlEscape(title) +
           "</title></circle>\n";
  }
  return svg;
}

/// The legend's text of drawn variant k.
std::string legendLabel(const TableResult &t, const PlotData &p, size_t k) {
  return t.variants[p.shown[k]].variant.label + (k < p.chosenCount ? " (chosen)" : "");
}

/// The drawing's width: the plot's, widened so that the longest legend label fits (7.5 px per
/// character of 12 px bold sans-serif, an upper bound for Latin text).
double svgWidth(const TableResult &t, const PlotData &p) {
  size_t longest = 0;
  for (size_t k = 0; k < p.shown.size(); ++k)
    longest = std::max(longest, legendLabel(t, p, k).size());
  return std::max(kWidth, kWidth - kRight + 44 + 7.5 * double(longest) + 12);
}

/// The legend at the right: the drawn variants, bucket winners (solid, bold) first.
std::string legend(const TableResult &t, const PlotData &p) {
  std::string svg = "<g class=\"legend\">\n";
  const double lx = kWidth - kRight + 16;
  for (size_t k = 0; k < p.shown.size(); ++k) {
    const bool chosen = k < p.chosenCount;
    const double y = kTop + 8 + double(k) * 18;
    svg += "<line x1=\"" + num(lx) + "\" y1=\"" + num(y) + "\" x2=\"" + num(lx + 22) +
           "\" y2=\"" + num(y) + "\" stroke=\"" + kColours[k % 12] + "\" stroke-width=\"" +
           (chosen ? "3" : "1.5") + "\"" + (chosen ? "" : " stroke-dasharray=\"6,3\"") + "/>\n";
    svg += "<text x=\"" + num(lx + 28) + "\" y=\"" + num(y + 4) + "\" font-size=\"12\"" +
           (chosen ? " font-weight=\"bold\"" : "") + ">" +
           xmlEscape(legendLabel(t, p, k)) + "</text>\n";
  }
  if (t.bound) {  // what "x% of bound" under each bucket's name means, below the entries
    const double y = kTop + 8 + double(p.shown.size()) * 18 + 14;
    const char *lines[] = {"x% of bound, under each bucket:", "the topology's lower bound at",
                           "the bucket's size over its winner's", "time (plan-compile --bound)"};
    for (size_t i = 0; i < std::size(lines); ++i)
      svg += "<text x=\"" + num(lx) + "\" y=\"" + num(y + double(i) * 15) +
             "\" font-size=\"12\" fill=\"#555\">" + xmlEscape(lines[i]) + "</text>\n";
  }
  return svg + "</g>\n";
}

}  // namespace

std::string plotSvg(const TuneResult &r, const TableResult &t) {
  const PlotData p = plotData(t);
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const double width = svgWidth(t, p);
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" +
         num(kHeight) + "\" viewBox=\"0 0 " + num(width) + " " + num(kHeight) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += titles(r, t, p);
  if (p.shown.empty())
    return svg + "<text x=\"" + num(kLeft + 20) + "\" y=\"" + num(kTop + Axes::kPlotH / 2) +
           "\">nothing was measured</text>\n</svg>\n";
  const Axes a(p);
  svg += gridAndTicks(a);
  svg += bucketEdges(t, a);
  svg += variantLines(t, p, a);  // then the winner markers on top, then the legend
  svg += winnerMarkers(t, p, a);
  return svg + legend(t, p) + "</svg>\n";
}

}  // namespace collplan::tune
