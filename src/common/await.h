// Waiting for an asynchronous call's callback: the synchronous forms of the store's and the
// clients' asynchronous methods are built with it.
//
//   Result<ObjectPtr> r = Await<ObjectPtr>([&](auto done) { CreateAsync(..., std::move(done)); });
#pragma once

#include <future>
#include <utility>

#include "common/status.h"

namespace allot {

// Calls `start` with a callback taking Result<T>, and blocks until that callback ran; returns
// what it was given. The callback may run on any thread, or inside `start`.
template <class T, class Start>
Result<T> Await(Start start) {
  std::promise<Result<T>> p;
  auto f = p.get_future();
  start([&p](Result<T> r) { p.set_value(std::move(r)); });
  return f.get();
}

}  // namespace allot
