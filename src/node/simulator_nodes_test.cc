// NodeSimulator, node side: registration, write budget, leases, heartbeats, adoption and
// re-registration.
#include <gtest/gtest.h>

#include "api/core/node.h"
#include "node/addresses.h"
#include "node/node_objects.h"
#include "node/testing/simulator.h"

namespace allot::node {
namespace {

using std::chrono::seconds;

constexpr char kTemplate[] = R"(
kind: Node
metadata:
  labels: {pool: batch, topology.kubernetes.io/zone: z1}
spec:
  taints: [{key: dedicated, value: batch, effect: NoSchedule}]
status:
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
)";

const api::Lease* AsLease(const api::ObjectPtr& o) { return o ? api::As<api::Lease>(*o) : nullptr; }
const api::Node* AsNode(const api::ObjectPtr& o) { return o ? api::As<api::Node>(*o) : nullptr; }

class SimulatorNodesTest : public SimulatorTest {
 protected:
  Time LeaseRenewTime(const std::string& node) {
    const api::Lease* l = AsLease(Get("coordination.k8s.io", "leases", "kube-node-lease", node));
    return l && l->spec.renewTime ? l->spec.renewTime->time : Time{};
  }
  Time ReadyHeartbeat(const std::string& node) {
    const api::Node* n = AsNode(Get("", "nodes", "", node));
    if (!n) return Time{};
    for (const auto& c : n->status.conditions) {
      if (c.type == "Ready" && c.lastHeartbeatTime) return *c.lastHeartbeatTime;
    }
    return Time{};
  }
};

TEST_F(SimulatorNodesTest, RegistersNodesFromTheTemplateWithLeases) {
  NodeSimulatorOptions opts = Options(3);
  opts.shape.node_template = *ParseNodeTemplate(kTemplate);
  NodeSimulator& sim = Start(std::move(opts), /*watch=*/false);
  EXPECT_EQ(sim.NodeNames(), (std::vector<std::string>{"n-0", "n-1", "n-2"}));
  EXPECT_TRUE(sim.OwnsNode("n-2"));
  EXPECT_FALSE(sim.OwnsNode("n-3"));
  Time t0 = clock_.Now();
  for (int i = 0; i < 3; ++i) {
    std::string name = "n-" + std::to_string(i);
    const api::Node* n = AsNode(Get("", "nodes", "", name));
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(n->metadata.labels.at("kubernetes.io/hostname"), name);
    EXPECT_EQ(n->metadata.labels.at("pool"), "batch");
    ASSERT_EQ(n->spec.taints.size(), 1u);
    EXPECT_EQ(n->spec.taints[0].key, "dedicated");
    EXPECT_EQ(n->status.capacity.at("cpu").ToString(), "16");
    EXPECT_EQ(n->status.allocatable.at("memory").ToString(), "64Gi");
    EXPECT_EQ(n->status.nodeInfo.kubeletVersion, "v1.37.0-allot");
    EXPECT_EQ(n->status.addresses[0].address, NodeInternalIp(i));
    EXPECT_EQ(ReadyHeartbeat(name), t0);

    const api::Lease* l = AsLease(Get("coordination.k8s.io", "leases", "kube-node-lease", name));
    ASSERT_NE(l, nullptr) << name;
    EXPECT_EQ(l->spec.holderIdentity, name);
    EXPECT_EQ(l->spec.leaseDurationSeconds, 40);
    EXPECT_EQ(l->spec.renewTime->time, t0);
    ASSERT_EQ(l->metadata.ownerReferences.size(), 1u);
    EXPECT_EQ(l->metadata.ownerReferences[0].uid, n->metadata.uid);
  }
  EXPECT_EQ(sim.GetStats().nodes, 3);
}

// Thousands of nodes register with one node create and one lease create each (plus a status
// write per node when the server drops status on create; see CompleteStatusIfDropped).
TEST_F(SimulatorNodesTest, TwoThousandNodesRegisterWithinTheWriteBudget) {
  constexpr int kNodes = 2000;
  const int per_node = api::ResourceFor<api::Node>().create_keeps_status ? 2 : 3;
  store::Store::Stats before = store_->GetStats();
  NodeSimulator& sim = Start(Options(kNodes), /*watch=*/false);
  store::Store::Stats after = store_->GetStats();
  EXPECT_EQ(sim.GetStats().nodes, kNodes);
  EXPECT_EQ(after.writes - before.writes, static_cast<uint64_t>(per_node * kNodes));
  EXPECT_EQ(client_->Count("create", "nodes"), kNodes);
  EXPECT_EQ(client_->Count("create", "leases"), kNodes);
  EXPECT_EQ(client_->Calls().size(), static_cast<size_t>(per_node * kNodes));
  // Group commit: far fewer backend transactions than writes (informational; timing-dependent).
  RecordProperty("store_batches", static_cast<int>(after.batches - before.batches));

  // One lease interval later every lease was renewed once, with one write each, plus the
  // status heartbeats of the quarter of nodes whose offset falls in the first 10 s.
  Advance(seconds(10));
  TickAndWait();
  store::Store::Stats later = store_->GetStats();
  EXPECT_EQ(sim.GetStats().lease_renewals, 2u * kNodes);  // creates count as renewals
  EXPECT_EQ(client_->Count("update", "leases"), kNodes);
  EXPECT_EQ(client_->Count("patch", "nodes"), kNodes / 4);
  EXPECT_EQ(later.writes - after.writes, static_cast<uint64_t>(kNodes + kNodes / 4));
}

TEST_F(SimulatorNodesTest, LeasesAreRenewedEveryTenSecondsSpreadOverTheInterval) {
  Start(Options(20), /*watch=*/false);
  Time t0 = clock_.Now();
  Advance(seconds(1));
  TickAndWait();
  // Offsets are whole seconds (1 + index % 10): n-0 and n-10 go first, the rest wait.
  EXPECT_EQ(LeaseRenewTime("n-0"), clock_.Now());
  EXPECT_EQ(LeaseRenewTime("n-10"), clock_.Now());
  EXPECT_EQ(LeaseRenewTime("n-1"), t0);
  EXPECT_EQ(client_->Count("update", "leases"), 2);

  Time first = clock_.Now();
  Advance(seconds(9));
  TickAndWait();
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(LeaseRenewTime("n-" + std::to_string(i)), i % 10 == 0 ? first : clock_.Now()) << i;
  }
  EXPECT_EQ(client_->Count("update", "leases"), 20);

