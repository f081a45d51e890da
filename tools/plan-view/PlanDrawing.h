// PlanDrawing: the geometry-free layout of a plan for plan-view (boxes per rank, transfer arrows).
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/sim/Simulator.h"

#include <optional>
#include <string>
#include <vector>

namespace collplan::view {

/// How an op is coloured in the drawing and the legend (an op that reduces and duplicates is
/// coloured as a reduction and carries both marks).
enum class OpClass : uint8_t {
  Move,       ///< send, recv, copy, recv_copy_send: data moves, nothing is combined
  Reduce,     ///< the op combines two or more operands (⊕)
  Duplicate,  ///< dup, or several dsts or several sends: one read, k writes (×k)
};

/// One op of one channel of one rank, drawn in its lane. Horizontal position: [x0, x1) in
/// columns (step view: column c spans [c, c+1), ops sharing a column split it) or in µs
/// (simulated view).
struct OpBox {
  int rank = 0;
  int channel = 0;
  int op = 0;    ///< index in the channel
  int lane = 0;  ///< the row it is drawn in (Drawing::lanes)
  double x0 = 0, x1 = 0;
  int frame = 0;  ///< the HTML page reveals ops frame by frame (step view: the column)
  OpClass cls = OpClass::Move;
  bool reduces = false;     ///< two or more operands (⊕)
  bool duplicates = false;  ///< a dup or several dsts/sends
  int writes = 1;           ///< dsts + sends (the k of "×k")
  std::string kind;        ///< "recv_reduce_send"
  std::string detail;      ///< "in[1:2]+recv → out[1:2]"
  std::string tooltip;     ///< every field of the op, plus timings in the simulated view
};

/// A row of the drawing: one channel of one rank.
struct Lane {
  int rank = 0;
  int channel = 0;
  int channels = 1;  ///< of its rank (rows of one rank share a background)
};

/// A transfer from the sending op to the receiving op (indices into Drawing::boxes).
struct Arrow {
  size_t from = 0, to = 0;
  uint32_t index = 0;  ///< the message's place in its (sender, receiver, channel) FIFO
  uint32_t units = 0;  ///< 0: a token (barrier message)
  std::string tooltip;
};

struct Drawing {
  std::string title;     ///< "allreduce · ring · 4 ranks · 4 units"
  std::string subtitle;  ///< "columns: steps (PlanOp::step)", "... rounds ...", or simulated time
  bool timeAxis = false; ///< x in µs (simulated) rather than columns
  double xMax = 0;       ///< columns shown, or µs
  int ranksShown = 0, ranksTotal = 0;
  int framesShown = 0, framesTotal = 0;
  std::vector<std::string> frameLabels;  ///< per frame shown: "step 3" or "t = 1.25 µs"
  std::string truncation;  ///< non-empty when the caps hid ranks or steps: says what is shown
  std::vector<Lane> lanes;  ///< every channel of every rank shown, rank by rank
  std::vector<OpBox> boxes;
  std::vector<Arrow> arrows;
};

/// Caps that keep a drawing of a large plan readable.
struct DrawingLimits {
  int maxRanks = 32;
  int maxSteps = 48;  ///< frames (columns or distinct start times)
};

/// Lays out `plan` by steps: PlanOp::step when every op has one and every transfer goes to a
/// later step, else as-soon-as-possible rounds (after the channel's previous op, the ops it
/// waits for on other channels, and the sender).
Drawing layoutBySteps(const Plan &plan, const DrawingLimits &limits);

/// Lays out `plan` on the simulated timeline `sim` (from simulate()); `what` describes the run
/// for the subtitle ("ring:4, 1 MiB").
Drawing layoutByTime(const Plan &plan, const SimResult &sim, const std::string &what,
                     const DrawingLimits &limits);

}  // namespace collplan::view
