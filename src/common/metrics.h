// A small Prometheus metrics registry: counters, gauges and histograms with labels, and the text
// exposition format (version 0.0.4) that /metrics serves.
//
//   metrics::Registry registry;
//   auto& requests = registry.AddCounter("apiserver_request_total", "Counter of requests.",
//                                        metrics::Stability::kStable, {"code", "verb"});
//   requests.With({"200", "GET"}).Inc();
//   std::string text = registry.Expose();
//
// HELP text is written with Kubernetes' stability prefix ("[STABLE] ...", "[ALPHA] ...").
// Label values are given in the order the label names were declared; samples are written in
// that order too.
//
// Thread safety: everything is thread-safe. Families and children are never removed, so the
// references returned by Add*() and With() stay valid for the registry's lifetime; hot paths
// should keep them instead of looking them up per event. Updates are lock-free atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace allot::metrics {

enum class Stability { kAlpha, kBeta, kStable };

class Counter {
 public:
  void Inc(double v = 1);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Inc(double v = 1);
  void Dec(double v = 1) { Inc(-v); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `bounds` are the upper bounds of the finite buckets, ascending; +Inf is implicit.
  explicit Histogram(const std::vector<double>& bounds);
  void Observe(double v);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<uint64_t> cumulative;  // one per bound, then +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1 (the +Inf bucket)
  std::atomic<double> sum_{0};
  std::atomic<uint64_t> count_{0};
};

// Bucket helpers, as client_golang's prometheus.ExponentialBuckets / LinearBuckets.
std::vector<double> ExponentialBuckets(double start, double factor, int count);
std::vector<double> LinearBuckets(double start, double width, int count);

// A metric with labels: one child per distinct tuple of label values.
template <class M>
class Family {
 public:
  Family(std::vector<std::string> label_names, std::function<std::unique_ptr<M>()> make)
      : label_names_(std::move(label_names)), make_(std::move(make)) {}

  // The child for these label values (created on first use). The number of values must equal
  // the number of label names; missing values are treated as "".
  M& With(std::initializer_list<std::string_view> values) {
    return WithValues(std::vector<std::string>(values.begin(), values.end()));
  }
  M& WithValues(std::vector<std::string> values) {
    values.resize(label_names_.size());
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = children_[values];
    if (!slot) slot = make_();
    return *slot;
  }

  // Drops the child with these label values, if any: the series of something that is gone (a
  // deleted reservation). References to it from With() must no longer be used.
  void Remove(std::initializer_list<std::string_view> values) {
    std::vector<std::string> key(values.begin(), values.end());
    key.resize(label_names_.size());
    std::lock_guard<std::mutex> lock(mu_);
    children_.erase(key);
  }

  const std::vector<std::string>& label_names() const { return label_names_; }
  // Calls fn(label values, metric) for every child, in label-value order.
  void ForEach(const std::function<void(const std::vector<std::string>&, const M&)>& fn) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [values, metric] : children_) fn(values, *metric);
  }

 private:
  const std::vector<std::string> label_names_;
  const std::function<std::unique_ptr<M>()> make_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<M>> children_;  // guarded by mu_
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Registering a name twice returns the existing family when the type matches (so several
  // components may share one registry); a type mismatch is a programming error (aborts).
  CounterFamily& AddCounter(std::string_view name, std::string_view help, Stability stability,
                            std::vector<std::string> label_names = {});
  GaugeFamily& AddGauge(std::string_view name, std::string_view help, Stability stability,
                        std::vector<std::string> label_names = {});
  HistogramFamily& AddHistogram(std::string_view name, std::string_view help, Stability stability,
                                std::vector<std::string> label_names, std::vector<double> buckets);
  // Unlabelled values read at scrape time (e.g. a queue length owned by someone else). `fn` is
  // called from Expose() on the scraping thread and must be thread-safe.
  void AddCounterFunc(std::string_view name, std::string_view help, Stability stability,
                      std::function<double()> fn);
  void AddGaugeFunc(std::string_view name, std::string_view help, Stability stability,
                    std::function<double()> fn);
  // Unregisters a function metric (its owner is going away). Other kinds stay registered.
  void RemoveFunc(std::string_view name);

  // The whole registry in the Prometheus text format, families sorted by name.
  std::string Expose() const;

  // The Content-Type of Expose()'s output.
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  enum class Type { kCounter, kGauge, kHistogram, kCounterFunc, kGaugeFunc };
  struct Entry {
    Type type;
    std::string help;  // with the stability prefix
    std::unique_ptr<CounterFamily> counter;
    std::unique_ptr<GaugeFamily> gauge;
    std::unique_ptr<HistogramFamily> histogram;
    std::function<double()> fn;
  };
  Entry& AddEntry(std::string_view name, std::string_view help, Stability stability, Type type);
  static void ExposeEntry(const std::string& name, const Entry& e, std::string& out);

  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> entries_;  // guarded by mu_
};

// Formatting helpers, exposed for tests: a sample value as Prometheus writes it ("1", "0.25",
// "+Inf", "NaN"), and a label value escaped for the text format.
std::string FormatValue(double v);
std::string EscapeLabelValue(std::string_view v);

}  // namespace allot::metrics
