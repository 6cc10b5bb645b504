// EncodedObject: an object the store keeps encoded instead of decoded, and the one encoding the
// store keeps objects in (the history's replaced versions, and EncodedObject).
//
// The encoding is Kubernetes' protobuf message of the kind where the kind has one and the object
// fits it, else JSON; its first byte says which ('p' or 'j'). The scheduler's Scheduled Event is
// about 1,100 bytes decoded (its struct, its strings, its shared_ptr) and about 250 encoded.
//
// Events are kept encoded at rest (KeptEncoded): nothing in the process reads a stored Event
// decoded, and kube-apiserver likewise gives Events no watch cache (DefaultWatchCacheSizes sets
// "events" to 0), reading them from etcd, encoded, when asked. The store's index holds an
// EncodedObject for each: its metadata carries only what the index itself reads (name,
// namespace, uid, resourceVersion, ownerReferences); everything leaves the store decoded
// (Materialize), so no caller ever sees one. Its type() is a TypeInfo of its own, which As<T>
// never matches.
#pragma once

#include <string>
#include <string_view>

#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "common/status.h"

namespace allot::store {

// 'p' + protobuf message, or 'j' + JSON where protobuf cannot carry the object.
std::string EncodeForKeeping(const api::Object& obj);
// Reads what EncodeForKeeping wrote. Errors: 500 naming the resource (the store wrote it, so a
// failure is a bug).
Result<api::ObjectPtr> DecodeKept(const api::ResourceInfo& r, std::string_view encoded);

// Whether the store's index keeps objects of `r` encoded (core Events).
bool KeptEncoded(const api::ResourceInfo& r);

class EncodedObject final : public api::Object {
 public:
  // `obj` encoded, with the metadata the index reads.
  static api::ObjectPtr Make(const api::Object& obj);
  // The object as it is kept, or null for a decoded one.
  static const EncodedObject* Of(const api::Object& obj);

  const api::TypeInfo& type() const override;
  std::unique_ptr<api::Object> Clone() const override;
  const std::string& encoded() const { return encoded_; }

 private:
  std::string encoded_;
};

// `obj` decoded: itself unless it is an EncodedObject. Errors: DecodeKept's.
Result<api::ObjectPtr> Materialize(const api::ResourceInfo& r, const api::ObjectPtr& obj);

}  // namespace allot::store
