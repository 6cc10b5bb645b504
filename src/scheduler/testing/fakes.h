// A configurable fake plugin and a framework harness for scheduler tests (header-only; tests
// only).
//
//   FrameworkHarness h;
//   h.Add("F1", {.filter = [](const PodInfo&, const NodeInfo& n) { ... }});
//   h.Enable("filter", "F1");
//   auto fw = h.Build();
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/time.h"
#include "scheduler/config/config.h"
#include "scheduler/framework/runtime/framework.h"
#include "scheduler/plugins/registry.h"

namespace allot::scheduler::testing {

// Hooks; an empty hook means "Success" (or score 0).
struct FakeHooks {
  std::function<Status(const api::Pod&)> pre_enqueue;
  std::function<Status(const PodInfo&, PreFilterResult&)> pre_filter;
  std::function<Status(const PodInfo&, const NodeInfo&)> filter;
  std::function<Status(const PodInfo&)> pre_score;
  std::function<int64_t(const PodInfo&, const NodeInfo&)> score;
  std::function<void(std::span<NodeScore>)> normalize;
  std::function<Status(const PodInfo&, const std::string&)> reserve;
  std::function<void(const PodInfo&, const std::string&)> unreserve;
  std::function<Status(const PodInfo&, const std::string&, std::chrono::milliseconds&)> permit;
  std::function<Status(const PodInfo&, const std::string&)> pre_bind;
  std::function<bool(const PodInfo&)> pre_bind_may_block;  // empty: it may
  std::function<void(const PodInfo&, const std::string&, BindCallback)> bind;
  std::function<Status(const PodInfo&, const NodeToStatus&, PostFilterResult&)> post_filter;
  std::vector<ClusterEventWithHint> events;
};

// Implements every extension point; records calls as "<Name>.<Point>" in a shared log.
class FakePlugin : public PreEnqueuePlugin,
                   public PreFilterPlugin,
                   public FilterPlugin,
                   public PostFilterPlugin,
                   public PreScorePlugin,
                   public ScorePlugin,
                   public NormalizeScorePlugin,
                   public ReservePlugin,
                   public PermitPlugin,
                   public PreBindPlugin,
                   public BindPlugin,
                   public EnqueueExtensions {
 public:
  FakePlugin(std::string name, FakeHooks hooks, std::shared_ptr<std::vector<std::string>> log,
             std::shared_ptr<std::mutex> log_mu)
      : name_(std::move(name)),
        hooks_(std::move(hooks)),
        log_(std::move(log)),
        log_mu_(std::move(log_mu)) {}
  std::string_view Name() const override { return name_; }

  Status PreEnqueue(const api::Pod& pod) const override {
    Log("PreEnqueue");
    return hooks_.pre_enqueue ? hooks_.pre_enqueue(pod) : Status();
  }
  Status PreFilter(CycleState&, const PodInfo& pod, PreFilterResult& r) override {
    Log("PreFilter");
    return hooks_.pre_filter ? hooks_.pre_filter(pod, r) : Status();
  }
  Status Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const override {
    Log("Filter");
    return hooks_.filter ? hooks_.filter(pod, node) : Status();
  }
  Status PostFilter(CycleState&, const PodInfo& pod, const NodeToStatus& s,
                    PostFilterResult& r) override {
    Log("PostFilter");
    return hooks_.post_filter ? hooks_.post_filter(pod, s, r)
                              : Status(Code::kUnschedulable, "no victims");
  }
  Status PreScore(CycleState&, const PodInfo& pod, std::span<const NodeInfo* const>) override {
    Log("PreScore");
    return hooks_.pre_score ? hooks_.pre_score(pod) : Status();
  }
  Status Score(const CycleState&, const PodInfo& pod, const NodeInfo& node,
               int64_t& score) const override {
    score = hooks_.score ? hooks_.score(pod, node) : 0;
    return Status();
  }
  Status NormalizeScore(const CycleState&, const PodInfo&,
                        std::span<NodeScore> scores) const override {
    if (hooks_.normalize) hooks_.normalize(scores);
    return Status();
  }
  Status Reserve(CycleState&, const PodInfo& pod, const std::string& node) override {
    Log("Reserve");
    return hooks_.reserve ? hooks_.reserve(pod, node) : Status();
  }
  void Unreserve(CycleState&, const PodInfo& pod, const std::string& node) override {
    Log("Unreserve");
    if (hooks_.unreserve) hooks_.unreserve(pod, node);
  }
  Status Permit(CycleState&, const PodInfo& pod, const std::string& node,
                std::chrono::milliseconds& timeout) override {
    Log("Permit");
    return hooks_.permit ? hooks_.permit(pod, node, timeout) : Status();
  }
  Status PreBind(CycleState&, const PodInfo& pod, const std::string& node) override {
    Log("PreBind");
    return hooks_.pre_bind ? hooks_.pre_bind(pod, node) : Status();
  }
  bool PreBindMayBlock(const CycleState&, const PodInfo& pod, const std::string&) const override {
    return hooks_.pre_bind_may_block ? hooks_.pre_bind_may_block(pod) : true;
  }
  void Bind(CycleState&, const PodInfo& pod, const std::string& node, BindCallback done) override {
    Log("Bind");
    if (hooks_.bind) {
      hooks_.bind(pod, node, std::move(done));
    } else {
      done(Status::Skip());
    }
  }
  std::vector<ClusterEventWithHint> EventsToRegister() const override { return hooks_.events; }

 private:
  void Log(const char* point) const {
    std::lock_guard<std::mutex> lock(*log_mu_);
    log_->push_back(name_ + "." + point);
  }
  std::string name_;
  FakeHooks hooks_;
  std::shared_ptr<std::vector<std::string>> log_;
  std::shared_ptr<std::mutex> log_mu_;
};

// Builds a Framework from fakes (and optionally the in-tree plugins) with a fake clock.
class FrameworkHarness {
 public:
  FrameworkHarness() : parallelizer_(1), snapshot_(std::make_unique<Snapshot>()) {
    profile_.plugins.queue_sort.enabled.push_back({"PrioritySort", 0});
    registry_ = InTreeRegistry();
  }