  Advance(seconds(1));  // n-0 and n-10 again, 10 s after their previous renewal
  TickAndWait();
  EXPECT_EQ(client_->Count("update", "leases"), 22);
  EXPECT_EQ(LeaseRenewTime("n-10"), clock_.Now());

  // A jump of a minute renews each lease once, not once per missed period.
  Advance(seconds(60));
  TickAndWait();
  EXPECT_EQ(client_->Count("update", "leases"), 42);
}

TEST_F(SimulatorNodesTest, ReadyHeartbeatEveryFortySeconds) {
  Start(Options(4), /*watch=*/false);
  Time t0 = clock_.Now();
  Advance(seconds(4));  // offsets 1..4 s
  TickAndWait();
  EXPECT_EQ(client_->Count("patch", "nodes"), 4);
  for (int i = 0; i < 4; ++i) {
    std::string name = "n-" + std::to_string(i);
    EXPECT_EQ(ReadyHeartbeat(name), clock_.Now()) << name;
    const api::Node* n = AsNode(Get("", "nodes", "", name));
    EXPECT_EQ(n->status.conditions.back().lastTransitionTime, t0);
    EXPECT_EQ(n->status.conditions.size(), 4u);
  }
  Advance(seconds(39));
  TickAndWait();
  EXPECT_EQ(client_->Count("patch", "nodes"), 7);  // n-0..n-2 are due again, n-3 in 1 s
  EXPECT_EQ(sim_->GetStats().node_heartbeats, 7u);
}

