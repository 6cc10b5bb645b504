// ResultHtml: one page, no network: a summary table per variant side by side, then the plots as
// inline SVG (line charts with one series per variant, CDFs, heat maps).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <sstream>

#include "sim/report.h"

namespace allot::sim {

namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                    "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Num(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// A duration in seconds as "45 s", "12.5 min", "2.1 h".
std::string Span(double s) {
  if (s < 120) return Num(s, s < 10 ? 2 : 1) + " s";
  if (s < 7200) return Num(s / 60, 1) + " min";
  return Num(s / 3600, 2) + " h";
}

// A round step for about `n` ticks over [0, max].
double TickStep(double max, int n) {
  if (max <= 0) return 1;
  double raw = max / n, mag = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (raw <= m * mag) return m * mag;
  }
  return 10 * mag;
}

struct Series {
  std::string name;
  std::string color;
  std::vector<double> x, y;
  bool dashed = false;
};

struct Chart {
  std::string id;     // data-plot
  std::string title;  // shown above
  std::string x_label, y_label;
  bool x_minutes = true;  // x in seconds shown as minutes
  std::optional<double> y_max;
  std::vector<Series> series;
};

constexpr double kW = 640, kH = 260, kLeft = 56, kRight = 16, kTop = 12, kBottom = 40;

std::string RenderChart(const Chart& c) {
  double xmax = 0, ymax = 0;
  for (const Series& s : c.series) {
    for (double v : s.x) xmax = std::max(xmax, v);
    for (double v : s.y) ymax = std::max(ymax, v);
  }
  if (c.y_max) ymax = *c.y_max;
  if (ymax <= 0) ymax = 1;
  if (xmax <= 0) xmax = 1;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto X = [&](double v) { return kLeft + v / xmax * pw; };
  auto Y = [&](double v) { return kTop + ph - std::min(v, ymax) / ymax * ph; };
  std::ostringstream o;
  o << "<figure><figcaption>" << Escape(c.title) << "</figcaption>\n";
  o << "<svg class=\"plot\" data-plot=\"" << c.id << "\" viewBox=\"0 0 " << kW << " " << kH
    << "\" width=\"" << kW << "\" height=\"" << kH << "\" role=\"img\" aria-label=\""
    << Escape(c.title) << "\">\n";
  // Axes, grid and ticks.
  const double ys = TickStep(ymax, 5);
  for (double v = 0; v <= ymax + 1e-9; v += ys) {
    o << "<line class=\"grid\" x1=\"" << kLeft << "\" x2=\"" << kW - kRight << "\" y1=\""
      << Num(Y(v)) << "\" y2=\"" << Num(Y(v)) << "\"/>";
    o << "<text class=\"tick\" x=\"" << kLeft - 6 << "\" y=\"" << Num(Y(v) + 4)
      << "\" text-anchor=\"end\">" << (ys < 1 ? Num(v, 2) : Num(v, 0)) << "</text>\n";
  }
  const double xunit = c.x_minutes ? 60 : 1;
  const double xs = TickStep(xmax / xunit, 6) * xunit;
  for (double v = 0; v <= xmax + 1e-9; v += xs) {
    o << "<text class=\"tick\" x=\"" << Num(X(v)) << "\" y=\"" << kH - kBottom + 16
      << "\" text-anchor=\"middle\">" << Num(v / xunit, xs / xunit < 1 ? 1 : 0) << "</text>";
  }
  o << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop + ph << "\" x2=\"" << kW - kRight
    << "\" y2=\"" << kTop + ph << "\"/><line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop
    << "\" x2=\"" << kLeft << "\" y2=\"" << kTop + ph << "\"/>\n";
  o << "<text class=\"label\" x=\"" << kLeft + pw / 2 << "\" y=\"" << kH - 6
    << "\" text-anchor=\"middle\">" << Escape(c.x_label) << "</text>";
  o << "<text class=\"label\" transform=\"translate(14," << kTop + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << Escape(c.y_label) << "</text>\n";
  for (const Series& s : c.series) {
    o << "<path class=\"series\" data-series=\"" << Escape(s.name) << "\" fill=\"none\" stroke=\""
      << s.color << "\" stroke-width=\"2\"" << (s.dashed ? " stroke-dasharray=\"6 4\"" : "")
      << " d=\"";
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      o << (i == 0 ? "M" : "L") << Num(X(s.x[i])) << "," << Num(Y(s.y[i]));
    }
    o << "\"><title>" << Escape(s.name) << "</title></path>\n";
  }
  o << "</svg>\n<div class=\"legend\">";
  for (const Series& s : c.series) {
    o << "<span><i style=\"background:" << s.color << "\"></i>" << Escape(s.name) << "</span>";
  }
  o << "</div></figure>\n";
  return o.str();
}