  void Add(const std::string& name, FakeHooks hooks) {
    auto log = log_;
    auto mu = log_mu_;
    allot::Status st = registry_.Register(
        name, [name, hooks, log, mu](std::string_view, Handle&) -> Result<std::unique_ptr<Plugin>> {
          return std::unique_ptr<Plugin>(std::make_unique<FakePlugin>(name, hooks, log, mu));
        });
    (void)st;
  }
  // Enables `name` at `point` ("filter", "score", "multiPoint", ...).
  void Enable(const std::string& point, const std::string& name, int32_t weight = 0) {
    Set(point).enabled.push_back({name, weight});
  }
  void Disable(const std::string& point, const std::string& name) {
    Set(point).disabled.push_back({name, 0});
  }
  ProfileConfig& profile() { return profile_; }
  FakeClock& clock() { return clock_; }
  Snapshot& snapshot() { return *snapshot_; }
  void SetSnapshot(std::unique_ptr<Snapshot> s) { snapshot_ = std::move(s); }
  std::vector<std::string> log() const {
    std::lock_guard<std::mutex> lock(*log_mu_);
    return *log_;
  }
  void ClearLog() {
    std::lock_guard<std::mutex> lock(*log_mu_);
    log_->clear();
  }

  Result<std::unique_ptr<Framework>> Build(client::Client* client = nullptr) {
    FrameworkOptions o;
    o.client = client;
    o.clock = &clock_;
    o.parallelizer = &parallelizer_;
    o.snapshot = snapshot_.get();
    return Framework::Create(registry_, profile_, o);
  }

 private:
  PluginSet& Set(const std::string& point) {
    Plugins& p = profile_.plugins;
    if (point == "preEnqueue") return p.pre_enqueue;
    if (point == "queueSort") return p.queue_sort;
    if (point == "preFilter") return p.pre_filter;
    if (point == "filter") return p.filter;
    if (point == "postFilter") return p.post_filter;
    if (point == "preScore") return p.pre_score;
    if (point == "score") return p.score;
    if (point == "reserve") return p.reserve;
    if (point == "permit") return p.permit;
    if (point == "preBind") return p.pre_bind;
    if (point == "bind") return p.bind;
    if (point == "postBind") return p.post_bind;
    return p.multi_point;
  }

  FakeClock clock_;
  Parallelizer parallelizer_;
  std::unique_ptr<Snapshot> snapshot_;
  ProfileConfig profile_;
  Registry registry_;
  std::shared_ptr<std::vector<std::string>> log_ = std::make_shared<std::vector<std::string>>();
  std::shared_ptr<std::mutex> log_mu_ = std::make_shared<std::mutex>();
};

}  // namespace allot::scheduler::testing
