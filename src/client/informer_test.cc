// Informers over both clients: initial sync, handlers, indexes, resuming a watch that ended,
// relisting after 410 with the difference delivered, bookmarks, and the shared factory.
#include "client/informer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "client/informer_factory.h"
#include "client/testing/fixture.h"
#include "client/testing/forwarding_client.h"

namespace allot::client {
namespace {

// Forwards to another client; lets a test end the open watches and hold new ones back
// (to write while the informer is not watching), and counts lists and watches.
class GatedClient final : public client::ForwardingClient {
 public:
  explicit GatedClient(client::Client& inner) : ForwardingClient(inner) {}

  Result<api::ListResult> List(const ResourceInfo& r, const api::ListOptions& o) override {
    lists_++;
    return inner().List(r, o);
  }
  Result<std::unique_ptr<api::Watcher>> Watch(const ResourceInfo& r,
                                              const api::WatchOptions& o) override {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return open_; });
    }
    auto w = inner().Watch(r, o);
    if (!w.ok()) return w;
    std::lock_guard<std::mutex> lock(mu_);
    watches_++;
    from_rv_.push_back(o.resource_version);
    auto tracked = std::make_unique<Tracked>(*this, std::move(w).value());
    live_.push_back(tracked.get());
    cv_.notify_all();
    return std::unique_ptr<api::Watcher>(std::move(tracked));
  }

  // Holds new watches back, then ends the open ones (as a server or network would: the
  // events they held are lost, and the consumer is notified that the watch ended).
  void CloseAndEndWatches() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = false;
    for (Tracked* w : live_) w->End();
  }
  void OpenWatches() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  bool WaitForWatches(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return watches_ >= n; });
  }
  int watches() {
    std::lock_guard<std::mutex> lock(mu_);
    return watches_;
  }
  std::vector<uint64_t> watched_from() {
    std::lock_guard<std::mutex> lock(mu_);
    return from_rv_;
  }
  int lists() const { return lists_.load(); }

 private:
  class Tracked final : public api::Watcher {
   public:
    Tracked(GatedClient& owner, std::unique_ptr<api::Watcher> inner)
        : owner_(owner), inner_(std::move(inner)) {}
    ~Tracked() override {
      std::lock_guard<std::mutex> lock(owner_.mu_);
      auto& live = owner_.live_;
      live.erase(std::remove(live.begin(), live.end(), this), live.end());
    }
    bool Drain(std::vector<api::WatchEvent>& out) override { return inner_->Drain(out); }
    bool WaitNext(api::WatchEvent& out, std::chrono::milliseconds t) override {
      return inner_->WaitNext(out, t);
    }
    void SetNotify(std::function<void()> n) override {
      {
        std::lock_guard<std::mutex> lock(mu_);
        notify_ = n;
      }
      inner_->SetNotify(std::move(n));
    }
    uint64_t Progress() const override { return inner_->Progress(); }
    void Stop() override { inner_->Stop(); }

    void End() {
      inner_->Stop();
      std::function<void()> notify;
      {
        std::lock_guard<std::mutex> lock(mu_);
        notify = notify_;
      }
      if (notify) notify();
    }

   private:
    GatedClient& owner_;
    std::unique_ptr<api::Watcher> inner_;
    std::mutex mu_;
    std::function<void()> notify_;  // guarded by mu_
  };

  std::atomic<int> lists_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;               // guarded by mu_
  int watches_ = 0;                // guarded by mu_
  std::vector<uint64_t> from_rv_;  // guarded by mu_
  std::vector<Tracked*> live_;     // guarded by mu_
};

