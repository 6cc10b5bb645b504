#include "client/retry.h"

namespace allot::client {

Result<api::ObjectPtr> UpdateWithRetry(Client& client, const api::ResourceInfo& resource,
                                       std::string_view ns, std::string_view name, Write write,
                                       const MutateFn& mutate, api::ObjectPtr first, int attempts) {
  Status last;  // the last 409
  api::ObjectPtr current = std::move(first);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (!current) {
      ALLOT_ASSIGN_OR_RETURN(current, client.Get(resource, ns, name));
    }
    ALLOT_ASSIGN_OR_RETURN(std::unique_ptr<api::Object> desired, mutate(*current));
    if (!desired) return current;
    Result<api::ObjectPtr> written = write == Write::kStatus
                                         ? client.UpdateStatus(resource, std::move(desired))
                                         : client.Update(resource, std::move(desired));
    if (written.ok() || written.status().code() != StatusCode::kConflict) return written;
    last = written.status();
    current = nullptr;  // read afresh
  }
  if (last.ok()) {
    return ConflictError(resource.QualifiedResource(), std::string(name), "no attempt was made");
  }
  return last;
}

void UpdateWithRetryAsync(Client& client, const api::ResourceInfo& resource, Write write,
                          MutateFn mutate, api::ObjectPtr first, Executor retry_on,
                          std::function<void(Result<api::ObjectPtr>)> done, int attempts) {
  Result<Desired> desired = mutate(*first);
  if (!desired.ok()) return done(desired.status());
  if (!*desired) return done(std::move(first));
  std::string ns = first->metadata.namespace_;
  std::string name = first->metadata.name;
  auto on_written = [&client, &resource, write, mutate = std::move(mutate),
                     retry_on = std::move(retry_on), done = std::move(done), attempts,
                     ns = std::move(ns), name = std::move(name)](Result<api::ObjectPtr> written) {
    if (written.ok() || written.status().code() != StatusCode::kConflict || attempts <= 1) {
      done(std::move(written));
      return;
    }
    retry_on([&client, &resource, write, mutate, done, attempts, ns, name] {
      done(UpdateWithRetry(client, resource, ns, name, write, mutate, nullptr, attempts - 1));
    });
  };
  if (write == Write::kStatus) {
    client.UpdateStatusAsync(resource, std::move(*desired), std::move(on_written));
  } else {
    client.UpdateAsync(resource, std::move(*desired), std::move(on_written));
  }
}

}  // namespace allot::client
