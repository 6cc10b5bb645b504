// The outputs of `allot sim`: the numbers as JSON (--json, for scripts) and one self-contained
// HTML page (--report) with the plots, written from the same SimResult.
//
// The HTML has no network references: inline CSS, inline SVG plots and a few lines of inline
// script for the hover read-out. Each plot is an <svg class="plot" data-plot="NAME"> and each
// line in it a <path class="series" data-series="VARIANT">, so tests (and readers of the
// source) can find them; docs/simulator.md describes what each plot shows.
#pragma once

#include <string>

#include "sim/results.h"

namespace allot::sim {

std::string ResultJson(const SimResult& result);
std::string ResultHtml(const SimResult& result);

}  // namespace allot::sim