// Records handler calls as "add:<name>", "update:<name>", "delete:<name>".
class Recorder {
 public:
  EventHandler Handler() {
    return EventHandler{
        .on_add = [this](const ObjectPtr& o) { Record("add:" + o->metadata.name); },
        .on_update =
            [this](const ObjectPtr& old_obj, const ObjectPtr& new_obj) {
              EXPECT_EQ(old_obj->metadata.name, new_obj->metadata.name);
              EXPECT_NE(old_obj->metadata.resourceVersion, new_obj->metadata.resourceVersion);
              Record("update:" + new_obj->metadata.name);
            },
        .on_delete = [this](const ObjectPtr& o) { Record("delete:" + o->metadata.name); },
    };
  }
  bool WaitForCount(size_t n) {
    return waiter_.WaitFor([&] {
      std::lock_guard<std::mutex> lock(mu_);
      return events_.size() >= n;
    });
  }
  std::vector<std::string> events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }
  // The events from index `from` on.
  std::vector<std::string> Since(size_t from) {
    auto all = events();
    return std::vector<std::string>(all.begin() + std::min(from, all.size()), all.end());
  }

 private:
  void Record(std::string e) {
    waiter_.Notify([&] {
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back(std::move(e));
    });
  }
  Waiter waiter_;
  std::mutex mu_;                    // taken inside waiter_'s lock
  std::vector<std::string> events_;  // guarded by mu_
};

// Indexes objects by their "app" label.
void AddAppIndex(Informer& inf) {
  inf.AddIndex("app", [](const Object& o) {
    auto it = o.metadata.labels.find("app");
    return it == o.metadata.labels.end() ? std::vector<std::string>{}
                                         : std::vector<std::string>{it->second};
  });
}

class InformerTest : public ClientTest {
 protected:
  void TearDown() override {
    if (gated_) gated_->OpenWatches();
    informer_.reset();
    gated_.reset();
    ClientTest::TearDown();
  }

  // An informer on default-namespace pods through a GatedClient, started and synced.
  void StartInformer(std::function<void(Informer&)> configure = {}) {
    gated_ = std::make_unique<GatedClient>(*client_);
    InformerOptions opts;
    opts.namespace_ = "default";
    informer_ = std::make_unique<Informer>(*gated_, Pods(), opts);
    informer_->AddHandler(recorder_.Handler());
    if (configure) configure(*informer_);
    ASSERT_TRUE(informer_->Start().ok());
    ASSERT_TRUE(informer_->WaitForSync(std::chrono::seconds(10)));
  }

  std::vector<std::string> Names(std::vector<ObjectPtr> objs) {
    std::vector<std::string> out;
    for (const auto& o : objs) out.push_back(o->metadata.name);
    std::sort(out.begin(), out.end());
    return out;
  }

  Recorder recorder_;
  Recorder late_;  // for handlers added after the start
  std::unique_ptr<GatedClient> gated_;
  std::unique_ptr<Informer> informer_;
};
ALLOT_CLIENT_TEST_SUITE(InformerTest);

