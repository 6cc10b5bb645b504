// The pod annotations of Koordinator's reservation protocol (koordinator-sh/apis
// extension/reservation.go) that Allot reads and writes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace allot::api {

// Set by the scheduler on an owner pod placed in a reservation: {"name":"<r>","uid":"<uid>"}.
inline constexpr std::string_view kAnnotationReservationAllocated =
    "scheduling.koordinator.sh/reservation-allocated";

struct ReservationAllocated {
  std::string name;
  std::string uid;
  bool operator==(const ReservationAllocated&) const = default;
};

// The annotation's value; nullopt when it is not a JSON object with a non-empty string uid (a
// hand-written bad value names no reservation).
std::optional<ReservationAllocated> ParseReservationAllocated(std::string_view value);
std::string FormatReservationAllocated(const ReservationAllocated& r);

}  // namespace allot::api
