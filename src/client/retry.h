// Read-modify-write of one object, repeated from a fresh read while the write meets a 409
// Conflict (someone else wrote the object in between): the one retry-on-conflict loop every
// component uses (client-go's retry.RetryOnConflict around a Get and an Update).
//
//   auto written = client::UpdateWithRetry(client, claims, ns, name, client::Write::kStatus,
//       [&](const api::Object& current) -> Result<std::unique_ptr<api::Object>> {
//         auto copy = current.Clone();
//         ... change it; return nullptr when nothing needs writing ...
//         return copy;
//       });
//
// No sleeps between attempts: each starts from a fresh read, so there is nothing to wait for.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "client/client.h"
#include "common/status.h"

namespace allot::client {

// Attempts of one read-modify-write before its last 409 is returned.
inline constexpr int kConflictAttempts = 8;

enum class Write { kUpdate, kStatus };  // Client::Update or Client::UpdateStatus

// The object a MutateFn wants written: `return Desired(std::move(copy));`, or `return Desired();`
// when nothing needs writing.
using Desired = std::unique_ptr<api::Object>;

// Returns the object to write given the current one (Desired), or an error, which ends the loop
// at once whatever its code (a 409 from here is not retried).
using MutateFn = std::function<Result<Desired>(const api::Object& current)>;

// Reads the object (or starts from `first`, a copy the caller just read), calls `mutate` and
// writes its result, until the write does not meet a 409 Conflict, at most `attempts` times.
// Returns the written object, the current one when `mutate` wrote nothing, the error of the
// read, of `mutate` or of the write, or the last 409 when every attempt conflicted.
Result<api::ObjectPtr> UpdateWithRetry(Client& client, const api::ResourceInfo& resource,
                                       std::string_view ns, std::string_view name, Write write,
                                       const MutateFn& mutate, api::ObjectPtr first = nullptr,
                                       int attempts = kConflictAttempts);

// Runs a task on a thread that may block (a worker pool's Submit).
using Executor = std::function<void(std::function<void()>)>;

// UpdateWithRetry without holding a thread while the server answers: `mutate` runs on `first`
// (required: the caller's latest copy) and the result is written asynchronously; `done` runs
// with the outcome on the client's completion thread (in-process: the store's committer), so it
// must not block. A 409 hands the remaining attempts, each from a fresh read as UpdateWithRetry
// makes them, to `retry_on`, and `done` then runs there. `mutate` may run on either thread.
// `client` and `resource` must outlive the write (they are kept by reference).
void UpdateWithRetryAsync(Client& client, const api::ResourceInfo& resource, Write write,
                          MutateFn mutate, api::ObjectPtr first, Executor retry_on,
                          std::function<void(Result<api::ObjectPtr>)> done,
                          int attempts = kConflictAttempts);

}  // namespace allot::client
