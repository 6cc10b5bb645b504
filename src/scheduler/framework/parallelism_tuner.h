// ParallelismTuner: how many helper threads a data-parallel loop of the scheduling cycle should
// wake, chosen by measured benefit rather than by the number of cores.
//
// Whether a helper pays depends on the machine and on the work. A helper that must be woken
// costs a context switch on each side, and the loops are short: Filter and Score over a few
// hundred nodes take tens to hundreds of microseconds. On this project's 2-core machine a
// helper slows every workload (docs/performance.md); on a 16-core machine waking 15 of them
// measured slower than 2 cores; under gVisor a wake-up costs more again. So the tuner
// measures: it keeps a settled helper count, and now and then runs a short probe at one
// helper more or one fewer. It moves there when the probe's wall time per item beats the
// settled count's by a margin. A probe that loses makes the next one in that direction twice
// as rare (up to a bound), so on a machine where the settled count is right the probes cost
// a fraction of a percent of the jobs.
//
//   ParallelismTuner tuner(/*max_helpers=*/7);
//   int helpers = tuner.Next();           // for the next job
//   ... run the job with `helpers` helpers, timing it ...
//   tuner.Record(helpers, wall, items);   // what it cost
//
// Not thread-safe: one caller at a time (Parallelizer calls it under its call lock).
#pragma once

#include <chrono>
#include <cstdint>

namespace allot::scheduler {

class ParallelismTuner {
 public:
  // Jobs measured at the settled count before the first probe; each losing probe doubles
  // the wait before the next one in its direction, up to kMaxWait.
  static constexpr int kFirstWait = 256;
  static constexpr int kMaxWait = 16384;
  // Jobs in a probe.
  static constexpr int kProbeJobs = 32;
  // A probe wins when its time per item is below (1 - kMargin) x the settled count's.
  static constexpr double kMargin = 0.1;

  // Helpers in [0, max_helpers]; starts at `start` (clamped), none by default.
  explicit ParallelismTuner(int max_helpers, int start = 0);

  // The helpers the next job should use: the settled count, or the probe's.
  int Next() const { return probing_ ? probe_ : settled_; }
  // The settled count (what most jobs use).
  int settled() const { return settled_; }

  // What a job run with `helpers` helpers cost: its wall time and the items it processed.
  // A job run with another count than Next() said (a caller that ran it inline) is ignored.
  void Record(int helpers, std::chrono::nanoseconds wall, int64_t items);

 private:
  // The settled count's recent cost: moving averages of a job's wall time and items, weighted
  // 1/kAverageJobs per job, so the probe is compared with the jobs just before it.
  static constexpr double kAverageJobs = 64;

  void StartProbeIfDue();

  const int max_;
  int settled_;
  double avg_ns_ = 0;
  double avg_items_ = 0;
  int since_probe_ = 0;  // jobs at the settled count since the last probe
  bool next_up_ = true;  // the direction of the next probe
  int wait_up_ = kFirstWait;
  int wait_down_ = kFirstWait;
  bool probing_ = false;
  int probe_ = 0;
  int probe_jobs_ = 0;
  int64_t probe_ns_ = 0;
  int64_t probe_items_ = 0;
};

}  // namespace allot::scheduler
