// PodSchedulingContext (resource.k8s.io/v1alpha3) and Reservation
// (scheduling.koordinator.sh/v1alpha1): codec, defaults, validation, registration, tables.
#include "api/scheduling.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/resources.h"

namespace allot::api {
namespace {

const std::string kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

std::unique_ptr<Object> ExpectRoundTrip(const std::string& json) {
  DecodeOptions opts;
  opts.strict = true;
  auto first = DecodeJson(json, opts);
  EXPECT_TRUE(first.ok()) << first.status().ToString();
  if (!first.ok()) return nullptr;
  std::string encoded = EncodeJson(*first->object);
  EXPECT_EQ(encoded, json);
  auto second = DecodeJson(encoded, opts);
  EXPECT_TRUE(second.ok()) << second.status().ToString();
  if (!second.ok()) return nullptr;
  EXPECT_TRUE(first->object->type().equal(*first->object, *second->object));
  return std::move(first->object);
}

const char kPodSchedulingContext[] =
    R"({"kind":"PodSchedulingContext","apiVersion":"resource.k8s.io/v1alpha3",)"
    R"("metadata":{"name":"trainer-0","namespace":"team-a","ownerReferences":[{"apiVersion":"v1",)"
    R"("kind":"Pod","name":"trainer-0","uid":"9d3c2b1a-0000-4000-8000-000000000001",)"
    R"("controller":true}]},)"
    R"("spec":{"selectedNode":"node-1","potentialNodes":["node-1","node-2","node-3"]},)"
    R"("status":{"resourceClaims":[{"name":"gpu","unsuitableNodes":["node-3"]},{"name":"nic"}]}})";

TEST(PodSchedulingContextTest, RoundTripEveryField) {
  auto obj = ExpectRoundTrip(kPodSchedulingContext);
  const auto* ctx = As<PodSchedulingContext>(*obj);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(ctx->spec.selectedNode, "node-1");
  EXPECT_EQ(ctx->spec.potentialNodes.size(), 3u);
  ASSERT_EQ(ctx->status.resourceClaims.size(), 2u);
  EXPECT_EQ(ctx->status.resourceClaims[0].unsuitableNodes, std::vector<std::string>{"node-3"});
  FieldErrors errs;
  ValidatePodSchedulingContext(*ctx, errs);
  ValidatePodSchedulingContextStatusUpdate(*ctx, *ctx, errs);
  EXPECT_EQ(errs.Messages(), std::vector<std::string>{});
}

std::vector<std::string> Nodes(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("node-" + std::to_string(i));
  return out;
}

TEST(PodSchedulingContextTest, Validation) {
  PodSchedulingContext ctx;
  ctx.metadata.name = "pod";
  ctx.metadata.namespace_ = "ns";
  ctx.spec.potentialNodes = Nodes(256);
  FieldErrors ok;
  ValidatePodSchedulingContext(ctx, ok);
  EXPECT_TRUE(ok.empty());

  ctx.spec.potentialNodes = Nodes(257);
  ctx.spec.potentialNodes[1] = "Node_1";
  ctx.spec.potentialNodes[2] = "node-0";
  ctx.spec.selectedNode = "-bad";
  FieldErrors errs;
  ValidatePodSchedulingContext(ctx, errs);
  EXPECT_EQ(errs.Messages(),
            (std::vector<std::string>{
                "spec.selectedNode: Invalid value: \"-bad\": " + kSubdomainMsg,
                "spec.potentialNodes[1]: Invalid value: \"Node_1\": " + kSubdomainMsg,
                "spec.potentialNodes[2]: Duplicate value: \"node-0\"",
                "spec.potentialNodes: Too many: 257: must have at most 256 items"}));

  PodSchedulingContext old = ctx;
  ctx.status.resourceClaims = {{.name = "gpu", .unsuitableNodes = Nodes(257)},
                               {.name = "gpu", .unsuitableNodes = {"x_y"}}};
  FieldErrors serrs;
  ValidatePodSchedulingContextStatusUpdate(ctx, old, serrs);
  EXPECT_EQ(
      serrs.Messages(),
      (std::vector<std::string>{
          "status.resourceClaims[0].unsuitableNodes: Too many: 257: must have at most 256 "
          "items",
          "status.resourceClaims[1].unsuitableNodes[0]: Invalid value: \"x_y\": " + kSubdomainMsg,
          "status.resourceClaims[1]: Duplicate value: \"gpu\""}));
}

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
  EXPECT_EQ(spec.ttl->nanos, 3600LL * 1000000000);
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
  EXPECT_EQ(r.spec.ttl->ToString(), "24h0m0s");
  EXPECT_EQ(r.spec.allocateOnce, true);

