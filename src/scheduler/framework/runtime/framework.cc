#include "scheduler/framework/runtime/framework.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <mutex>

namespace allot::scheduler {

namespace {

using SteadyClock = std::chrono::steady_clock;

bool Contains(const std::vector<PluginRef>& refs, std::string_view name) {
  return std::any_of(refs.begin(), refs.end(), [&](const PluginRef& r) { return r.name == name; });
}

const PluginRef* FindRef(const std::vector<PluginRef>& refs, std::string_view name) {
  for (const PluginRef& r : refs) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

Status WrapError(std::string_view point, std::string_view plugin, const Status& st) {
  Status out(Code::kError, "running " + std::string(point) + " plugin \"" + std::string(plugin) +
                               "\": " + st.Message());
  out.WithPlugin(plugin);
  return out;
}

// Go's %v of a []string: "[a b]".
std::string GoList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + items[i];
  return out + "]";
}

}  // namespace

void PreFilterResult::Merge(const PreFilterResult& other) {
  if (other.AllNodes()) return;
  if (AllNodes()) {
    node_names = other.node_names;
    return;
  }
  std::vector<std::string> both;
  std::set_intersection(node_names->begin(), node_names->end(), other.node_names->begin(),
                        other.node_names->end(), std::back_inserter(both));
  node_names = std::move(both);
}

Framework::Framework(ProfileConfig profile, FrameworkOptions options)
    : profile_(std::move(profile)), options_(options) {
  ext_metrics_ = std::make_unique<ExtensionPointMetrics>(options_.metrics, profile_.scheduler_name);
}

Framework::~Framework() = default;

Result<std::unique_ptr<Framework>> Framework::Create(const Registry& registry,
                                                     const ProfileConfig& profile,
                                                     FrameworkOptions options) {
  if (!options.clock || !options.parallelizer || !options.snapshot) {
    return allot::InternalError("framework needs a clock, a parallelizer and a snapshot");
  }
  std::unique_ptr<Framework> fw(new Framework(profile, options));
  ALLOT_RETURN_IF_ERROR(fw->Build(registry));
  return fw;
}

Result<Plugin*> Framework::Instantiate(const Registry& registry, const std::string& name) {
  for (auto& [n, p] : instances_) {
    if (n == name) return p.get();
  }
  const PluginFactory* factory = registry.Find(name);
  if (!factory) return allot::BadRequestError("plugin \"" + name + "\" does not exist");
  Result<std::unique_ptr<Plugin>> made = (*factory)(profile_.ArgsFor(name), *this);
  if (!made.ok()) {
    return allot::BadRequestError("initializing plugin \"" + name +
                                  "\": " + made.status().message());
  }
  Plugin* raw = made->get();
  instances_.emplace_back(name, std::move(made).value());
  return raw;
}

namespace {

// The plugins of one extension point with interface I, in order, with score weights.
template <class I>
Result<std::vector<std::pair<I*, int32_t>>> PointPlugins(
    const PluginSet& point, const PluginSet& multi, std::string_view point_name,
    const std::function<Result<Plugin*>(const std::string&)>& instantiate) {
  std::vector<std::pair<I*, int32_t>> out;
  std::vector<std::string> seen;
  auto add = [&](const PluginRef& ref, bool required) -> allot::Status {
    if (std::find(seen.begin(), seen.end(), ref.name) != seen.end()) return allot::Status::Ok();
    ALLOT_ASSIGN_OR_RETURN(Plugin * p, instantiate(ref.name));
    I* typed = dynamic_cast<I*>(p);
    if (!typed) {
      if (!required) return allot::Status::Ok();
      return allot::BadRequestError("plugin \"" + ref.name + "\" does not extend " +
                                    std::string(point_name) + " plugin");
    }
    seen.push_back(ref.name);
    int32_t weight = ref.weight;
    if (const PluginRef* m = FindRef(multi.enabled, ref.name); weight <= 0 && m) {
      weight = m->weight;
    }
    out.emplace_back(typed, weight > 0 ? weight : 1);
    return allot::Status::Ok();
  };
  for (const PluginRef& ref : point.enabled) ALLOT_RETURN_IF_ERROR(add(ref, true));
  if (!Contains(point.disabled, "*")) {
    for (const PluginRef& ref : multi.enabled) {
      if (!Contains(point.disabled, ref.name)) ALLOT_RETURN_IF_ERROR(add(ref, false));
    }
  }
  return out;
}

template <class I>
std::vector<I*> Strip(const std::vector<std::pair<I*, int32_t>>& in) {
  std::vector<I*> out;
  for (const auto& [p, w] : in) out.push_back(p);
  return out;
}

template <class A, class B>
std::vector<int> IndexMap(const std::vector<A*>& from, const std::vector<B*>& to) {
  std::vector<int> out;
  for (A* a : from) {
    int idx = -1;
    for (size_t i = 0; i < to.size(); ++i) {
      if (static_cast<Plugin*>(a) == static_cast<Plugin*>(to[i])) idx = static_cast<int>(i);
    }
    out.push_back(idx);
  }
  return out;
}

}  // namespace

allot::Status Framework::Build(const Registry& registry) {
  const Plugins& ps = profile_.plugins;
  const PluginSet& multi = ps.multi_point;
  auto inst = [&](const std::string& name) { return Instantiate(registry, name); };
#define ALLOT_FILL(var, Iface, set, label)                 \
  do {                                                     \
    auto r = PointPlugins<Iface>(set, multi, label, inst); \
    if (!r.ok()) return r.TakeStatus();                    \
    var = Strip(*r);                                       \
  } while (0)
  ALLOT_FILL(pre_enqueue_, PreEnqueuePlugin, ps.pre_enqueue, "PreEnqueue");
  std::vector<QueueSortPlugin*> sorts;
  ALLOT_FILL(sorts, QueueSortPlugin, ps.queue_sort, "QueueSort");
  ALLOT_FILL(pre_filter_, PreFilterPlugin, ps.pre_filter, "PreFilter");
  ALLOT_FILL(filter_, FilterPlugin, ps.filter, "Filter");
  ALLOT_FILL(post_filter_, PostFilterPlugin, ps.post_filter, "PostFilter");
  ALLOT_FILL(pre_score_, PreScorePlugin, ps.pre_score, "PreScore");
  ALLOT_FILL(reserve_, ReservePlugin, ps.reserve, "Reserve");
  ALLOT_FILL(permit_, PermitPlugin, ps.permit, "Permit");
  ALLOT_FILL(pre_bind_, PreBindPlugin, ps.pre_bind, "PreBind");
  ALLOT_FILL(bind_, BindPlugin, ps.bind, "Bind");
  ALLOT_FILL(post_bind_, PostBindPlugin, ps.post_bind, "PostBind");
#undef ALLOT_FILL
  auto scores = PointPlugins<ScorePlugin>(ps.score, multi, "Score", inst);
  if (!scores.ok()) return scores.TakeStatus();
  std::vector<ScorePlugin*> score_plugins;
  for (const auto& [p, w] : *scores) {
    score_.push_back({p, dynamic_cast<const NormalizeScorePlugin*>(p), w});
    score_plugins.push_back(p);
  }
  const std::string& name = profile_.scheduler_name;
  if (sorts.size() != 1) {
    return allot::BadRequestError(sorts.empty()
                                      ? "no queue sort plugin is enabled in profile " + name
                                      : "only one queue sort plugin can be enabled");
  }
  queue_sort_ = sorts[0];
  if (bind_.empty()) {
    return allot::BadRequestError(
        "at least one bind plugin is needed for profile with scheduler name \"" + name + "\"");
  }
  for (const auto& [plugin_name, plugin] : instances_) {
    if (auto* d = dynamic_cast<DeadlinePlugin*>(plugin.get())) deadline_plugins_.push_back(d);
  }
  pre_filter_to_filter_ = IndexMap(pre_filter_, filter_);
  for (size_t i = 0; i < pre_filter_.size(); ++i) {
    if (auto* ext = dynamic_cast<const PreFilterExtensions*>(pre_filter_[i])) {
      pre_filter_ext_.emplace_back(ext, pre_filter_to_filter_[i]);
    }
  }
  pre_score_to_score_ = IndexMap(pre_score_, score_plugins);
  return allot::Status::Ok();
}

Plugin* Framework::FindPlugin(std::string_view name) const {
  for (const auto& [n, p] : instances_) {
    if (n == name) return p.get();
  }
  return nullptr;
}

void Framework::Observe(ExtensionPoint point, const Status& status,
                        SteadyClock::time_point start) const {
  std::chrono::duration<double> d = SteadyClock::now() - start;
  ext_metrics_->Observe(point, status.code(), d.count());
}

// --- queue --------------------------------------------------------------------------------------

Status Framework::RunPreEnqueuePlugins(const api::Pod& pod) const {
  for (const PreEnqueuePlugin* p : pre_enqueue_) {
    Status st = p->PreEnqueue(pod);
    if (st.IsSuccess()) continue;
    if (!st.IsRejected()) return WrapError("PreEnqueue", p->Name(), st);
    return st.WithPlugin(p->Name());
  }
  return Status::Success();
}

bool Framework::QueueSortLess(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  return queue_sort_->Less(a, b);
}

std::vector<std::pair<std::string, std::vector<ClusterEventWithHint>>> Framework::EventsToRegister()
    const {
  std::vector<std::pair<std::string, std::vector<ClusterEventWithHint>>> out;
  for (const auto& [name, p] : instances_) {
    if (auto* ext = dynamic_cast<const EnqueueExtensions*>(p.get())) {
      out.emplace_back(name, ext->EventsToRegister());
    } else if (dynamic_cast<PreEnqueuePlugin*>(p.get()) ||
               dynamic_cast<PreFilterPlugin*>(p.get()) || dynamic_cast<FilterPlugin*>(p.get()) ||
               dynamic_cast<ReservePlugin*>(p.get()) || dynamic_cast<PermitPlugin*>(p.get())) {
      out.emplace_back(name,
                       std::vector<ClusterEventWithHint>{{{EventResource::kWildCard, kAll}, {}}});
    }
  }
  return out;
}

// --- scheduling cycle ---------------------------------------------------------------------------

Status Framework::RunPreFilterPlugins(CycleState& state, const PodInfo& pod,
                                      PreFilterResult& result, std::vector<std::string>& plugins) {
  auto start = SteadyClock::now();
  state.skip_filter.assign(filter_.size(), false);
  result = PreFilterResult{};
  std::vector<std::string> narrowed;
  Status out;
  for (size_t i = 0; i < pre_filter_.size() && out.IsSuccess(); ++i) {
    PreFilterPlugin* p = pre_filter_[i];
    PreFilterResult r;
    Status st = p->PreFilter(state, pod, r);
    if (st.IsSkip()) {
      if (pre_filter_to_filter_[i] >= 0) state.skip_filter[pre_filter_to_filter_[i]] = true;
      continue;
    }
    if (!st.IsSuccess()) {
      out = st.IsRejected() ? st.WithPlugin(p->Name()) : WrapError("PreFilter", p->Name(), st);
      plugins.emplace_back(p->Name());
      break;
    }
    if (!r.AllNodes()) narrowed.emplace_back(p->Name());
    result.Merge(r);
    if (!result.AllNodes() && result.node_names->empty()) {
      std::string msg = narrowed.size() == 1 ? "node(s) didn't satisfy plugin " + narrowed[0]
                                             : "node(s) didn't satisfy plugin(s) " +
                                                   GoList(narrowed) + " simultaneously";
      out = Status(Code::kUnschedulableAndUnresolvable, std::move(msg));
      plugins.insert(plugins.end(), narrowed.begin(), narrowed.end());
    }
  }
  if (out.IsSuccess() && !result.AllNodes()) plugins = narrowed;
  Observe(ExtensionPoint::kPreFilter, out, start);
  return out;
}

Status Framework::RunFilterPlugins(const CycleState& state, const PodInfo& pod,
                                   const NodeInfo& node) const {
  for (size_t i = 0; i < filter_.size(); ++i) {
    if (i < state.skip_filter.size() && state.skip_filter[i]) continue;
    const FilterPlugin* p = filter_[i];
    Status st = p->Filter(state, pod, node);
    if (st.IsSuccess()) continue;
    if (!st.IsRejected()) return WrapError("Filter", p->Name(), st);
    return st.WithPlugin(p->Name());
  }
  return Status::Success();
}

namespace {

// Whether the plugin with this index into the Filter plugins (-1: none) skipped at PreFilter.
bool SkippedFilter(const CycleState& state, int filter) {
  return filter >= 0 && static_cast<size_t>(filter) < state.skip_filter.size() &&
         state.skip_filter[filter];
}

}  // namespace

Status Framework::RunPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod,
                                              const PodInfo& added, const NodeInfo& node) const {
  for (const auto& [ext, filter] : pre_filter_ext_) {
    if (SkippedFilter(state, filter)) continue;
    Status st = ext->AddPod(state, pod, added, node);
    if (!st.IsSuccess()) return WrapError("PreFilterExtensions AddPod", ext->Name(), st);
  }
  return Status::Success();
}

