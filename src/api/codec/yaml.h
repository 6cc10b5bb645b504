// YAML manifests to JSON and back, reading YAML the way Kubernetes tools do: sigs.k8s.io/yaml
// on top of go-yaml v2, i.e. YAML 1.1 scalar rules (yes/no/on/off are booleans, 0777 is octal,
// 2024-01-02 is a timestamp kept as its text).
//
// Conversion details (sigs.k8s.io/yaml's YAMLToJSON):
//   * quoted and block scalars are strings; plain scalars resolve as described in
//     api/codec/yaml_scalar.h (null, bool, int, float, else string); explicit tags (!!str, !!int, ...) are
//     honoured, !!binary is base64-decoded, unknown tags leave the text as a string;
//   * map keys become strings (ints in decimal, floats in Go's %g, booleans as true/false); a
//     null or collection key is an error; later duplicate keys win; "<<" merge keys are applied;
//   * anchors and aliases are expanded (an alias to an enclosing node, and go-yaml's "excessive
//     aliasing" ratio, are errors); .inf and .nan are errors since JSON has no such numbers;
//   * object keys come out sorted (Go's json.Marshal of a map); numbers as Go prints them.
// Errors are 400 BadRequest "error converting YAML to JSON: yaml: line N: <problem>" (line
// 1-based; problems worded like go-yaml's for the common cases, otherwise yaml-cpp's), or
// without "line N: " for input-level problems ("yaml: invalid leading UTF-8 octet",
// "yaml: control characters are not allowed") and conversion problems ("json: unsupported
// value: +Inf"). Documents nested deeper than 1000 levels are rejected.
//
// Thread-safe: all functions are pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace allot::api {

// Every document of a "---"-separated stream, as compact JSON. Empty documents, and documents
// that are just null (kubectl skips those too), are left out.
Result<std::vector<std::string>> YamlToJson(std::string_view yaml);

// The first document only, as yaml.Unmarshal reads it: later documents are not parsed, and an
// empty stream is "null". (Unlike go-yaml, junk right after the first document, as in "{a: 1},",
// is not reported.)
Result<std::string> YamlDocumentToJson(std::string_view yaml);

// Block-style YAML for one JSON document, like `kubectl get -o yaml` (sigs.k8s.io/yaml's
// JSONToYAML on go-yaml v2): keys sorted the way go-yaml sorts them (numbers in keys compare
// numerically), two-space indentation, list items at their parent key's indentation, "{}" and
// "[]" for empty collections. Strings that would read back as something else (true, 123, null,
// 2024-01-02, "") are double-quoted; strings that are not valid plain scalars (leading "- ",
// ": " inside, ...) are single-quoted; strings with control characters are double-quoted with
// escapes; multi-line strings use literal blocks ("|", "|-", "|+"). Unlike go-yaml, long lines
// are not folded. Malformed JSON is a 400 with the position.
Result<std::string> JsonToYaml(std::string_view json);

}  // namespace allot::api
