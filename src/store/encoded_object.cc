#include "store/encoded_object.h"

#include "api/codec/codec.h"
#include "api/protobuf.h"

namespace allot::store {

std::string EncodeForKeeping(const api::Object& obj) {
  std::string out(1, 'p');
  if (!api::EncodeProtobufMessage(obj, out)) {
    // No message for the kind, or a field protobuf cannot carry (a pod's probe).
    out.assign(1, 'j');
    out += api::EncodeJson(obj);
  }
  out.shrink_to_fit();
  return out;
}

Result<api::ObjectPtr> DecodeKept(const api::ResourceInfo& r, std::string_view encoded) {
  auto undecodable = [&r](const Status& why) {
    return InternalError("the store keeps " + r.QualifiedResource() +
                         " it cannot read back: " + why.message());
  };
  if (encoded.empty()) return undecodable(InternalError("nothing was kept"));
  std::string_view body = encoded.substr(1);
  if (encoded[0] == 'p') {
    auto obj = api::DecodeProtobufMessage(*r.type, body);
    if (!obj.ok()) return undecodable(obj.status());
    return api::ObjectPtr(std::move(obj).value());
  }
  api::DecodeOptions opts;
  opts.expected = r.type;
  auto decoded = api::DecodeJson(body, opts);
  if (!decoded.ok()) return undecodable(decoded.status());
  return api::ObjectPtr(std::move(decoded->object));
}

namespace {

const api::TypeInfo& EncodedType() {
  // No functions: nothing outside the store ever holds an EncodedObject (Materialize).
  static const api::TypeInfo kType = [] {
    api::TypeInfo t;
    t.kind = "EncodedObject";
    return t;
  }();
  return kType;
}

}  // namespace

bool KeptEncoded(const api::ResourceInfo& r) {
  // The one policy, as kube-apiserver's DefaultWatchCacheSizes is one map: core Events (this
  // build serves no events.k8s.io resource of its own).
  return r.group.empty() && r.resource == "events";
}

api::ObjectPtr EncodedObject::Make(const api::Object& obj) {
  auto kept = std::make_shared<EncodedObject>();
  kept->metadata.name = obj.metadata.name;
  kept->metadata.namespace_ = obj.metadata.namespace_;
  kept->metadata.uid = obj.metadata.uid;
  kept->metadata.resourceVersion = obj.metadata.resourceVersion;
  kept->metadata.ownerReferences = obj.metadata.ownerReferences;
  kept->encoded_ = EncodeForKeeping(obj);
  return kept;
}

const EncodedObject* EncodedObject::Of(const api::Object& obj) {
  return &obj.type() == &EncodedType() ? static_cast<const EncodedObject*>(&obj) : nullptr;
}

const api::TypeInfo& EncodedObject::type() const { return EncodedType(); }

std::unique_ptr<api::Object> EncodedObject::Clone() const {
  return std::make_unique<EncodedObject>(*this);
}

Result<api::ObjectPtr> Materialize(const api::ResourceInfo& r, const api::ObjectPtr& obj) {
  if (!obj) return obj;
  if (const EncodedObject* kept = EncodedObject::Of(*obj)) return DecodeKept(r, kept->encoded());
  return obj;
}

}  // namespace allot::store
