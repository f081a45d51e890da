// Rendering a PlanDrawing as a standalone SVG image and as a self-contained HTML page.
#pragma once

#include "tools/plan-view/PlanDrawing.h"

#include <string>

namespace collplan::view {

/// The drawing as an SVG document: one `<g class="rank">` row per rank shown, one
/// `<g class="op" data-frame=..>` box per op, one `<path class="transfer">` arrow per transfer,
/// a legend, and the truncation note when the caps hid part of the plan.
std::string renderSvg(const Drawing &drawing);

/// A self-contained HTML page (inline SVG, CSS and JS, no external assets) that steps through
/// the drawing's frames: ops of later frames are faded, the current frame's ops and transfers
/// are highlighted and listed.
std::string renderHtml(const Drawing &drawing);

}  // namespace collplan::view
