// Node and driver restriction through the request handler with RBAC on: every forbidden write
// of a node (another Node, another node's Lease, pods bound elsewhere, ResourceSlices of
// another node) and of a driver (another driver's ResourceSlices, other drivers' entries in a
// claim's status, another's finalizers) is answered 403 and changes nothing; the same writes
// of the identity's own objects succeed.
#include "apiserver/admission/restriction.h"

#include <gtest/gtest.h>

#include "apiserver/testing/authorized_handler.h"

namespace allot::apiserver {
namespace {

class RestrictionTest : public testing::AuthorizedHandlerTest {
 protected:
  void SetUp() override {
    AuthorizedHandlerTest::SetUp();
    for (const char* node : {"n1", "n2"}) {
      Admin("POST", "/api/v1/nodes",
            std::string(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")") + node +
                R"("}})");
      Admin("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
            std::string(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
                        R"("metadata":{"name":")") +
                node + R"("},"spec":{"holderIdentity":")" + node + R"("}})");
      const std::string pod = std::string("pod-") + node;
      Admin("POST", "/api/v1/namespaces/default/pods",
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + pod +
                R"("},"spec":{"containers":[{"name":"c","image":"i"}]}})");
      Admin("POST", "/api/v1/namespaces/default/pods/" + pod + "/binding",
            R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + pod +
                R"("},"target":{"kind":"Node","name":")" + node + R"("}})");
    }
    Admin("POST", "/apis/resource.k8s.io/v1/resourceslices",
          Slice("n1-gpus", "gpu.example.com", "n1"));
    Admin("POST", "/apis/resource.k8s.io/v1/resourceslices",
          Slice("n2-gpus", "gpu.example.com", "n2"));
    Admin("POST", "/apis/resource.k8s.io/v1/resourceslices",
          Slice("n1-nics", "nic.example.com", "n1"));
    Admin("POST", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
          R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
          R"("metadata":{"name":"c","finalizers":["nic.example.com/deletion-protection"]},)"
          R"("spec":{"devices":{"requests":[)"
          R"({"name":"gpu","exactly":{"deviceClassName":"gpu"}},)"
          R"({"name":"nic","exactly":{"deviceClassName":"nic"}}]}}})");
    Admin("PUT", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c/status",
          Claim(R"({"driver":"gpu.example.com","pool":"n1","device":"d0"},)"
                R"({"driver":"nic.example.com","pool":"n1","device":"d0"})"));
  }
  static std::string Slice(const std::string& name, const std::string& driver,
                           const std::string& node) {
    return R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")" +
           name + R"("},"spec":{"driver":")" + driver + R"(","nodeName":")" + node +
           R"(","pool":{"name":")" + node +
           R"(","generation":1,"resourceSliceCount":1},"devices":[{"name":"d0"}]}})";
  }
  // The claim with both devices allocated and `devices` as its status.devices.
  std::string Claim(const std::string& devices) {
    auto current = Send("admin-token", "GET",
                        "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c", "");
    std::string rv;
    if (current.status == 200) {
      size_t at = current.body.find(R"("resourceVersion":")");
      if (at != std::string::npos) {
        at += 19;
        rv = current.body.substr(at, current.body.find('"', at) - at);
      }
    }
    return R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c",)"
           R"("resourceVersion":")" +
           rv +
           R"("},"spec":{"devices":{"requests":[)"
           R"({"name":"gpu","exactly":{"deviceClassName":"gpu"}},)"
           R"({"name":"nic","exactly":{"deviceClassName":"nic"}}]}},)"
           R"("status":{"allocation":{"devices":{"results":[)"
           R"({"request":"gpu","driver":"gpu.example.com","pool":"n1","device":"d0"},)"
           R"({"request":"nic","driver":"nic.example.com","pool":"n1","device":"d0"}]}},)"
           R"("devices":[)" +
           devices + "]}}";
  }

  // The request is refused with 403 and the message names the rule.
  void ExpectForbidden(const std::string& token, std::string method, std::string target,
                       std::string body, const std::string& message,
                       std::string content_type = "application/json") {
    Response r = Send(token, method, target, std::move(body), std::move(content_type));
    EXPECT_EQ(r.status, 403) << method << " " << target << ": " << r.body;
    EXPECT_NE(r.body.find(R"("reason":"Forbidden")"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find(message), std::string::npos) << r.body;
  }
  void ExpectAllowed(const std::string& token, std::string method, std::string target,
                     std::string body, std::string content_type = "application/json") {
    Response r = Send(token, method, target, std::move(body), std::move(content_type));
    EXPECT_LT(r.status, 300) << method << " " << target << ": " << r.body;
  }
  std::string Get(const std::string& target) { return Send("admin-token", "GET", target, "").body; }
};

constexpr char kMerge[] = "application/merge-patch+json";

TEST_F(RestrictionTest, ANodeWritesOnlyItsOwnNodeAndLease) {
  ExpectForbidden("n1-token", "PATCH", "/api/v1/nodes/n2", R"({"metadata":{"labels":{"x":"y"}}})",
                  R"(node \"n1\" may only modify its own Node object)", kMerge);
  ExpectForbidden("n1-token", "PATCH", "/api/v1/nodes/n2/status", R"({"status":{}})",
                  "may only modify its own Node object", kMerge);
  ExpectForbidden("n1-token", "DELETE", "/api/v1/nodes/n2", "", "its own Node object");
  ExpectForbidden("n1-token", "POST", "/api/v1/nodes",
                  R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n3"}})",
                  R"(nodes \"n3\" is forbidden: node \"n1\" may only modify its own Node)");
  ExpectForbidden("n1-token", "PATCH",
                  "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2",
                  R"({"spec":{"holderIdentity":"n1"}})", "its own Lease", kMerge);
  ExpectForbidden("n1-token", "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
                  R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
                  R"("metadata":{"name":"n1"}})",
                  "its own Lease in kube-node-lease");
  EXPECT_EQ(Get("/api/v1/nodes/n2").find(R"("x":"y")"), std::string::npos);

  ExpectAllowed("n1-token", "PATCH", "/api/v1/nodes/n1", R"({"metadata":{"labels":{"x":"y"}}})",
                kMerge);
  ExpectAllowed("n1-token", "PATCH",
                "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1",
                R"({"spec":{"holderIdentity":"n1-again"}})", kMerge);
}

TEST_F(RestrictionTest, ANodeWritesTheStatusOfAndDeletesOnlyPodsBoundToIt) {
  ExpectForbidden("n1-token", "PATCH", "/api/v1/namespaces/default/pods/pod-n2/status",
                  R"({"status":{"phase":"Running"}})",
                  R"(may only modify pods bound to it (spec.nodeName \"n1\"))", kMerge);
  ExpectForbidden("n1-token", "DELETE", "/api/v1/namespaces/default/pods/pod-n2", "",
                  "may only modify pods bound to it");
  EXPECT_EQ(Get("/api/v1/namespaces/default/pods/pod-n2").find("Running"), std::string::npos);
  // Not granted at all: RBAC's 403.
  ExpectForbidden("n1-token", "POST", "/api/v1/namespaces/default/pods",
                  R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},)"
                  R"("spec":{"containers":[{"name":"c","image":"i"}]}})",
                  R"(User \"system:node:n1\" cannot create resource \"pods\")");

  ExpectAllowed("n1-token", "PATCH", "/api/v1/namespaces/default/pods/pod-n1/status",
                R"({"status":{"phase":"Running"}})", kMerge);
  ExpectAllowed("n1-token", "DELETE", "/api/v1/namespaces/default/pods/pod-n1", "");
}

