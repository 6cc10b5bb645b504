// The control-plane driver library against a real store: Immediate allocation, unsuitable nodes
// reported per claim without touching other drivers' entries, allocation for the selected node
// with the pod reserved, deallocation on request and on deletion, nothing left half allocated.
#include "drivers/controlplane/controller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "api/resource/node_pinning.h"
#include "client/inprocess/inprocess_client.h"
#include "client/retry.h"
#include "client/testing/forwarding_client.h"
#include "store/store.h"
#include "testing/wait.h"

namespace allot::drivers::controlplane {
namespace {

constexpr char kDriver[] = "controller.example.com";

// Answers from tables the test sets; records what it was asked. Thread-safe.
class FakeDriver final : public Driver {
 public:
  Status UnsuitableNodes(const api::Pod&, std::span<ClaimAllocation> claims,
                         const std::vector<std::string>& nodes) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++unsuitable_calls;
    for (ClaimAllocation& c : claims) {
      for (const std::string& n : nodes) {
        if (bad_nodes.contains(n)) c.unsuitable_nodes.push_back(n);
      }
    }
    return Status::Ok();
  }
  void Allocate(std::span<ClaimAllocation> claims, const std::string& node) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (ClaimAllocation& c : claims) {
      if (fail_allocations > 0) {
        --fail_allocations;
        c.error = InternalError("the accelerator pool is busy");
        continue;
      }
      const std::string where = node.empty() ? "node-0" : node;
      api::AllocationResult a;
      a.devices.results.push_back({.request = "gpu",
                                   .driver = kDriver,
                                   .pool = "net",
                                   .device = "acc-" + c.claim->metadata.name});
      a.nodeSelector = api::PinnedTo(where);
      c.allocation = a;
      allocated_for.push_back(c.claim->metadata.name + "@" + where);
    }
  }
  Status Deallocate(const api::ResourceClaim& claim) override {
    std::lock_guard<std::mutex> lock(mu_);
    deallocated.push_back(claim.metadata.name);
    return Status::Ok();
  }

  std::mutex mu_;
  std::set<std::string> bad_nodes;         // guarded by mu_
  int fail_allocations = 0;                // guarded by mu_
  int unsuitable_calls = 0;                // guarded by mu_
  std::vector<std::string> allocated_for;  // guarded by mu_: "claim@node"
  std::vector<std::string> deallocated;    // guarded by mu_
};

