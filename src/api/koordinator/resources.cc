// Strategy for reservations (scheduling.koordinator.sh/v1alpha1). Koordinator's CRD defines no
// short names or categories.
#include "api/machinery/resources.h"

#include "api/koordinator/reservation.h"
#include "api/machinery/strategy_hooks.h"

namespace allot::api {

namespace {

const TableColumn kAgeColumn = {"Age", "string", "",
                                "CreationTimestamp is a timestamp representing the server time "
                                "when this object was created.",
                                0};

// Allot's wide column: the devices it holds as pool/device, comma-separated.
TableCell DevicesCell(const Reservation& rsv) {
  if (rsv.status.allocatedDevices.empty()) return std::string("<none>");
  std::string out;
  for (const ReservationDevice& d : rsv.status.allocatedDevices) {
    if (!out.empty()) out += ",";
    out += d.pool + "/" + d.device;
  }
  return out;
}

// The CRD's printer columns read .status.nodeName, .spec.ttl and .spec.expires; a missing value
// is a null cell, which kubectl prints as <none>.
std::vector<TableCell> ReservationRow(const Object& obj, Time now) {
  const auto& rsv = static_cast<const Reservation&>(obj);
  const std::string none = "<none>";
  return {rsv.status.phase.empty() ? none : rsv.status.phase,
          AgeCell(obj, now),
          rsv.status.nodeName.empty() ? none : rsv.status.nodeName,
          rsv.spec.ttl ? *rsv.spec.ttl : none,
          rsv.spec.expires ? rsv.spec.expires->ToRfc3339() : none,
          DevicesCell(rsv)};
}

ResourceInfo Reservations() {
  ResourceInfo r = NewResourceInfo(std::string(kKoordinatorSchedulingGroup), "v1alpha1",
                                   "reservations", "reservation", Reservation::Type(),
                                   /*namespaced=*/false);
  r.counts_generation = true;
  r.status_subresource = true;
  r.default_fn = [](Object& obj) { SetReservationDefaults(static_cast<Reservation&>(obj)); };
  r.validate = hooks::Validate<Reservation, ValidateReservation>;
  r.validate_update = hooks::ValidateUpdate<Reservation, ValidateReservationUpdate>;
  r.validate_status = hooks::ValidateUpdate<Reservation, ValidateReservationStatusUpdate>;
  r.columns = {{"Phase", "string", "", "The phase of reservation", 0},
               {"Age", "date", "", "", 0},
               {"Node", "string", "", "", 0},
               {"TTL", "string", "", "", 0},
               {"Expires", "string", "", "", 0},
               {"Devices", "string", "", "The devices its resource claims hold (Allot)", 1}};
  r.row = ReservationRow;
  return r;
}

}  // namespace

void RegisterKoordinatorResources(ResourceRegistry& registry) { registry.Add(Reservations()); }

}  // namespace allot::api
