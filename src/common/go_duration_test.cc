#include "common/go_duration.h"

#include <gtest/gtest.h>

namespace allot {
namespace {

using std::chrono::microseconds;

TEST(GoDurationTest, ParsesWhatGoParses) {
  struct Case {
    const char* text;
    int64_t micros;
  } cases[] = {
      {"0", 0},
      {"30s", 30000000},
      {"1m30s", 90000000},
      {"1.5h", 5400000000},
      {"250ms", 250000},
      {"1h2m3s4ms5us", 3723004005},
      {"10us", 10},
      {"10\xC2\xB5s", 10},
      {"1500ns", 1},
      {".5s", 500000},
      {"-2s", -2000000},
      {"+3m", 180000000},
  };
  for (const Case& c : cases) {
    Result<microseconds> d = ParseGoDuration(c.text);
    ASSERT_TRUE(d.ok()) << c.text << ": " << d.status().ToString();
    EXPECT_EQ(d->count(), c.micros) << c.text;
  }
}

TEST(GoDurationTest, RejectsWithGoMessages) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"", "time: invalid duration \"\""},
      {"abc", "time: invalid duration \"abc\""},
      {"30", "time: missing unit in duration \"30\""},
      {"1d", "time: unknown unit \"d\" in duration \"1d\""},
      {"1.s.", "time: invalid duration \"1.s.\""},
      {"9999999999h", "time: invalid duration \"9999999999h\""},
  };
  for (const Case& c : cases) {
    Result<microseconds> d = ParseGoDuration(c.text);
    ASSERT_FALSE(d.ok()) << c.text;
    EXPECT_EQ(d.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(d.status().message(), c.message);
  }
}

}  // namespace
}  // namespace allot
