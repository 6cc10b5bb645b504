#include "node/dra/kubelet.h"

#include <atomic>
#include <mutex>
#include <utility>

#include "api/resource/types.h"
#include "node/dra/claims.h"

namespace allot::node {

// Shared by the DraKubelet, the hooks it installs and the informer handler.
struct DraKubelet::State {
  State(client::Client& client, client::Informer* shared)
      : own(shared ? nullptr
                   : std::make_unique<client::Informer>(client,
                                                        api::ResourceFor<api::ResourceClaim>())),
        claims(shared ? *shared : *own),
        source(claims),
        preparer(source, registry),
        rule(source) {}

  std::unique_ptr<client::Informer> own;
  client::Informer& claims;
  InformerClaimSource source;
  DraPluginRegistry registry;
  DraClaimPreparer preparer;
  DraStartRule rule;
  std::atomic<uint64_t> rechecks{0};

  std::mutex mu;                 // held while calling into `sim`, so Stop() waits for calls
  NodeSimulator* sim = nullptr;  // guarded by mu
  bool handler_added = false;    // guarded by mu
};

namespace {

// The hooks the simulator owns; they forward to the shared state.
class SharedRule final : public PodStartRule {
 public:
  explicit SharedRule(std::shared_ptr<DraKubelet::State> s) : s_(std::move(s)) {}
  std::string WhyNotStart(const api::Pod& pod, std::string_view node) override {
    return s_->rule.WhyNotStart(pod, node);
  }

 private:
  std::shared_ptr<DraKubelet::State> s_;
};

class SharedPreparer final : public ClaimPreparer {
 public:
  explicit SharedPreparer(std::shared_ptr<DraKubelet::State> s) : s_(std::move(s)) {}
  Status Prepare(const api::Pod& pod, std::string_view node) override {
    return s_->preparer.Prepare(pod, node);
  }
  void Unprepare(const api::Pod& pod, std::string_view node) override {
    s_->preparer.Unprepare(pod, node);
  }

 private:
  std::shared_ptr<DraKubelet::State> s_;
};

const api::ResourceClaim* AsClaim(const api::ObjectPtr& obj) {
  return obj ? api::As<api::ResourceClaim>(*obj) : nullptr;
}

// Hands the pods the claim is reserved for to the simulator, when what the start rule or a
// plugin looks at (allocation, reservedFor, the devices' status that drivers report, e.g. a
// fabric device attached) changed.
void OnClaim(DraKubelet::State& s, const api::ObjectPtr& old_obj, const api::ObjectPtr& obj) {
  const api::ResourceClaim* claim = AsClaim(obj);
  if (claim == nullptr || !claim->status.allocation) return;
  if (const api::ResourceClaim* old = AsClaim(old_obj)) {
    if (old->status.allocation == claim->status.allocation &&
        old->status.reservedFor == claim->status.reservedFor &&
        old->status.devices == claim->status.devices) {
      return;
    }
  }
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.sim == nullptr) return;
  for (const api::ResourceClaimConsumerReference& ref : claim->status.reservedFor) {
    if (!ref.apiGroup.empty() || ref.resource != "pods") continue;
    s.sim->Recheck(claim->metadata.namespace_, ref.name);
    ++s.rechecks;
  }
}

}  // namespace

DraKubelet::DraKubelet(client::Client& client, client::Informer* shared_claims)
    : state_(std::make_shared<State>(client, shared_claims)) {}

DraKubelet::~DraKubelet() { Stop(); }

DraPluginRegistry& DraKubelet::plugins() { return state_->registry; }

void DraKubelet::Install(NodeSimulator& sim) {
  sim.AddStartRule(std::make_unique<SharedRule>(state_));
  sim.SetClaimPreparer(std::make_unique<SharedPreparer>(state_));
  bool add_handler;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->sim = &sim;
    add_handler = !state_->handler_added;
    state_->handler_added = true;
  }
  if (!add_handler) return;
  // Weak: our own informer belongs to the state, and a shared one cannot drop the handler.
  std::weak_ptr<State> weak = state_;
  state_->claims.AddHandler({
      .on_add =
          [weak](const api::ObjectPtr& o) {
            if (auto s = weak.lock()) OnClaim(*s, nullptr, o);
          },
      .on_update =
          [weak](const api::ObjectPtr& old, const api::ObjectPtr& o) {
            if (auto s = weak.lock()) OnClaim(*s, old, o);
          },
      .on_delete = nullptr,
  });
}

Status DraKubelet::Start(std::chrono::milliseconds sync_timeout) {
  if (!state_->own) return Status::Ok();
  ALLOT_RETURN_IF_ERROR(state_->own->Start());
  if (!state_->own->WaitForSync(sync_timeout)) {
    return Status(StatusCode::kTimeout, "DRA kubelet: the resourceclaims informer did not sync");
  }
  return Status::Ok();
}

void DraKubelet::Stop() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->sim = nullptr;
  }
  if (state_->own) state_->own->Stop();
}

DraClaimPreparer::Stats DraKubelet::PreparerStats() const { return state_->preparer.GetStats(); }

uint64_t DraKubelet::rechecks() const { return state_->rechecks.load(); }

}  // namespace allot::node
