// The options and results of API reads and writes, shared by every layer that reads or writes
// objects: the store (store/store.h), the clients (client/client.h) and the API server, which
// fills them from query parameters and request bodies (metav1.ListOptions, DeleteOptions, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/machinery/object.h"
#include "api/machinery/selector.h"

namespace allot::api {

struct WriteOptions {
  bool dry_run = false;
  // The request's fieldManager parameter; the API server records managedFields itself
  // (apiserver/rest/field_manager.h).
  std::string field_manager;
};

struct DeleteOptions : WriteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  // "Background" (default), "Foreground" or "Orphan".
  std::string propagation_policy;
  std::optional<int64_t> grace_period_seconds;
};

struct DeleteResult {
  // The object as last stored: with deletionTimestamp set when deletion waits for finalizers,
  // or its final state when it was removed.
  ObjectPtr object;
  bool removed = false;
};

struct ListOptions {
  std::string namespace_;  // empty: all namespaces (or cluster-scoped)
  api::LabelSelectorExpr label_selector;
  api::FieldSelectorExpr field_selector;
  int64_t limit = 0;           // 0: no limit
  std::string continue_token;  // from a previous page
  // 0: the latest state. Otherwise the list is served as of that resourceVersion when it is
  // still within the watch history (exact), else 410 Expired.
  uint64_t resource_version = 0;
};

struct ListResult {
  std::vector<ObjectPtr> items;
  uint64_t resource_version = 0;      // the snapshot this list reflects
  std::string continue_token;         // non-empty when more items remain
  int64_t remaining_item_count = -1;  // >= 0 when known and continue_token is set
};

}  // namespace allot::api
