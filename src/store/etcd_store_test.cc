// The store on etcd beyond the conformance suite (which runs every StoreTest on etcd too): two
// stores on one etcd — as two API server replicas — see each other's writes, in order, and a
// write raced by the other replica runs again on the fresher object; the objects are where
// etcdctl looks for them, with resourceVersion = mod_revision.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "etcd/client.h"
#include "etcd/local_cluster.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/builders.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::store {
namespace {

// A shared backend whose following the test can hold: while held, the store applies nothing
// (a replica that has fallen behind); released, it resumes from where it stopped.
class HeldBackend final : public Backend, public SharedBackend {
 public:
  explicit HeldBackend(std::unique_ptr<Backend> inner)
      : inner_(std::move(inner)), shared_(inner_->shared()) {}
  // Holding returns once the store has stopped following.
  void Hold(bool held) {
    held_ = held;
    while (held && !paused_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  SharedBackend* shared() override { return this; }
  std::string_view Name() const override { return "held etcd"; }
  Status Load(const std::function<Status(std::string_view, std::string_view, uint64_t)>&,
              uint64_t&) override {
    return InternalError("shared");
  }
  Status Commit(const std::vector<BackendWrite>&, uint64_t) override {
    return InternalError("shared");
  }
  Status LoadSnapshot(const std::function<Status(std::string_view, std::string_view, uint64_t)>& fn,
                      uint64_t& revision) override {
    return shared_->LoadSnapshot(fn, revision);
  }
  std::vector<Result<SharedWriteResult>> WriteEach(const std::vector<SharedWrite>& w) override {
    return shared_->WriteEach(w);
  }
  Result<uint64_t> CurrentRevision() override { return shared_->CurrentRevision(); }
  void RequestProgress() override { shared_->RequestProgress(); }
  Status ListAt(
      std::string_view prefix, std::string_view after, uint64_t revision,
      const std::function<bool(std::string_view, std::string_view, uint64_t)>& fn) override {
    return shared_->ListAt(prefix, after, revision, fn);
  }
  Status Follow(uint64_t after, const FollowFn& fn, const std::atomic<bool>& stop) override {
    uint64_t applied = after;
    while (!stop) {
      if (held_) {
        paused_ = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      paused_ = false;
      std::atomic<bool> inner_stop{false};
      std::thread watch_hold([&] {
        while (!stop && !held_ && !inner_stop) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        inner_stop = true;
      });
      Status st = shared_->Follow(
          applied,
          [&](std::vector<SharedChange> changes, uint64_t current) {
            if (!changes.empty()) applied = std::max(applied, changes.back().revision);
            applied = std::max(applied, current);
            fn(std::move(changes), current);
          },
          inner_stop);
      inner_stop = true;
      watch_hold.join();
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }

 private:
  std::unique_ptr<Backend> inner_;
  SharedBackend* shared_;
  std::atomic<bool> held_{false};
  std::atomic<bool> paused_{false};
};

class EtcdReplicasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = etcd::LocalCluster::Start(1);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cluster_ = std::move(c).value();
    a_ = Open();
    b_ = Open();
    ASSERT_TRUE(a_ && b_);
  }
  std::unique_ptr<Store> Open(HeldBackend** held = nullptr, StoreOptions options = {}) {
    EtcdBackendOptions o;
    o.endpoints = cluster_->endpoints();
    auto backend = NewEtcdBackend(o);
    EXPECT_TRUE(backend.ok()) << backend.status().ToString();
    if (!backend.ok()) return nullptr;
    std::unique_ptr<Backend> b = std::move(backend).value();
    if (held) {
      *held = new HeldBackend(std::move(b));
      b.reset(*held);
    }
    auto s = std::make_unique<Store>(std::move(b), clock_, std::move(options));
    Status st = s->Open();
    EXPECT_TRUE(st.ok()) << st.ToString();
    return st.ok() ? std::move(s) : nullptr;
  }
  const api::ResourceInfo& pods() { return testing::Resource("", "pods"); }
  // Waits (bounded) until `s` has applied resourceVersion `rv`.
  bool Sees(Store& s, uint64_t rv) {
    return testing::WaitUntil([&] { return s.CurrentResourceVersion() >= rv; });
  }

  std::unique_ptr<etcd::Client> RawClient() {
    etcd::Options o;
    o.endpoints = cluster_->endpoints();
    auto c = etcd::Client::Connect(o);
    EXPECT_TRUE(c.ok());
    return c.ok() ? std::move(c).value() : nullptr;
  }

  FakeClock clock_;
  std::unique_ptr<etcd::LocalCluster> cluster_;
  std::unique_ptr<Store> a_, b_;
};

TEST_F(EtcdReplicasTest, EachReplicaSeesTheOthersWritesAndWatchesThemInOrder) {
  auto w = b_->Watch(&pods(), WatchOptions{.resource_version = b_->CurrentResourceVersion()});
  ASSERT_TRUE(w.ok());
  auto created = a_->Create(pods(), testing::PodManifest("default", "p"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const uint64_t rv = std::stoull((*created)->metadata.resourceVersion);
  ASSERT_TRUE(Sees(*b_, rv));
  auto got = b_->Get(pods(), "default", "p");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->metadata.resourceVersion, (*created)->metadata.resourceVersion);
  EXPECT_EQ((*got)->metadata.uid, (*created)->metadata.uid);
  ASSERT_TRUE(b_->Delete(pods(), "default", "p").ok());
  WatchEvent ev;
  ASSERT_TRUE((*w)->WaitNext(ev, std::chrono::seconds(5)));
  EXPECT_EQ(ev.type, EventType::kAdded);
  ASSERT_TRUE((*w)->WaitNext(ev, std::chrono::seconds(5)));
  EXPECT_EQ(ev.type, EventType::kDeleted);
  EXPECT_GT(std::stoull(ev.object->metadata.resourceVersion), rv);
  // Updating at once on the other replica what one just created: found, though its index had
  // not seen it yet (a miss is confirmed against etcd's newest revision).
  ASSERT_TRUE(a_->Create(pods(), testing::PodManifest("default", "fresh")).ok());
  auto labelled = b_->Update(pods(), "default", "fresh",
                             [](const Object& cur) -> Result<std::unique_ptr<Object>> {
                               auto next = cur.Clone();
                               next->metadata.labels["seen"] = "yes";
                               return next;
                             });
  ASSERT_TRUE(labelled.ok()) << labelled.status().ToString();
  EXPECT_EQ(b_->Delete(pods(), "default", "never").status().code(), StatusCode::kNotFound);
  // Creating the same name on the other replica: AlreadyExists, though it had not seen it yet.
  ASSERT_TRUE(a_->Create(pods(), testing::PodManifest("default", "q")).ok());
  auto twice = b_->Create(pods(), testing::PodManifest("default", "q"));
  EXPECT_EQ(twice.status().code(), StatusCode::kAlreadyExists);
}

TEST_F(EtcdReplicasTest, ConcurrentUpdatesOnTwoReplicasLoseNothing) {
  ASSERT_TRUE(a_->Create(pods(), testing::PodManifest("default", "counter")).ok());
  auto bump = [&](Store& s, int n) {
    for (int i = 0; i < n; ++i) {
      auto r = s.Update(
          pods(), "default", "counter", [](const Object& cur) -> Result<std::unique_ptr<Object>> {
            auto next = cur.Clone();
            auto& labels = next->metadata.labels;
            labels["n"] = std::to_string(std::stoi(labels["n"].empty() ? "0" : labels["n"]) + 1);
            return next;
          });
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  };
  std::thread ta([&] { bump(*a_, 25); });
  std::thread tb([&] { bump(*b_, 25); });
  ta.join();
  tb.join();
  // Each replica acknowledged its own writes; once both have applied everything, both hold
  // every increment.
  const uint64_t rv = std::max(a_->CurrentResourceVersion(), b_->CurrentResourceVersion());
  ASSERT_TRUE(Sees(*a_, rv) && Sees(*b_, rv));
  for (Store* s : {a_.get(), b_.get()}) {
    auto got = s->Get(pods(), "default", "counter");
    ASSERT_TRUE(got.ok());
    EXPECT_EQ((*got)->metadata.labels.at("n"), "50");
  }
}

TEST_F(EtcdReplicasTest, ObjectsAreUnderRegistryWithTheirModRevision) {
  auto created = a_->Create(pods(), testing::PodManifest("default", "p"));
  ASSERT_TRUE(created.ok());
  etcd::Options o;
  o.endpoints = cluster_->endpoints();
  auto client = etcd::Client::Connect(o);
  ASSERT_TRUE(client.ok());
  auto r = (*client)->Range("/registry/pods/default/p", "");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->kvs.size(), 1u);
  EXPECT_EQ(std::to_string(r->kvs[0].mod_revision), (*created)->metadata.resourceVersion);
  EXPECT_NE(r->kvs[0].value.find(R"("name":"p")"), std::string::npos);
  EXPECT_EQ(r->kvs[0].value.find("resourceVersion"), std::string::npos);
}

// etcd away: writes fail fast with 503 and the store says it is not ready; when etcd is back,
// writes go on and the follower catches up by itself.
TEST_F(EtcdReplicasTest, WhileEtcdIsAwayWritesFailFastAndRecoveryIsAutomatic) {
  ASSERT_TRUE(a_->Ready().ok());
  cluster_->Kill(0);
  const auto start = std::chrono::steady_clock::now();
  auto refused = a_->Create(pods(), testing::PodManifest("default", "while-away"));
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().code() == StatusCode::kServiceUnavailable ||
              refused.status().code() == StatusCode::kTimeout)
      << refused.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(a_->Ready().code(), StatusCode::kServiceUnavailable);
  EXPECT_TRUE(a_->Get(pods(), "default", "anything").status().code() == StatusCode::kNotFound);

  ASSERT_TRUE(cluster_->Restart(0).ok());
  Result<ObjectPtr> created = Status(StatusCode::kServiceUnavailable, "not yet");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!created.ok() && std::chrono::steady_clock::now() < deadline) {
    created = a_->Create(pods(), testing::PodManifest("default", "after"));
  }
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(a_->Ready().ok());
  ASSERT_TRUE(Sees(*b_, std::stoull((*created)->metadata.resourceVersion)));
  EXPECT_TRUE(b_->Get(pods(), "default", "after").ok());
}

// etcd's documented backup and restore (docs/ha.md): a restored cluster serves the same objects
// to a new store, and a watch from before the snapshot is told to list again.
TEST_F(EtcdReplicasTest, ARestoredEtcdSnapshotServesTheSameObjects) {
  ASSERT_TRUE(a_->Create(pods(), testing::PodManifest("default", "kept")).ok());
  const uint64_t early = a_->CurrentResourceVersion();
  ASSERT_TRUE(a_->Create(pods(), testing::PodManifest("default", "kept-too")).ok());
  const std::string snapshot = cluster_->dir() + "/snapshot.db";
  ASSERT_TRUE(cluster_->SaveSnapshot(0, snapshot).ok());
  ASSERT_TRUE(a_->Create(pods(), testing::PodManifest("default", "lost")).ok());
  a_.reset();
  b_.reset();
  Status restored = cluster_->RestoreSnapshot(snapshot);
  ASSERT_TRUE(restored.ok()) << restored.ToString();
  auto c = Open();
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->Get(pods(), "default", "kept").ok());
  EXPECT_TRUE(c->Get(pods(), "default", "kept-too").ok());
  EXPECT_EQ(c->Get(pods(), "default", "lost").status().code(), StatusCode::kNotFound);
  auto w = c->Watch(&pods(), WatchOptions{.resource_version = early});
  ASSERT_TRUE(w.ok());
  WatchEvent ev;
  ASSERT_TRUE((*w)->WaitNext(ev, std::chrono::seconds(5)));
  EXPECT_EQ(ev.type, EventType::kError);
  EXPECT_EQ(ev.error.code(), StatusCode::kExpired);
  // And it takes writes again.
  EXPECT_TRUE(c->Create(pods(), testing::PodManifest("default", "after")).ok());
}

// A consistent read (WaitForLatest, what a GET or LIST without resourceVersion does) on one
// replica sees what the other has just acknowledged, also when etcd's newest revision was spent
// on a key outside the store's prefix (no change for the store to apply: progress tells it).
TEST_F(EtcdReplicasTest, AConsistentReadSeesTheOtherReplicasWrites) {
  for (int i = 0; i < 20; ++i) {
    const std::string name = "p" + std::to_string(i);
    ASSERT_TRUE(a_->Create(pods(), testing::PodManifest("default", name)).ok());
    Status st = b_->WaitForLatest();
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(b_->Get(pods(), "default", name).ok()) << name;
  }
  auto raw = RawClient();
  ASSERT_TRUE(raw);
  auto outside = raw->Put("/not-allot/key", "x");
  ASSERT_TRUE(outside.ok());
  Status st = b_->WaitForLatest();
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_GE(b_->CurrentResourceVersion(), static_cast<uint64_t>(*outside));
}

// A replica that fell behind past etcd's compaction cannot replay what it missed: it loads a
// snapshot again, ends its watches with 410 (their clients list again), and serves the fresh
// state; watches from before the snapshot get 410 too.
TEST_F(EtcdReplicasTest, AReplicaBehindTheCompactionLoadsASnapshotAgain) {
  HeldBackend* held = nullptr;
  auto c = Open(&held);
  ASSERT_TRUE(c);
  ASSERT_TRUE(a_->Create(pods(), testing::PodManifest("default", "gone")).ok());
  ASSERT_TRUE(c->WaitForLatest().ok());
  ASSERT_TRUE(c->Get(pods(), "default", "gone").ok());
  const uint64_t before = c->CurrentResourceVersion();
  auto w = c->Watch(&pods(), WatchOptions{.resource_version = before});
  ASSERT_TRUE(w.ok());

  held->Hold(true);
  ASSERT_TRUE(a_->Delete(pods(), "default", "gone").ok());
  auto created = a_->Create(pods(), testing::PodManifest("default", "new"));
  ASSERT_TRUE(created.ok());
  auto raw = RawClient();
  ASSERT_TRUE(raw);
  ASSERT_TRUE(
      raw->Compact(static_cast<int64_t>(std::stoull((*created)->metadata.resourceVersion))).ok());
  held->Hold(false);

  WatchEvent ev;
  ASSERT_TRUE((*w)->WaitNext(ev, std::chrono::seconds(10)));
  EXPECT_EQ(ev.type, EventType::kError);
  EXPECT_EQ(ev.error.code(), StatusCode::kExpired) << ev.error.ToString();
  ASSERT_TRUE(c->WaitForLatest().ok());
  EXPECT_TRUE(c->Get(pods(), "default", "new").ok());
  EXPECT_EQ(c->Get(pods(), "default", "gone").status().code(), StatusCode::kNotFound);
  auto late = c->Watch(&pods(), WatchOptions{.resource_version = before});
  ASSERT_TRUE(late.ok());
  ASSERT_TRUE((*late)->WaitNext(ev, std::chrono::seconds(5)));
  EXPECT_EQ(ev.type, EventType::kError);
  EXPECT_EQ(ev.error.code(), StatusCode::kExpired);
  // It follows again, and writes.
  EXPECT_TRUE(c->Ready().ok());
  auto more = a_->Create(pods(), testing::PodManifest("default", "more"));
  ASSERT_TRUE(more.ok());
  ASSERT_TRUE(Sees(*c, std::stoull((*more)->metadata.resourceVersion)));
  EXPECT_TRUE(c->Create(pods(), testing::PodManifest("default", "from-c")).ok());
}

// A list at a resourceVersion older than the replica's history (and its continue pages) is
// read from etcd at that revision, as kube-apiserver does; once etcd compacted it, 410.
TEST_F(EtcdReplicasTest, ListsOlderThanTheHistoryAreReadFromEtcd) {
  auto c = Open(nullptr, StoreOptions{.history_size = 4});
  ASSERT_TRUE(c);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        a_->Create(pods(), testing::PodManifest("default", "old-" + std::to_string(i))).ok());
  }
  ASSERT_TRUE(a_->Create(pods(), testing::PodManifest("kube-system", "elsewhere")).ok());
  ASSERT_TRUE(c->WaitForLatest().ok());
  const uint64_t then = c->CurrentResourceVersion();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        a_->Create(pods(), testing::PodManifest("default", "new-" + std::to_string(i))).ok());
  }
  ASSERT_TRUE(a_->Delete(pods(), "default", "old-1").ok());
  ASSERT_TRUE(c->WaitForLatest().ok());

  auto names = [](const ListResult& l) {
    std::vector<std::string> out;
    for (const auto& o : l.items) out.push_back(o->metadata.name);
    return out;
  };
  ListOptions at{.namespace_ = "default", .resource_version = then};
  auto whole = c->List(pods(), at);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(names(*whole), (std::vector<std::string>{"old-0", "old-1", "old-2"}));
  EXPECT_EQ(whole->resource_version, then);

  at.limit = 2;
  auto first = c->List(pods(), at);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(names(*first), (std::vector<std::string>{"old-0", "old-1"}));
  ASSERT_FALSE(first->continue_token.empty());
  ListOptions next{.namespace_ = "default", .limit = 2, .continue_token = first->continue_token};
  auto second = c->List(pods(), next);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(names(*second), (std::vector<std::string>{"old-2"}));
  EXPECT_TRUE(second->continue_token.empty());

  auto raw = RawClient();
  ASSERT_TRUE(raw);
  ASSERT_TRUE(raw->Compact(static_cast<int64_t>(c->CurrentResourceVersion())).ok());
  EXPECT_EQ(c->List(pods(), ListOptions{.resource_version = then}).status().code(),
            StatusCode::kExpired);
  auto expired = c->List(pods(), next);
  EXPECT_EQ(expired.status().code(), StatusCode::kExpired);
  EXPECT_NE(expired.status().message().find("continue parameter is too old"), std::string::npos);
}

}  // namespace
}  // namespace allot::store
