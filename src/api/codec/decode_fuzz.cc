// libFuzzer target for everything that reads untrusted manifests and PATCH bodies: DecodeJson
// (strict and not, kind looked up in the default scheme), YamlToJson / YamlDocumentToJson,
// JsonToYaml, the normalizing and defaulting of the parts kept as JSON text (api/protobuf.h),
// Go's words for JSON syntax errors, ApplyPatch of every type against a fixed Pod, the conversions of the served
// versions (resource.k8s.io v1beta1/v1beta2, events.k8s.io/v1) both ways, and the protobuf
// readers (api/protobuf.h: objects of every carried kind, envelopes, lists, watch frames, Status).
// Besides crashes and leaks it checks two properties: a YAML document converted to JSON
// survives JsonToYaml and back, and an object read from protobuf reads back the same after
// being written again.
//
// Build and run (the extra flags give the libraries coverage instrumentation too):
//   cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DALLOT_FUZZ=ON \
//     -DALLOT_BENCH=OFF -DALLOT_WERROR=OFF \
//     "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer"
//   ninja -C build-fuzz decode_fuzz
//   mkdir -p /tmp/corpus && cp tests/fuzz/corpus/decode/* /tmp/corpus/
//   UBSAN_OPTIONS=suppressions=tests/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1 \
//     build-fuzz/src/decode_fuzz -max_total_time=60 -max_len=4096 /tmp/corpus
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec/codec.h"
#include "api/codec/go_json_error.h"
#include "api/codec/yaml.h"
#include "api/machinery/resources.h"
#include "api/machinery/reflect.h"
#include "api/machinery/resources.h"
#include "api/machinery/scheme.h"
#include "api/patch/patch.h"
#include "api/protobuf.h"

namespace {

using allot::api::DecodeOptions;
using allot::api::PatchType;
using allot::api::SchemaNode;

constexpr std::string_view kPod = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"web","namespace":"default","labels":{"app":"web"},
    "finalizers":["example.com/f"],
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1"}]},
  "spec":{"containers":[{"name":"app","image":"nginx:1.25","args":["-x"],
      "ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"A","value":"1"}],
      "resources":{"requests":{"cpu":"100m"}}},
    {"name":"sidecar","image":"envoy"}],
    "tolerations":[{"key":"k","operator":"Exists"}],"nodeSelector":{"zone":"a"},
    "volumes":[{"name":"cfg","configMap":{"name":"cm"}}]},
  "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False"}]}})";

// Used only if the default scheme has no v1 Pod.
struct FallbackContainer {
  std::string name, image;
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("image", image);
  }
};
struct FallbackSpec {
  std::vector<FallbackContainer> containers;
  template <class V>
  void Visit(V& v) {
    v("containers", containers, {.merge_key = "name"});
  }
};
struct FallbackPod {
  allot::api::ObjectMeta metadata;
  FallbackSpec spec;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
  }
};

const SchemaNode& PodSchema() {
  static const SchemaNode* schema = [] {
    const allot::api::TypeInfo* pod = allot::api::Scheme::Default().Find("v1", "Pod");
    return pod ? &pod->schema() : &allot::api::reflect::SchemaOf<FallbackPod>();
  }();
  return *schema;
}

void Decode(std::string_view json) {
  for (bool strict : {false, true}) {
    DecodeOptions options;
    options.strict = strict;
    auto decoded = allot::api::DecodeJson(json, options);
    if (!decoded.ok() || strict) continue;
    // As a write does next: the JSON-text parts read as Go reads their messages, then given
    // the defaults kube-apiserver gives them.
    allot::api::DecodeContext ctx;
    if (!allot::api::NormalizeJsonMessages(*decoded->object, ctx)) continue;
    const allot::api::ResourceInfo* r =
        allot::api::ResourceRegistry::Default().FindByType(decoded->object->type());
    if (r && r->default_json_messages) r->default_json_messages(*decoded->object);
  }
  (void)allot::api::GoJsonSyntaxError(json);
}

