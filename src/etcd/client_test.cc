// The etcd client against real etcd members (etcd/local_cluster.h): reads and writes,
// transactions guarded by mod_revision, historical reads and compaction, watches, and what a
// dead member or an unreachable cluster looks like to the caller.
#include "etcd/client.h"

#include <gtest/gtest.h>

#include "etcd/compactor.h"
#include "etcd/local_cluster.h"

namespace allot::etcd {
namespace {

class EtcdClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto c = LocalCluster::Start(1);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cluster_ = c->release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    Options o;
    o.endpoints = cluster_->endpoints();
    auto c = Client::Connect(o);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    client_ = std::move(c).value();
    // Each test under a prefix of its own.
    prefix_ =
        std::string("/t/") + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "/";
  }

  static LocalCluster* cluster_;
  std::unique_ptr<Client> client_;
  std::string prefix_;
};
LocalCluster* EtcdClientTest::cluster_ = nullptr;

TEST_F(EtcdClientTest, PutRangeAndDelete) {
  auto r1 = client_->Put(prefix_ + "a", "1");
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  auto r2 = client_->Put(prefix_ + "b", "2");
  ASSERT_TRUE(r2.ok());
  EXPECT_GT(*r2, *r1);
  ASSERT_TRUE(client_->Put(prefix_ + "c", "3").ok());

  auto all = client_->Range(prefix_, PrefixEnd(prefix_));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->kvs.size(), 3u);
  EXPECT_EQ(all->kvs[0].key, prefix_ + "a");
  EXPECT_EQ(all->kvs[0].value, "1");
  EXPECT_EQ(all->kvs[0].mod_revision, *r1);
  EXPECT_EQ(all->kvs[0].version, 1);
  EXPECT_GE(all->revision, *r2);

  auto page = client_->Range(prefix_, PrefixEnd(prefix_), 0, 2);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->kvs.size(), 2u);
  EXPECT_TRUE(page->more);
  EXPECT_EQ(page->count, 3);

  // The past, at a revision.
  auto before = client_->Range(prefix_, PrefixEnd(prefix_), *r1);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->kvs.size(), 1u);

  auto deleted = client_->Delete(prefix_ + "b");
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 1);
  auto one = client_->Range(prefix_ + "b", "");
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(one->kvs.empty());
  EXPECT_EQ(*client_->Delete(prefix_, PrefixEnd(prefix_)), 2);
}

TEST_F(EtcdClientTest, TransactionsAreGuardedByModRevision) {
  const std::string key = prefix_ + "obj";
  // Create only if absent (mod_revision 0).
  Txn create{{Compare::ModRevisionIs(key, 0)}, {Op::Put(key, "v1")}, {Op::Get(key)}};
  auto created = client_->Commit(create);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(created->succeeded);
  const int64_t rv = created->revision;
  auto again = client_->Commit(create);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->succeeded);  // exists: the failure branch read it
  ASSERT_EQ(again->results.size(), 1u);
  ASSERT_EQ(again->results[0].kvs.size(), 1u);
  EXPECT_EQ(again->results[0].kvs[0].value, "v1");
  EXPECT_EQ(again->results[0].kvs[0].mod_revision, rv);

  // Update at the revision read: once.
  Txn update{{Compare::ModRevisionIs(key, rv)}, {Op::Put(key, "v2")}, {}};
  auto updated = client_->Commit(update);
  ASSERT_TRUE(updated.ok());
  EXPECT_TRUE(updated->succeeded);
  auto stale = client_->Commit(update);
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->succeeded);

  // Several writes in one transaction share its revision.
  Txn both{{}, {Op::Put(prefix_ + "x", "1"), Op::Put(prefix_ + "y", "2"), Op::Delete(key)}, {}};
  auto written = client_->Commit(both);
  ASSERT_TRUE(written.ok());
  ASSERT_EQ(written->results.size(), 3u);
  EXPECT_EQ(written->results[2].deleted, 1);
  ASSERT_EQ(written->results[2].kvs.size(), 1u);
  EXPECT_EQ(written->results[2].kvs[0].value, "v2");  // what was deleted
  auto xy = client_->Range(prefix_ + "x", prefix_ + "z");
  ASSERT_TRUE(xy.ok());
  ASSERT_EQ(xy->kvs.size(), 2u);
  EXPECT_EQ(xy->kvs[0].mod_revision, written->revision);
  EXPECT_EQ(xy->kvs[1].mod_revision, written->revision);
}