TEST_F(RestrictionTest, ANodeWritesOnlyResourceSlicesOfItsNode) {
  const std::string slices = "/apis/resource.k8s.io/v1/resourceslices";
  ExpectForbidden("n1-token", "POST", slices, Slice("x", "gpu.example.com", "n2"),
                  R"(may only modify ResourceSlices with spec.nodeName \"n1\")");
  ExpectForbidden("n1-token", "PATCH", slices + "/n2-gpus", R"({"metadata":{"labels":{"x":"y"}}})",
                  "spec.nodeName", kMerge);
  ExpectForbidden("n1-token", "DELETE", slices + "/n2-gpus", "", "spec.nodeName");
  // A collection delete that would reach another node's slice deletes nothing.
  ExpectForbidden("n1-token", "DELETE", slices, "", "spec.nodeName");
  EXPECT_NE(Get(slices + "/n1-gpus").find(R"("name":"n1-gpus")"), std::string::npos);

  ExpectAllowed("n1-token", "POST", slices, Slice("n1-more", "gpu.example.com", "n1"));
  ExpectAllowed("n1-token", "DELETE", slices + "?fieldSelector=spec.nodeName%3Dn1", "");
  EXPECT_NE(Get(slices + "/n2-gpus").find(R"("name":"n2-gpus")"), std::string::npos);
}

