// Periodic compaction of etcd's history, coordinated between API server replicas the way
// kube-apiserver does it: without a lease, through one key's version.
//
// Every interval each replica's compactor runs one Step: a transaction "if the key's version is
// still the one I saw last time, write the revision I see now". The one replica whose
// transaction succeeds is the only one that has seen the whole interval pass since the last
// round; it compacts at the revision it recorded one round earlier, so etcd always keeps at least
// one interval of history (what watches and `continue` tokens may still ask for). The others
// learn the key's new version and try again next interval.
//
// Thread safety: Step runs on one thread at a time; Start/Stop from the owner.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"
#include "etcd/client.h"

namespace allot::etcd {

class Compactor {
 public:
  // `key` holds the coordination state (kube-apiserver's "compact_rev_key").
  Compactor(Client& client, std::string key) : client_(client), key_(std::move(key)) {}
  ~Compactor() { Stop(); }

  // One round. Returns the revision compacted at, or 0 when this round compacted nothing (a
  // first round, or another replica's turn). Errors: etcd unreachable (503) and the like.
  Result<int64_t> Step();

  // Runs Step every `interval` on a thread of its own until Stop. Failures are logged.
  void Start(std::chrono::milliseconds interval);
  void Stop();

 private:
  Client& client_;
  const std::string key_;
  int64_t seen_version_ = 0;   // the key's version after the last round
  int64_t seen_revision_ = 0;  // etcd's revision at the last round: the next compaction point

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace allot::etcd