Status Framework::RunPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                                 const PodInfo& removed,
                                                 const NodeInfo& node) const {
  for (const auto& [ext, filter] : pre_filter_ext_) {
    if (SkippedFilter(state, filter)) continue;
    Status st = ext->RemovePod(state, pod, removed, node);
    if (!st.IsSuccess()) return WrapError("PreFilterExtensions RemovePod", ext->Name(), st);
  }
  return Status::Success();
}

Status Framework::RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                    const NodeInfo& node,
                                                    const NominatedPods* nominated) const {
  const std::vector<PodInfoPtr>* here = nullptr;
  if (nominated && !nominated->empty()) {
    auto it = nominated->find(node.name());
    if (it != nominated->end()) here = &it->second;
  }
  std::unique_ptr<CycleState> clone;
  std::optional<NodeInfo> with;
  if (here) {
    Status alone = RunFilterPlugins(state, pod, node);
    if (!alone.IsSuccess()) return alone;
    for (const PodInfoPtr& p : *here) {
      if (p->priority < pod.priority || p->uid() == pod.uid()) continue;
      bool already = false;  // assumed or bound meanwhile: counted on the node already
      for (const PodInfoPtr& q : node.pods()) already = already || q->uid() == p->uid();
      if (already) continue;
      if (!clone) {
        clone = state.Clone();
        with.emplace(node);
      }
      with->AddPod(p);
      Status st = RunPreFilterExtensionAddPod(*clone, pod, *p, *with);
      if (!st.IsSuccess()) return st;
    }
  }
  if (!clone) return RunFilterPlugins(state, pod, node);
  return RunFilterPlugins(*clone, pod, *with);
}

