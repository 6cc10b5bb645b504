// The reservation controller against a memory store, with a FakeClock: expiry, a node that goes,
// owners and allocateOnce, collection after the retention, and owners' annotations cleaned.
#include "controllers/reservation/controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <thread>

#include "api/core/types.h"
#include "api/koordinator/annotations.h"
#include "api/koordinator/reservation.h"
#include "client/informer_factory.h"
#include "client/inprocess/inprocess_client.h"
#include "controllers/testing/controller_test.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::controllers {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

class ReservationControllerTest
    : public ControllerTest<ReservationController, ReservationControllerOptions> {
 protected:
  // One worker, the only waiter on clock_ (see Settle).
  static constexpr int kWorkers = 1;

  void Start(ReservationControllerOptions opts = {}) {
    opts.workers = kWorkers;
    StartController(opts);
  }

  // Returns once the worker has read the clock twice since this call: the first read after an
  // Advance either found nothing due or took what was and synced it before the second. So
  // whatever the clock made due has been done, and a test can check that nothing happened.
  void Settle() {
    const uint64_t polls = clock_.Polls();
    ASSERT_TRUE(testing::WaitUntil([&] { return clock_.Polls() >= polls + 2; }));
  }

  static const api::ResourceInfo& Reservations() { return api::ResourceFor<api::Reservation>(); }

  // A reservation of 2 cpu; `ttl` as Go duration text ("" for the default).
  void CreateReservation(const std::string& name, const std::string& ttl = "",
                         bool allocate_once = true) {
    std::string spec =
        R"({"template":{"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"2"}}}]}},)"
        R"("owners":[{"labelSelector":{"matchLabels":{"app":"job"}}}])";
    if (!ttl.empty()) spec += R"(,"ttl":")" + ttl + R"(")";
    if (!allocate_once) spec += R"(,"allocateOnce":false)";
    spec += "}";
    auto r = client_->Create(Reservations(), testing::MakeReservation(name, spec));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // As the scheduler does once it placed the reservation.
  void MakeAvailable(const std::string& name, const std::string& node) {
    auto copy = std::make_unique<api::Reservation>(*Get(name));
    copy->status.phase = std::string(api::kReservationAvailable);
    copy->status.nodeName = node;
    copy->status.allocatable = {{"cpu", api::Quantity::FromInt(2)}};
    auto w = client_->UpdateStatus(Reservations(), std::move(copy));
    ASSERT_TRUE(w.ok()) << w.status().ToString();
  }
  void CreateNode(const std::string& name) {
    auto r = client_->Create(api::ResourceFor<api::Node>(),
                             testing::ObjectFromJson(R"({"apiVersion":"v1","kind":"Node",)"
                                                     R"("metadata":{"name":")" +
                                                     name + R"("}})"));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // A pod on `node` the scheduler placed in reservation `name`.
  void CreateOwner(const std::string& pod, const std::string& node, const std::string& name) {
    auto obj = testing::ObjectFromJson(
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + pod +
        R"(","namespace":"default","labels":{"app":"job"}},"spec":{"nodeName":")" + node +
        R"(","containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}})");
    obj->metadata.annotations[std::string(api::kAnnotationReservationAllocated)] =
        api::FormatReservationAllocated({name, Get(name)->metadata.uid});
    auto r = client_->Create(api::ResourceFor<api::Pod>(), std::move(obj));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::shared_ptr<const api::Reservation> Get(const std::string& name) {
    auto r = client_->Get(Reservations(), "", name);
    if (!r.ok()) return nullptr;
    return std::static_pointer_cast<const api::Reservation>(*r);
  }
  std::string Phase(const std::string& name) {
    auto r = Get(name);
    return r ? r->status.phase : "<gone>";
  }
  std::string ReadyMessage(const std::string& name) {
    auto r = Get(name);
    if (!r) return "";
    for (const auto& c : r->status.conditions) {
      if (c.type == api::kReservationConditionReady) return c.reason + ": " + c.message;
    }
    return "";
  }
};

TEST_F(ReservationControllerTest, APendingReservationExpiresAtItsTtl) {
  CreateReservation("r", "1m");
  Start();
  clock_.Advance(seconds(59));
  Settle();
  EXPECT_NE(Phase("r"), api::kReservationFailed);
  clock_.Advance(seconds(1));
  ASSERT_TRUE(testing::WaitUntil([&] { return Phase("r") == api::kReservationFailed; }))
      << Phase("r");
  EXPECT_EQ(ReadyMessage("r").rfind("Expired: the reservation expired at", 0), 0u)
      << ReadyMessage("r");
}

TEST_F(ReservationControllerTest, AReservationWhoseNodeIsDeletedFails) {
  CreateNode("n1");
  CreateReservation("r");
  MakeAvailable("r", "n1");
  Start();
  ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Node>(), "", "n1").ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return Phase("r") == api::kReservationFailed; }))
      << Phase("r");
  EXPECT_EQ(ReadyMessage("r"), "Expired: node n1 no longer exists");
}

TEST_F(ReservationControllerTest, TheFirstOwnerEndsAnAllocateOnceReservationWhichIsCollectedLater) {
  CreateNode("n1");
  CreateReservation("r", "0s");  // never expires
  MakeAvailable("r", "n1");
  Start({.retention = hours(1)});
  CreateOwner("job-0", "n1", "r");
  ASSERT_TRUE(testing::WaitUntil([&] { return Phase("r") == api::kReservationSucceeded; }))
      << Phase("r");
  ASSERT_EQ(Get("r")->status.currentOwners.size(), 1u);
  EXPECT_EQ(Get("r")->status.currentOwners[0].name, "job-0");
  // The pod's requests, for the resources the reservation holds (cpu, not memory).
  EXPECT_EQ(Get("r")->status.allocated, (api::ResourceList{{"cpu", api::Quantity::FromInt(1)}}));
  clock_.Advance(seconds(3599));
  Settle();
  EXPECT_TRUE(Get("r"));
  clock_.Advance(seconds(1));
  ASSERT_TRUE(testing::WaitUntil([&] { return Get("r") == nullptr; }));
  // The owner no longer names a reservation that is gone.
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto p = client_->Get(api::ResourceFor<api::Pod>(), "default", "job-0");
    return p.ok() &&
           !(*p)->metadata.annotations.contains(std::string(api::kAnnotationReservationAllocated));
  }));
}

TEST_F(ReservationControllerTest, OwnersComeAndGoWithoutAllocateOnce) {
  CreateNode("n1");
  CreateReservation("r", "", /*allocate_once=*/false);
  MakeAvailable("r", "n1");
  Start();
  CreateOwner("a", "n1", "r");
  CreateOwner("b", "n1", "r");
  ASSERT_TRUE(testing::WaitUntil([&] { return Get("r")->status.currentOwners.size() == 2; }));
  EXPECT_EQ(Get("r")->status.allocated, (api::ResourceList{{"cpu", api::Quantity::FromInt(2)}}));
  ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Pod>(), "default", "a").ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return Get("r")->status.currentOwners.size() == 1; }));
  EXPECT_EQ(Phase("r"), api::kReservationAvailable);
}

}  // namespace
}  // namespace allot::controllers
