// PodSchedulingContext (resource.k8s.io/v1alpha3): round trip, validation, registration.
#include "api/resource/pod_scheduling_context.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/codec/codec.h"
#include "api/machinery/resources.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::ExpectRoundTrip;
using testing::kSubdomainMsg;

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

OwnerReference PodOwner(const std::string& name) {
  return {.apiVersion = "v1", .kind = "Pod", .name = name, .uid = "uid-1", .controller = true};
}

TEST(PodSchedulingContextTest, Validation) {
  PodSchedulingContext ctx;
  ctx.metadata.name = "pod";
  ctx.metadata.namespace_ = "ns";
  ctx.metadata.ownerReferences = {PodOwner("pod")};
  ctx.spec.potentialNodes = Nodes(128);
  FieldErrors ok;
  ValidatePodSchedulingContext(ctx, ok);
  EXPECT_TRUE(ok.empty());

  ctx.spec.potentialNodes = Nodes(129);
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
                "spec.potentialNodes: Too many: 129: must have at most 128 items"}));

  PodSchedulingContext old = ctx;
  ctx.status.resourceClaims = {{.name = "gpu", .unsuitableNodes = Nodes(129)},
                               {.name = "gpu", .unsuitableNodes = {"x_y"}}};
  FieldErrors serrs;
  ValidatePodSchedulingContextStatusUpdate(ctx, old, serrs);
  EXPECT_EQ(
      serrs.Messages(),
      (std::vector<std::string>{
          "status.resourceClaims[0].unsuitableNodes: Too many: 129: must have at most 128 "
          "items",
          "status.resourceClaims[1].unsuitableNodes[0]: Invalid value: \"x_y\": " + kSubdomainMsg,
          "status.resourceClaims[1]: Duplicate value: \"gpu\""}));
}

TEST(PodSchedulingContextTest, IsControlledByItsPod) {
  PodSchedulingContext ctx;
  ctx.metadata.name = "pod";
  ctx.metadata.namespace_ = "ns";
  FieldErrors none;
  ValidatePodSchedulingContext(ctx, none);  // no controller: accepted (a manifest's context)
  EXPECT_TRUE(none.empty());

  ctx.metadata.ownerReferences = {PodOwner("other")};
  FieldErrors other;
  ValidatePodSchedulingContext(ctx, other);
  EXPECT_EQ(other.Messages(),
            std::vector<std::string>{
                "metadata.ownerReferences[0]: Invalid value: \"v1/Pod other\": the controller of "
                "a PodSchedulingContext must be the v1 Pod of the same name"});

  OwnerReference rs = PodOwner("pod");
  rs.apiVersion = "apps/v1";
  rs.kind = "ReplicaSet";
  ctx.metadata.ownerReferences = {rs};
  FieldErrors wrong_kind;
  ValidatePodSchedulingContext(ctx, wrong_kind);
  EXPECT_EQ(wrong_kind.size(), 1u);

  OwnerReference not_controller = PodOwner("x");
  not_controller.controller = false;
  ctx.metadata.ownerReferences = {not_controller, PodOwner("pod")};
  FieldErrors ok;
  ValidatePodSchedulingContext(ctx, ok);
  EXPECT_TRUE(ok.empty()) << ok.Messages()[0];
}

TEST(PodSchedulingContextTest, RegistrationAndTable) {
  const ResourceInfo* psc =
      ResourceRegistry::Default().Find("resource.k8s.io", "v1alpha3", "podschedulingcontexts");
  ASSERT_NE(psc, nullptr);
  EXPECT_TRUE(psc->namespaced);
  EXPECT_TRUE(psc->status_subresource);
  EXPECT_EQ(psc->type, &PodSchedulingContext::Type());

  Time created = Time::FromUnixSeconds(1700000000);
  Time now = Time::FromUnixSeconds(1700000000 + 90);
  PodSchedulingContext ctx;
  ctx.metadata.creationTimestamp = created;
  ctx.spec.selectedNode = "node-1";
  ctx.spec.potentialNodes = {"node-1", "node-2"};
  ASSERT_EQ(psc->columns.size(), 3u);
  EXPECT_EQ(psc->columns[0].name, "SelectedNode");
  EXPECT_EQ(psc->columns[1].name, "Potential");
  EXPECT_EQ(psc->row(ctx, now), (std::vector<TableCell>{"node-1", int64_t{2}, "90s"}));
}

}  // namespace
}  // namespace allot::api
