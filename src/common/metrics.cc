#include "common/metrics.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace allot::metrics {

void Counter::Inc(double v) {
  if (v < 0) return;  // counters only go up
  value_.fetch_add(v, std::memory_order_relaxed);
}

void Gauge::Inc(double v) { value_.fetch_add(v, std::memory_order_relaxed); }

Histogram::Histogram(const std::vector<double>& bounds)
    : bounds_(bounds), buckets_(new std::atomic<uint64_t>[bounds.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot s;
  s.bounds = bounds_;
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.sum = sum_.load(std::memory_order_relaxed);
  // The +Inf bucket is the count, by definition; use it so the two always agree.
  s.count = running;
  return s;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) out.push_back(v);
  return out;
}

std::vector<double> LinearBuckets(double start, double width, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) out.push_back(start + width * i);
  return out;
}

// --- formatting -------------------------------------------------------------------------------

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
    return buf;
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec != std::errc()) return "NaN";
  return std::string(buf, end);
}

std::string EscapeLabelValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

std::string EscapeHelp(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view StabilityPrefix(Stability s) {
  switch (s) {
    case Stability::kAlpha:
      return "[ALPHA] ";
    case Stability::kBeta:
      return "[BETA] ";
    case Stability::kStable:
      return "[STABLE] ";
  }
  return "";
}

// `{a="x",b="y"}` with an optional extra trailing pair (le for histogram buckets); "" when
// there are no labels at all.
std::string LabelBlock(const std::vector<std::string>& names,
                       const std::vector<std::string>& values, std::string_view extra_name = {},
                       std::string_view extra_value = {}) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += out.empty() ? "{" : ",";
    out += names[i];
    out += "=\"";
    out += EscapeLabelValue(i < values.size() ? values[i] : "");
    out += '"';
  }
  if (!extra_name.empty()) {
    out += out.empty() ? "{" : ",";
    out.append(extra_name);
    out += "=\"";
    out.append(extra_value);
    out += '"';
  }
  if (!out.empty()) out += '}';
  return out;
}

void Sample(std::string& out, const std::string& name, std::string_view suffix,
            const std::string& labels, double value) {
  out += name;
  out.append(suffix);
  out += labels;
  out += ' ';
  out += FormatValue(value);
  out += '\n';
}

}  // namespace

// --- registry ---------------------------------------------------------------------------------

Registry::Entry& Registry::AddEntry(std::string_view name, std::string_view help,
                                    Stability stability, Type type) {
  auto it = entries_.find(name);
  if (it != entries_.end()) {
    if (it->second.type != type) {
      std::fprintf(stderr, "metrics: %.*s registered twice with different types\n",
                   static_cast<int>(name.size()), name.data());
      std::abort();
    }
    return it->second;
  }
  Entry& e = entries_[std::string(name)];
  e.type = type;
  e.help = std::string(StabilityPrefix(stability)) + std::string(help);
  return e;
}

CounterFamily& Registry::AddCounter(std::string_view name, std::string_view help,
                                    Stability stability, std::vector<std::string> label_names) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = AddEntry(name, help, stability, Type::kCounter);
  if (!e.counter) {
    e.counter = std::make_unique<CounterFamily>(std::move(label_names),
                                                [] { return std::make_unique<Counter>(); });
  }
  return *e.counter;
}

GaugeFamily& Registry::AddGauge(std::string_view name, std::string_view help, Stability stability,
                                std::vector<std::string> label_names) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = AddEntry(name, help, stability, Type::kGauge);
  if (!e.gauge) {
    e.gauge = std::make_unique<GaugeFamily>(std::move(label_names),
                                            [] { return std::make_unique<Gauge>(); });
  }
  return *e.gauge;
}

HistogramFamily& Registry::AddHistogram(std::string_view name, std::string_view help,
                                        Stability stability, std::vector<std::string> label_names,
                                        std::vector<double> buckets) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = AddEntry(name, help, stability, Type::kHistogram);
  if (!e.histogram) {
    e.histogram = std::make_unique<HistogramFamily>(
        std::move(label_names),
        [b = std::move(buckets)] { return std::make_unique<Histogram>(b); });
  }
  return *e.histogram;
}

void Registry::AddCounterFunc(std::string_view name, std::string_view help, Stability stability,
                              std::function<double()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  AddEntry(name, help, stability, Type::kCounterFunc).fn = std::move(fn);
}

void Registry::AddGaugeFunc(std::string_view name, std::string_view help, Stability stability,
                            std::function<double()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  AddEntry(name, help, stability, Type::kGaugeFunc).fn = std::move(fn);
}

void Registry::RemoveFunc(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(name);
  if (it == entries_.end()) return;
  if (it->second.type == Type::kCounterFunc || it->second.type == Type::kGaugeFunc) {
    entries_.erase(it);
  }
}

void Registry::ExposeEntry(const std::string& name, const Entry& e, std::string& out) {
  static constexpr const char* kTypeNames[] = {"counter", "gauge", "histogram", "counter", "gauge"};
  out += "# HELP " + name + " " + EscapeHelp(e.help) + "\n";
  out += "# TYPE " + name + " " + kTypeNames[static_cast<int>(e.type)] + "\n";
  switch (e.type) {
    case Type::kCounter:
      e.counter->ForEach([&](const std::vector<std::string>& values, const Counter& c) {
        Sample(out, name, "", LabelBlock(e.counter->label_names(), values), c.value());
      });
      break;
    case Type::kGauge:
      e.gauge->ForEach([&](const std::vector<std::string>& values, const Gauge& g) {
        Sample(out, name, "", LabelBlock(e.gauge->label_names(), values), g.value());
      });
      break;
    case Type::kHistogram:
      e.histogram->ForEach([&](const std::vector<std::string>& values, const Histogram& h) {
        const auto& names = e.histogram->label_names();
        Histogram::Snapshot s = h.Read();
        for (size_t i = 0; i < s.bounds.size(); ++i) {
          Sample(out, name, "_bucket", LabelBlock(names, values, "le", FormatValue(s.bounds[i])),
                 static_cast<double>(s.cumulative[i]));
        }
        Sample(out, name, "_bucket", LabelBlock(names, values, "le", "+Inf"),
               static_cast<double>(s.count));
        Sample(out, name, "_sum", LabelBlock(names, values), s.sum);
        Sample(out, name, "_count", LabelBlock(names, values), static_cast<double>(s.count));
      });
      break;
    case Type::kCounterFunc:
    case Type::kGaugeFunc:
      Sample(out, name, "", "", e.fn ? e.fn() : 0);
      break;
  }
}

std::string Registry::Expose() const {
  std::string out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, entry] : entries_) ExposeEntry(name, entry, out);
  return out;
}

}  // namespace allot::metrics