std::string VariantName(const VariantResult& v) { return v.name.empty() ? "scenario" : v.name; }

// The empirical CDF of sorted values as a step line.
Series Cdf(const std::string& name, const std::string& color, const std::vector<double>& sorted) {
  Series s{name, color, {}, {}};
  const double n = static_cast<double>(sorted.size());
  s.x.push_back(0);
  s.y.push_back(0);
  for (size_t i = 0; i < sorted.size(); ++i) {
    s.x.push_back(sorted[i]);
    s.y.push_back(static_cast<double>(i) / n);
    s.x.push_back(sorted[i]);
    s.y.push_back(static_cast<double>(i + 1) / n);
  }
  return s;
}

std::string RenderHeatmap(const VariantResult& v, const Heatmap& h) {
  constexpr double kCell = 12, kLabel = 120;
  const double width = kLabel + kCell * static_cast<double>(h.columns.size()) + 8;
  const double height = kCell * static_cast<double>(h.rows.size()) + 8;
  std::ostringstream o;
  o << "<figure><figcaption>" << Escape(VariantName(v)) << " at " << Span(h.t)
    << "</figcaption>\n<svg class=\"plot heatmap\" data-plot=\"heatmap\" data-series=\""
    << Escape(VariantName(v)) << "\" data-t=\"" << h.t << "\" viewBox=\"0 0 " << width << " "
    << height << "\" width=\"" << width << "\" height=\"" << height << "\">\n";
  for (size_t r = 0; r < h.rows.size(); ++r) {
    const double y = 4 + kCell * static_cast<double>(r);
    o << "<text class=\"tick\" x=\"" << kLabel - 4 << "\" y=\"" << y + kCell - 3
      << "\" text-anchor=\"end\">" << Escape(h.rows[r]) << "</text>";
    for (size_t c = 0; c < h.cells[r].size(); ++c) {
      const int cell = h.cells[r][c];
      if (cell < 0) continue;
      o << "<rect class=\"cell c" << cell << "\" x=\"" << kLabel + kCell * static_cast<double>(c)
        << "\" y=\"" << y << "\" width=\"" << kCell - 1 << "\" height=\"" << kCell - 1
        << "\"><title>" << Escape(h.rows[r]) << " " << Escape(h.columns[c])
        << (cell == 0   ? ": free"
            : cell == 1 ? ": allocated"
                        : ": reserved")
        << "</title></rect>";
    }
    o << "\n";
  }
  o << "</svg></figure>\n";
  return o.str();
}

std::string SummaryTable(const SimResult& r) {
  std::ostringstream o;
  o << "<table class=\"summary\"><thead><tr><th></th>";
  for (const VariantResult& v : r.variants) o << "<th>" << Escape(VariantName(v)) << "</th>";
  o << "</tr></thead><tbody>\n";
  auto row = [&](const std::string& label, auto cell) {
    o << "<tr><th>" << Escape(label) << "</th>";
    for (const VariantResult& v : r.variants) o << "<td>" << cell(v.summary) << "</td>";
    o << "</tr>\n";
  };
  row("pods created", [](const Summary& s) { return std::to_string(s.pods); });
  row("scheduled", [](const Summary& s) { return std::to_string(s.scheduled); });
  row("completed", [](const Summary& s) { return std::to_string(s.completed); });
  row("unschedulable at the end", [](const Summary& s) { return std::to_string(s.unschedulable); });
  row("makespan", [](const Summary& s) {
    return s.makespan ? Span(*s.makespan) : std::string("not all finished");
  });
  row("wait p50", [](const Summary& s) { return Span(s.wait_p50); });
  row("wait p90", [](const Summary& s) { return Span(s.wait_p90); });
  row("wait p99", [](const Summary& s) { return Span(s.wait_p99); });
  row("wait max", [](const Summary& s) { return Span(s.wait_max); });
  std::set<std::string> classes;
  for (const VariantResult& v : r.variants) {
    for (const auto& [c, u] : v.summary.utilisation) classes.insert(c);
  }
  for (const std::string& c : classes) {
    row("utilisation " + c + " (mean)", [&](const Summary& s) {
      auto it = s.utilisation.find(c);
      return it == s.utilisation.end() ? std::string("—") : Num(100 * it->second, 1) + " %";
    });
  }
  row("preempted", [](const Summary& s) { return std::to_string(s.preempted); });
  row("lost with their node", [](const Summary& s) { return std::to_string(s.lost); });
  row("attaches / failures", [](const Summary& s) {
    return std::to_string(s.attaches) + " / " + std::to_string(s.attach_failures);
  });
  row("attach wait p50 / p99",
      [](const Summary& s) { return Span(s.attach_wait_p50) + " / " + Span(s.attach_wait_p99); });
  row("wall time of the run", [](const Summary& s) {
    return Num(s.wall_seconds, 2) + " s (" +
           Num(s.wall_seconds > 0 ? s.simulated_seconds / s.wall_seconds : 0, 0) + "× real time)";
  });
  o << "</tbody></table>\n";
  return o.str();
}

