// HandlerGate: how a controller's informer handlers reach the controller, and stop reaching it.
//
// Handlers stay registered in shared informers after the controller stops (there is no
// RemoveHandler), so they capture a shared_ptr to a gate rather than the controller. A handler
// runs under the gate's lock; once Close() returned, no handler is inside the controller and none
// will enter it.
//
// Thread safety: thread-safe.
#pragma once

#include <mutex>

namespace allot::controllers {

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

}  // namespace allot::controllers
