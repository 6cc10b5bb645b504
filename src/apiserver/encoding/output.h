// The JSON shapes of responses that carry objects: lists, PartialObjectMetadata and
// meta.k8s.io/v1 Tables for `kubectl get` (api-reference §4.8).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/machinery/resources.h"
#include "apiserver/encoding/encode_cache.h"
#include "apiserver/rest/request_params.h"
#include "apiserver/transport/http_types.h"
#include "common/time.h"
#include "store/store.h"

namespace allot::apiserver {

// "PodList" for pods.
std::string ListKind(const api::ResourceInfo& r);

// {kind: PartialObjectMetadata, apiVersion: meta.k8s.io/v1, metadata: {...}}
std::string PartialMetadataJson(const api::Object& obj);

struct Page {
  const std::vector<api::ObjectPtr>* items = nullptr;
  std::string resource_version;
  std::string continue_token;
  int64_t remaining_item_count = -1;  // written when >= 0
};

// {kind: <Kind>List, apiVersion, metadata: {resourceVersion, continue?}, items: [...]}
std::string ListJson(const api::ResourceInfo& r, const Page& page, EncodeCache& cache);
// A PartialObjectMetadataList of the items.
std::string PartialMetadataListJson(const Page& page);

struct TableOptions {
  IncludeObject include_object = IncludeObject::kMetadata;
  std::string api_version = "meta.k8s.io/v1";  // or meta.k8s.io/v1beta1
  bool with_columns = true;  // false: later events of a watch (columnDefinitions omitted)
};
// A Table with one row per item: NAME first (format "name"), then the resource's columns, or
// NAME + "Created At" when it has none.
std::string TableJson(const api::ResourceInfo& r, const Page& page, Time now,
                      const TableOptions& options, EncodeCache& cache);

// --- protobuf (api/protobuf.h), for clients that name it first in Accept ---------------------

// The object's envelope; nullopt when it cannot travel as protobuf.
std::optional<std::string> ProtobufObject(const api::ObjectPtr& obj, EncodeCache& cache);
// The <Kind>List envelope; nullopt when an item cannot travel as protobuf.
std::optional<std::string> ProtobufList(const api::ResourceInfo& r, const Page& page,
                                        EncodeCache& cache);
// The encoding of a write's response: as Accept asks, and JSON when Accept names nothing we
// produce (writes have always answered JSON to any Accept).
Output WriteOutput(const Request& req);
// `obj` as a response in the encoding `out` prefers: protobuf when asked and possible, else
// JSON; a 406 when JSON is not acceptable either. For write responses (no table shapes).
Response ObjectResponse(int code, const api::ObjectPtr& obj, const Output& out, EncodeCache& cache);

// The object in the shape `out` asks for (object, PartialObjectMetadata, one-row Table; a watch
// sends columnDefinitions with its first Table only, `with_columns`).
std::string ObjectOutputJson(const api::ResourceInfo& r, const api::ObjectPtr& obj,
                             const Output& out, Time now, EncodeCache& cache,
                             bool with_columns = true);

}  // namespace allot::apiserver
