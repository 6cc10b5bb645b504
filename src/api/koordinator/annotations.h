// The pod annotations of Koordinator's reservation protocol (koordinator-sh/apis
// extension/reservation.go) that Allot reads and writes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/meta.h"
#include "common/status.h"

namespace allot::api {

// Set by the scheduler on an owner pod placed in a reservation: {"name":"<r>","uid":"<uid>"}.
inline constexpr std::string_view kAnnotationReservationAllocated =
    "scheduling.koordinator.sh/reservation-allocated";

// On a reserve pod (the scheduler's stand-in for a reservation being placed).
inline constexpr std::string_view kAnnotationReservePod = "scheduling.koordinator.sh/reserve-pod";
inline constexpr std::string_view kAnnotationReservationName =
    "scheduling.koordinator.sh/reservation-name";
inline constexpr std::string_view kAnnotationReservationNode =
    "scheduling.koordinator.sh/reservation-node";

// Set by users on pods: which reservations they may use ({name?, reservationSelector?,
// requiredDuringSchedulingIgnoredDuringExecution?: {reservationSelectorTerms}, tolerations?}).
inline constexpr std::string_view kAnnotationReservationAffinity =
    "scheduling.koordinator.sh/reservation-affinity";
// On pods: {"resourceNames": [...]}: a reservation matches only if it holds exactly what the pod
// requests of these resources.
inline constexpr std::string_view kAnnotationExactMatchReservation =
    "scheduling.koordinator.sh/exact-match-reservation";
// On Restricted reservations: {"resources": [...]}: only these resources are restricted to it.
inline constexpr std::string_view kAnnotationReservationRestrictedOptions =
    "scheduling.koordinator.sh/reservation-restricted-options";
// Label on pods, "true": the pod uses no reservation.
inline constexpr std::string_view kLabelReservationIgnored =
    "scheduling.koordinator.sh/reservation-ignored";
// Label on reservations: an integer; the lowest non-zero order is preferred.
inline constexpr std::string_view kLabelReservationOrder =
    "scheduling.koordinator.sh/reservation-order";
// Label on pods and reservation templates: the priority when spec.priority is unset.
inline constexpr std::string_view kLabelKoordinatorPriority = "koordinator.sh/priority";

struct ReservationAllocated {
  std::string name;
  std::string uid;
  bool operator==(const ReservationAllocated&) const = default;
};

// The reservation-affinity annotation. With `name` set, the rest is ignored.
struct ReservationAffinityRequired {
  std::vector<NodeSelectorTerm> reservationSelectorTerms;  // ORed
  template <class V>
  void Visit(V& v) {
    v("reservationSelectorTerms", reservationSelectorTerms);
  }
};
struct ReservationAffinity {
  std::string name;
  StringMap reservationSelector;  // every label must match
  std::optional<ReservationAffinityRequired> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<Toleration> tolerations;  // of the reservations' taints
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("reservationSelector", reservationSelector);
    v("requiredDuringSchedulingIgnoredDuringExecution",
      requiredDuringSchedulingIgnoredDuringExecution);
    v("tolerations", tolerations);
  }
};

struct ExactMatchReservationSpec {
  std::vector<std::string> resourceNames;
  template <class V>
  void Visit(V& v) {
    v("resourceNames", resourceNames);
  }
};

struct ReservationRestrictedOptions {
  std::vector<std::string> resources;
  template <class V>
  void Visit(V& v) {
    v("resources", resources);
  }
};

// Parsers of the annotations above: a 400 naming the annotation when the value is not the
// documented JSON.
Result<ReservationAffinity> ParseReservationAffinity(std::string_view value);
Result<ExactMatchReservationSpec> ParseExactMatchReservation(std::string_view value);
Result<ReservationRestrictedOptions> ParseReservationRestrictedOptions(std::string_view value);

// The annotation's value; nullopt when it is not a JSON object with a non-empty string uid (a
// hand-written bad value names no reservation).
std::optional<ReservationAllocated> ParseReservationAllocated(std::string_view value);
std::string FormatReservationAllocated(const ReservationAllocated& r);

}  // namespace allot::api
