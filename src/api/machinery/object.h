// The base of every top-level API object, and the per-kind TypeInfo that lets generic code
// (store, API server, garbage collector) handle objects without knowing their C++ type.
//
// Objects are values. The store hands out std::shared_ptr<const Object>; to change one, Clone()
// it, modify the copy, and write the copy back. Nothing mutates a stored object.
#pragma once

#include <rapidjson/fwd.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/meta.h"

namespace allot::api {

using JsonValue = rapidjson::Value;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<char>,
                                     rapidjson::UTF8<char>, rapidjson::CrtAllocator, 0>;

class Object;
struct SchemaNode;

// Decoding state: the current field path (for error messages), strictness, and what was found.
class DecodeContext {
 public:
  explicit DecodeContext(bool strict = false) : strict_(strict) {}

  bool strict() const { return strict_; }
  void PushField(std::string_view name) { path_.push_back({name, -1}); }
  void PushIndex(int64_t index) { path_.push_back({{}, index}); }
  void PushKey(std::string_view key) { path_.push_back({key, -2}); }
  void Pop() { path_.pop_back(); }
  // "spec.containers[0].resources.limits[cpu]" style path of the current position.
  std::string Path() const;
  std::string PathWith(std::string_view field) const;

  // Records a field the type does not have ("spec.foo"), or a repeated one.
  void Unknown(std::string_view field) { unknown_.push_back(PathWith(field)); }
  void Duplicate(std::string_view field) { duplicate_.push_back(PathWith(field)); }
  // Records a type mismatch at the current path; returns false so decoders can `return`.
  bool TypeError(std::string_view expected, const JsonValue& got);
  bool ValueError(std::string message);

  const std::vector<std::string>& unknown_fields() const { return unknown_; }
  const std::vector<std::string>& duplicate_fields() const { return duplicate_; }
  const std::string& error() const { return error_; }

 private:
  struct Segment {
    std::string_view name;
    int64_t index;  // -1: field name, -2: map key, >=0: list index
  };
  bool strict_;
  std::vector<Segment> path_;
  std::vector<std::string> unknown_;
  std::vector<std::string> duplicate_;
  std::string error_;
};

// Everything generic code needs to know about one Kind. Built once per kind (MakeTypeInfo in
// api/machinery/reflect.h) and never changed.
struct TypeInfo {
  std::string group;        // "" for core
  std::string version;      // "v1"
  std::string kind;         // "Pod"
  std::string api_version;  // "v1" or "resource.k8s.io/v1"
  bool has_spec = false;
  bool has_status = false;

  std::unique_ptr<Object> (*make)() = nullptr;
  // Writes the whole object including apiVersion and kind.
  void (*encode)(const Object&, JsonWriter&) = nullptr;
  // Reads fields (apiVersion/kind are checked by the caller). False on a type error (see ctx).
  bool (*decode)(const JsonValue&, Object&, DecodeContext&) = nullptr;
  const SchemaNode& (*schema)() = nullptr;
  bool (*equal)(const Object&, const Object&) = nullptr;
  // Only when has_spec: spec comparison and copy (used for generation and spec/status split).
  bool (*spec_equal)(const Object&, const Object&) = nullptr;
  void (*copy_spec)(const Object& from, Object& to) = nullptr;
  // Only when has_status.
  void (*copy_status)(const Object& from, Object& to) = nullptr;
};

class Object {
 public:
  virtual ~Object() = default;
  virtual const TypeInfo& type() const = 0;
  virtual std::unique_ptr<Object> Clone() const = 0;

  ObjectMeta metadata;

 protected:
  Object() = default;
  Object(const Object&) = default;
  Object& operator=(const Object&) = default;
};

using ObjectPtr = std::shared_ptr<const Object>;

// CRTP helper: `struct Pod : TypedObject<Pod> { static const TypeInfo& Type(); ... }`.
template <class T>
class TypedObject : public Object {
 public:
  const TypeInfo& type() const override { return T::Type(); }
  std::unique_ptr<Object> Clone() const override {
    return std::make_unique<T>(static_cast<const T&>(*this));
  }
};

// Typed access to a generic object; nullptr when it is of another kind.
template <class T>
const T* As(const Object& obj) {
  return &obj.type() == &T::Type() ? static_cast<const T*>(&obj) : nullptr;
}
template <class T>
T* As(Object& obj) {
  return &obj.type() == &T::Type() ? static_cast<T*>(&obj) : nullptr;
}
// The same for a shared object (an informer's): null when `obj` is null or of another kind.
template <class T>
std::shared_ptr<const T> AsShared(const ObjectPtr& obj) {
  if (!obj || !As<T>(*obj)) return nullptr;
  return std::static_pointer_cast<const T>(obj);
}

}  // namespace allot::api
