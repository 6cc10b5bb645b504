// Reservation (scheduling.koordinator.sh/v1alpha1): codec, defaults, validation, registration,
// tables.
#include "api/koordinator/reservation.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "api/codec/codec.h"
#include "api/machinery/resources.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::ExpectRoundTrip;
using testing::kSubdomainMsg;

const char kReservation[] =
    R"({"kind":"Reservation","apiVersion":"scheduling.koordinator.sh/v1alpha1",)"
    R"("metadata":{"name":"reserve-web","labels":{"team":"web"}},)"
    R"("spec":{"template":{"metadata":{"namespace":"default","labels":{"app":"web"}},)"
    R"("spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"2","memory":"4Gi"}}}],)"
    R"("nodeName":"node-1",)"
    R"("resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"gpu-template"}]}},)"
    R"("owners":[{"object":{"kind":"Pod","namespace":"default","name":"web-0"}},)"
    R"({"controller":{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web",)"
    R"("uid":"2f3c2b1a-0000-4000-8000-000000000002","controller":true,"blockOwnerDeletion":false,)"
    R"("namespace":"default"}},{"labelSelector":{"matchLabels":{"app":"web"},)"
    R"("matchExpressions":[{"key":"tier","operator":"In","values":["frontend"]}]}}],)"
    R"("ttl":"1h0m0s","expires":"2025-01-02T00:00:00Z","preAllocation":true,"allocateOnce":false,)"
    R"("allocatePolicy":"Restricted","unschedulable":true,)"
    R"("taints":[{"key":"example.com/reserved","value":"web","effect":"NoSchedule"}]},)"
    R"("status":{"phase":"Available","conditions":[{"type":"Scheduled","status":"True",)"
    R"("reason":"Scheduled",)"
    R"("message":"scheduled on node-1","lastProbeTime":"2025-01-01T00:00:05Z",)"
    R"("lastTransitionTime":"2025-01-01T00:00:05Z"},)"
    R"({"type":"Ready","status":"True","reason":"Available"}],)"
    R"("currentOwners":[{"kind":"Pod","namespace":"default","name":"web-0",)"
    R"("uid":"3f3c2b1a-0000-4000-8000-000000000003"}],"nodeName":"node-1",)"
    R"("allocatable":{"cpu":"2","memory":"4Gi"},"allocated":{"cpu":"1"}}})";

TEST(ReservationTest, RoundTripEveryField) {
  auto obj = ExpectRoundTrip(kReservation);
  const auto* rsv = As<Reservation>(*obj);
  ASSERT_NE(rsv, nullptr);
  const ReservationSpec& spec = rsv->spec;
  ASSERT_TRUE(spec.template_);
  EXPECT_EQ(spec.template_->spec.nodeName, "node-1");
  EXPECT_EQ(spec.template_->spec.containers[0].resources.requests.at("cpu").ToString(), "2");
  EXPECT_EQ(spec.template_->spec.resourceClaims[0].name, "gpu");
  ASSERT_EQ(spec.owners.size(), 3u);
  EXPECT_EQ(spec.owners[0].object->name, "web-0");
  EXPECT_EQ(spec.owners[1].controller->namespace_, "default");
  EXPECT_EQ(spec.owners[1].controller->blockOwnerDeletion, false);
  EXPECT_EQ(spec.owners[2].labelSelector->matchLabels.at("app"), "web");
  EXPECT_EQ(spec.ttl, "1h0m0s");  // as written
  EXPECT_EQ(ReservationTTLNanos(spec), 3600LL * 1000000000);
  EXPECT_EQ(spec.expires, Time::FromUnixSeconds(1735776000));
  EXPECT_TRUE(spec.preAllocation);
  EXPECT_FALSE(ReservationAllocateOnce(spec));
  EXPECT_EQ(spec.allocatePolicy, "Restricted");
  EXPECT_TRUE(spec.unschedulable);
  EXPECT_EQ(spec.taints[0].effect, "NoSchedule");
  const ReservationStatus& status = rsv->status;
  EXPECT_EQ(status.phase, "Available");
  EXPECT_EQ(status.conditions[0].lastProbeTime, Time::FromUnixSeconds(1735689605));
  EXPECT_EQ(status.currentOwners[0].name, "web-0");
  EXPECT_EQ(status.allocatable.at("memory").ToString(), "4Gi");
  EXPECT_EQ(status.allocated.at("cpu").ToString(), "1");
}

Reservation ValidReservation() {
  Reservation r;
  r.metadata.name = "rsv";
  r.spec.template_.emplace();
  r.spec.template_->spec.containers.push_back({.name = "main"});
  ReservationOwner owner;
  owner.object = ObjectReference{.kind = "Pod", .namespace_ = "default", .name = "web-0"};
  r.spec.owners.push_back(owner);
  return r;
}

TEST(ReservationTest, Defaults) {
  Reservation r = ValidReservation();
  SetReservationDefaults(r);
  ASSERT_TRUE(r.spec.ttl);
  EXPECT_EQ(*r.spec.ttl, "24h");
  EXPECT_EQ(r.spec.allocateOnce, true);

  Reservation with_expires = ValidReservation();
  with_expires.spec.expires = Time::FromUnixSeconds(1800000000);
  with_expires.spec.allocateOnce = false;
  SetReservationDefaults(with_expires);
  EXPECT_EQ(with_expires.spec.ttl, "24h");  // as Koordinator's CRD defaults it; expires wins
  EXPECT_EQ(with_expires.spec.allocateOnce, false);

  Reservation no_expiry = ValidReservation();
  no_expiry.spec.ttl = "0s";  // 0 disables expiry and is kept
  SetReservationDefaults(no_expiry);
  EXPECT_EQ(ReservationTTLNanos(no_expiry.spec), 0);
  FieldErrors errs;
  ValidateReservation(r, errs);
  ValidateReservation(with_expires, errs);
  ValidateReservation(no_expiry, errs);
  EXPECT_EQ(errs.Messages(), std::vector<std::string>{});
}