// JSON from YamlToJson must come back unchanged (numerically) through JsonToYaml.
void CheckYamlRoundTrip(const std::string& json) {
  allot::Result<std::string> yaml = allot::api::JsonToYaml(json);
  if (!yaml.ok()) {
    std::fprintf(stderr, "JsonToYaml rejected YamlToJson output:\n%s\n%s\n", json.c_str(),
                 yaml.status().ToString().c_str());
    std::abort();
  }
  allot::Result<std::vector<std::string>> back = allot::api::YamlToJson(*yaml);
  rapidjson::Document a, b;
  a.Parse(json.c_str());
  bool same = back.ok() && back->size() <= 1;
  if (same) {
    b.Parse(back->empty() ? "null" : (*back)[0].c_str());
    same = !a.HasParseError() && !b.HasParseError() && a == b;
  }
  if (!same) {
    std::fprintf(stderr, "YAML round trip changed the document:\njson: %s\nyaml:\n%s\nback: %s\n",
                 json.c_str(), yaml->c_str(),
                 back.ok() ? (back->empty() ? "(none)" : (*back)[0].c_str())
                           : back.status().ToString().c_str());
    std::abort();
  }
}

void CheckProtobufRoundTrip(const allot::api::TypeInfo& type, std::string_view raw) {
  auto first = allot::api::DecodeProtobufMessage(type, raw);
  if (!first.ok()) return;
  std::string again;
  if (!allot::api::EncodeProtobufMessage(**first, again)) {
    std::fprintf(stderr, "a %s read from protobuf cannot be written again: %s\n",
                 type.kind.c_str(), allot::api::EncodeJson(**first).c_str());
    std::abort();
  }
  auto second = allot::api::DecodeProtobufMessage(type, again);
  if (!second.ok() || !type.equal(**first, **second)) {
    std::fprintf(stderr, "protobuf round trip of a %s changed it:\nfirst:  %s\nsecond: %s\n",
                 type.kind.c_str(), allot::api::EncodeJson(**first).c_str(),
                 second.ok() ? allot::api::EncodeJson(**second).c_str()
                             : second.status().ToString().c_str());
    std::abort();
  }
}

// Every protobuf reader on the input; what decodes as an object must survive a second trip.
void DecodeProtobuf(std::string_view input) {
  for (const char* kind : {"Pod", "Node", "Event", "Binding"}) {
    const allot::api::TypeInfo* type = allot::api::ProtobufKind("v1", kind);
    if (type) CheckProtobufRoundTrip(*type, input);
  }
  for (const char* kind : {"ResourceClaim", "ResourceSlice", "DeviceClass"}) {
    const allot::api::TypeInfo* type = allot::api::ProtobufKind("resource.k8s.io/v1", kind);
    if (type) CheckProtobufRoundTrip(*type, input);
  }
  (void)allot::api::ParseProtobufEnvelope(input);
  (void)allot::api::ParseProtobufWatchEvent(input);
  (void)allot::api::DecodeProtobufStatus(input);
  if (const auto* pod = allot::api::ProtobufKind("v1", "Pod")) {
    (void)allot::api::DecodeProtobufList(*pod, input);
  }
}

}  // namespace

// Every served version's conversion, both ways, of a JSON object (and what the first gives back
// to the second): no crash, and what to_storage accepts decodes or fails cleanly.
void ConvertServed(std::string_view input) {
  const auto& served = allot::api::ResourceRegistry::Default().ServedVersions();
  for (const allot::api::ServedVersion& sv : served) {
    rapidjson::Document doc;
    doc.Parse(input.data(), input.size());
    if (doc.HasParseError() || !doc.IsObject()) return;
    if (sv.to_storage(doc).ok()) {
      sv.from_storage(doc);
    }
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Decode(input);
  DecodeProtobuf(input);
  ConvertServed(input);

  allot::Result<std::vector<std::string>> docs = allot::api::YamlToJson(input);
  if (docs.ok()) {
    for (const std::string& doc : *docs) {
      Decode(doc);
      CheckYamlRoundTrip(doc);
    }
  }
  (void)allot::api::YamlDocumentToJson(input);
  (void)allot::api::JsonToYaml(input);

  for (PatchType type : {PatchType::kJsonPatch, PatchType::kMergePatch,
                         PatchType::kStrategicMergePatch, PatchType::kApplyPatch}) {
    allot::Result<std::string> patched = allot::api::ApplyPatch(type, kPod, input, PodSchema());
    if (patched.ok()) Decode(*patched);
  }
  return 0;
}
