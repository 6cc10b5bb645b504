// ClaimWrites: how the claim writes of one PreBind of DynamicResources end (claim_writes.cc).
// No thread waits on them: each claim's writes chain through the client's completion
// callbacks; the last to finish reports how PreBind ends (Finish), and AwaitPreBind picks that
// up (Then), in whichever order the two come. Thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>

#include "common/status.h"
#include "scheduler/framework/status.h"

namespace allot::scheduler::dra_plugin {

class ClaimWrites {
 public:
  explicit ClaimWrites(size_t claims) : pending_(claims) {}

  // One claim's writes ended (the first error is kept); the last call returns true, and the
  // caller then calls Finish.
  bool Done(allot::Status st) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!st.ok() && error_.ok()) error_ = std::move(st);
    return --pending_ == 0;
  }
  allot::Status error() const {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }
  // How PreBind ended, handed to the continuation, now or once Then gives it.
  void Finish(Status outcome) {
    std::function<void(Status)> then;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!then_) {
        outcome_ = std::move(outcome);
        return;
      }
      then = std::move(then_);
    }
    then(std::move(outcome));
  }
  // The continuation: runs with the outcome, now or once Finish gives it.
  void Then(std::function<void(Status)> then) {
    std::optional<Status> outcome;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!outcome_) {
        then_ = std::move(then);
        return;
      }
      outcome = std::move(outcome_);
    }
    then(std::move(*outcome));
  }

 private:
  mutable std::mutex mu_;
  size_t pending_;                    // guarded by mu_
  allot::Status error_;               // guarded by mu_
  std::optional<Status> outcome_;     // guarded by mu_
  std::function<void(Status)> then_;  // guarded by mu_
};

}  // namespace allot::scheduler::dra_plugin