Status Framework::RunPostFilterPlugins(CycleState& state, const PodInfo& pod,
                                       const NodeToStatus& statuses, PostFilterResult& result) {
  auto start = SteadyClock::now();
  std::vector<std::string> reasons;
  Status out(Code::kUnschedulable, std::vector<std::string>{});
  for (PostFilterPlugin* p : post_filter_) {
    Status st = p->PostFilter(state, pod, statuses, result);
    if (st.IsSuccess()) {
      out = st.WithPlugin(p->Name());
      break;
    }
    if (!st.IsRejected()) {
      out = WrapError("PostFilter", p->Name(), st);
      break;
    }
    if (st.code() == Code::kPending) result.pending_plugins.emplace_back(p->Name());
    for (const std::string& r : st.reasons()) reasons.push_back(r);
    out = Status(Code::kUnschedulable, reasons);
    out.WithPlugin(p->Name());
  }
  Observe(ExtensionPoint::kPostFilter, out, start);
  return out;
}

Status Framework::RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                                     std::span<const NodeInfo* const> nodes) {
  auto start = SteadyClock::now();
  state.skip_score.assign(score_.size(), false);
  Status out;
  for (size_t i = 0; i < pre_score_.size(); ++i) {
    Status st = pre_score_[i]->PreScore(state, pod, nodes);
    if (st.IsSkip()) {
      if (pre_score_to_score_[i] >= 0) state.skip_score[pre_score_to_score_[i]] = true;
      continue;
    }
    if (!st.IsSuccess()) {
      out = WrapError("PreScore", pre_score_[i]->Name(), st);
      break;
    }
  }
  Observe(ExtensionPoint::kPreScore, out, start);
  return out;
}

