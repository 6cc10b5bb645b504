// HandlerGate: how callbacks that outlive their target (a controller's informer handlers, a
// store watch's notify) reach it, and stop reaching it.
//
// Handlers stay registered in shared informers after the controller stops (there is no
// RemoveHandler), and a watch may call a notify it copied just before it was stopped, so they
// capture a shared_ptr to a gate rather than the target. A handler runs under the gate's lock;
// once Close() returned, no handler is inside the target and none will enter it.
//
// Thread safety: thread-safe.
#pragma once

#include <mutex>

namespace allot {

template <class T>
class HandlerGate {
 public:
  void Open(T* target) {
    std::lock_guard<std::mutex> lock(mu_);
    target_ = target;
  }
  void Close() { Open(nullptr); }
  // Runs f(target) if the gate is open.
  template <class F>
  void Call(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    if (target_) f(*target_);
  }

 private:
  std::mutex mu_;
  T* target_ = nullptr;  // guarded by mu_
};

}  // namespace allot
