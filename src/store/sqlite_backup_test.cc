// Backup and restore of the SQLite store, and the lock that keeps a second process off it.
#include "store/sqlite_backup.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "store/store.h"
#include "store/testing/util.h"

namespace allot::store {
namespace {

class SqliteBackupTest : public ::testing::Test {
 protected:
  std::string Db(const std::string& name = "allot.db") { return dir_.path() + "/" + name; }

  std::unique_ptr<Store> Open(const std::string& db) {
    auto backend = NewSqliteBackend(db);
    EXPECT_TRUE(backend.ok()) << backend.status().ToString();
    if (!backend.ok()) return nullptr;
    auto s = std::make_unique<Store>(std::move(backend).value(), clock_);
    Status st = s->Open();
    EXPECT_TRUE(st.ok()) << st.ToString();
    return s;
  }
  const api::ResourceInfo& pods() { return testing::Resource("", "pods"); }
  ObjectPtr CreatePod(Store& s, const std::string& name) {
    auto r = s.Create(pods(), testing::PodManifest("default", name));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }
  size_t CountPods(Store& s) {
    auto l = s.List(pods(), api::ListOptions{});
    return l.ok() ? l->items.size() : 0;
  }

  allot::testing::TempDir dir_;
  FakeClock clock_;
};

TEST_F(SqliteBackupTest, ABackupWhileWritingIsAConsistentCopyOfWhatWasCommitted) {
  auto store = Open(Db());
  ASSERT_TRUE(store);
  for (int i = 0; i < 50; ++i) CreatePod(*store, "before-" + std::to_string(i));
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) {
      if (store->Create(pods(), testing::PodManifest("default", "during-" + std::to_string(i)))
              .ok()) {
        written++;
      }
    }
  });
  while (written < 20) std::this_thread::yield();
  auto info = BackupSqlite(Db(), Db("backup.db"));
  stop = true;
  writer.join();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_GE(info->objects, 50u + 20u);  // every pod committed before it began, at least

  // Restored into another data directory, the copy opens as a store with exactly those objects.
  auto restored = RestoreSqlite(Db("backup.db"), Db("restored.db"));
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  auto copy = Open(Db("restored.db"));
  ASSERT_TRUE(copy);
  const size_t copied = CountPods(*copy);
  EXPECT_GE(copied, 70u);
  EXPECT_LE(copied, 50u + static_cast<size_t>(written.load()));
  // A snapshot: nothing newer than its resourceVersion, no gap below it.
  auto listed = copy->List(pods(), api::ListOptions{});
  ASSERT_TRUE(listed.ok());
  for (const ObjectPtr& o : listed->items) {
    EXPECT_LE(std::stoull(o->metadata.resourceVersion), info->resource_version);
  }
  for (size_t i = 0; i + 50 < copied; ++i) {
    EXPECT_TRUE(copy->Get(pods(), "default", "during-" + std::to_string(i)).ok()) << i;
  }
  EXPECT_TRUE(copy->Get(pods(), "default", "before-49").ok());
}

TEST_F(SqliteBackupTest, RestoreIsRefusedWhileTheStoreIsOpenAndLeavesItAsItWas) {
  auto store = Open(Db());
  ASSERT_TRUE(store);
  CreatePod(*store, "p");
  ASSERT_TRUE(BackupSqlite(Db(), Db("backup.db")).ok());
  auto refused = RestoreSqlite(Db("backup.db"), Db());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kConflict);
  EXPECT_NE(refused.status().message().find("in use by another process"), std::string::npos);
  // A second server on the same store is refused the same way.
  auto second = NewSqliteBackend(Db());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kConflict);
  EXPECT_TRUE(store->Get(pods(), "default", "p").ok());
}

TEST_F(SqliteBackupTest, ABackupThatIsNotAnAllotStoreIsRefused) {
  {
    auto store = Open(Db());
    ASSERT_TRUE(store);
    CreatePod(*store, "p");
  }
  std::ofstream(Db("garbage.db")) << "this is not a database";
  auto r = RestoreSqlite(Db("garbage.db"), Db());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest) << r.status().ToString();
  EXPECT_EQ(RestoreSqlite(Db("missing.db"), Db()).status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(BackupSqlite(Db("missing.db"), Db("out.db")).status().code(), StatusCode::kNotFound);
  auto store = Open(Db());  // untouched
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->Get(pods(), "default", "p").ok());
}

TEST_F(SqliteBackupTest, AfterARestoreWatchesFromBeforeItEndWith410) {
  uint64_t seen_rv = 0;
  {
    auto store = Open(Db());
    ASSERT_TRUE(store);
    CreatePod(*store, "kept");
    ASSERT_TRUE(BackupSqlite(Db(), Db("backup.db")).ok());
    CreatePod(*store, "lost");  // after the backup: the restore undoes it
    seen_rv = store->CurrentResourceVersion();
  }
  auto info = RestoreSqlite(Db("backup.db"), Db());
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_GT(info->resource_version, seen_rv);
  auto store = Open(Db());
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->Get(pods(), "default", "kept").ok());
  EXPECT_EQ(store->Get(pods(), "default", "lost").status().code(), StatusCode::kNotFound);
  EXPECT_GT(store->CurrentResourceVersion(), seen_rv);
  // A client that saw `lost` resumes its watch: 410, so it lists again and learns it is gone.
  auto w = store->Watch(&pods(), WatchOptions{.resource_version = seen_rv});
  ASSERT_TRUE(w.ok());
  WatchEvent ev;
  ASSERT_TRUE((*w)->WaitNext(ev, std::chrono::seconds(5)));
  EXPECT_EQ(ev.type, EventType::kError);
  EXPECT_EQ(ev.error.code(), StatusCode::kExpired);
  // New writes continue past every resourceVersion handed out before.
  ObjectPtr next = CreatePod(*store, "new");
  ASSERT_TRUE(next);
  EXPECT_GT(std::stoull(next->metadata.resourceVersion), seen_rv);
}

}  // namespace
}  // namespace allot::store
