// Devices in reservations end to end in one process (docs/reservations.md, "Devices"): the
// resourceclaim controller generates a reservation's claims, the scheduler allocates them when
// it places the reservation (reservedFor names the Reservation), nobody but its owners gets
// those devices, owners get them first (Aligned) or only them (Restricted), and they go back
// when the reservation ends. The auditor counts a reservation's device and its owner's use of
// it as one use; any other double allocation is a violation.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "api/koordinator/annotations.h"
#include "api/koordinator/reservation.h"
#include "integration/dra_fixture.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::integration {
namespace {

using std::chrono::seconds;

class ReservationDevicesTest : public DraFixture {
 protected:
  static const api::ResourceInfo& Reservations() { return api::ResourceFor<api::Reservation>(); }

  // A claim template asking for `count` GPUs.
  void GpuTemplate(const std::string& name, int64_t count) {
    Create(api::ResourceFor<api::ResourceClaimTemplate>(),
           workloads::MakeClaimTemplate("default", name, workloads::ClaimSpec(kDriver, count, "")));
  }

  // A reservation for pods labelled app=job holding the GPUs of claim template `tmpl`.
  void Reserve(const std::string& name, const std::string& tmpl, const std::string& policy = "",
               bool allocate_once = false) {
    std::string spec = R"({"template":{"spec":{"containers":[{"name":"c","image":"i"}],)"
                       R"("resourceClaims":[{"name":"gpus","resourceClaimTemplateName":")" +
                       tmpl + R"("}]}},"owners":[{"labelSelector":{"matchLabels":{"app":"job"}}}])";
    if (!policy.empty()) spec += R"(,"allocatePolicy":")" + policy + R"(")";
    if (!allocate_once) spec += R"(,"allocateOnce":false)";
    spec += "}";
    auto r = client_->Create(Reservations(), testing::MakeReservation(name, spec));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // A pod labelled app=<app> with one claim from template `tmpl`.
  void GpuPod(const std::string& name, const std::string& app, const std::string& tmpl) {
    auto p = workloads::MakePod("default", name);
    p->metadata.labels["app"] = app;
    workloads::AddTemplateClaim(*p, "gpu", tmpl);
    Create(api::ResourceFor<api::Pod>(), std::move(p));
  }

  std::shared_ptr<const api::Reservation> GetReservation(const std::string& name) {
    auto r = client_->Get(Reservations(), "", name);
    if (!r.ok() || !api::As<api::Reservation>(**r)) return nullptr;
    return std::static_pointer_cast<const api::Reservation>(*r);
  }
  bool WaitAvailable(const std::string& name) {
    return testing::WaitUntil(
        [&] {
          auto r = GetReservation(name);
          return r && r->status.phase == api::kReservationAvailable;
        },
        seconds(10));
  }
  bool WaitBound(const std::string& pod) {
    return testing::WaitUntil(
        [&] {
          auto p = GetPod(pod);
          return p && !p->spec.nodeName.empty();
        },
        seconds(10));
  }
  // The scheduler said why it cannot place the pod.
  bool WaitUnschedulable(const std::string& pod, const std::string& part) {
    return testing::WaitUntil([&] { return PodMessage(pod).find(part) != std::string::npos; },
                              seconds(10));
  }
  // The devices ("pool/device") of the claim behind the pod's entry "gpu".
  std::set<std::string> PodDevices(const std::string& pod) {
    auto p = GetPod(pod);
    std::set<std::string> out;
    if (!p || p->status.resourceClaimStatuses.empty()) return out;
    auto c = GetClaim(*p->status.resourceClaimStatuses[0].resourceClaimName);
    if (!c || !c->status.allocation) return out;
    for (const auto& r : c->status.allocation->devices.results) out.insert(r.pool + "/" + r.device);
    return out;
  }
  std::set<std::string> ReservedDevices(const api::Reservation& r) {
    std::set<std::string> out;
    for (const auto& d : r.status.allocatedDevices) out.insert(d.pool + "/" + d.device);
    return out;
  }
  static bool Within(const std::set<std::string>& a, const std::set<std::string>& b) {
    return std::includes(b.begin(), b.end(), a.begin(), a.end());
  }
};