TEST_F(RestrictionTest, ADriverWritesOnlyItsOwnResourceSlices) {
  const std::string slices = "/apis/resource.k8s.io/v1/resourceslices";
  ExpectForbidden("driver-token", "POST", slices, Slice("x", "nic.example.com", "n1"),
                  R"(driver \"gpu.example.com\" may only modify ResourceSlices with )"
                  R"(spec.driver \"gpu.example.com\")");
  ExpectForbidden("driver-token", "DELETE", slices + "/n1-nics", "", "spec.driver");
  ExpectForbidden("driver-token", "PATCH", slices + "/n1-nics",
                  R"({"metadata":{"labels":{"x":"y"}}})", "spec.driver", kMerge);

  ExpectAllowed("driver-token", "PATCH", slices + "/n2-gpus",
                R"({"metadata":{"labels":{"x":"y"}}})", kMerge);
  ExpectAllowed("driver-token", "DELETE", slices + "/n2-gpus", "");
}

TEST_F(RestrictionTest, ADriverChangesOnlyItsOwnEntriesInAClaimsStatus) {
  const std::string status = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c/status";
  // Another driver's entry changed, or removed.
  ExpectForbidden("driver-token", "PUT", status,
                  Claim(R"({"driver":"gpu.example.com","pool":"n1","device":"d0"},)"
                        R"({"driver":"nic.example.com","pool":"n1","device":"d0",)"
                        R"("conditions":[{"type":"Ready","status":"True","reason":"R",)"
                        R"("message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]})"),
                  R"(may only change its own entries in status.devices (driver )"
                  R"(\"gpu.example.com\"))");
  ExpectForbidden("driver-token", "PUT", status,
                  Claim(R"({"driver":"gpu.example.com","pool":"n1","device":"d0"})"),
                  "its own entries in status.devices");
  // Its own entry may change.
  ExpectAllowed("driver-token", "PUT", status,
                Claim(R"({"driver":"gpu.example.com","pool":"n1","device":"d0",)"
                      R"("conditions":[{"type":"Ready","status":"True","reason":"R",)"
                      R"("message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]},)"
                      R"({"driver":"nic.example.com","pool":"n1","device":"d0"})"));
  // The allocation holds another driver's device: not its to remove.
  ExpectForbidden("driver-token", "PATCH", status, R"({"status":{"allocation":null,"devices":[]}})",
                  "its own entries", kMerge);
}

TEST_F(RestrictionTest, AStaleWriteIsAConflictNotAVerdict) {
  const std::string claim = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c";
  Response got = Send("admin-token", "GET", claim, "");
  ASSERT_EQ(got.status, 200);
  ASSERT_EQ(Send("admin-token", "PATCH", claim, R"({"metadata":{"labels":{"moved":"on"}}})",
                 kMerge)
                .status,
            200);
  // The driver's PUT of the older object (its finalizer added) meets the store's 409, which it
  // retries, rather than a 403 for the label it did not see.
  std::string body = got.body;
  const std::string finalizers = R"("finalizers":[)";
  body.insert(body.find(finalizers) + finalizers.size(), R"("gpu.example.com/x",)");
  Response stale = Send("driver-token", "PUT", claim, body);
  EXPECT_EQ(stale.status, 409) << stale.body;
}

TEST_F(RestrictionTest, ADriverAddsAndRemovesOnlyItsOwnFinalizers) {
  const std::string claim = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c";
  ExpectForbidden("driver-token", "PATCH", claim, R"({"metadata":{"finalizers":[]}})",
                  R"(not \"nic.example.com/deletion-protection\")", kMerge);
  ExpectForbidden("driver-token", "PATCH", claim,
                  R"({"metadata":{"finalizers":["nic.example.com/deletion-protection",)"
                  R"("someone/else"]}})",
                  "may only add or remove its own finalizers", kMerge);
  ExpectAllowed("driver-token", "PATCH", claim,
                R"({"metadata":{"finalizers":["nic.example.com/deletion-protection",)"
                R"("gpu.example.com/deletion-protection"]}})",
                kMerge);
}

