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

}  // namespace allot::client