  Reservation with_expires = ValidReservation();
  with_expires.spec.expires = Time::FromUnixSeconds(1800000000);
  with_expires.spec.allocateOnce = false;
  SetReservationDefaults(with_expires);
  EXPECT_FALSE(with_expires.spec.ttl);  // expires and ttl are mutually exclusive
  EXPECT_EQ(with_expires.spec.allocateOnce, false);

  Reservation no_expiry = ValidReservation();
  no_expiry.spec.ttl = Duration{0};  // 0 disables expiry and is kept
  SetReservationDefaults(no_expiry);
  EXPECT_EQ(no_expiry.spec.ttl->nanos, 0);
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
      {"ttl and expires exclusive",
       [](Reservation& r) {
         r.spec.ttl = Duration{3600LL * 1000000000};
         r.spec.expires = Time::FromUnixSeconds(1800000000);
       },
       {"spec.ttl: Forbidden: `ttl` and `expires` are mutually exclusive"}},
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

TEST(SchedulingResourcesTest, RegistrationAndTables) {
  const ResourceRegistry& reg = ResourceRegistry::Default();
  const ResourceInfo* psc = reg.Find("resource.k8s.io", "v1alpha3", "podschedulingcontexts");
  ASSERT_NE(psc, nullptr);
  EXPECT_TRUE(psc->namespaced);
  EXPECT_TRUE(psc->status_subresource);
  EXPECT_EQ(psc->type, &PodSchedulingContext::Type());
  const ResourceInfo* rsv = reg.Find("scheduling.koordinator.sh", "v1alpha1", "reservations");
  ASSERT_NE(rsv, nullptr);
  EXPECT_FALSE(rsv->namespaced);
  EXPECT_TRUE(rsv->status_subresource);
  EXPECT_TRUE(rsv->short_names.empty());
  EXPECT_TRUE(rsv->categories.empty());
  EXPECT_EQ(rsv->QualifiedResource(), "reservations.scheduling.koordinator.sh");

  Time created = Time::FromUnixSeconds(1700000000);
  Time now = Time::FromUnixSeconds(1700000000 + 90);
  PodSchedulingContext ctx;
  ctx.metadata.creationTimestamp = created;
  ctx.spec.selectedNode = "node-1";
  ASSERT_EQ(psc->columns.size(), 2u);
  EXPECT_EQ(psc->columns[0].name, "SelectedNode");
  EXPECT_EQ(psc->row(ctx, now), (std::vector<TableCell>{"node-1", "90s"}));

  std::vector<std::string> names;
  for (const TableColumn& c : rsv->columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Phase", "Age", "Node", "TTL", "Expires"}));
  Reservation r = ValidReservation();
  r.metadata.creationTimestamp = created;
  rsv->default_fn(r);
  EXPECT_EQ(rsv->row(r, now),
            (std::vector<TableCell>{"<none>", "90s", "<none>", "24h0m0s", "<none>"}));
  r.status.phase = "Available";
  r.status.nodeName = "node-1";
  r.spec.ttl.reset();
  r.spec.expires = Time::FromUnixSeconds(1735776000);
  EXPECT_EQ(rsv->row(r, now), (std::vector<TableCell>{"Available", "90s", "node-1", "<none>",
                                                      "2025-01-02T00:00:00Z"}));
}

}  // namespace
}  // namespace allot::api
