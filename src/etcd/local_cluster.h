// A local etcd cluster of 1 or 3 members (Debian's etcd-server, /usr/bin/etcd) on free loopback
// ports in a temporary directory, removed with it: for the etcd client's and the store's tests,
// the end-to-end tests' fixtures, and `allot bench --store etcd`. Members can be killed
// (SIGKILL, as a crash) and started again on the same ports and data.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace allot::etcd {

// Client TLS for the members (files, PEM): they serve https with `cert_file`, and accept only
// clients whose certificate `ca_file` signed. Peers still talk plain HTTP on loopback.
struct LocalClusterTls {
  std::string ca_file, cert_file, key_file;
};

class LocalCluster {
 public:
  // Starts `size` members and waits (up to 30 s) until every one answers with a leader.
  // With `tls`, members serve https and readiness is judged by a client presenting `tls`'s
  // own certificate (which must then be valid for clients too). Errors: etcd missing or not
  // starting (500), not ready in time (504).
  static Result<std::unique_ptr<LocalCluster>> Start(int size,
                                                     const LocalClusterTls* tls = nullptr);
  ~LocalCluster();  // kills the members, removes the directory
  LocalCluster(const LocalCluster&) = delete;
  LocalCluster& operator=(const LocalCluster&) = delete;

  std::vector<std::string> endpoints() const;  // "http[s]://127.0.0.1:<port>", one per member
  std::string endpoint(int i) const;
  int size() const { return static_cast<int>(members_.size()); }
  const std::string& dir() const { return dir_; }

  // SIGKILL, as a crash.
  void Kill(int i);
  // Starts a killed member again on its ports and data.
  Status Restart(int i);

  // etcd's own backup: `etcdctl snapshot save` from member i into `file`.
  Status SaveSnapshot(int i, const std::string& file);
  // Replaces a single-member cluster's data with `file` (`etcdctl snapshot restore`) and starts
  // it again: etcd's documented restore.
  Status RestoreSnapshot(const std::string& file);

 private:
  struct Member {
    std::string name;
    int client_port = 0;
    int peer_port = 0;
    pid_t pid = -1;
  };

  LocalCluster() = default;
  Status Spawn(int i, bool existing = false);
  Status WaitReady(int i);

  std::string Url(int port) const;

  std::string dir_;
  std::vector<Member> members_;
  std::optional<LocalClusterTls> tls_;
};

}  // namespace allot::etcd
