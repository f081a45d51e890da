// librarySvg: an MPI library's tuning table drawn as time relative to the fastest algorithm at
// each size against size (log-log): every algorithm, the library's default and the written rules.
#include "tuner/mpilib/LibraryTune.h"

#include "runtime/core/Text.h"
#include "tuner/measure/ByteSize.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace collplan::mpilib {
namespace {

constexpr double kWidth = 980, kHeight = 600;
constexpr double kLeft = 80, kRight = 300, kTop = 72, kBottom = 64;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr double kMaxRatio = 20;    ///< slower lines are drawn at the top edge
constexpr double kMinRatio = 0.25;  ///< faster ones (the rules, timed in other rounds) at the bottom
const char *const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79",
                                "#ad494a", "#7f7f7f"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// A line to draw: its label, colour, style and time per size (0: not measured).
struct Series {
  std::string label;
  std::string colour;
  bool bold = false, dashed = false;
  std::vector<double> us;
};

std::vector<Series> seriesOf(const LibraryTable &t) {
  std::vector<Series> out;
  for (size_t i = 0; i < t.choices.size(); ++i) {
    const ChoiceTimes &c = t.choices[i];
    if (c.us.empty()) continue;
    const bool wins = std::find(t.winner.begin(), t.winner.end(), int(i)) != t.winner.end();
    out.push_back({c.choice.label() + (wins ? " (chosen)" : ""), kColours[out.size() % 12], wins,
                   !wins, c.us});
  }
  out.push_back({"library default", "#000000", false, true, t.defaultUs});
  if (!t.tunedUs.empty()) out.push_back({"written rules", "#000000", true, false, t.tunedUs});
  return out;
}

struct Axes {
  double x0, x1;  ///< log2 of the smallest and largest size
  double y0, y1;  ///< log10 of the smallest and largest ratio drawn
  double X(double bytes) const {
    return kLeft + (x1 > x0 ? (std::log2(bytes) - x0) / (x1 - x0) : 0.5) * kPlotW;
  }
  double Y(double ratio) const {
    const double r = std::log10(std::clamp(ratio, kMinRatio, kMaxRatio));
    return kTop + kPlotH - (r - y0) / (y1 - y0) * kPlotH;
  }
};

std::string frame(const Axes &a, const LibraryTable &t) {
  std::string svg = "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" +
                    num(kPlotW) + "\" height=\"" + num(kPlotH) +
                    "\" fill=\"none\" stroke=\"#888\"/>\n<g fill=\"#333\" stroke=\"none\">\n";
  for (double r : {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0}) {
    if (std::log10(r) < a.y0 - 1e-9) continue;
    if (std::log10(r) > a.y1 + 1e-9) break;
    svg += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(a.Y(r)) + "\" x2=\"" +
           num(kLeft + kPlotW) + "\" y2=\"" + num(a.Y(r)) + "\" stroke=\"#ddd\"/>\n";
    char label[16];
    std::snprintf(label, sizeof label, "%g×", r);
    svg += "<text x=\"" + num(kLeft - 6) + "\" y=\"" + num(a.Y(r) + 4) +
           "\" text-anchor=\"end\">" + label + "</text>\n";
  }
  const size_t step = t.sizes.size() > 14 ? 2 : 1;
  for (size_t k = 0; k < t.sizes.size(); k += step)
    svg += "<text x=\"" + num(a.X(double(t.sizes[k].bytes))) + "\" y=\"" +
           num(kTop + kPlotH + 18) + "\" text-anchor=\"middle\">" +
           xmlEscape(measure::formatBytes(t.sizes[k].bytes)) + "</text>\n";
  svg += "<text x=\"" + num(kLeft + kPlotW / 2) + "\" y=\"" + num(kHeight - 18) +
         "\" text-anchor=\"middle\">message size M</text>\n<text transform=\"translate(18," +
         num(kTop + kPlotH / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">time / fastest algorithm at that size</text>\n";
  return svg + "</g>\n";
}

std::string line(const Series &s, const std::vector<double> &best, const Axes &a,
                 const LibraryTable &t) {
  std::string points;
  for (size_t k = 0; k < t.sizes.size(); ++k)
    if (s.us[k] > 0 && best[k] > 0)
      points += num(a.X(double(t.sizes[k].bytes))) + "," + num(a.Y(s.us[k] / best[k])) + " ";
  return "<polyline fill=\"none\" stroke=\"" + s.colour + "\" stroke-width=\"" +
         (s.bold ? "3" : "1.5") + "\"" + (s.dashed ? " stroke-dasharray=\"6,3\"" : "") +
         " points=\"" + points + "\"><title>" + xmlEscape(s.label) + "</title></polyline>\n";
}

std::string legend(const std::vector<Series> &series) {
  std::string svg;
  const double lx = kWidth - kRight + 16;
  for (size_t k = 0; k < series.size(); ++k) {
    const Series &s = series[k];
    const double y = kTop + 8 + double(k) * 18;
    svg += "<line x1=\"" + num(lx) + "\" y1=\"" + num(y) + "\" x2=\"" + num(lx + 22) +
           "\" y2=\"" + num(y) + "\" stroke=\"" + s.colour + "\" stroke-width=\"" +
           (s.bold ? "3" : "1.5") + "\"" + (s.dashed ? " stroke-dasharray=\"6,3\"" : "") +
           "/>\n<text x=\"" + num(lx + 28) + "\" y=\"" + num(y + 4) + "\"" +
           (s.bold ? " font-weight=\"bold\"" : "") + ">" + xmlEscape(s.label) + "</text>\n";
  }
  return svg;
}

}  // namespace

std::string librarySvg(const LibraryTuneResult &result, const LibraryTable &t) {
  const std::vector<Series> series = seriesOf(t);
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "
                    "xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) +
                    "\" height=\"" + num(kHeight) + "\" font-family=\"sans-serif\" "
                    "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + num(kLeft) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" +
         xmlEscape("plan-tune: " + std::string(result.library->title()) + ", " +
                   std::string(toString(t.benchCase.kind)) + " on " +
                   std::to_string(t.benchCase.ranks) + " ranks") +
         "</text>\n<text x=\"" + num(kLeft) + "\" y=\"42\" fill=\"#555\">" +
         xmlEscape("median time per call / the fastest algorithm at that size; bold: chosen "
                   "for the rules file; black: the library's default (dashed) and the") +
         "</text>\n<text x=\"" + num(kLeft) + "\" y=\"42\" dy=\"14\" fill=\"#555\">" +
         xmlEscape("written rules (solid), timed in rounds of their own; ratios beyond 0.25× "
                   "and 20× drawn at the edge") +
         "</text>\n";
  if (t.sizes.empty()) return svg + "</svg>\n";
  std::vector<double> best(t.sizes.size(), 0);
  double worst = 1.25, fastest = 1;
  for (size_t k = 0; k < t.sizes.size(); ++k) {
    for (const ChoiceTimes &c : t.choices)
      if (!c.us.empty() && (best[k] == 0 || c.us[k] < best[k])) best[k] = c.us[k];
    for (const Series &s : series)
      if (best[k] > 0 && s.us[k] > 0) {
        worst = std::max(worst, s.us[k] / best[k]);
        fastest = std::min(fastest, s.us[k] / best[k]);
      }
  }
  const Axes a{std::log2(double(std::max<uint64_t>(1, t.sizes.front().bytes))),
               std::log2(double(std::max<uint64_t>(1, t.sizes.back().bytes))),
               std::log10(std::max(fastest, kMinRatio)) - 0.02,
               std::log10(std::min(worst, kMaxRatio)) + 0.02};
  svg += frame(a, t);
  for (const Series &s : series) svg += line(s, best, a, t);
  return svg + legend(series) + "</svg>\n";
}

}  // namespace collplan::mpilib
