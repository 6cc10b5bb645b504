#include "scheduler/framework/types.h"

#include <gtest/gtest.h>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/status.h"
#include "scheduler/testing/builders.h"

namespace allot::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

struct RequestCase {
  std::string name;
  PodBuilder pod;
  int64_t milli_cpu;
  int64_t memory;
  int64_t nz_milli_cpu;
  int64_t nz_memory;
};

TEST(PodRequests, AsKubernetesComputesThem) {
  const int64_t Mi = 1024 * 1024;
  std::vector<RequestCase> cases = {
      {"containers are summed", PodBuilder("a").Req("100m", "1Gi").Req("200m", "1Gi"), 300,
       2048 * Mi, 300, 2048 * Mi},
      {"no requests: zero, non-zero defaults", PodBuilder("b").Container({}), 0, 0, 100, 200 * Mi},
      {"cpu only: memory defaults for non-zero", PodBuilder("c").Req("1"), 1000, 0, 1000, 200 * Mi},
      {"init container max rule (Kubernetes' example)",
       PodBuilder("d")
           .InitContainer({{"cpu", "2"}, {"memory", "1G"}})
           .InitContainer({{"cpu", "2"}, {"memory", "3G"}})
           .Req("2", "1G")
           .Req("1", "1G"),
       3000, 3000000000, 3000, 3000000000},
      {"sidecar added to containers",
       PodBuilder("e").InitContainer({{"cpu", "500m"}}, true).Req("1"), 1500, 0, 1500, 400 * Mi},
      {"init after sidecar needs the sidecar too",
       PodBuilder("f").InitContainer({{"cpu", "1"}}, true).InitContainer({{"cpu", "3"}}).Req("1"),
       4000, 0, 4000, 400 * Mi},
      {"overhead added",
       PodBuilder("g").Req("1", "1Gi").Overhead({{"cpu", "250m"}, {"memory", "64Mi"}}), 1250,
       1088 * Mi, 1250, 1088 * Mi},
      {"pod-level requests replace containers",
       PodBuilder("h").Req("1", "1Gi").PodLevel({{"cpu", "3"}}), 3000, 1024 * Mi, 3000, 1024 * Mi},
  };
  for (const RequestCase& c : cases) {
    PodInfoPtr info = c.pod.Info();
    EXPECT_EQ(info->requests.milli_cpu, c.milli_cpu) << c.name;
    EXPECT_EQ(info->requests.memory, c.memory) << c.name;
    EXPECT_EQ(info->non_zero_requests.milli_cpu, c.nz_milli_cpu) << c.name;
    EXPECT_EQ(info->non_zero_requests.memory, c.nz_memory) << c.name;
  }
}

TEST(PodRequests, ExtendedResourcesAreScalars) {
  PodInfoPtr info = PodBuilder("x").Container({{"example.com/gpu", "2"}, {"cpu", "1"}}).Info();
  EXPECT_EQ(info->requests.Scalar("example.com/gpu"), 2);
  EXPECT_EQ(info->requests.Get("cpu"), 1000);
  EXPECT_TRUE(IsScalarResourceName("hugepages-2Mi"));
  EXPECT_TRUE(IsScalarResourceName("example.com/foo"));
  EXPECT_FALSE(IsScalarResourceName("cpu"));
}

TEST(NodeInfo, TracksPodsRequestsAndPorts) {
  NodeInfo ni = testing::MakeNodeInfo(NodeBuilder("n1").Cap("4", "8Gi", 10).Build());
  EXPECT_EQ(ni.allocatable().milli_cpu, 4000);
  EXPECT_EQ(ni.allocatable().allowed_pods, 10);
  int64_t g0 = ni.generation();
  auto p = PodBuilder("p").Req("1", "1Gi").HostPort(8080).NodeName("n1").Info();
  ni.AddPod(p);
  EXPECT_GT(ni.generation(), g0);
  EXPECT_EQ(ni.requested().milli_cpu, 1000);
  EXPECT_EQ(ni.pods().size(), 1u);
  EXPECT_TRUE(ni.used_ports().Conflicts({"0.0.0.0", "TCP", 8080}));
  EXPECT_TRUE(ni.RemovePod(p->uid()));
  EXPECT_FALSE(ni.RemovePod(p->uid()));
  EXPECT_EQ(ni.requested().milli_cpu, 0);
  EXPECT_EQ(ni.used_ports().size(), 0u);
}