// An informer whose lists are refused (RBAC) stays out of sync and says why.
TEST_P(InformerTest, AnInformerThatMayNotListSaysWhy) {
  class Refusing final : public client::ForwardingClient {
   public:
    using ForwardingClient::ForwardingClient;
    Result<api::ListResult> List(const ResourceInfo&, const api::ListOptions&) override {
      return Status(StatusCode::kForbidden,
                    "pods is forbidden: User \"u\" cannot list resource \"pods\"");
    }
  };
  Refusing refusing(*client_);
  InformerFactory factory(refusing);
  factory.For(Pods());
  ASSERT_TRUE(factory.StartAll().ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (factory.Unsynced().find("Forbidden") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(factory.Unsynced(),
            R"(pods (Forbidden: pods is forbidden: User "u" cannot list resource "pods"))");
  factory.StopAll();
}

TEST_P(InformerTest, InitialSyncThenAddUpdateDelete) {
  CreatePod("p1");
  CreatePod("p2");
  CreatePod("p3");
  CreatePod("elsewhere", {}, "kube-system");
  StartInformer();
  EXPECT_TRUE(informer_->HasSynced());
  EXPECT_EQ(recorder_.events(), (std::vector<std::string>{"add:p1", "add:p2", "add:p3"}));
  EXPECT_EQ(Names(informer_->List()), (std::vector<std::string>{"p1", "p2", "p3"}));

  CreatePod("p4");
  auto p1 = Mutable(informer_->Get("default", "p1"));
  p1->metadata.labels["app"] = "web";
  ASSERT_OK(client_->Update(Pods(), std::move(p1)));
  auto deleted = client_->Delete(Pods(), "default", "p2");
  ASSERT_OK(deleted);
  ASSERT_TRUE(recorder_.WaitForCount(6));
  EXPECT_EQ(recorder_.Since(3), (std::vector<std::string>{"add:p4", "update:p1", "delete:p2"}));
  EXPECT_EQ(informer_->Get("default", "p1")->metadata.labels.at("app"), "web");
  EXPECT_EQ(informer_->Get("default", "p2"), nullptr);
  EXPECT_EQ(Names(informer_->List()), (std::vector<std::string>{"p1", "p3", "p4"}));
  EXPECT_GE(informer_->LastResourceVersion(), store_->CurrentResourceVersion());
  EXPECT_EQ(gated_->lists(), 1);
}

TEST_P(InformerTest, IndexLookups) {
  CreatePod("a");
  CreatePod("b");
  CreatePod("c");
  StartInformer([](Informer& inf) {
    inf.AddIndex("node", [](const Object& o) {
      const std::string& node = api::As<api::Pod>(o)->spec.nodeName;
      return node.empty() ? std::vector<std::string>{} : std::vector<std::string>{node};
    });
  });
  EXPECT_TRUE(informer_->ByIndex("node", "n1").empty());
  ASSERT_TRUE(client_->Bind("default", "a", "", "n1").ok());
  ASSERT_TRUE(client_->Bind("default", "b", "", "n1").ok());
  ASSERT_TRUE(client_->Bind("default", "c", "", "n2").ok());
  ASSERT_TRUE(informer_->WaitForResourceVersion(store_->CurrentResourceVersion(),
                                                std::chrono::seconds(10)));
  EXPECT_EQ(Names(informer_->ByIndex("node", "n1")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Names(informer_->ByIndex("node", "n2")), (std::vector<std::string>{"c"}));
  EXPECT_TRUE(informer_->ByIndex("node", "n3").empty());
  EXPECT_TRUE(informer_->ByIndex("nosuchindex", "n1").empty());

  ASSERT_OK(client_->Delete(Pods(), "default", "a"));
  ASSERT_TRUE(informer_->WaitForResourceVersion(store_->CurrentResourceVersion(),
                                                std::chrono::seconds(10)));
  EXPECT_EQ(Names(informer_->ByIndex("node", "n1")), (std::vector<std::string>{"b"}));

  // An index added after the start is built from the cache at once.
  informer_->AddIndex("name",
                      [](const Object& o) { return std::vector<std::string>{o.metadata.name}; });
  EXPECT_EQ(Names(informer_->ByIndex("name", "c")), (std::vector<std::string>{"c"}));
}

// An index follows updates: a value that changes moves the object, one that stays leaves it,
// and a value shared by several objects keeps the rest when one leaves.
TEST_P(InformerTest, IndexFollowsUpdates) {
  CreatePod("a");
  CreatePod("b");
  CreatePod("c");
  StartInformer([](Informer& inf) { AddAppIndex(inf); });
  auto relabel = [&](const std::string& name, const std::string& app) {
    auto pod = Mutable(informer_->Get("default", name));
    pod->metadata.labels["app"] = app;
    ASSERT_OK(client_->Update(Pods(), std::move(pod)));
    ASSERT_TRUE(informer_->WaitForResourceVersion(store_->CurrentResourceVersion(),
                                                  std::chrono::seconds(10)));
  };
  relabel("a", "web");
  relabel("b", "web");
  relabel("c", "web");
  EXPECT_EQ(Names(informer_->ByIndex("app", "web")), (std::vector<std::string>{"a", "b", "c"}));
  relabel("b", "db");
  EXPECT_EQ(Names(informer_->ByIndex("app", "web")), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(Names(informer_->ByIndex("app", "db")), (std::vector<std::string>{"b"}));
  relabel("a", "db");
  relabel("c", "web");  // the value stays: nothing moves
  EXPECT_EQ(Names(informer_->ByIndex("app", "web")), (std::vector<std::string>{"c"}));
  EXPECT_EQ(Names(informer_->ByIndex("app", "db")), (std::vector<std::string>{"a", "b"}));
  ASSERT_OK(client_->Delete(Pods(), "default", "c"));
  ASSERT_TRUE(informer_->WaitForResourceVersion(store_->CurrentResourceVersion(),
                                                std::chrono::seconds(10)));
  EXPECT_TRUE(informer_->ByIndex("app", "web").empty());
  relabel("b", "web");
  EXPECT_EQ(Names(informer_->ByIndex("app", "web")), (std::vector<std::string>{"b"}));
  EXPECT_EQ(Names(informer_->ByIndex("app", "db")), (std::vector<std::string>{"a"}));
}

// The cache keys each object by views of its own namespace and name: they must follow the
// object through updates (the replaced versions are freed), and order as "<ns>/<name>" does,
// where a namespace that prefixes another sorts by its '/'.
TEST_P(InformerTest, KeysFollowTheirObjectsAndOrderAsTheirStrings) {
  for (const char* ns : {"team", "team-a"}) {
    ASSERT_OK(client_->Create(testing::Resource("", "namespaces"),
                              testing::ObjectFromJson(std::string(R"({"apiVersion":"v1",
                                  "kind":"Namespace","metadata":{"name":")") +
                                                      ns + R"("}})")));
  }
  const std::string long_name = "a-pod-whose-name-is-longer-than-a-short-string";
  CreatePod(long_name, {}, "team");
  CreatePod(long_name, {}, "team-a");
  Informer inf(*client_, Pods(), InformerOptions{});  // every namespace
  AddAppIndex(inf);
  ASSERT_TRUE(inf.Start().ok());
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(10)));
  for (int round = 0; round < 20; ++round) {
    for (const char* ns : {"team", "team-a"}) {
      ObjectPtr current = inf.Get(ns, long_name);
      ASSERT_NE(current, nullptr) << ns << " round " << round;
      auto pod = Mutable(current);
      pod->metadata.labels["app"] = "web";
      pod->metadata.labels["round"] = std::to_string(round);
      ASSERT_OK(client_->Update(Pods(), std::move(pod)));
    }
    // Churn, so the memory of the replaced versions is reused.
    CreatePod("churn-" + std::to_string(round), {}, "team");
    ASSERT_TRUE(
        inf.WaitForResourceVersion(store_->CurrentResourceVersion(), std::chrono::seconds(10)));
  }
  for (const char* ns : {"team", "team-a"}) {
    ObjectPtr got = inf.Get(ns, long_name);
    ASSERT_NE(got, nullptr) << ns;
    EXPECT_EQ(got->metadata.labels.at("round"), "19");
  }
  std::vector<std::string> web;
  for (const ObjectPtr& o : inf.ByIndex("app", "web")) web.push_back(o->metadata.namespace_);
  EXPECT_EQ(web, (std::vector<std::string>{"team-a", "team"}));  // "team-a/..." < "team/..."
  ASSERT_OK(client_->Delete(Pods(), "team", long_name));
  ASSERT_TRUE(
      inf.WaitForResourceVersion(store_->CurrentResourceVersion(), std::chrono::seconds(10)));
  EXPECT_EQ(inf.Get("team", long_name), nullptr);
  EXPECT_EQ(inf.ByIndex("app", "web").size(), 1u);
}

TEST_P(InformerTest, LateHandlerSeesCacheAsAdds) {
  CreatePod("a");
  CreatePod("b");
  StartInformer();
  informer_->AddHandler(late_.Handler());
  ASSERT_TRUE(late_.WaitForCount(2));
  EXPECT_EQ(late_.events(), (std::vector<std::string>{"add:a", "add:b"}));
  CreatePod("c");
  ASSERT_TRUE(late_.WaitForCount(3));
  ASSERT_TRUE(recorder_.WaitForCount(3));
  EXPECT_EQ(late_.Since(2), (std::vector<std::string>{"add:c"}));
  EXPECT_EQ(recorder_.events(), (std::vector<std::string>{"add:a", "add:b", "add:c"}));
}

TEST_P(InformerTest, InitialListIsPaginated) {
  constexpr int kPods = 1100;
  Waiter waiter;
  std::atomic<int> done{0};
  for (int i = 0; i < kPods; ++i) {
    client_->CreateAsync(Pods(), testing::PodManifest("default", "p" + std::to_string(i)),
                         [&](Result<ObjectPtr> r) {
                           EXPECT_TRUE(r.ok()) << r.status().ToString();
                           waiter.Notify([&] { done++; });
                         });
  }
  ASSERT_TRUE(waiter.WaitFor([&] { return done.load() == kPods; }, std::chrono::seconds(60)));
  StartInformer();
  EXPECT_EQ(gated_->lists(), 3);  // 500 + 500 + 100
  EXPECT_EQ(informer_->List().size(), size_t{kPods});
  EXPECT_EQ(recorder_.events().size(), size_t{kPods});
}

TEST_P(InformerTest, ResumesFromLastVersionWhenTheWatchEnds) {
  CreatePod("p0");
  CreatePod("p1");
  StartInformer();
  ASSERT_TRUE(gated_->WaitForWatches(1));
  // The watch ends; the informer's next watch waits until we let it through.
  gated_->CloseAndEndWatches();
  const uint64_t seen = informer_->LastResourceVersion();
  CreatePod("p2");
  auto p1 = Mutable(informer_->Get("default", "p1"));
  p1->metadata.labels["v"] = "2";
  ASSERT_OK(client_->Update(Pods(), std::move(p1)));
  ASSERT_OK(client_->Delete(Pods(), "default", "p0"));
  gated_->OpenWatches();

  ASSERT_TRUE(recorder_.WaitForCount(5));
  EXPECT_EQ(recorder_.Since(2), (std::vector<std::string>{"add:p2", "update:p1", "delete:p0"}));
  EXPECT_EQ(gated_->lists(), 1) << "resumed, not relisted";
  ASSERT_GE(gated_->watches(), 2);
  EXPECT_EQ(gated_->watched_from()[1], seen);
  EXPECT_EQ(Names(informer_->List()), (std::vector<std::string>{"p1", "p2"}));
}

TEST_P(InformerTest, RelistsAfterExpiredAndDeliversTheDifference) {
  store::StoreOptions small;
  small.history_size = 4;
  Open(small);
  CreatePod("a");
  CreatePod("b");
  CreatePod("c");
  StartInformer();
  ASSERT_TRUE(gated_->WaitForWatches(1));
  gated_->CloseAndEndWatches();
  auto a = Mutable(informer_->Get("default", "a"));
  a->metadata.labels["v"] = "2";
  ASSERT_OK(client_->Update(Pods(), std::move(a)));
  ASSERT_OK(client_->Delete(Pods(), "default", "b"));
  CreatePod("d");
  // More writes than the history keeps: resuming from the informer's version is now 410.
  for (int i = 0; i < 6; ++i) CreateNode("n" + std::to_string(i));
  gated_->OpenWatches();

  ASSERT_TRUE(recorder_.WaitForCount(6));
  ASSERT_TRUE(informer_->WaitForResourceVersion(store_->CurrentResourceVersion(),
                                                std::chrono::seconds(10)));
  // Adds and updates in key order, then deletes; "c" did not change and is not reported.
  EXPECT_EQ(recorder_.Since(3), (std::vector<std::string>{"update:a", "add:d", "delete:b"}));
  EXPECT_EQ(gated_->lists(), 2);
  EXPECT_EQ(Names(informer_->List()), (std::vector<std::string>{"a", "c", "d"}));
  EXPECT_EQ(informer_->Get("default", "a")->metadata.labels.at("v"), "2");

  // And it keeps watching.
  CreatePod("e");
  ASSERT_TRUE(recorder_.WaitForCount(7));
  EXPECT_EQ(recorder_.Since(6), (std::vector<std::string>{"add:e"}));
}

// The same for a cluster-scoped resource: a relist reports only what changed (its keys have no
// namespace; an earlier version named them differently on the two sides of the comparison and
// reported every node as deleted).
TEST_P(InformerTest, ARelistOfClusterScopedObjectsDeliversOnlyTheDifference) {
  store::StoreOptions small;
  small.history_size = 4;
  Open(small);
  CreateNode("a");
  CreateNode("b");
  gated_ = std::make_unique<GatedClient>(*client_);
  informer_ = std::make_unique<Informer>(*gated_, Nodes(), InformerOptions{});
  informer_->AddHandler(recorder_.Handler());
  ASSERT_TRUE(informer_->Start().ok());
  ASSERT_TRUE(informer_->WaitForSync(std::chrono::seconds(10)));
  ASSERT_TRUE(gated_->WaitForWatches(1));
  gated_->CloseAndEndWatches();
  ASSERT_OK(client_->Delete(Nodes(), "", "b"));
  // More writes than the history keeps: resuming is now 410, and the informer relists.
  for (int i = 0; i < 6; ++i) CreatePod("p" + std::to_string(i));
  gated_->OpenWatches();
  ASSERT_TRUE(recorder_.WaitForCount(3));
  ASSERT_TRUE(informer_->WaitForResourceVersion(store_->CurrentResourceVersion(),
                                                std::chrono::seconds(10)));
  EXPECT_EQ(gated_->lists(), 2);
  EXPECT_EQ(recorder_.events(), (std::vector<std::string>{"add:a", "add:b", "delete:b"}));
  EXPECT_NE(informer_->Get("", "a"), nullptr);
}

// The server's watch timeout and bookmarks are features of HTTP watches.
class HttpInformerTest : public InformerTest {};
INSTANTIATE_TEST_SUITE_P(Http, HttpInformerTest, ::testing::Values("http", "https"));

TEST_P(HttpInformerTest, ResumesAfterTheServerTimesTheWatchOut) {
  HttpClientOptions options;
  options.watch_timeout = std::chrono::seconds(30);
  Open({}, options);
  CreatePod("p0");
  StartInformer();
  ASSERT_TRUE(gated_->WaitForWatches(1));
  clock_.Advance(std::chrono::seconds(31));
  server_->WakeStreams();
  ASSERT_TRUE(gated_->WaitForWatches(2));
  CreatePod("p1");
  ASSERT_TRUE(recorder_.WaitForCount(2));
  EXPECT_EQ(recorder_.events(), (std::vector<std::string>{"add:p0", "add:p1"}));
  EXPECT_EQ(gated_->lists(), 1);
}

TEST_P(HttpInformerTest, BookmarksAdvanceTheResourceVersion) {
  CreatePod("p0");
  StartInformer();
  ASSERT_TRUE(gated_->WaitForWatches(1));
  CreateNode("n1");  // another resource: no pod event carries this version
  const uint64_t rv = store_->CurrentResourceVersion();
  EXPECT_LT(informer_->LastResourceVersion(), rv);
  clock_.Advance(std::chrono::seconds(2));
  server_->WakeStreams();
  EXPECT_TRUE(informer_->WaitForResourceVersion(rv, std::chrono::seconds(10)));
  EXPECT_EQ(recorder_.events(), (std::vector<std::string>{"add:p0"}));
}

TEST_P(InformerTest, BadSelectorFailsStart) {
  InformerOptions opts;
  opts.label_selector = "a b";
  Informer informer(*client_, Pods(), opts);
  Status st = informer.Start();
  EXPECT_EQ(st.code(), StatusCode::kBadRequest);
}

TEST_P(InformerTest, FactorySharesInformers) {
  CreatePod("a");
  CreateNode("n1");
  Recorder rec;
  Recorder later;
  InformerFactory factory(*client_);  // stops its informers before the recorders go away
  Informer& pods1 = factory.For(Pods());
  Informer& pods2 = factory.For(Pods());
  InformerOptions in_default;
  in_default.namespace_ = "default";
  Informer& default_pods = factory.For(Pods(), in_default);
  Informer& nodes = factory.For(Nodes());
  EXPECT_EQ(&pods1, &pods2);
  EXPECT_NE(&pods1, &default_pods);
  pods1.AddHandler(rec.Handler());
  ASSERT_TRUE(factory.StartAll().ok());
  ASSERT_TRUE(factory.WaitForCacheSync(std::chrono::seconds(10)));
  EXPECT_TRUE(pods1.HasSynced());
  EXPECT_TRUE(nodes.HasSynced());
  EXPECT_EQ(Names(nodes.List()), (std::vector<std::string>{"n1"}));
  EXPECT_EQ(rec.events(), (std::vector<std::string>{"add:a"}));
  // A component arriving later shares the running informer.
  factory.For(Pods()).AddHandler(later.Handler());
  ASSERT_TRUE(later.WaitForCount(1));
  EXPECT_EQ(later.events(), (std::vector<std::string>{"add:a"}));
  factory.StopAll();
}

}  // namespace
}  // namespace allot::client
