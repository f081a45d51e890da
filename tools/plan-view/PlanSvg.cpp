// renderSvg: a row per channel of each rank, steps or simulated time as columns, transfers as
// arrows, a legend.
#include "tools/plan-view/PlanSvg.h"
#include "runtime/core/Text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace collplan::view {

namespace {

constexpr double kLeft = 84, kTop = 92, kRowHeight = 64, kBoxHeight = 40, kColumnWidth = 210;
/// Space between the boxes of neighbouring steps, where the transfer arrows run.
constexpr double kStepGap = 40;
constexpr double kLegendHeight = 64, kRight = 24, kMinWidth = 940;

struct Style {
  const char *fill, *stroke;
};
Style styleOf(OpClass c) {
  switch (c) {
  case OpClass::Reduce: return {"#fde0c5", "#d9711c"};
  case OpClass::Duplicate: return {"#d5eccf", "#3f9a3a"};
  case OpClass::Move: break;
  }
  return {"#dbe9f6", "#4e79a7"};
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// Rough text widths (px) for fitting labels into boxes.
double detailWidth(const std::string &s) {
  size_t chars = 0;  // count code points, not UTF-8 bytes
  for (unsigned char ch : s) chars += (ch & 0xC0) != 0x80;
  return 5.6 * double(chars);
}

double kindWidth(const std::string &s) { return 7.0 * detailWidth(s) / 5.6; }

/// "recv_reduce_send" -> "rrs" for boxes too narrow for the name.
std::string abbreviate(const std::string &kind) {
  std::string a;
  bool start = true;
  for (char ch : kind) {
    if (start) a += ch;
    start = ch == '_';
  }
  return a;
}

/// A "nice" tick step for an axis of `span` µs with about `ticks` ticks.
double tickStep(double span, int ticks) {
  const double raw = span / ticks, p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

/// Where things go on the page: the plot's width and scale, the rows' top, the page size.
struct Layout {
  explicit Layout(const Drawing &d)
      : timeAxis(d.timeAxis),
        plotWidth(d.timeAxis ? std::clamp(190.0 * d.framesShown, 800.0, 2400.0)
                             : kColumnWidth * d.xMax),
        scale(d.xMax > 0 ? plotWidth / d.xMax : 1.0),
        width(std::max(kLeft + plotWidth + kRight, kMinWidth)),  // room for the legend
        rowsTop(kTop + (d.truncation.empty() ? 0 : 18)),
        lanes(int(d.lanes.size())),
        height(rowsTop + kRowHeight * lanes + kLegendHeight) {}

  double xOf(double x) const { return kLeft + x * scale; }
  double rowY(int lane) const { return rowsTop + kRowHeight * lane; }
  double gridBottom() const { return rowY(lanes); }

  bool timeAxis;
  double plotWidth, scale, width, rowsTop;
  int lanes;
  double height;
};

void writeHeader(std::ostringstream &s, const Drawing &d, const Layout &g) {
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plan-view\" width=\"" << num(g.width)
    << "\" height=\"" << num(g.height) << "\" viewBox=\"0 0 " << num(g.width) << " "
    << num(g.height) << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
  s << "<defs><marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
       "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
       "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#555\"/></marker></defs>\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"12\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" << xmlEscape(d.title)
    << "</text>\n";
  s << "<text x=\"12\" y=\"44\" font-size=\"12\" fill=\"#444\">" << xmlEscape(d.subtitle)
    << "</text>\n";
  if (!d.truncation.empty())
    s << "<text class=\"truncation\" x=\"12\" y=\"" << num(kTop - 26) << "\" font-size=\"12\" "
      << "fill=\"#b00020\">" << xmlEscape(d.truncation) << "</text>\n";
}

/// A column label centred at `labelX` and a grid line at `lineX`.
void writeTick(std::ostringstream &s, const Layout &g, double labelX, double lineX,
               const std::string &label) {
  s << "<text x=\"" << num(g.xOf(labelX)) << "\" y=\"" << num(g.rowsTop - 10)
    << "\" text-anchor=\"middle\">" << label << "</text>\n";
  s << "<line x1=\"" << num(g.xOf(lineX)) << "\" y1=\"" << num(g.rowsTop) << "\" x2=\""
    << num(g.xOf(lineX)) << "\" y2=\"" << num(g.gridBottom()) << "\" stroke=\"#ddd\"/>\n";
}

/// Column headers and grid (steps) or a time axis.
void writeAxis(std::ostringstream &s, const Drawing &d, const Layout &g) {
  s << "<g class=\"axis\" font-size=\"11\" fill=\"#555\">\n";
  if (!d.timeAxis) {
    for (int c = 0; c < d.framesShown; ++c)
      writeTick(s, g, c + 0.5, c, xmlEscape(d.frameLabels[size_t(c)]));
  } else if (d.xMax > 0) {
    const double step = tickStep(d.xMax, 8);
    for (double t = 0; t <= d.xMax * (1 + 1e-9); t += step) {
      char label[32];
      std::snprintf(label, sizeof label, step < 1 ? "%.2f" : "%.0f", t);
      writeTick(s, g, t, t, std::string(label) + (t == 0 ? " µs" : ""));
    }
  }
  s << "</g>\n";
}

/// One op's box, with its kind (abbreviated to fit) and, where it fits, its detail.
void writeBox(std::ostringstream &s, const OpBox &b, const Layout &g, double y) {
  const Style st = styleOf(b.cls);
  const double pad = g.timeAxis ? 0.5 : kStepGap / 2;
  const double x0 = g.xOf(b.x0) + pad, w = std::max(3.0, g.xOf(b.x1) - g.xOf(b.x0) - 2 * pad);
  const double by = y + (kRowHeight - kBoxHeight) / 2;
  std::string kind = b.kind;
  const std::string times = b.duplicates ? "×" + std::to_string(b.writes) : "";
  if (b.reduces) kind = "⊕ " + kind;
  if (b.duplicates) kind += " " + times;
  s << "<g class=\"op\" data-frame=\"" << b.frame << "\" data-rank=\"" << b.rank
    << "\" data-channel=\"" << b.channel << "\" data-op=\"" << b.op << "\"><title>"
    << xmlEscape(b.tooltip) << "</title>";
  s << "<rect x=\"" << num(x0) << "\" y=\"" << num(by) << "\" width=\"" << num(w)
    << "\" height=\"" << num(kBoxHeight) << "\" rx=\"4\" fill=\"" << st.fill << "\" stroke=\""
    << st.stroke << "\" stroke-width=\"1.5\"/>";
  if (kindWidth(kind) > w - 6) kind = (b.reduces ? "⊕" : "") + abbreviate(b.kind) + times;
  if (kindWidth(kind) <= w - 4) {
    const bool detail = detailWidth(b.detail) <= w - 6;
    s << "<text x=\"" << num(x0 + w / 2) << "\" y=\"" << num(by + (detail ? 16 : 24))
      << "\" text-anchor=\"middle\" font-size=\"11\" font-weight=\"bold\" fill=\"#222\">"
      << xmlEscape(kind) << "</text>";
    if (detail)
      s << "<text x=\"" << num(x0 + w / 2) << "\" y=\"" << num(by + 31)
        << "\" text-anchor=\"middle\" font-size=\"9.5\" font-family=\"DejaVu Sans Mono, "
           "monospace\" fill=\"#333\">"
        << xmlEscape(b.detail) << "</text>";
  }
  s << "</g>\n";
}

/// A row (one channel of a rank): its band, its labels and its op boxes.
void writeLane(std::ostringstream &s, const Drawing &d, const Layout &g, int l) {
  const Lane &lane = d.lanes[size_t(l)];
  const int r = lane.rank;
  const double y = g.rowY(l);
  s << "<g class=\"rank\" data-rank=\"" << r << "\" data-channel=\"" << lane.channel << "\">\n";
  s << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(y) << "\" width=\"" << num(g.plotWidth)
    << "\" height=\"" << num(kRowHeight) << "\" fill=\"" << (r % 2 ? "#f7f7f7" : "#ffffff")
    << "\"/>\n";
  if (lane.channel == 0)
    s << "<text x=\"" << num(kLeft - 10) << "\" y=\""
      << num(y + kRowHeight / 2 + (lane.channels > 1 ? -2 : 4))
      << "\" text-anchor=\"end\" font-size=\"13\" font-weight=\"bold\">rank " << r << "</text>\n";
  if (lane.channels > 1)
    s << "<text x=\"" << num(kLeft - 10) << "\" y=\""
      << num(y + kRowHeight / 2 + (lane.channel == 0 ? 13 : 4))
      << "\" text-anchor=\"end\" font-size=\"11\" fill=\"#555\">channel " << lane.channel
      << "</text>\n";
  for (const OpBox &b : d.boxes)
    if (b.lane == l) writeBox(s, b, g, y);
  s << "</g>\n";
}

/// A transfer's path: in steps, a curve from the sender's right edge to the receiver's left
/// edge; in time, a line from the sender's end to the receiver's start between facing edges.
std::string arrowPath(const OpBox &f, const OpBox &t, const Layout &g) {
  if (!g.timeAxis) {
    const double x1 = g.xOf(f.x1) - kStepGap / 2, y1 = g.rowY(f.lane) + kRowHeight / 2;
    const double x2 = g.xOf(t.x0) + kStepGap / 2, y2 = g.rowY(t.lane) + kRowHeight / 2;
    const double bend = std::max(kStepGap / 2, std::abs(x2 - x1) / 2);
    return "M" + num(x1) + "," + num(y1) + " C" + num(x1 + bend) + "," + num(y1) + " " +
           num(x2 - bend) + "," + num(y2) + " " + num(x2) + "," + num(y2);
  }
  const bool down = t.lane > f.lane;
  const double edge = (kRowHeight - kBoxHeight) / 2;
  const double x1 = g.xOf(f.x1) - 1.5, x2 = std::max(g.xOf(t.x0) + 1.5, x1);
  const double y1 = g.rowY(f.lane) + (down ? kRowHeight - edge : edge);
  const double y2 = g.rowY(t.lane) + (down ? edge : kRowHeight - edge);
  return "M" + num(x1) + "," + num(y1) + " L" + num(x2) + "," + num(y2);
}

void writeArrows(std::ostringstream &s, const Drawing &d, const Layout &g) {
  s << "<g class=\"transfers\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.4\">\n";
  for (const Arrow &a : d.arrows) {
    const OpBox &f = d.boxes[a.from], &t = d.boxes[a.to];
    s << "<path class=\"transfer\" data-frame=\"" << t.frame << "\" data-index=\"" << a.index
      << "\" d=\"" << arrowPath(f, t, g) << "\" marker-end=\"url(#arrowhead)\""
      << (a.units ? "" : " stroke-dasharray=\"4 3\"") << "><title>" << xmlEscape(a.tooltip)
      << "</title></path>\n";
  }
  s << "</g>\n";
}

void writeLegend(std::ostringstream &s, const Layout &g) {
  const double ly = g.gridBottom() + 30;
  s << "<g class=\"legend\" font-size=\"12\">\n";
  double lx = kLeft;
  auto swatch = [&](OpClass c, const std::string &label) {
    const Style st = styleOf(c);
    s << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly - 11) << "\" width=\"22\" height=\"14\" "
      << "rx=\"3\" fill=\"" << st.fill << "\" stroke=\"" << st.stroke << "\"/>"
      << "<text x=\"" << num(lx + 28) << "\" y=\"" << num(ly) << "\">" << xmlEscape(label)
      << "</text>\n";
    lx += 40 + detailWidth(label) * 1.15;
  };
  swatch(OpClass::Move, "move (send, recv, copy)");
  swatch(OpClass::Reduce, "⊕ reduction (2+ operands)");
  swatch(OpClass::Duplicate, "×k duplication (dup, k dsts/sends)");
  s << "<path d=\"M" << num(lx) << "," << num(ly - 4) << " L" << num(lx + 30) << ","
    << num(ly - 4) << "\" stroke=\"#555\" stroke-width=\"1.4\" marker-end=\"url(#arrowhead)\"/>"
    << "<text x=\"" << num(lx + 38) << "\" y=\"" << num(ly)
    << "\">transfer (dashed: token)</text>\n";
  s << "<text x=\"" << num(kLeft) << "\" y=\"" << num(ly + 20)
    << "\" fill=\"#666\" font-size=\"11\">box text: op kind; sources → destinations in units "
       "(buf[begin:end]); hover for details</text>\n";
  s << "</g>\n";
}

}  // namespace

std::string renderSvg(const Drawing &d) {
  const Layout g(d);
  std::ostringstream s;
  writeHeader(s, d, g);
  writeAxis(s, d, g);
  for (int l = 0; l < g.lanes; ++l) writeLane(s, d, g, l);
  writeArrows(s, d, g);
  writeLegend(s, g);
  s << "</svg>\n";
  return s.str();
}

}  // namespace collplan::view