TEST_F(ReservationDevicesTest, ReservedGpusGoToItsOwnersOnlyAndComeBackWhenItEnds) {
  Cluster(1, 4);
  GpuTemplate("one-gpu", 1);
  GpuTemplate("two-gpus", 2);
  Start();
  Reserve("r", "two-gpus");
  ASSERT_TRUE(WaitAvailable("r"));
  auto r = GetReservation("r");
  ASSERT_EQ(r->status.resourceClaimStatuses.size(), 1u);
  const std::string claim_name = *r->status.resourceClaimStatuses[0].resourceClaimName;
  auto claim = GetClaim(claim_name);
  ASSERT_NE(claim, nullptr);
  ASSERT_TRUE(claim->status.allocation);
  ASSERT_EQ(claim->status.reservedFor.size(), 1u);
  EXPECT_EQ(claim->status.reservedFor[0].resource, "reservations");
  EXPECT_EQ(claim->status.reservedFor[0].apiGroup, "scheduling.koordinator.sh");
  EXPECT_EQ(claim->status.reservedFor[0].uid, r->metadata.uid);
  const std::set<std::string> reserved = ReservedDevices(*r);
  ASSERT_EQ(reserved.size(), 2u);

  // A restarted scheduler knows the held devices from the claims alone.
  StopScheduler();
  StartScheduler();
  // Another team gets the two free GPUs, not the reserved ones: two of its three pods bind
  // (which two is the scheduler's choice), the third cannot get a GPU.
  const std::vector<std::string> web = {"web-0", "web-1", "web-2"};
  for (const std::string& s : web) GpuPod(s, "web", "one-gpu");
  std::string waiting;  // the web pod left without a GPU
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        int bound = 0;
        for (const std::string& s : web) {
          if (!GetPod(s)->spec.nodeName.empty()) {
            ++bound;
          } else if (PodMessage(s).find("cannot allocate all claims") != std::string::npos) {
            waiting = s;
          }
        }
        return bound == 2 && !waiting.empty();
      },
      seconds(10)))
      << PodMessage("web-0") << PodMessage("web-1") << PodMessage("web-2");
  for (const std::string& s : web) {
    if (s == waiting) continue;
    EXPECT_EQ(PodDevices(s).size(), 1u);
    EXPECT_FALSE(Within(PodDevices(s), reserved)) << s << " took a reserved GPU";
  }
  // The job's pods land in the reservation.
  GpuPod("job-0", "job", "one-gpu");
  GpuPod("job-1", "job", "one-gpu");
  ASSERT_TRUE(WaitBound("job-0") && WaitBound("job-1")) << PodMessage("job-1");
  std::set<std::string> used = PodDevices("job-0");
  used.merge(PodDevices("job-1"));
  EXPECT_EQ(used, reserved);
  EXPECT_EQ(GetPod("job-0")->metadata.annotations.count(
                std::string(api::kAnnotationReservationAllocated)),
            1u);
  // A third owner finds nothing left: the reservation's GPUs are in use, the others too.
  GpuPod("job-2", "job", "one-gpu");
  ASSERT_TRUE(WaitUnschedulable("job-2", "cannot allocate all claims")) << PodMessage("job-2");
  ExpectInvariants();

  // The reservation goes: its claim is released and deleted; the owners keep their GPUs.
  ASSERT_TRUE(client_->Delete(Reservations(), "", "r").ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return GetClaim(claim_name) == nullptr; }, seconds(10)));
  EXPECT_EQ(PodDevices("job-0").size(), 1u);
  // An owner finishing frees its GPU for whoever waits.
  ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Pod>(), "default", "job-0").ok());
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        return !GetPod("web-2")->spec.nodeName.empty() || !GetPod("job-2")->spec.nodeName.empty();
      },
      seconds(10)));
  ExpectInvariants();
}

TEST_F(ReservationDevicesTest, RestrictedOwnersTakeReservedGpusOnly) {
  Cluster(1, 4);
  GpuTemplate("one-gpu", 1);
  GpuTemplate("two-gpus", 2);
  Start();
  Reserve("r", "one-gpu", "Restricted");
  ASSERT_TRUE(WaitAvailable("r"));
  const std::set<std::string> reserved = ReservedDevices(*GetReservation("r"));
  ASSERT_EQ(reserved.size(), 1u);
  // Two GPUs are more than the reservation holds; free GPUs may not make up the difference.
  GpuPod("big", "job", "two-gpus");
  ASSERT_TRUE(WaitUnschedulable("big", "cannot allocate all claims")) << PodMessage("big");
  GpuPod("small", "job", "one-gpu");
  ASSERT_TRUE(WaitBound("small")) << PodMessage("small");
  EXPECT_EQ(PodDevices("small"), reserved);
  ExpectInvariants();
}

TEST_F(ReservationDevicesTest, AllocateOnceReservationReturnsItsGpusAfterItsOwner) {
  Cluster(1, 2);
  GpuTemplate("one-gpu", 1);
  GpuTemplate("two-gpus", 2);
  Start();
  Reserve("r", "two-gpus", "", /*allocate_once=*/true);
  ASSERT_TRUE(WaitAvailable("r"));
  GpuPod("web-0", "web", "one-gpu");
  ASSERT_TRUE(WaitUnschedulable("web-0", "cannot allocate all claims"));
  GpuPod("job-0", "job", "one-gpu");
  ASSERT_TRUE(WaitBound("job-0")) << PodMessage("job-0");
  // Used once: Succeeded, and the GPU the owner did not take goes to the other team.
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        auto r = GetReservation("r");
        return r && r->status.phase == api::kReservationSucceeded;
      },
      seconds(10)));
  ASSERT_TRUE(WaitBound("web-0")) << PodMessage("web-0");
  EXPECT_NE(PodDevices("web-0"), PodDevices("job-0"));
  ExpectInvariants();
}

TEST_F(ReservationDevicesTest, MissingTemplateIsReportedAndTheReservationWaitsForIt) {
  Cluster(1, 2);
  Start();
  Reserve("r", "later");
  // Kubernetes' event for a pod, on the reservation; it stays unplaced (its reserve pod waits
  // at PreEnqueue for the claim, as a pod would).
  ASSERT_TRUE(WaitEvent("r", "FailedResourceClaimCreation",
                        "resourceclaimtemplate.resource.k8s.io \"later\" not found"));
  EXPECT_NE(GetReservation("r")->status.phase, "Available");
  EXPECT_TRUE(GetReservation("r")->status.nodeName.empty());
  GpuTemplate("later", 2);
  ASSERT_TRUE(WaitAvailable("r"));
  EXPECT_EQ(GetReservation("r")->status.allocatedDevices.size(), 2u);
  ExpectInvariants();
}

}  // namespace
}  // namespace allot::integration