Status Framework::RunScorePlugins(const CycleState& state, const PodInfo& pod,
                                  std::span<const NodeInfo* const> nodes,
                                  std::vector<int64_t>& totals) {
  auto start = SteadyClock::now();
  totals.assign(nodes.size(), 0);
  std::vector<size_t> active;
  for (size_t k = 0; k < score_.size(); ++k) {
    if (k >= state.skip_score.size() || !state.skip_score[k]) active.push_back(k);
  }
  std::vector<std::vector<NodeScore>> scores(active.size(), std::vector<NodeScore>(nodes.size()));
  std::mutex err_mu;
  Status err;
  std::atomic<bool> failed{false};
  auto score_node = [&](int i) {
    for (size_t a = 0; a < active.size(); ++a) {
      const ScorePlugin* p = score_[active[a]].plugin;
      int64_t s = 0;
      Status st = p->Score(state, pod, *nodes[i], s);
      if (!st.IsSuccess()) {
        std::lock_guard<std::mutex> lock(err_mu);
        if (!failed.exchange(true)) err = WrapError("Score", p->Name(), st);
        return;
      }
      scores[a][i] = NodeScore{nodes[i], s};
    }
  };
  options_.parallelizer->Until(static_cast<int>(nodes.size()), score_node, &failed);
  for (size_t a = 0; a < active.size() && !failed; ++a) {
    const ScoreEntry& e = score_[active[a]];
    if (e.normalize) {
      Status st = e.normalize->NormalizeScore(state, pod, scores[a]);
      if (!st.IsSuccess()) {
        err = WrapError("NormalizeScore", e.plugin->Name(), st);
        failed = true;
        break;
      }
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      int64_t s = scores[a][i].score;
      if (s < kMinNodeScore || s > kMaxNodeScore) {
        err = Status(Code::kError, "plugin \"" + std::string(e.plugin->Name()) +
                                       "\" returns an invalid score " + std::to_string(s) +
                                       ", it should in the range of [0, 100] after normalizing");
        failed = true;
        break;
      }
      totals[i] += s * e.weight;
    }
  }
  Status out = failed ? err : Status::Success();
  Observe(ExtensionPoint::kScore, out, start);
  return out;
}

