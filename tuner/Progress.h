// The progress bar with an estimate of the time left, the tuner's log, and the Ctrl-C flag that
// stops measuring.
#pragma once

#include <chrono>
#include <string>

namespace collplan::tune {

/// Installs a SIGINT handler: the first Ctrl-C sets the flag (the tuner stops after the current
/// measurement and writes what it has); a second one ends the process as usual.
void installInterruptHandler();
bool interrupted();

/// A one-line bar on stderr, redrawn in place on a terminal ("[#####.....] 48%  312/650  ETA
/// 0:41  allreduce f32 64 KiB ring ch2"); elsewhere a line every 10%. Work is weighted (an
/// estimate of each measurement's seconds) so the ETA follows the expensive large sizes.
class ProgressBar {
public:
  /// `enabled`: draw at all; `terminal`: redraw in place (else one line per 10%).
  ProgressBar(bool enabled, bool terminal);
  /// Starts a phase of `total` weight over `items` items, called `noun` in the lines written
  /// where the bar is not redrawn ("5/34 variants").
  void start(double total, size_t items, std::string noun = "measurements");
  /// Marks one item of `weight` done and redraws with `what` as the current item.
  void advance(double weight, const std::string &what);
  /// Prints `line` on its own line (the bar is redrawn after it).
  void note(const std::string &line);
  /// Clears the bar.
  void finish();
  /// Seconds since start(); the estimated seconds left.
  double elapsed() const;
  double remaining() const;

private:
  void draw(const std::string &what);
  bool enabled_, terminal_;
  double total_ = 0, done_ = 0;
  size_t items_ = 0, itemsDone_ = 0;
  std::string noun_ = "measurements";
  int lastDecile_ = -1;
  std::chrono::steady_clock::time_point start_, lastDraw_;
  std::string last_;
};

/// Where the tuner's phases report, through the bar (redrawn after each line): notes on the
/// run's progress (none when quiet) and alerts (wrong results, failures: always).
class TuneLog {
public:
  TuneLog(ProgressBar &bar, bool quiet) : bar_(bar), quiet_(quiet) {}
  void note(const std::string &line) {
    if (!quiet_) bar_.note(line);
  }
  void alert(const std::string &line) { bar_.note(line); }
  bool quiet() const { return quiet_; }
  ProgressBar &bar() { return bar_; }

private:
  ProgressBar &bar_;
  bool quiet_;
};

/// "1:05" / "0:07" / "1:02:03".
std::string formatDuration(double seconds);

}  // namespace collplan::tune