TEST_F(SimulatorNodesTest, AdoptsNodesThatAlreadyExist) {
  std::unique_ptr<api::Node> old = MakeNode({DefaultNodeTemplate()}, "n-1", 1, clock_.Now());
  old->metadata.labels["kept"] = "yes";
  old->status.capacity = {{"cpu", *api::Quantity::Parse("1")}};
  old->status.allocatable = old->status.capacity;
  ASSERT_TRUE(store_->Create(api::ResourceFor<api::Node>(), std::move(old)).ok());

  NodeSimulatorOptions opts = Options(2);
  opts.shape.node_template = *ParseNodeTemplate(kTemplate);
  NodeSimulator& sim = Start(std::move(opts), /*watch=*/false);
  EXPECT_EQ(sim.GetStats().nodes, 2);
  EXPECT_EQ(sim.GetStats().nodes_adopted, 1);
  const api::Node* n = AsNode(Get("", "nodes", "", "n-1"));
  EXPECT_EQ(n->metadata.labels.at("kept"), "yes");  // spec and metadata are left alone
  EXPECT_EQ(n->status.capacity.at("cpu").ToString(), "16");
  EXPECT_NE(Get("coordination.k8s.io", "leases", "kube-node-lease", "n-1"), nullptr);
  EXPECT_EQ(client_->Count("create", "nodes"), 1);  // n-0 only: n-1 was found by the list
  // The adoption, plus n-0's status when the server drops it on create.
  EXPECT_EQ(client_->Count("status", "nodes"), api::ResourceFor<api::Node>().create_keeps_status ? 1 : 2);
}

TEST_F(SimulatorNodesTest, ARestartRenewsExistingLeasesInsteadOfCreatingThem) {
  Start(Options(3), /*watch=*/false);
  sim_.reset();
  Advance(seconds(30));
  store::Store::Stats before = store_->GetStats();
  Start(Options(3), /*watch=*/false);
  EXPECT_EQ(sim_->GetStats().nodes_adopted, 3);
  EXPECT_EQ(sim_->GetStats().write_errors, 0u) << sim_->GetStats().last_error;
  EXPECT_EQ(client_->Count("create", "leases"), 3);  // from the first run only
  EXPECT_EQ(client_->Count("update", "leases"), 3);
  EXPECT_EQ(store_->GetStats().writes - before.writes, 6u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(LeaseRenewTime("n-" + std::to_string(i)), clock_.Now());
}

TEST_F(SimulatorNodesTest, ReregistersANodeDeletedBehindItsBack) {
  Start(Options(2), /*watch=*/false);
  std::string old_uid = Get("", "nodes", "", "n-1")->metadata.uid;
  ASSERT_TRUE(store_->Delete(api::ResourceFor<api::Node>(), "", "n-1").ok());
  Advance(seconds(2));  // n-1's heartbeat finds it gone
  ASSERT_TRUE(TickUntil([&] { return Get("", "nodes", "", "n-1") != nullptr; }));
  std::string new_uid = Get("", "nodes", "", "n-1")->metadata.uid;
  EXPECT_NE(new_uid, old_uid);
  ASSERT_TRUE(TickUntil([&] {
    const api::Lease* l = AsLease(Get("coordination.k8s.io", "leases", "kube-node-lease", "n-1"));
    return l && l->metadata.ownerReferences.size() == 1 &&
           l->metadata.ownerReferences[0].uid == new_uid;
  }));
  EXPECT_EQ(sim_->GetStats().nodes, 2);
}

TEST_F(SimulatorNodesTest, RejectsBadOptions) {
  NodeSimulatorOptions opts = Options(10);
  opts.first_index = kMaxNodes - 5;
  NodeSimulator sim(*client_, clock_, opts);
  Status st = sim.Register();
  EXPECT_EQ(st.code(), StatusCode::kBadRequest) << st.ToString();
  EXPECT_TRUE(sim.NodeNames().empty());
}

}  // namespace
}  // namespace allot::node
