// renderHtml: a self-contained page that steps through a plan drawing frame by frame.
#include "tools/plan-view/PlanSvg.h"
#include "runtime/core/Text.h"

#include <sstream>

namespace collplan::view {
namespace {

/// The page's script: fades ops of later frames, highlights the current frame, lists its ops.
constexpr const char *kScript = R"JS(
(function () {
  var labels = JSON.parse(document.getElementById('frame-labels').textContent);
  var ops = Array.prototype.slice.call(document.querySelectorAll('g.op'));
  var xfers = Array.prototype.slice.call(document.querySelectorAll('path.transfer'));
  var slider = document.getElementById('slider'), label = document.getElementById('label');
  var list = document.getElementById('ops'), timer = null, cur = 0;
  function show(f) {
    cur = Math.max(0, Math.min(labels.length - 1, f));
    slider.value = cur;
    label.textContent = labels[cur] + '  (' + (cur + 1) + ' of ' + labels.length + ')';
    list.innerHTML = '';
    ops.forEach(function (g) {
      var k = +g.getAttribute('data-frame');
      g.style.opacity = k > cur ? 0.12 : 1;
      g.classList.toggle('current', k === cur);
      if (k === cur) {
        var li = document.createElement('li');
        li.textContent = g.querySelector('title').textContent;
        list.appendChild(li);
      }
    });
    xfers.forEach(function (p) {
      var k = +p.getAttribute('data-frame');
      p.style.opacity = k > cur ? 0 : (k === cur ? 1 : 0.3);
      p.classList.toggle('current', k === cur);
    });
  }
  function showAll() {
    ops.forEach(function (g) { g.style.opacity = 1; g.classList.remove('current'); });
    xfers.forEach(function (p) { p.style.opacity = 1; p.classList.remove('current'); });
    label.textContent = 'all ' + labels.length + ' frames';
    list.innerHTML = '';
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; } play.textContent = 'Play'; }
  var play = document.getElementById('play');
  document.getElementById('prev').onclick = function () { stop(); show(cur - 1); };
  document.getElementById('next').onclick = function () { stop(); show(cur + 1); };
  document.getElementById('all').onclick = function () { stop(); showAll(); };
  slider.oninput = function () { stop(); show(+slider.value); };
  play.onclick = function () {
    if (timer) return stop();
    play.textContent = 'Pause';
    if (cur >= labels.length - 1) show(-1);
    timer = setInterval(function () { if (cur >= labels.length - 1) stop(); else show(cur + 1); }, 900);
  };
  document.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowRight') { stop(); show(cur + 1); }
    if (e.key === 'ArrowLeft') { stop(); show(cur - 1); }
  });
  show(0);
})();
)JS";

constexpr const char *kStyle = R"CSS(
body { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; margin: 16px; color: #222; }
#controls { margin: 8px 0; display: flex; gap: 8px; align-items: center; }
#controls input { width: 320px; }
#label { font-weight: bold; min-width: 220px; }
#figure { overflow: auto; border: 1px solid #ddd; }
g.op.current rect { stroke-width: 3; stroke: #b00020; }
path.transfer.current { stroke: #b00020; stroke-width: 2.4; }
g.op, path.transfer { transition: opacity 0.2s; }
#ops { font-family: 'DejaVu Sans Mono', monospace; font-size: 13px; }
)CSS";

std::string jsonString(const std::string &s) {
  std::string j = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') j += '\\';
    if (ch == '<') {  // keeps "</script>" out of the data block
      j += "\\u003c";
      continue;
    }
    j += ch;
  }
  return j + "\"";
}

}  // namespace

std::string renderHtml(const Drawing &d) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>plan-view: "
    << xmlEscape(d.title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  h << "<h1>" << xmlEscape(d.title) << "</h1>\n<p>" << xmlEscape(d.subtitle) << "</p>\n";
  if (!d.truncation.empty()) h << "<p class=\"truncation\">" << xmlEscape(d.truncation) << "</p>\n";
  h << "<div id=\"controls\"><button id=\"prev\">Prev</button><button id=\"play\">Play</button>"
       "<button id=\"next\">Next</button><input id=\"slider\" type=\"range\" min=\"0\" max=\""
    << (d.framesShown > 0 ? d.framesShown - 1 : 0)
    << "\" value=\"0\"><span id=\"label\"></span><button id=\"all\">Show all</button></div>\n";
  h << "<div id=\"figure\">\n" << renderSvg(d) << "</div>\n";
  h << "<h2>Ops starting in this frame</h2>\n<ol id=\"ops\"></ol>\n";
  h << "<p>Arrow keys or the buttons step through the schedule; ops of later frames are faded.</p>\n";
  h << "<script type=\"application/json\" id=\"frame-labels\">[";
  for (size_t i = 0; i < d.frameLabels.size(); ++i) h << (i ? "," : "") << jsonString(d.frameLabels[i]);
  h << "]</script>\n<script>" << kScript << "</script>\n</body>\n</html>\n";
  return h.str();
}

}  // namespace collplan::view