Status Framework::RunReservePluginsReserve(CycleState& state, const PodInfo& pod,
                                           const std::string& node) {
  auto start = SteadyClock::now();
  Status out;
  for (ReservePlugin* p : reserve_) {
    Status st = p->Reserve(state, pod, node);
    if (st.IsSuccess()) continue;
    out = st.IsRejected() ? st.WithPlugin(p->Name()) : WrapError("Reserve", p->Name(), st);
    break;
  }
  Observe(ExtensionPoint::kReserve, out, start);
  return out;
}

void Framework::RunReservePluginsUnreserve(CycleState& state, const PodInfo& pod,
                                           const std::string& node) {
  auto start = SteadyClock::now();
  for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it) (*it)->Unreserve(state, pod, node);
  Observe(ExtensionPoint::kUnreserve, Status::Success(), start);
}

Status Framework::RunPermitPlugins(CycleState& state, const PodInfoPtr& pod,
                                   const std::string& node) {
  auto start = SteadyClock::now();
  std::vector<std::pair<std::string_view, std::chrono::milliseconds>> waits;
  Status out;
  for (PermitPlugin* p : permit_) {
    std::chrono::milliseconds timeout{0};
    Status st = p->Permit(state, *pod, node, timeout);
    if (st.IsSuccess()) continue;
    if (st.IsWait()) {
      waits.emplace_back(p->Name(), std::min(timeout, kMaxPermitTimeout));
      continue;
    }
    out = st.IsRejected() ? st.WithPlugin(p->Name()) : WrapError("Permit", p->Name(), st);
    break;
  }
  if (out.IsSuccess() && !waits.empty()) {
    auto wp = std::make_shared<WaitingPod>(pod, node, std::move(waits), options_.clock->Steady());
    waiting_pods_.Add(std::move(wp));
    out = Status(Code::kWait, "one or more plugins asked to wait and no plugin rejected pod \"" +
                                  pod->name() + "\"");
  }
  Observe(ExtensionPoint::kPermit, out, start);
  return out;
}

// --- binding cycle ------------------------------------------------------------------------------

