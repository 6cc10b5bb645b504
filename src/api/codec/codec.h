// JSON encoding and decoding of whole API objects, for code that does not know the C++ type.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/object.h"
#include "common/status.h"

namespace allot::api {

class Scheme;

// Compact JSON of the whole object, apiVersion and kind first.
std::string EncodeJson(const Object& obj);
void EncodeJson(const Object& obj, JsonWriter& w);
// A JSON string (value or key) from a string_view: for responses written by hand.
void WriteString(JsonWriter& w, std::string_view s);

struct Decoded {
  std::unique_ptr<Object> object;
  // Non-strict decoding drops unknown fields and reports them here, as Kubernetes' warning
  // headers do: `unknown field "spec.foo"`.
  std::vector<std::string> warnings;
};

struct DecodeOptions {
  // Unknown or duplicate fields are a 400 BadRequest ("strict decoding error: ...").
  bool strict = false;
  // When set, the document must be of this kind (apiVersion and kind may be omitted).
  // When null, apiVersion and kind are required and looked up in `scheme`.
  const TypeInfo* expected = nullptr;
  const Scheme* scheme = nullptr;
};

// Parses JSON text. Malformed JSON is a 400 with the byte offset of the problem.
Result<Decoded> DecodeJson(std::string_view json, const DecodeOptions& options);
// Same, from a parsed document.
Result<Decoded> DecodeJsonValue(const JsonValue& value, const DecodeOptions& options);

// 400 when `json` nests objects/arrays deeper than `max_depth` (a guard for the recursive
// decoders and DOM walkers; DecodeJson applies it).
Status CheckJsonDepth(std::string_view json, int max_depth = 1000);

// "invalid JSON at line 3, column 7 (offset 42): Missing a colon after a name of object member."
Status JsonParseError(std::string_view text, size_t offset, const char* what);

}  // namespace allot::api
