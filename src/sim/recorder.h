// Recorder: watches what the simulated cluster does (pods, claims, reservations) and turns it
// into results.h: per-pod waits, device allocations, attach waits, reservation phases.
//
// It reads time from the simulator's clock when an event arrives. The clock does not move while
// any event is in flight (sim/clock.h), so that is the instant the change happened.
//
// Thread safety: handlers run on informer threads; Sample, Snapshot and Finish are called by
// the simulator's driver when the cluster is quiet. All take one mutex.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/machinery/object.h"
#include "client/informer_factory.h"
#include "sim/clock.h"
#include "sim/results.h"

namespace allot::sim {

// The label the simulator puts on every pod: its workload's name.
inline constexpr const char* kWorkloadLabel = "sim.allot.dev/workload";

// The devices of the simulated cluster, known from the scenario before it runs.
struct DeviceLayout {
  struct Row {
    std::string name;                  // node name, or "fabric/<pool>"
    std::string driver, pool;          // whose devices: the ResourceSlice pool
    std::vector<std::string> devices;  // device names
  };
  std::vector<Row> rows;
  // Device class -> how many devices it selects (devices of its driver).
  std::map<std::string, int64_t> class_devices;
  std::map<std::string, std::string> class_driver;
};

class Recorder {
 public:
  // Registers handlers on `informers` (before they start).
  Recorder(SimClock& clock, client::InformerFactory& informers, DeviceLayout layout);

  // The state now, as a sample at simulated second `t`.
  Sample TakeSample(double t);
  Heatmap TakeHeatmap(double t);
  // Fills `out` (summary, waits) from everything recorded; `samples` are the run's.
  void Finish(double end, VariantResult& out);

 private:
  struct PodRecord {
    std::string workload;
    double created = -1, bound = -1, finished = -1;
    bool preempted = false, deleted = false;
  };
  struct Allocation {
    std::string driver, pool, device, device_class;
  };
  struct ClaimRecord {
    std::vector<Allocation> devices;
    bool reservation = false;  // generated for a Reservation
    double allocated = -1;
    bool waiting = false;  // binding conditions not met yet
  };

  double Now() const;
  void OnPod(const api::ObjectPtr& obj, bool deleted);
  void OnClaim(const api::ObjectPtr& obj, bool deleted);
  void OnReservation(const api::ObjectPtr& obj, bool deleted);
  void Release(ClaimRecord& rec);

  SimClock& clock_;
  const Time start_;
  const DeviceLayout layout_;

  std::mutex mu_;
  std::unordered_map<std::string, PodRecord> pods_;      // by uid
  std::unordered_map<std::string, ClaimRecord> claims_;  // by uid, allocated claims only
  std::map<std::string, int> held_;  // "driver/pool/device" -> 1 pod claim, 2 reservation
  std::map<std::string, int64_t> allocated_by_class_;
  std::unordered_map<std::string, std::string> reservation_phase_;  // by uid
  int64_t attach_failures_ = 0, attaches_ = 0;
  std::vector<double> attach_waits_;
};

}  // namespace allot::sim