void Framework::WaitOnPermit(const PodInfo& pod, std::function<void(Status)> done) {
  std::shared_ptr<WaitingPod> wp = waiting_pods_.Get(pod.uid());
  if (!wp) {
    done(Status::Success());
    return;
  }
  std::string uid = pod.uid();
  wp->OnDone([this, uid, done = std::move(done)](Status st) {
    waiting_pods_.Remove(uid);
    done(std::move(st));
  });
}

Framework::PreBindNeed Framework::NeedsPreBind(const CycleState& state, const PodInfo& pod,
                                               const std::string& node) const {
  PreBindNeed need = PreBindNeed::kNothing;
  for (const PreBindPlugin* p : pre_bind_) {
    if (p->PreBindPreFlight(state, pod, node).IsSkip()) continue;
    if (p->PreBindMayBlock(state, pod, node)) return PreBindNeed::kWorker;
    need = PreBindNeed::kAnyThread;
  }
  return need;
}

Status Framework::RunPreBindPlugins(CycleState& state, const PodInfo& pod, const std::string& node,
                                    size_t first, size_t* waiting) {
  auto start = SteadyClock::now();
  Status out;
  for (size_t i = first; i < pre_bind_.size(); ++i) {
    PreBindPlugin* p = pre_bind_[i];
    Status st = p->PreBind(state, pod, node);
    if (st.IsSuccess()) continue;
    if (st.IsWait() && waiting) {
      *waiting = i;
      out = st.WithPlugin(p->Name());
    } else {
      out = st.IsRejected() ? st.WithPlugin(p->Name()) : WrapError("PreBind", p->Name(), st);
    }
    break;
  }
  Observe(ExtensionPoint::kPreBind, out, start);
  return out;
}

void PreBindPlugin::AwaitPreBind(CycleState&, const PodInfo&, const std::string&,
                                 std::function<void(Status)> done) {
  done(
      Status::Error("plugin " + std::string(Name()) + " answered Wait in PreBind but cannot wait"));
}

void Framework::AwaitPreBind(size_t position, CycleState& state, const PodInfo& pod,
                             const std::string& node, std::function<void(Status)> done) {
  if (position >= pre_bind_.size()) {
    done(Status::Error("AwaitPreBind: no PreBind plugin at position " + std::to_string(position)));
    return;
  }
  PreBindPlugin* p = pre_bind_[position];
  p->AwaitPreBind(state, pod, node, [p, done = std::move(done)](Status st) {
    if (st.IsSuccess()) {
      done(st);
    } else {
      done(st.IsRejected() ? st.WithPlugin(p->Name()) : WrapError("PreBind", p->Name(), st));
    }
  });
}

void Framework::CheckDeadlines() {
  waiting_pods_.CheckTimeouts(options_.clock->Steady());
  for (DeadlinePlugin* p : deadline_plugins_) p->CheckDeadlines();
}

void Framework::AbandonWaits() {
  for (DeadlinePlugin* p : deadline_plugins_) p->AbandonWaits();
}

void Framework::RunBindPlugins(CycleState& state, const PodInfo& pod, const std::string& node,
                               BindCallback done) {
  auto start = SteadyClock::now();
  BindFrom(0, state, pod, node, [this, start, done = std::move(done)](Status st) {
    Observe(ExtensionPoint::kBind, st, start);
    done(std::move(st));
  });
}

void Framework::BindFrom(size_t i, CycleState& state, const PodInfo& pod, const std::string& node,
                         BindCallback done) {
  if (i == bind_.size()) {
    done(Status(Code::kError, "all bind plugins skipped binding pod \"" + pod.name() + "\""));
    return;
  }
  BindPlugin* p = bind_[i];
  p->Bind(state, pod, node, [this, i, p, &state, &pod, &node, done = std::move(done)](Status st) {
    if (st.IsSkip()) {
      BindFrom(i + 1, state, pod, node, std::move(done));
    } else if (!st.IsSuccess()) {
      done(WrapError("Bind", p->Name(), st));
    } else {
      done(Status::Success());
    }
  });
}

void Framework::RunPostBindPlugins(CycleState& state, const PodInfo& pod, const std::string& node) {
  auto start = SteadyClock::now();
  for (PostBindPlugin* p : post_bind_) p->PostBind(state, pod, node);
  Observe(ExtensionPoint::kPostBind, Status::Success(), start);
}

}  // namespace allot::scheduler
