#include "api/koordinator/annotations.h"

#include <gtest/gtest.h>

namespace allot::api {
namespace {

TEST(ReservationAllocatedAnnotation, RoundTripsAndRejectsWhatNamesNoReservation) {
  ReservationAllocated r{"gpu-hold", "1234-abcd"};
  EXPECT_EQ(FormatReservationAllocated(r), R"({"name":"gpu-hold","uid":"1234-abcd"})");
  EXPECT_EQ(ParseReservationAllocated(FormatReservationAllocated(r)), r);
  EXPECT_EQ(ParseReservationAllocated(R"({"uid":"u"})"), (ReservationAllocated{"", "u"}));
  EXPECT_FALSE(ParseReservationAllocated(""));
  EXPECT_FALSE(ParseReservationAllocated("gpu-hold"));
  EXPECT_FALSE(ParseReservationAllocated(R"({"name":"r"})"));
  EXPECT_FALSE(ParseReservationAllocated(R"({"name":"r","uid":7})"));
  EXPECT_FALSE(ParseReservationAllocated(R"(["r","u"])"));
}

}  // namespace
}  // namespace allot::api
