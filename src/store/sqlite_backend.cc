// SQLite backend: the embedded default, in the spirit of k3s/kine.
//
// One table of objects keyed by store key, plus the highest committed resourceVersion. The
// database runs in WAL mode with synchronous=FULL, so a COMMIT returns only after the WAL is
// fsynced: a write the Store acknowledges survives kill -9 and power loss. While open, the
// backend holds an exclusive lock on "<path>.lock" (common/file_lock.h). The Store calls
// Commit once per batch of writes (group commit), which is what makes this fast: one fsync
// covers thousands of writes.
#include <sqlite3.h>

#include <optional>

#include "common/file_lock.h"
#include "store/backend.h"

namespace allot::store {

namespace {

class SqliteBackend final : public Backend {
 public:
  ~SqliteBackend() override {
    for (sqlite3_stmt* s : {upsert_, remove_, set_rv_}) sqlite3_finalize(s);
    if (db_) sqlite3_close(db_);
  }

  Status Open(const std::string& path) {
    // One process at a time: a second server, or a restore, is refused while this one runs.
    ALLOT_ASSIGN_OR_RETURN(FileLock lock, FileLock::TryAcquire(path + ".lock", "the store"));
    lock_.emplace(std::move(lock));
    if (sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      return Error("open " + path);
    }
    sqlite3_busy_timeout(db_, 5000);
    ALLOT_RETURN_IF_ERROR(Exec("PRAGMA journal_mode=WAL"));
    ALLOT_RETURN_IF_ERROR(Exec("PRAGMA synchronous=FULL"));
    ALLOT_RETURN_IF_ERROR(
        Exec("CREATE TABLE IF NOT EXISTS objects (key TEXT PRIMARY KEY, value BLOB NOT NULL, "
             "rv INTEGER NOT NULL) WITHOUT ROWID"));
    ALLOT_RETURN_IF_ERROR(
        Exec("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)"));
    ALLOT_RETURN_IF_ERROR(
        Prepare("INSERT INTO objects(key, value, rv) VALUES(?1, ?2, ?3) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value, rv=excluded.rv",
                &upsert_));
    ALLOT_RETURN_IF_ERROR(Prepare("DELETE FROM objects WHERE key = ?1", &remove_));
    ALLOT_RETURN_IF_ERROR(
        Prepare("INSERT INTO meta(name, value) VALUES('rv', ?1) "
                "ON CONFLICT(name) DO UPDATE SET value=excluded.value",
                &set_rv_));
    return Status::Ok();
  }

  Status Load(const std::function<Status(std::string_view, std::string_view, uint64_t)>& fn,
              uint64_t& max_rv) override {
    max_rv = 0;
    sqlite3_stmt* q = nullptr;
    ALLOT_RETURN_IF_ERROR(Prepare("SELECT value FROM meta WHERE name = 'rv'", &q));
    if (sqlite3_step(q) == SQLITE_ROW) max_rv = static_cast<uint64_t>(sqlite3_column_int64(q, 0));
    sqlite3_finalize(q);
    ALLOT_RETURN_IF_ERROR(Prepare("SELECT key, value, rv FROM objects ORDER BY key", &q));
    Status st;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
      std::string_view key(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)),
                           static_cast<size_t>(sqlite3_column_bytes(q, 0)));
      std::string_view value(static_cast<const char*>(sqlite3_column_blob(q, 1)),
                             static_cast<size_t>(sqlite3_column_bytes(q, 1)));
      uint64_t rv = static_cast<uint64_t>(sqlite3_column_int64(q, 2));
      if (rv > max_rv) max_rv = rv;
      st = fn(key, value, rv);
      if (!st.ok()) break;
    }
    sqlite3_finalize(q);
    if (st.ok() && rc != SQLITE_DONE && rc != SQLITE_ROW) return Error("load");
    return st;
  }

  Status Commit(const std::vector<BackendWrite>& writes, uint64_t max_rv) override {
    ALLOT_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    Status st = WriteAll(writes, max_rv);
    if (!st.ok()) {
      Exec("ROLLBACK").ok();
      return st;
    }
    st = Exec("COMMIT");
    if (!st.ok()) Exec("ROLLBACK").ok();
    return st;
  }

  std::string_view Name() const override { return "sqlite"; }

 private:
  Status WriteAll(const std::vector<BackendWrite>& writes, uint64_t max_rv) {
    for (const BackendWrite& w : writes) {
      sqlite3_stmt* s = w.value.empty() ? remove_ : upsert_;
      sqlite3_reset(s);
      sqlite3_bind_text(s, 1, w.key.data(), static_cast<int>(w.key.size()), SQLITE_STATIC);
      if (!w.value.empty()) {
        sqlite3_bind_blob(s, 2, w.value.data(), static_cast<int>(w.value.size()), SQLITE_STATIC);
        sqlite3_bind_int64(s, 3, static_cast<sqlite3_int64>(w.resource_version));
      }
      if (sqlite3_step(s) != SQLITE_DONE) return Error("write " + w.key);
    }
    sqlite3_reset(set_rv_);
    sqlite3_bind_int64(set_rv_, 1, static_cast<sqlite3_int64>(max_rv));
    if (sqlite3_step(set_rv_) != SQLITE_DONE) return Error("write rv");
    return Status::Ok();
  }

  Status Exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = std::string("sqlite: ") + sql + ": " + (err ? err : "error");
      sqlite3_free(err);
      return InternalError(msg);
    }
    return Status::Ok();
  }

  Status Prepare(const char* sql, sqlite3_stmt** out) {
    if (sqlite3_prepare_v2(db_, sql, -1, out, nullptr) != SQLITE_OK) return Error(sql);
    return Status::Ok();
  }

  Status Error(const std::string& what) {
    return InternalError("sqlite: " + what + ": " + (db_ ? sqlite3_errmsg(db_) : "no database"));
  }

  std::optional<FileLock> lock_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* upsert_ = nullptr;
  sqlite3_stmt* remove_ = nullptr;
  sqlite3_stmt* set_rv_ = nullptr;
};

}  // namespace

Result<std::unique_ptr<Backend>> NewSqliteBackend(const std::string& path) {
  auto b = std::make_unique<SqliteBackend>();
  ALLOT_RETURN_IF_ERROR(b->Open(path));
  return std::unique_ptr<Backend>(std::move(b));
}

}  // namespace allot::store