TEST_F(EtcdClientTest, WatchesDeliverChangesInOrderFromARevision) {
  const std::string key = prefix_ + "w";
  auto first = client_->Put(key, "1");
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(client_->Put(key, "2").ok());
  ASSERT_TRUE(client_->Delete(key).ok());

  WatchOptions o;
  o.key = prefix_;
  o.range_end = PrefixEnd(prefix_);
  o.start_revision = *first;  // inclusive
  o.prev_kv = true;
  auto w = client_->StartWatch(o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::vector<WatchEvent> seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool live = false;
  while (seen.size() < 4 && std::chrono::steady_clock::now() < deadline) {
    if (seen.size() == 3 && !live) {  // a live one too
      ASSERT_TRUE(client_->Put(key, "3").ok());
      live = true;
    }
    auto batch = (*w)->Next(std::chrono::milliseconds(200));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    seen.insert(seen.end(), batch->begin(), batch->end());
  }
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].type, WatchEvent::Type::kPut);
  EXPECT_EQ(seen[0].kv.value, "1");
  EXPECT_EQ(seen[1].kv.value, "2");
  EXPECT_EQ(seen[1].prev_kv.value, "1");
  EXPECT_EQ(seen[2].type, WatchEvent::Type::kDelete);
  EXPECT_EQ(seen[2].prev_kv.value, "2");
  EXPECT_EQ(seen[3].kv.value, "3");
  EXPECT_LT(seen[0].kv.mod_revision, seen[1].kv.mod_revision);
  (*w)->Cancel();
  EXPECT_FALSE((*w)->Next(std::chrono::milliseconds(0)).ok());
}

TEST_F(EtcdClientTest, CompactedRevisionsAre410ForReadsAndWatches) {
  auto old = client_->Put(prefix_ + "k", "1");
  ASSERT_TRUE(old.ok());
  auto now = client_->Put(prefix_ + "k", "2");
  ASSERT_TRUE(now.ok());
  ASSERT_TRUE(client_->Compact(*now).ok());
  auto past = client_->Range(prefix_ + "k", "", *old);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().code(), StatusCode::kExpired) << past.status().ToString();

  WatchOptions o;
  o.key = prefix_ + "k";
  o.start_revision = *old;
  auto w = client_->StartWatch(o);
  ASSERT_TRUE(w.ok());
  Result<std::vector<WatchEvent>> r = std::vector<WatchEvent>{};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (r.ok() && std::chrono::steady_clock::now() < deadline) {
    r = (*w)->Next(std::chrono::milliseconds(200));
  }
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kExpired) << r.status().ToString();
}

// Two replicas' compactors on one key (kube-apiserver's scheme): each round exactly one of them
// compacts, at the revision it saw one round earlier, so one round of history always remains.
TEST_F(EtcdClientTest, CompactorsTakeTurnsAndKeepOneRoundOfHistory) {
  Compactor a(*client_, prefix_ + "compact_rev_key");
  Compactor b(*client_, prefix_ + "compact_rev_key");
  // Round 1: a records where round 2 compacts; b finds a's write and learns its version.
  auto a1 = a.Step();
  ASSERT_TRUE(a1.ok()) << a1.status().ToString();
  EXPECT_EQ(*a1, 0);
  auto b1 = b.Step();
  ASSERT_TRUE(b1.ok());
  EXPECT_EQ(*b1, 0);
  auto old = client_->Put(prefix_ + "k", "1");
  ASSERT_TRUE(old.ok());
  ASSERT_TRUE(client_->Put(prefix_ + "k", "2").ok());
  // Round 2: b goes first and wins (it saw the key's current version); a is told.
  auto b2 = b.Step();
  ASSERT_TRUE(b2.ok()) << b2.status().ToString();
  EXPECT_GT(*b2, 0);
  EXPECT_LT(*b2, *old);  // what b saw in round 1, before the writes
  auto a2 = a.Step();
  ASSERT_TRUE(a2.ok());
  EXPECT_EQ(*a2, 0);
  // The writes since are still readable at their revision.
  EXPECT_TRUE(client_->Range(prefix_ + "k", "", *old, 0).ok());
  // Round 3: a wins now and compacts past the first write.
  auto a3 = a.Step();
  ASSERT_TRUE(a3.ok());
  EXPECT_GT(*a3, *old);
  EXPECT_EQ(client_->Range(prefix_ + "k", "", *old, 0).status().code(), StatusCode::kExpired);
  auto b3 = b.Step();
  ASSERT_TRUE(b3.ok());
  EXPECT_EQ(*b3, 0);
}

