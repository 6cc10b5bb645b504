// `allot backup --data-dir DIR --out FILE` and `allot restore --data-dir DIR --from FILE`: the
// embedded SQLite store's backup (online, while `allot serve` runs) and restore (while it does
// not). store/sqlite_backup.h says what each guarantees; docs/ha.md how to use them.
#include <cstdio>
#include <filesystem>

#include "cluster/cluster.h"
#include "common/flags.h"
#include "store/sqlite_backup.h"

namespace allot::cli {

int RunBackup(int argc, char** argv) {
  std::string data_dir = "./data";
  std::string out;
  Flags flags("allot backup",
              "Copies the embedded store of a data directory to a file, consistently, while "
              "`allot serve` may be running.");
  flags.String("data-dir", &data_dir, "the data directory of `allot serve`");
  flags.String("out", &out, "the backup file to write (required)");
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  if (out.empty()) {
    return flags.UsageError("--out is required");
  }
  auto info = store::BackupSqlite(cluster::SqliteDatabasePath(data_dir), out);
  if (!info.ok()) {
    std::fprintf(stderr, "allot backup: %s\n", info.status().message().c_str());
    return 1;
  }
  std::printf("allot backup: wrote %s: %llu objects at resourceVersion %llu\n", out.c_str(),
              static_cast<unsigned long long>(info->objects),
              static_cast<unsigned long long>(info->resource_version));
  return 0;
}

int RunRestore(int argc, char** argv) {
  std::string data_dir = "./data";
  std::string from;
  Flags flags("allot restore",
              "Replaces the embedded store of a data directory with a backup. The server must "
              "be stopped; clients' watches end with 410 Expired and they list again.");
  flags.String("data-dir", &data_dir, "the data directory of `allot serve`");
  flags.String("from", &from, "the backup file (required)");
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  if (from.empty()) {
    return flags.UsageError("--from is required");
  }
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  auto info = store::RestoreSqlite(from, cluster::SqliteDatabasePath(data_dir));
  if (!info.ok()) {
    std::fprintf(stderr, "allot restore: %s\n", info.status().message().c_str());
    return 1;
  }
  std::printf("allot restore: %s now holds %llu objects; resourceVersion continues at %llu\n",
              cluster::SqliteDatabasePath(data_dir).c_str(),
              static_cast<unsigned long long>(info->objects),
              static_cast<unsigned long long>(info->resource_version));
  return 0;
}

}  // namespace allot::cli
