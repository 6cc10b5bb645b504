// Strategies for podschedulingcontexts (resource.k8s.io/v1alpha3) and reservations
// (scheduling.koordinator.sh/v1alpha1). Neither defines short names or categories upstream.
#include "api/resources.h"
#include "api/scheduling.h"

namespace allot::api {

namespace {

const TableColumn kAgeColumn = {"Age", "string", "",
                                "CreationTimestamp is a timestamp representing the server time "
                                "when this object was created.",
                                0};

std::vector<TableCell> PodSchedulingContextRow(const Object& obj, Time now) {
  const auto& ctx = static_cast<const PodSchedulingContext&>(obj);
  return {ctx.spec.selectedNode, AgeCell(obj, now)};
}

ResourceInfo PodSchedulingContexts() {
  ResourceInfo r;
  r.group = "resource.k8s.io";
  r.version = "v1alpha3";
  r.resource = "podschedulingcontexts";
  r.singular = "podschedulingcontext";
  r.type = &PodSchedulingContext::Type();
  r.namespaced = true;
  r.status_subresource = true;
  r.validate = [](const Object& obj, FieldErrors& errs) {
    ValidatePodSchedulingContext(static_cast<const PodSchedulingContext&>(obj), errs);
  };
  r.validate_update = [](const Object& obj, const Object& old, FieldErrors& errs) {
    ValidatePodSchedulingContextUpdate(static_cast<const PodSchedulingContext&>(obj),
                                       static_cast<const PodSchedulingContext&>(old), errs);
  };
  r.validate_status = [](const Object& obj, const Object& old, FieldErrors& errs) {
    ValidatePodSchedulingContextStatusUpdate(static_cast<const PodSchedulingContext&>(obj),
                                             static_cast<const PodSchedulingContext&>(old), errs);
  };
  r.columns = {{"SelectedNode", "string", "", "The node selected for allocation.", 0}, kAgeColumn};
  r.row = PodSchedulingContextRow;
  return r;
}

// The CRD's printer columns read .status.nodeName, .spec.ttl and .spec.expires; a missing value
// is a null cell, which kubectl prints as <none>.
std::vector<TableCell> ReservationRow(const Object& obj, Time now) {
  const auto& rsv = static_cast<const Reservation&>(obj);
  const std::string none = "<none>";
  return {rsv.status.phase.empty() ? none : rsv.status.phase, AgeCell(obj, now),
          rsv.status.nodeName.empty() ? none : rsv.status.nodeName,
          rsv.spec.ttl ? rsv.spec.ttl->ToString() : none,
          rsv.spec.expires ? rsv.spec.expires->ToRfc3339() : none};
}

ResourceInfo Reservations() {
  ResourceInfo r;
  r.group = std::string(kKoordinatorSchedulingGroup);
  r.version = "v1alpha1";
  r.resource = "reservations";
  r.singular = "reservation";
  r.type = &Reservation::Type();
  r.namespaced = false;
  r.status_subresource = true;
  r.default_fn = [](Object& obj) { SetReservationDefaults(static_cast<Reservation&>(obj)); };
  r.validate = [](const Object& obj, FieldErrors& errs) {
    ValidateReservation(static_cast<const Reservation&>(obj), errs);
  };
  r.validate_update = [](const Object& obj, const Object& old, FieldErrors& errs) {
    ValidateReservationUpdate(static_cast<const Reservation&>(obj),
                              static_cast<const Reservation&>(old), errs);
  };
  r.validate_status = [](const Object& obj, const Object& old, FieldErrors& errs) {
    ValidateReservationStatusUpdate(static_cast<const Reservation&>(obj),
                                    static_cast<const Reservation&>(old), errs);
  };
  r.columns = {{"Phase", "string", "", "The phase of reservation", 0},
               {"Age", "date", "", "", 0},
               {"Node", "string", "", "", 0},
               {"TTL", "string", "", "", 0},
               {"Expires", "string", "", "", 0}};
  r.row = ReservationRow;
  return r;
}

}  // namespace

void RegisterSchedulingResources(ResourceRegistry& registry) {
  registry.Add(PodSchedulingContexts());
  registry.Add(Reservations());
}

}  // namespace allot::api