// A progress notification asked for reports the watch current at etcd's newest revision, also
// when that revision was spent on keys the watch does not cover.
TEST_F(EtcdClientTest, ARequestedProgressNotificationReportsTheRevision) {
  WatchOptions o;
  o.key = prefix_;
  o.range_end = PrefixEnd(prefix_);
  auto w = client_->StartWatch(o);
  ASSERT_TRUE(w.ok());
  auto elsewhere = client_->Put(prefix_.substr(0, prefix_.size() - 1) + "-other", "x");
  ASSERT_TRUE(elsewhere.ok());
  int64_t progress = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (progress < *elsewhere && std::chrono::steady_clock::now() < deadline) {
    (*w)->RequestProgress();
    auto events = (*w)->Next(std::chrono::milliseconds(200), &progress);
    ASSERT_TRUE(events.ok()) << events.status().ToString();
    EXPECT_TRUE(events->empty());
  }
  EXPECT_GE(progress, *elsewhere);
}

TEST(EtcdUnreachableTest, RequestsFailWith503) {
  Options o;
  o.endpoints = {"http://127.0.0.1:1"};  // nothing listens on port 1
  o.request_timeout = std::chrono::milliseconds(2000);
  auto c = Client::Connect(o);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Range("/a", "");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().code() == StatusCode::kServiceUnavailable ||
              r.status().code() == StatusCode::kTimeout)
      << r.status().ToString();
  EXPECT_EQ(Client::Connect({.endpoints = {"ftp://x:1"}}).status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(Client::Connect({}).status().code(), StatusCode::kBadRequest);
}

TEST(EtcdThreeMembersTest, ALostMemberIsLeftForTheOthers) {
  auto cluster = LocalCluster::Start(3);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  Options o;
  o.endpoints = (*cluster)->endpoints();
  auto c = Client::Connect(o);
  ASSERT_TRUE(c.ok());
  Client& client = **c;
  ASSERT_TRUE(client.Put("/k", "1").ok());
  (*cluster)->Kill(0);  // the member the client talks to first
  // Reads go on at once on another member; a write may fail once (it is not retried: it might
  // have been applied), then goes to another member.
  auto read = client.Range("/k", "");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->kvs.size(), 1u);
  Result<int64_t> put = client.Put("/k", "2");
  if (!put.ok()) {
    EXPECT_EQ(put.status().code(), StatusCode::kServiceUnavailable) << put.status().ToString();
    put = client.Put("/k", "2");
  }
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  // The member comes back and catches up.
  ASSERT_TRUE((*cluster)->Restart(0).ok());
  Options only0;
  only0.endpoints = {(*cluster)->endpoint(0)};
  auto c0 = Client::Connect(only0);
  ASSERT_TRUE(c0.ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::string value;
  while (value != "2" && std::chrono::steady_clock::now() < deadline) {
    auto r = (*c0)->Range("/k", "");
    if (r.ok() && !r->kvs.empty()) value = r->kvs[0].value;
  }
  EXPECT_EQ(value, "2");
}

}  // namespace
}  // namespace allot::etcd
