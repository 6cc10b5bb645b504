// The Kubernetes messages Allot keeps as JSON text rather than as structs (RawJson fields: a
// container's probes, lifecycle and security context, a pod's volume sources, a
// PersistentVolume's source, a node's daemonEndpoints), carried in protobuf all the same.
//
// What each message holds comes from a catalog, api/codec/opaque_messages/*.tsv, embedded at
// build time: one line per field, `message <TAB> number <TAB> json name <TAB> type <TAB> how
// encoding/json writes it [<TAB> default]`. The catalog is generated from k8s.io/api's Go types
// (conformance/cmd/protocatalog; a conformance test fails when it is out of date), so numbers,
// names and Go's JSON rules are upstream's, not retyped by hand.
//
// A field of an API struct that is one of these names its message in its ProtoMessage table
// (ProtoField::message); api/codec/protobuf_reflect.h then encodes the JSON text as that message,
// and decodes the message back into the JSON text kube-apiserver would write for it:
//   - a field is written when encoding/json would write it: a pointer when the message has it,
//     an omitempty field when it is not its zero value, any other field always (its zero value
//     when absent: "", 0, false, {} for a struct, null for a time or a list);
//   - an embedded Go struct (ProbeHandler in Probe) is a nested message in protobuf and inline
//     in JSON;
//   - JSON members the message does not have are not carried (kube-apiserver drops them on
//     decoding), and a value of the wrong JSON type makes the encoding fail, so that the object
//     travels as JSON instead.
//
// The catalog is parsed once, on first use. Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/codec/protobuf_wire.h"
#include "api/machinery/object.h"

namespace allot::api::protobuf {

struct DecodeState;
class OpaqueMessage;

// The message `name` ("k8s.io.api.core.v1.Probe"), or nullptr when the catalog lacks it.
const OpaqueMessage* FindOpaqueMessage(std::string_view name);

// Appends field `number` holding `json` (a JSON object) as message `m`. False, with `w`'s output
// unspecified, when the JSON is not an object or holds a value of the wrong type.
bool WriteOpaque(Writer& w, int number, const OpaqueMessage& m, std::string_view json);

// Appends `object` (a JSON object) as the bare fields of message `m` (no tag around them): a
// whole object of a served version whose shape is not the stored one's. False, with `out`
// unspecified, as WriteOpaque.
bool EncodeOpaqueMessage(const OpaqueMessage& m, const JsonValue& object, std::string& out);

// Sets `json` to the JSON object of message `m` read from `bytes`. False, with the error in
// s.ctx, on malformed input or a record of the wrong wire type.
bool ReadOpaque(std::string_view bytes, const OpaqueMessage& m, std::string& json,
                DecodeState& s);

// Checks `json` (a JSON object) as Go's decoder reads it into message `m`, the way
// kube-apiserver decodes a request: a value of the wrong type is an error in `ctx` ("json:
// cannot unmarshal string into field <path> of type int32"; false); a member the message does
// not have is recorded with ctx.Unknown and removed from `json`, which is rewritten only then.
// `ctx`'s path is the field's.
bool NormalizeOpaque(const OpaqueMessage& m, std::string& json, DecodeContext& ctx);

// Gives the fields of `json` (a JSON object of message `m`) the defaults kube-apiserver gives
// them when it decodes a request (the catalog's sixth column, read off SetDefaults_Probe,
// _HTTPGetAction, _SecretVolumeSource, ... by protocatalog), at any depth: a field that is
// absent, null, or, unless Go holds it as a pointer, at its zero value. An image volume's
// pullPolicy follows its reference (DefaultImagePullPolicy). Rewrites `json`, with the
// message's fields in Go's order, only when it adds one, and says whether it did; text that is
// not a JSON object is left alone (decoding refuses it).
bool DefaultOpaque(const OpaqueMessage& m, std::string& json);
// Whether DefaultOpaque can change some JSON object of `m` (no parsing needed when not).
bool OpaqueHasDefaults(const OpaqueMessage& m);

// Lines of the catalog that do not parse, and type names no message of it defines (for a test:
// both empty in a good catalog).
std::vector<std::string> OpaqueCatalogProblems();

}  // namespace allot::api::protobuf
