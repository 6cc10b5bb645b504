#include "store/sqlite_backup.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "common/file_lock.h"

namespace allot::store {

namespace {

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using Db = std::unique_ptr<sqlite3, CloseDb>;

Result<Db> OpenDb(const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    return InternalError("sqlite: open " + path + ": " +
                         (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(raw, 5000);
  return db;
}

// Copies every page of `from` into `to` (SQLite's online backup, in one step: one consistent
// read transaction on the source).
Status CopyDb(sqlite3* from, sqlite3* to, const std::string& what) {
  sqlite3_backup* b = sqlite3_backup_init(to, "main", from, "main");
  if (!b) return InternalError("sqlite: " + what + ": " + sqlite3_errmsg(to));
  int rc = sqlite3_backup_step(b, -1);
  sqlite3_backup_finish(b);
  if (rc != SQLITE_DONE) return InternalError("sqlite: " + what + ": " + sqlite3_errstr(rc));
  return Status::Ok();
}

Result<int64_t> QueryInt(sqlite3* db, const char* sql) {
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &q, nullptr) != SQLITE_OK) {
    return Status(StatusCode::kBadRequest,
                  std::string("not an Allot store: ") + sqlite3_errmsg(db));
  }
  int64_t v = 0;
  if (sqlite3_step(q) == SQLITE_ROW) v = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return v;
}

// What a copy holds; 400 when it is not an intact Allot store.
Result<BackupInfo> Inspect(sqlite3* db, const std::string& path) {
  sqlite3_stmt* q = nullptr;
  std::string integrity = "unreadable";
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, nullptr) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW) {
    integrity = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
  }
  sqlite3_finalize(q);
  if (integrity != "ok") {
    return Status(StatusCode::kBadRequest, path + " is not an intact database: " + integrity);
  }
  BackupInfo info;
  auto rv = QueryInt(db, "SELECT value FROM meta WHERE name = 'rv'");
  auto objects = QueryInt(db, "SELECT count(*) FROM objects");
  if (!rv.ok() || !objects.ok()) {
    return Status(StatusCode::kBadRequest, path +
                                               " is not an Allot store (no objects or meta "
                                               "table)");
  }
  info.resource_version = static_cast<uint64_t>(*rv);
  info.objects = static_cast<uint64_t>(*objects);
  return info;
}

}  // namespace

Result<BackupInfo> BackupSqlite(const std::string& db_path, const std::string& out_path) {
  if (::access(db_path.c_str(), R_OK) != 0) {
    return Status(StatusCode::kNotFound, "no store at " + db_path);
  }
  ALLOT_ASSIGN_OR_RETURN(Db src, OpenDb(db_path, SQLITE_OPEN_READWRITE));
  const std::string tmp = out_path + ".tmp";
  std::remove(tmp.c_str());
  Result<BackupInfo> info = [&]() -> Result<BackupInfo> {
    ALLOT_ASSIGN_OR_RETURN(Db dst, OpenDb(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
    ALLOT_RETURN_IF_ERROR(CopyDb(src.get(), dst.get(), "backup of " + db_path));
    return Inspect(dst.get(), tmp);
  }();
  if (!info.ok() || std::rename(tmp.c_str(), out_path.c_str()) != 0) {
    std::remove(tmp.c_str());
    if (info.ok()) return InternalError("cannot write " + out_path);
  }
  return info;
}

Result<BackupInfo> RestoreSqlite(const std::string& backup_path, const std::string& db_path) {
  ALLOT_ASSIGN_OR_RETURN(FileLock lock, FileLock::TryAcquire(db_path + ".lock", "the store"));
  if (::access(backup_path.c_str(), R_OK) != 0) {
    return Status(StatusCode::kBadRequest, "cannot read the backup " + backup_path);
  }
  // The replaced database's resourceVersion, if there is one.
  uint64_t old_rv = 0;
  if (::access(db_path.c_str(), R_OK) == 0) {
    ALLOT_ASSIGN_OR_RETURN(Db old, OpenDb(db_path, SQLITE_OPEN_READWRITE));
    auto rv = QueryInt(old.get(), "SELECT value FROM meta WHERE name = 'rv'");
    if (rv.ok()) old_rv = static_cast<uint64_t>(*rv);
  }
  const std::string tmp = db_path + ".restore";
  std::remove(tmp.c_str());
  Result<BackupInfo> info = [&]() -> Result<BackupInfo> {
    ALLOT_ASSIGN_OR_RETURN(Db src, OpenDb(backup_path, SQLITE_OPEN_READONLY));
    ALLOT_ASSIGN_OR_RETURN(BackupInfo in, Inspect(src.get(), backup_path));
    ALLOT_ASSIGN_OR_RETURN(Db dst, OpenDb(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
    ALLOT_RETURN_IF_ERROR(CopyDb(src.get(), dst.get(), "restore from " + backup_path));
    // Past every resourceVersion handed out before: older watches end with 410.
    const uint64_t rv = std::max(in.resource_version, old_rv) + 1;
    const std::string sql = "INSERT INTO meta(name, value) VALUES('rv', " + std::to_string(rv) +
                            ") ON CONFLICT(name) DO UPDATE SET value=excluded.value";
    if (sqlite3_exec(dst.get(), sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      return InternalError(std::string("sqlite: restore: ") + sqlite3_errmsg(dst.get()));
    }
    in.resource_version = rv;
    return in;
  }();
  if (!info.ok()) {
    std::remove(tmp.c_str());
    return info;
  }
  // The old write-ahead log must not be replayed into the restored database.
  for (const char* suffix : {"-wal", "-shm"}) std::remove((db_path + suffix).c_str());
  std::remove((tmp + "-wal").c_str());
  std::remove((tmp + "-shm").c_str());
  if (std::rename(tmp.c_str(), db_path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return InternalError("cannot replace " + db_path);
  }
  return info;
}

}  // namespace allot::store