// One row per workload and variant: the workload's own counts and waits.
std::string WorkloadTable(const SimResult& r) {
  std::set<std::string> names;
  for (const VariantResult& v : r.variants) {
    for (const auto& [name, w] : v.summary.workloads) names.insert(name);
  }
  std::ostringstream o;
  o << "<table class=\"summary workloads\"><thead><tr><th>workload</th><th>variant</th>"
       "<th>pods</th><th>scheduled</th><th>completed</th><th>unschedulable</th>"
       "<th>preempted</th><th>lost</th><th>wait "
       "p50</th><th>p90</th><th>p99</th><th>max</th></tr></thead>"
       "<tbody>\n";
  for (const std::string& name : names) {
    for (const VariantResult& v : r.variants) {
      auto it = v.summary.workloads.find(name);
      if (it == v.summary.workloads.end()) continue;
      const WorkloadSummary& w = it->second;
      o << "<tr><th>" << Escape(name) << "</th><th>" << Escape(VariantName(v)) << "</th><td>"
        << w.pods << "</td><td>" << w.scheduled << "</td><td>" << w.completed << "</td><td>"
        << w.unschedulable << "</td><td>" << w.preempted << "</td><td>" << w.lost << "</td><td>"
        << Span(w.wait_p50) << "</td><td>" << Span(w.wait_p90) << "</td><td>" << Span(w.wait_p99)
        << "</td><td>" << Span(w.wait_max) << "</td></tr>\n";
    }
  }
  o << "</tbody></table>\n";
  return o.str();
}

constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ddd}
p.note{color:#555;max-width:60em}
table.summary{border-collapse:collapse;margin:1em 0}
table.summary th,table.summary td{border:1px solid #ddd;padding:4px 10px;text-align:right}
table.summary th{text-align:left;background:#f6f6f6}
.grid{stroke:#eee}.axis{stroke:#888}.tick{font-size:10px;fill:#555}.label{font-size:11px;fill:#333}
figure{display:inline-block;margin:8px 16px 16px 0;vertical-align:top}
figcaption{font-weight:600;margin-bottom:4px}
.legend span{margin-right:14px;font-size:12px}.legend i{display:inline-block;width:12px;height:3px;margin-right:4px;vertical-align:middle}
.cell.c0{fill:#e8eef4}.cell.c1{fill:#1f77b4}.cell.c2{fill:#ff7f0e}
.key i{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}
)";

std::string PaletteColor(size_t i) { return std::string(kPalette[i % std::size(kPalette)]); }

// Throughput: pods bound per minute between consecutive samples, a line per variant.
std::string ThroughputChart(const SimResult& r) {
  Chart c{"throughput", "Scheduling throughput", "minutes", "pods bound per minute"};
  for (size_t i = 0; i < r.variants.size(); ++i) {
    const auto& smp = r.variants[i].samples;
    Series s{VariantName(r.variants[i]), PaletteColor(i), {}, {}};
    for (size_t k = 1; k < smp.size(); ++k) {
      const double dt = smp[k].t - smp[k - 1].t;
      if (dt <= 0) continue;
      s.x.push_back(smp[k].t);
      s.y.push_back(static_cast<double>(smp[k].scheduled - smp[k - 1].scheduled) / dt * 60);
    }
    c.series.push_back(std::move(s));
  }
  return RenderChart(c);
}

// Reservations by phase: a line per variant and phase (odd variants dashed).
std::string ReservationsChart(const SimResult& r) {
  Chart c{"reservations", "Reservations by phase", "minutes", "reservations"};
  std::set<std::string> phases;
  for (const VariantResult& v : r.variants) {
    for (const Sample& s : v.samples) {
      for (const auto& [p, n] : s.reservations) phases.insert(p);
    }
  }
  size_t k = 0;
  for (size_t i = 0; i < r.variants.size(); ++i) {
    for (const std::string& p : phases) {
      Series s{VariantName(r.variants[i]) + ": " + p, PaletteColor(k++), {}, {}};
      s.dashed = i % 2 == 1;
      for (const Sample& smp : r.variants[i].samples) {
        auto it = smp.reservations.find(p);
        s.x.push_back(smp.t);
        s.y.push_back(it == smp.reservations.end() ? 0 : static_cast<double>(it->second));
      }
      c.series.push_back(std::move(s));
    }
  }
  return RenderChart(c);
}

}  // namespace

std::string ResultHtml(const SimResult& r) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>allot sim: "
    << Escape(r.scenario) << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n";
  o << "<h1>allot sim: " << Escape(r.scenario) << "</h1>\n<p class=\"note\">" << Span(r.duration)
    << " of simulated time, seed " << r.seed << ", " << r.variants.size()
    << " variant(s). Every plot shows one line per variant; times on the x axis are minutes "
       "since the scenario started.</p>\n";
  o << "<h2>Summary</h2>\n" << SummaryTable(r);
  o << "<h2>Per workload</h2>\n" << WorkloadTable(r);

  auto color = PaletteColor;
  // One line per variant of value(sample) over time; `y_max` fixes the axis (fractions).
  auto over_time = [&](const std::string& id, const std::string& title, const std::string& y,
                       auto value, std::optional<double> y_max = std::nullopt) {
    Chart c{id, title, "minutes", y};
    c.y_max = y_max;
    for (size_t i = 0; i < r.variants.size(); ++i) {
      Series s{VariantName(r.variants[i]), color(i), {}, {}};
      for (const Sample& smp : r.variants[i].samples) {
        s.x.push_back(smp.t);
        s.y.push_back(value(smp));
      }
      c.series.push_back(std::move(s));
    }
    return RenderChart(c);
  };
  // One CDF per variant of the sorted values `member` picks out of it.
  auto cdf = [&](const std::string& id, const std::string& title, const std::string& x,
                 const std::string& y, std::vector<double> VariantResult::*member) {
    Chart c{id, title, x, y};
    c.x_minutes = false;
    c.y_max = 1;
    for (size_t i = 0; i < r.variants.size(); ++i) {
      c.series.push_back(Cdf(VariantName(r.variants[i]), color(i), r.variants[i].*member));
    }
    return RenderChart(c);
  };

  o << "<h2>Scheduling</h2>\n";
  o << over_time("pending", "Pending pods", "pods",
                 [](const Sample& s) { return static_cast<double>(s.pending); });
  o << ThroughputChart(r);
  o << cdf("wait-cdf", "Time to schedule (CDF)", "seconds from creation to binding",
           "fraction of bound pods", &VariantResult::waits);
  o << over_time("running", "Running pods", "pods",
                 [](const Sample& s) { return static_cast<double>(s.running); });

  o << "<h2>Devices</h2>\n";
  std::set<std::string> classes;
  for (const VariantResult& v : r.variants)
    classes.insert(v.device_classes.begin(), v.device_classes.end());
  for (const std::string& dc : classes) {
    o << over_time(
        "utilisation-" + dc, "Utilisation of device class " + dc, "allocated / devices",
        [&](const Sample& smp) {
          auto it = smp.utilisation.find(dc);
          return it == smp.utilisation.end() ? 0.0 : it->second;
        },
        1.0);
  }
  o << "<h3>Allocation heat maps</h3><p class=\"key\">one row per node (then per fabric pool), "
       "one square per device:<i class=\"cell c0\" style=\"background:#e8eef4\"></i>free"
       "<i style=\"background:#1f77b4\"></i>allocated to a pod's claim"
       "<i style=\"background:#ff7f0e\"></i>held by a reservation</p>\n";
  for (const VariantResult& v : r.variants) {
    for (const Heatmap& h : v.heatmaps) o << RenderHeatmap(v, h);
  }

  o << "<h2>Binding conditions (attach)</h2>\n";
  o << over_time("attach-waiting", "Claims waiting for their devices to attach", "claims",
                 [](const Sample& s) { return static_cast<double>(s.attach_waiting); });
  o << over_time("attach-failures", "Attach failures (cumulative)", "failures",
                 [](const Sample& s) { return static_cast<double>(s.attach_failures); });
  o << cdf("attach-cdf", "Attach wait (CDF)", "seconds from allocation to devices ready",
           "fraction of attached claims", &VariantResult::attach_waits);

  o << "<h2>Reservations and preemption</h2>\n";
  o << ReservationsChart(r);
  o << over_time("preemptions", "Pods preempted (cumulative)", "pods",
                 [](const Sample& s) { return static_cast<double>(s.preempted); });
  o << "<script>document.body.dataset.plots=document.querySelectorAll('svg.plot').length;"
       "</script>\n</body></html>\n";
  return o.str();
}

}  // namespace allot::sim
