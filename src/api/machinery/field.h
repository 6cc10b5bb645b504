// What an API struct declares about its fields, for the codecs, schema and patching.
//
// Every API struct has a member template
//
//   template <class V> void Visit(V& v) {
//     v("name", name);
//     v("containers", containers, {.merge_key = "name"});
//   }
//
// listing its JSON fields in order. The JSON codec (api/machinery/reflect.h's Codec), the schema
// used by strategic merge patch and OpenAPI (SchemaOf<T>() in the same header) and deep
// operations are all derived from this one list, so a field is declared exactly once. Visit never
// mutates; codecs that only read call it through a const_cast.
#pragma once

#include <cstdint>
#include <string>

namespace allot::api {

struct FieldTags {
  // Strategic merge patch: the list is a map keyed by this field (patchMergeKey).
  const char* merge_key = nullptr;
  // The list or map is replaced as a whole by patches (x-kubernetes-list-type: atomic).
  bool atomic = false;
  // A list of scalars merged as a set by strategic merge patch (patchStrategy: merge).
  bool set = false;
  // Emitted even when it holds the zero value (no omitempty).
  bool always = false;
  // Documented as required in the OpenAPI schema (validation enforces it separately).
  bool required = false;
  // Set by the server only; listed in schema docs (no effect on decoding).
  const char* doc = nullptr;
};

// Arbitrary JSON kept verbatim (runtime.RawExtension, and subtrees we do not model).
// `json` holds compact JSON text, or is empty for "absent".
struct RawJson {
  std::string json;
  bool empty() const { return json.empty(); }
  bool operator==(const RawJson&) const = default;
};

// A []byte field (Secret.data, ConfigMap.binaryData): the bytes themselves in `data`; JSON
// carries them base64-encoded (Go's encoding/json for []byte), protobuf as they are.
struct Bytes {
  std::string data;
  bool empty() const { return data.empty(); }
  bool operator==(const Bytes&) const = default;
};

// intstr.IntOrString.
struct IntOrString {
  bool is_string = false;
  int64_t int_value = 0;
  std::string string_value;
  bool operator==(const IntOrString&) const = default;
};

// metav1.Duration, written as Go writes durations ("24h0m0s", "1m30s", "500ms").
struct Duration {
  int64_t nanos = 0;
  std::string ToString() const;
  static bool Parse(const std::string& text, Duration& out);
  bool operator==(const Duration&) const = default;
};

}  // namespace allot::api