TEST_F(RestrictionTest, ANodeSetsOnlyTheLabelsAKubeletMayAndNeitherTaintsNorOwners) {
  ExpectForbidden("n1-token", "PATCH", "/api/v1/nodes/n1",
                  R"({"metadata":{"labels":{"node-restriction.kubernetes.io/pool":"gpu",)"
                  R"("node-role.kubernetes.io/control-plane":""}}})",
                  R"(nodes \"n1\" is forbidden: is not allowed to modify labels: )"
                  R"(node-restriction.kubernetes.io/pool, node-role.kubernetes.io/control-plane)",
                  kMerge);
  ExpectForbidden("n1-token", "PATCH", "/api/v1/nodes/n1",
                  R"({"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}})",
                  R"(node \"n1\" is not allowed to modify taints)", kMerge);
  ExpectForbidden("n1-token", "PATCH", "/api/v1/nodes/n1",
                  R"({"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Node",)"
                  R"("name":"n2","uid":"u"}]}})",
                  "is not allowed to modify ownerReferences", kMerge);
  EXPECT_EQ(Get("/api/v1/nodes/n1").find("node-restriction"), std::string::npos);
  // The kubelet's own labels, and anyone's outside kubernetes.io and k8s.io, it may set.
  ExpectAllowed("n1-token", "PATCH", "/api/v1/nodes/n1",
                R"({"metadata":{"labels":{"kubernetes.io/hostname":"n1",)"
                R"("topology.kubernetes.io/zone":"z","node.kubernetes.io/instance-type":"big",)"
                R"("kubelet.kubernetes.io/x":"y","accelerators.example.com/fabric":"true"}}})",
                kMerge);
  // A node registering itself: the same labels are refused.
  ExpectForbidden("n3-token", "POST", "/api/v1/nodes",
                  R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n3","labels":)"
                  R"({"node-restriction.kubernetes.io/a":"b","x.k8s.io/y":"z"}}})",
                  R"(node \"n3\" is not allowed to set the following labels: )"
                  R"(node-restriction.kubernetes.io/a, x.k8s.io/y)");
  ExpectAllowed("n3-token", "POST", "/api/v1/nodes",
                R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n3","labels":)"
                R"({"kubernetes.io/os":"linux"}},"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}})");
}

TEST_F(RestrictionTest, ANodeLeavesItsPodsResourceClaimStatusesAlone) {
  ExpectForbidden("n1-token", "PATCH", "/api/v1/namespaces/default/pods/pod-n1/status",
                  R"({"status":{"resourceClaimStatuses":[{"name":"gpu",)"
                  R"("resourceClaimName":"someone-elses"}]}})",
                  R"(node \"n1\" is not allowed to modify resourceClaimStatuses)", kMerge);
}

TEST_F(RestrictionTest, ANodeOrDriverUserWithoutANameWritesNothing) {
  ExpectForbidden("nameless-node-token", "DELETE", "/api/v1/namespaces/default/pods/pod-n1", "",
                  R"(could not determine node from user \"system:node:\")");
  ExpectForbidden("nameless-node-token", "POST", "/apis/resource.k8s.io/v1/resourceslices",
                  Slice("x", "gpu.example.com", ""), "could not determine node");
}

TEST_F(RestrictionTest, ADriverChangesNothingOfAClaimButItsFinalizersAndItsOwnAllocations) {
  const std::string claim = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c";
  ExpectForbidden("driver-token", "PATCH", claim, R"({"metadata":{"labels":{"x":"y"}}})",
                  "may only add or remove its own finalizers of a claim", kMerge);
  ExpectForbidden("driver-token", "PATCH", claim,
                  R"({"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Pod",)"
                  R"("name":"gone","uid":"gone"}]}})",
                  "its own finalizers of a claim", kMerge);
  // The claim is allocated with another driver's device too: who holds it is not this one's.
  ExpectForbidden("driver-token", "PATCH", claim + "/status",
                  R"({"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}})",
                  "may only change status.reservedFor and status.deallocationRequested of claims "
                  "allocated with its own devices",
                  kMerge);
  ExpectForbidden("driver-token", "PATCH", claim + "/status",
                  R"({"status":{"deallocationRequested":true}})", "status.deallocationRequested",
                  kMerge);
}

TEST_F(RestrictionTest, OthersAreNotRestrictedButRbacStillDecides) {
  ExpectForbidden("alice-token", "GET", "/api/v1/nodes", "",
                  R"(User \"alice\" cannot list resource \"nodes\" in API group \"\" at the )"
                  R"(cluster scope)");
  ExpectAllowed("admin-token", "PATCH", "/api/v1/nodes/n2", R"({"metadata":{"labels":{"a":"b"}}})",
                kMerge);
}

TEST(RestrictionForTest, OnlyNodeAndDriverIdentitiesInTheirGroupsAreRestricted) {
  using admission::Restriction;
  auto node = Restriction::For(authn::UserInfo{"system:node:n1", "", {"system:nodes"}});
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->kind(), Restriction::Kind::kNode);
  EXPECT_EQ(node->name(), "n1");
  auto driver = Restriction::For(
      authn::UserInfo{"system:dra-driver:d.example.com", "", {"system:dra-drivers"}});
  ASSERT_TRUE(driver.has_value());
  EXPECT_EQ(driver->kind(), Restriction::Kind::kDriver);
  EXPECT_EQ(driver->name(), "d.example.com");
  // The name without the group (or the group without the name) is someone else.
  EXPECT_FALSE(Restriction::For(authn::UserInfo{"system:node:n1", "", {}}).has_value());
  EXPECT_FALSE(Restriction::For(authn::UserInfo{"n1", "", {"system:nodes"}}).has_value());
}

}  // namespace
}  // namespace allot::apiserver