TEST(ReservationTest, Validation) {
  struct Case {
    const char* name;
    std::function<void(Reservation&)> mutate;
    std::vector<std::string> want;
  };
  std::vector<Case> cases = {
      {"template required",
       [](Reservation& r) { r.spec.template_.reset(); },
       {"spec.template: Required value"}},
      {"owners required",
       [](Reservation& r) { r.spec.owners.clear(); },
       {"spec.owners: Required value"}},
      {"owner needs a member",
       [](Reservation& r) { r.spec.owners.emplace_back(); },
       {"spec.owners[1]: Required value: at least one of `object`, `controller` or "
        "`labelSelector` is required"}},
      {"controller reference fields",
       [](Reservation& r) {
         r.spec.owners[0].controller = ReservationControllerReference{
             .apiVersion = "apps/v1", .kind = "ReplicaSet", .name = "web"};
       },
       {"spec.owners[0].controller.uid: Required value"}},
      {"ttl and expires together (Koordinator's CRD defaults ttl)",
       [](Reservation& r) {
         r.spec.ttl = "1h";
         r.spec.expires = Time::FromUnixSeconds(1800000000);
       },
       {}},
      {"ttl not a duration",
       [](Reservation& r) { r.spec.ttl = "a day"; },
       {"spec.ttl: Invalid value: \"a day\": must be a duration such as 24h, 90m or 0s"}},
      {"allocatePolicy values",
       [](Reservation& r) { r.spec.allocatePolicy = "Default"; },
       {"spec.allocatePolicy: Unsupported value: \"Default\": supported values: \"Aligned\", "
        "\"Restricted\""}},
      {"cluster scoped",
       [](Reservation& r) { r.metadata.namespace_ = "default"; },
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"template node name",
       [](Reservation& r) { r.spec.template_->spec.nodeName = "Node_1"; },
       {"spec.template.spec.nodeName: Invalid value: \"Node_1\": " + kSubdomainMsg}},
      {"template resource claims",
       [](Reservation& r) {
         api::PodResourceClaim both{.name = "gpus"};
         both.resourceClaimName = "a";
         both.resourceClaimTemplateName = "b";
         r.spec.template_->spec.resourceClaims = {both, {.name = "gpus"}};
       },
       {"spec.template.spec.resourceClaims[0]: Invalid value: \"gpus\": at most one of "
        "`resourceClaimName` or `resourceClaimTemplateName` may be specified",
        "spec.template.spec.resourceClaims[1].name: Duplicate value: \"gpus\"",
        "spec.template.spec.resourceClaims[1]: Invalid value: \"gpus\": must specify one of: "
        "`resourceClaimName`, `resourceClaimTemplateName`"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Reservation r = ValidReservation();
    c.mutate(r);
    FieldErrors errs;
    ValidateReservation(r, errs);
    EXPECT_EQ(errs.Messages(), c.want);
  }

  Reservation old = ValidReservation();
  Reservation now = old;
  now.status.phase = "Ready";
  now.status.conditions = {{.type = "Scheduled", .status = "Yes"}};
  now.status.nodeName = "node-1";
  FieldErrors errs;
  ValidateReservationStatusUpdate(now, old, errs);
  EXPECT_EQ(errs.Messages(),
            (std::vector<std::string>{
                "status.phase: Unsupported value: \"Ready\": supported values: \"Pending\", "
                "\"Available\", \"Succeeded\", \"Waiting\", \"Failed\"",
                "status.conditions[0].status: Unsupported value: \"Yes\": supported values: "
                "\"False\", \"True\", \"Unknown\""}));
}

TEST(ReservationTest, RegistrationAndTables) {
  const ResourceRegistry& reg = ResourceRegistry::Default();
  const ResourceInfo* rsv = reg.Find("scheduling.koordinator.sh", "v1alpha1", "reservations");
  ASSERT_NE(rsv, nullptr);
  EXPECT_FALSE(rsv->namespaced);
  EXPECT_TRUE(rsv->status_subresource);
  EXPECT_TRUE(rsv->short_names.empty());
  EXPECT_TRUE(rsv->categories.empty());
  EXPECT_EQ(rsv->QualifiedResource(), "reservations.scheduling.koordinator.sh");

  Time created = Time::FromUnixSeconds(1700000000);
  Time now = Time::FromUnixSeconds(1700000000 + 90);
  std::vector<std::string> names;
  for (const TableColumn& c : rsv->columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Phase", "Age", "Node", "TTL", "Expires", "Devices"}));
  Reservation r = ValidReservation();
  r.metadata.creationTimestamp = created;
  rsv->default_fn(r);
  EXPECT_EQ(rsv->row(r, now),
            (std::vector<TableCell>{"<none>", "90s", "<none>", "24h", "<none>", "<none>"}));
  r.status.phase = "Available";
  r.status.nodeName = "node-1";
  r.spec.ttl.reset();
  r.spec.expires = Time::FromUnixSeconds(1735776000);
  r.status.allocatedDevices = {{"r-gpus-x", "gpu", "gpu.example.com", "node-1", "gpu-0"},
                               {"r-gpus-x", "gpu", "gpu.example.com", "node-1", "gpu-1"}};
  EXPECT_EQ(rsv->row(r, now), (std::vector<TableCell>{"Available", "90s", "node-1", "<none>",
                                                      "2025-01-02T00:00:00Z",
                                                      "node-1/gpu-0,node-1/gpu-1"}));
}

}  // namespace
}  // namespace allot::api