// Fails the next claim status updates with 500 (after the driver allocated).
class FailingClaimStatusClient final : public client::ForwardingClient {
 public:
  using ForwardingClient::ForwardingClient;
  std::atomic<int> fail{0};
  void UpdateStatusAsync(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj,
                         client::Callback<api::ObjectPtr> done) override {
    if (r.resource == "resourceclaims" && fail > 0) {
      --fail;
      done(InternalError("injected by the test"));
      return;
    }
    inner().UpdateStatusAsync(r, std::move(obj), std::move(done));
  }
};

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    controller_ = std::make_unique<Controller>(
        client_, driver_,
        ControllerOptions{.driver_name = kDriver,
                          .queue = {.base_delay = std::chrono::milliseconds(1),
                                    .max_delay = std::chrono::milliseconds(20)}});
    ASSERT_TRUE(controller_->Start().ok());
  }
  void TearDown() override {
    controller_->Stop();
    store_.Close();
  }

  // Waits (at most 10 s of real time) for `done`; the controller works on its own threads.

  void CreateClaim(const std::string& name, std::string_view mode,
                   const std::string& controller = kDriver) {
    auto c = std::make_unique<api::ResourceClaim>();
    c->metadata.name = name;
    c->metadata.namespace_ = "default";
    c->spec.controllerName = controller;
    c->spec.allocationMode = std::string(mode);
    api::DeviceRequest r;
    r.name = "gpu";
    r.exactly.emplace();
    r.exactly->deviceClassName = kDriver;
    c->spec.devices.requests.push_back(std::move(r));
    auto created = client_.Create(api::ResourceFor<api::ResourceClaim>(), std::move(c));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  api::ObjectPtr CreatePod(const std::string& name, const std::vector<std::string>& claims) {
    auto p = std::make_unique<api::Pod>();
    p->metadata.name = name;
    p->metadata.namespace_ = "default";
    api::Container c;
    c.name = "main";
    c.image = "registry.k8s.io/pause:3.10";
    for (const std::string& claim : claims) {
      api::PodResourceClaim ref;
      ref.name = claim;
      ref.resourceClaimName = claim;
      p->spec.resourceClaims.push_back(ref);
      c.resources.claims.push_back({claim, ""});
    }
    p->spec.containers.push_back(std::move(c));
    auto created = client_.Create(api::ResourceFor<api::Pod>(), std::move(p));
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? *created : nullptr;
  }
  // The scheduler's side of the negotiation.
  void PublishContext(const api::ObjectPtr& pod, std::vector<std::string> potential,
                      const std::string& selected,
                      std::vector<api::ResourceClaimSchedulingStatus> status = {}) {
    const api::ResourceInfo& res = api::ResourceFor<api::PodSchedulingContext>();
    auto cur = client_.Get(res, "default", pod->metadata.name);
    auto ctx = std::make_unique<api::PodSchedulingContext>();
    if (cur.ok()) *ctx = *api::As<api::PodSchedulingContext>(**cur);
    ctx->metadata.name = pod->metadata.name;
    ctx->metadata.namespace_ = "default";
    ctx->metadata.ownerReferences = {{.apiVersion = "v1",
                                      .kind = "Pod",
                                      .name = pod->metadata.name,
                                      .uid = pod->metadata.uid,
                                      .controller = true}};
    ctx->spec.potentialNodes = std::move(potential);
    ctx->spec.selectedNode = selected;
    Result<api::ObjectPtr> w =
        cur.ok() ? client_.Update(res, std::move(ctx)) : client_.Create(res, std::move(ctx));
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    if (!status.empty()) {  // another driver's entries, written as a driver would
      auto written = client::UpdateWithRetry(
          client_, res, "default", pod->metadata.name, client::Write::kStatus,
          [&](const api::Object& o) -> Result<client::Desired> {
            auto copy =
                std::make_unique<api::PodSchedulingContext>(*api::As<api::PodSchedulingContext>(o));
            for (const auto& entry : status) copy->status.resourceClaims.push_back(entry);
            return client::Desired(std::move(copy));
          });
      ASSERT_TRUE(written.ok()) << written.status().ToString();
    }
  }
  std::shared_ptr<const api::ResourceClaim> Claim(const std::string& name) {
    auto c = client_.Get(api::ResourceFor<api::ResourceClaim>(), "default", name);
    if (!c.ok()) return nullptr;
    return std::static_pointer_cast<const api::ResourceClaim>(*c);
  }
  std::shared_ptr<const api::PodSchedulingContext> Context(const std::string& name) {
    auto c = client_.Get(api::ResourceFor<api::PodSchedulingContext>(), "default", name);
    if (!c.ok()) return nullptr;
    return std::static_pointer_cast<const api::PodSchedulingContext>(*c);
  }
  std::vector<std::string> Unsuitable(const std::string& pod, const std::string& claim) {
    auto ctx = Context(pod);
    if (!ctx) return {"<no context>"};
    for (const auto& e : ctx->status.resourceClaims) {
      if (e.name == claim) return e.unsuitableNodes;
    }
    return {"<no entry>"};
  }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  client::InProcessClient inner_{store_, clock_};
  FailingClaimStatusClient client_{inner_};
  FakeDriver driver_;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerTest, AnImmediateClaimIsAllocatedWithoutAPod) {
  CreateClaim("imm", api::kClaimAllocationImmediate);
  ASSERT_TRUE(testing::WaitUntil([&] { return Claim("imm")->status.allocation.has_value(); }));
  auto c = Claim("imm");
  EXPECT_EQ(c->status.allocation->controllerName, kDriver);
  EXPECT_TRUE(c->status.reservedFor.empty());
  EXPECT_EQ(c->metadata.finalizers,
            std::vector<api::InternedString>{"controller.example.com/deletion-protection"});
}

TEST_F(ControllerTest, UnsuitableNodesAreReportedPerClaimKeepingOtherDriversEntries) {
  {
    std::lock_guard<std::mutex> lock(driver_.mu_);
    driver_.bad_nodes = {"node-1", "node-3"};
  }
  CreateClaim("a", api::kClaimAllocationWaitForFirstConsumer);
  CreateClaim("b", api::kClaimAllocationWaitForFirstConsumer);
  CreateClaim("theirs", api::kClaimAllocationWaitForFirstConsumer, "other.example.com");
  api::ObjectPtr pod = CreatePod("p", {"a", "b", "theirs"});
  PublishContext(pod, {"node-0", "node-1", "node-2", "node-3"}, "",
                 {{.name = "theirs", .unsuitableNodes = {"node-0"}}});
  ASSERT_TRUE(testing::WaitUntil([&] {
    return Unsuitable("p", "a") == std::vector<std::string>{"node-1", "node-3"} &&
           Unsuitable("p", "b") == std::vector<std::string>{"node-1", "node-3"};
  }));
  EXPECT_EQ(Unsuitable("p", "theirs"), std::vector<std::string>{"node-0"});
  EXPECT_FALSE(Claim("a")->status.allocation);  // no node selected yet
  EXPECT_FALSE(Claim("theirs")->status.allocation);
}

TEST_F(ControllerTest, TheSelectedNodeGetsTheClaimsWithThePodReserved) {
  CreateClaim("a", api::kClaimAllocationWaitForFirstConsumer);
  CreateClaim("b", api::kClaimAllocationWaitForFirstConsumer);
  api::ObjectPtr pod = CreatePod("p", {"a", "b"});
  PublishContext(pod, {"node-0", "node-1"}, "node-1");
  ASSERT_TRUE(testing::WaitUntil([&] {
    return Claim("a")->status.allocation.has_value() && Claim("b")->status.allocation.has_value();
  }));
  for (const char* name : {"a", "b"}) {
    auto c = Claim(name);
    ASSERT_EQ(c->status.reservedFor.size(), 1u);
    EXPECT_EQ(c->status.reservedFor[0].uid, pod->metadata.uid);
    EXPECT_EQ(c->status.allocation->controllerName, kDriver);
    EXPECT_EQ(c->status.allocation->nodeSelector->nodeSelectorTerms[0].matchFields[0].values,
              std::vector<std::string>{"node-1"});
  }
}