TEST(HostPortInfo, WildcardConflictsWithEveryAddress) {
  struct Case {
    HostPort used, want;
    bool conflict;
  };
  std::vector<Case> cases = {
      {{"0.0.0.0", "TCP", 80}, {"127.0.0.1", "TCP", 80}, true},
      {{"127.0.0.1", "TCP", 80}, {"0.0.0.0", "TCP", 80}, true},
      {{"127.0.0.1", "TCP", 80}, {"127.0.0.2", "TCP", 80}, false},
      {{"0.0.0.0", "TCP", 80}, {"0.0.0.0", "UDP", 80}, false},
      {{"0.0.0.0", "TCP", 80}, {"0.0.0.0", "TCP", 81}, false},
  };
  for (const Case& c : cases) {
    HostPortInfo info;
    info.Add(c.used);
    EXPECT_EQ(info.Conflicts(c.want), c.conflict) << c.used.ip << " vs " << c.want.ip;
  }
}

TEST(DefaultNormalizeScore, ScalesAndReverses) {
  std::vector<NodeScore> s = {{nullptr, 2}, {nullptr, 4}, {nullptr, 0}};
  DefaultNormalizeScore(100, false, s);
  EXPECT_EQ(s[0].score, 50);
  EXPECT_EQ(s[1].score, 100);
  EXPECT_EQ(s[2].score, 0);
  std::vector<NodeScore> r = {{nullptr, 1}, {nullptr, 4}, {nullptr, 0}};
  DefaultNormalizeScore(100, true, r);
  EXPECT_EQ(r[0].score, 75);
  EXPECT_EQ(r[1].score, 0);
  EXPECT_EQ(r[2].score, 100);
  std::vector<NodeScore> z = {{nullptr, 0}, {nullptr, 0}};
  DefaultNormalizeScore(100, true, z);
  EXPECT_EQ(z[0].score, 100);
}

TEST(Status, CodesReasonsAndPlugin) {
  Status ok;
  EXPECT_TRUE(ok.IsSuccess());
  EXPECT_EQ(ok.Message(), "");
  Status st(Code::kUnschedulable, std::vector<std::string>{"Insufficient cpu", "Too many pods"});
  st.WithPlugin("NodeResourcesFit");
  EXPECT_TRUE(st.IsRejected());
  EXPECT_EQ(st.Message(), "Insufficient cpu, Too many pods");
  EXPECT_EQ(st.ToString(),
            "Unschedulable: Insufficient cpu, Too many pods (plugin NodeResourcesFit)");
  EXPECT_TRUE(Status(Code::kPending, "x").IsRejected());
  EXPECT_FALSE(Status::Error("boom").IsRejected());
  EXPECT_EQ(CodeName(Code::kUnschedulableAndUnresolvable), "UnschedulableAndUnresolvable");
}

struct Counter {
  int n = 0;
};
struct Label {
  std::string text;
};
const StateKey<Counter> kCounterKey("counter");
const StateKey<Label> kLabelKey("label");

TEST(CycleState, TypedKeysAndClone) {
  CycleState s;
  EXPECT_EQ(s.Read(kCounterKey), nullptr);
  s.Write(kCounterKey, Counter{3});
  s.Write(kLabelKey, Label{"x"});
  EXPECT_EQ(s.Read(kCounterKey)->n, 3);
  EXPECT_EQ(s.Read(kLabelKey)->text, "x");
  std::unique_ptr<CycleState> copy = s.Clone();
  s.Mutable(kCounterKey)->n = 7;
  EXPECT_EQ(copy->Read(kCounterKey)->n, 3);
  s.Delete(kLabelKey);
  EXPECT_EQ(s.Read(kLabelKey), nullptr);
  EXPECT_EQ(copy->Read(kLabelKey)->text, "x");
  EXPECT_NE(kCounterKey.id(), kLabelKey.id());
}

}  // namespace
}  // namespace allot::scheduler
