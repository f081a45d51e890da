// Progress bar with ETA on stderr, and the SIGINT flag.
#include "tuner/Progress.h"

#include <algorithm>
#include <csignal>
#include <cstdio>

namespace collplan::tune {
namespace {

volatile std::sig_atomic_t gInterrupted = 0;

extern "C" void onInterrupt(int) {
  gInterrupted = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process
}

}  // namespace

void installInterruptHandler() {
  gInterrupted = 0;
  std::signal(SIGINT, onInterrupt);
}

bool interrupted() { return gInterrupted != 0; }

std::string formatDuration(double seconds) {
  const long s = long(std::max(0.0, seconds) + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

ProgressBar::ProgressBar(bool enabled, bool terminal) : enabled_(enabled), terminal_(terminal) {
  start_ = lastDraw_ = std::chrono::steady_clock::now();
}

void ProgressBar::start(double total, size_t items, std::string noun) {
  noun_ = std::move(noun);
  total_ = std::max(total, 1e-9);
  done_ = 0;
  items_ = items;
  itemsDone_ = 0;
  lastDecile_ = -1;
  start_ = std::chrono::steady_clock::now();
  lastDraw_ = start_ - std::chrono::seconds(1);
}

double ProgressBar::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double ProgressBar::remaining() const {
  if (done_ <= 0) return 0;
  return elapsed() * std::max(0.0, total_ - done_) / done_;
}

void ProgressBar::advance(double weight, const std::string &what) {
  done_ += weight;
  ++itemsDone_;
  draw(what);
}

void ProgressBar::draw(const std::string &what) {
  if (!enabled_) return;
  const double fraction = std::min(1.0, done_ / total_);
  char line[256];
  if (terminal_) {
    const auto now = std::chrono::steady_clock::now();
    if (itemsDone_ < items_ && now - lastDraw_ < std::chrono::milliseconds(100)) return;
    lastDraw_ = now;
    constexpr int kWidth = 24;
    const int filled = int(fraction * kWidth);
    std::string bar(size_t(filled), '#');
    bar.append(size_t(kWidth - filled), '.');
    std::snprintf(line, sizeof line, "\r[%s] %3d%% %zu/%zu ETA %s  %-40.40s", bar.c_str(),
                  int(fraction * 100), itemsDone_, items_, formatDuration(remaining()).c_str(),
                  what.c_str());
    std::fputs(line, stderr);
    last_ = line;
  } else {
    const int decile = int(fraction * 10);
    if (decile == lastDecile_) return;
    lastDecile_ = decile;
    std::snprintf(line, sizeof line, "plan-tune: %3d%% (%zu/%zu %s, %s elapsed, ETA %s)\n",
                  decile * 10, itemsDone_, items_, noun_.c_str(), formatDuration(elapsed()).c_str(),
                  formatDuration(remaining()).c_str());
    std::fputs(line, stderr);
  }
  std::fflush(stderr);
}

void ProgressBar::note(const std::string &line) {
  if (terminal_ && enabled_ && !last_.empty()) std::fprintf(stderr, "\r%-100s\r", "");
  std::fprintf(stderr, "%s\n", line.c_str());
  if (terminal_ && enabled_ && !last_.empty()) std::fputs(last_.c_str(), stderr);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (enabled_ && terminal_ && !last_.empty()) std::fprintf(stderr, "\r%-100s\r", "");
  last_.clear();
  std::fflush(stderr);
}

}  // namespace collplan::tune