TEST_F(ControllerTest, AnUnsuitableSelectedNodeIsNotAllocated) {
  {
    std::lock_guard<std::mutex> lock(driver_.mu_);
    driver_.bad_nodes = {"node-1"};
  }
  CreateClaim("a", api::kClaimAllocationWaitForFirstConsumer);
  api::ObjectPtr pod = CreatePod("p", {"a"});
  PublishContext(pod, {"node-0"}, "node-1");
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return Unsuitable("p", "a") == std::vector<std::string>{"node-1"}; }));
  EXPECT_FALSE(Claim("a")->status.allocation);
  std::lock_guard<std::mutex> lock(driver_.mu_);
  EXPECT_TRUE(driver_.allocated_for.empty());
}

TEST_F(ControllerTest, DeallocationRequestedReleasesTheClaim) {
  CreateClaim("imm", api::kClaimAllocationImmediate);
  ASSERT_TRUE(testing::WaitUntil([&] { return Claim("imm")->status.allocation.has_value(); }));
  auto requested = std::make_unique<api::ResourceClaim>(*Claim("imm"));
  requested->status.deallocationRequested = true;
  ASSERT_TRUE(
      client_.UpdateStatus(api::ResourceFor<api::ResourceClaim>(), std::move(requested)).ok());
  // Deallocated, then (Immediate) allocated again: the driver saw the release first.
  ASSERT_TRUE(testing::WaitUntil([&] {
    std::lock_guard<std::mutex> lock(driver_.mu_);
    return driver_.deallocated == std::vector<std::string>{"imm"};
  })) << "deallocated "
      << driver_.deallocated.size() << " times; stats: " << controller_->GetStats().deallocated
      << ", failures " << controller_->GetStats().failures << ", allocated "
      << controller_->GetStats().allocated;
  ASSERT_TRUE(testing::WaitUntil([&] { return controller_->GetStats().deallocated == 1; }));
  EXPECT_FALSE(Claim("imm")->status.deallocationRequested);
}

TEST_F(ControllerTest, ADeletedClaimIsDeallocatedAndReleased) {
  CreateClaim("imm", api::kClaimAllocationImmediate);
  ASSERT_TRUE(testing::WaitUntil([&] { return Claim("imm")->status.allocation.has_value(); }));
  ASSERT_TRUE(client_.Delete(api::ResourceFor<api::ResourceClaim>(), "default", "imm").ok());
  ASSERT_TRUE(
      testing::WaitUntil([&] { return Claim("imm") == nullptr; }));  // the finalizer came off
  std::lock_guard<std::mutex> lock(driver_.mu_);
  EXPECT_EQ(driver_.deallocated, std::vector<std::string>{"imm"});
}

TEST_F(ControllerTest, AnAllocationThatCannotBeWrittenIsReleasedAndRetried) {
  client_.fail = 1;  // the first allocation's status write fails
  CreateClaim("imm", api::kClaimAllocationImmediate);
  ASSERT_TRUE(testing::WaitUntil([&] { return Claim("imm")->status.allocation.has_value(); }));
  std::lock_guard<std::mutex> lock(driver_.mu_);
  EXPECT_EQ(driver_.deallocated, std::vector<std::string>{"imm"});  // nothing half allocated
  EXPECT_EQ(driver_.allocated_for.size(), 2u);                      // and then allocated again
}

TEST_F(ControllerTest, AFailedAllocationIsAnEventAndRetried) {
  {
    std::lock_guard<std::mutex> lock(driver_.mu_);
    driver_.fail_allocations = 1;
  }
  CreateClaim("imm", api::kClaimAllocationImmediate);
  ASSERT_TRUE(testing::WaitUntil([&] { return Claim("imm")->status.allocation.has_value(); }));
  EXPECT_GE(controller_->GetStats().failures, 1u);
  auto events = client_.List(api::ResourceFor<api::Event>(), {});
  ASSERT_TRUE(events.ok());
  bool found = false;
  for (const auto& e : events->items) {
    const auto* ev = api::As<api::Event>(*e);
    found = found || (ev->reason == "Failed" &&
                      ev->message.find("the accelerator pool is busy") != std::string::npos);
  }
  EXPECT_TRUE(found);
}

TEST_F(ControllerTest, ClaimsOfOtherDriversAreLeftAlone) {
  CreateClaim("theirs", api::kClaimAllocationImmediate, "other.example.com");
  CreateClaim("ours", api::kClaimAllocationImmediate);
  ASSERT_TRUE(testing::WaitUntil([&] { return Claim("ours")->status.allocation.has_value(); }));
  EXPECT_FALSE(Claim("theirs")->status.allocation);
  EXPECT_TRUE(Claim("theirs")->metadata.finalizers.empty());
}

}  // namespace
}  // namespace allot::drivers::controlplane
