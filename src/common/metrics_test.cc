#include "common/metrics.h"

#include <gtest/gtest.h>

namespace allot::metrics {
namespace {

TEST(MetricsTest, CounterWithLabels) {
  Registry r;
  auto& c = r.AddCounter("requests_total", "Requests.", Stability::kStable, {"code", "verb"});
  c.With({"200", "GET"}).Inc();
  c.With({"200", "GET"}).Inc(2);
  c.With({"404", "GET"}).Inc();
  EXPECT_EQ(r.Expose(),
            "# HELP requests_total [STABLE] Requests.\n"
            "# TYPE requests_total counter\n"
            "requests_total{code=\"200\",verb=\"GET\"} 3\n"
            "requests_total{code=\"404\",verb=\"GET\"} 1\n");
}

TEST(MetricsTest, GaugeAndFuncs) {
  Registry r;
  auto& g = r.AddGauge("pending", "Pending things.", Stability::kAlpha);
  g.With({}).Set(2.5);
  r.AddGaugeFunc("b_func", "From a function.", Stability::kAlpha, [] { return 7.0; });
  std::string text = r.Expose();
  EXPECT_NE(text.find("# HELP b_func [ALPHA] From a function.\n# TYPE b_func gauge\nb_func 7\n"),
            std::string::npos);
  EXPECT_NE(text.find("pending 2.5\n"), std::string::npos);
  // Families are sorted by name.
  EXPECT_LT(text.find("b_func"), text.find("pending"));
}

TEST(MetricsTest, Histogram) {
  Registry r;
  auto& h = r.AddHistogram("lat_seconds", "Latency.", Stability::kAlpha, {"op"}, {0.1, 1});
  h.With({"w"}).Observe(0.0625);
  h.With({"w"}).Observe(0.5);
  h.With({"w"}).Observe(4);
  EXPECT_EQ(r.Expose(),
            "# HELP lat_seconds [ALPHA] Latency.\n"
            "# TYPE lat_seconds histogram\n"
            "lat_seconds_bucket{op=\"w\",le=\"0.1\"} 1\n"
            "lat_seconds_bucket{op=\"w\",le=\"1\"} 2\n"
            "lat_seconds_bucket{op=\"w\",le=\"+Inf\"} 3\n"
            "lat_seconds_sum{op=\"w\"} 4.5625\n"
            "lat_seconds_count{op=\"w\"} 3\n");
}

TEST(MetricsTest, Escaping) {
  Registry r;
  r.AddCounter("x_total", "Line one\nback\\slash", Stability::kBeta, {"l"})
      .With({"a\"b\\c\nd"})
      .Inc();
  EXPECT_EQ(r.Expose(),
            "# HELP x_total [BETA] Line one\\nback\\\\slash\n"
            "# TYPE x_total counter\n"
            "x_total{l=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(MetricsTest, SameNameTwiceSharesFamily) {
  Registry r;
  auto& a = r.AddCounter("c_total", "C.", Stability::kAlpha, {"k"});
  auto& b = r.AddCounter("c_total", "C.", Stability::kAlpha, {"k"});
  EXPECT_EQ(&a, &b);
}

TEST(MetricsTest, FormatValue) {
  EXPECT_EQ(FormatValue(1), "1");
  EXPECT_EQ(FormatValue(0.005), "0.005");
  EXPECT_EQ(FormatValue(1e-5), "1e-05");
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
  EXPECT_EQ(ExponentialBuckets(0.001, 2, 3), (std::vector<double>{0.001, 0.002, 0.004}));
}

}  // namespace
}  // namespace allot::metrics
