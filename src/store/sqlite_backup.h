// Backup and restore of the embedded SQLite store (`allot backup`, `allot restore`).
//
// A backup is SQLite's online backup of the database: a consistent copy of every committed
// write up to the moment it ran, taken while `allot serve` goes on serving (it reads; it does
// not stop writers). The copy is written to a temporary file and renamed, so the output is
// whole or absent.
//
// A restore replaces a data directory's database with a backup, only while no server has the
// store open (the store's lock). The backup's objects keep their resourceVersions; the store's
// resourceVersion is raised past both the backup's and the replaced database's, so that every
// resourceVersion a client saw before the restore is older than the restored store's history:
// their watches end with 410 Expired and they list again, rather than miss what the restore
// undid.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace allot::store {

struct BackupInfo {
  uint64_t resource_version = 0;  // the store's resourceVersion in the copy
  uint64_t objects = 0;
};

// Errors: the database cannot be read, the output cannot be written (500).
Result<BackupInfo> BackupSqlite(const std::string& db_path, const std::string& out_path);

// Errors: the store is open in another process (409 Conflict), the backup is not an intact
// Allot store (400), the database cannot be replaced (500). On error the database is as it was.
Result<BackupInfo> RestoreSqlite(const std::string& backup_path, const std::string& db_path);

}  // namespace allot::store
