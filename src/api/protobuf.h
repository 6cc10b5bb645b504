// Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf) of the kinds Allot's own
// components read and write: the scheduler, the controllers, the node agent and simulator, the
// drivers. JSON stays the encoding for everyone else, and for the kinds listed nowhere here
// (Reservation, a custom resource, is JSON only in Kubernetes too).
//
// The shapes are kube-apiserver's, so client-go and kubectl read what Allot writes:
//   - an object: the magic "k8s\0", then runtime.Unknown {typeMeta {apiVersion = 1, kind = 2} = 1,
//     raw = 2 (the object's own message), contentEncoding = 3, contentType = 4};
//   - a list: the same envelope around <Kind>List {metadata (ListMeta) = 1, items = 2};
//   - a watch stream (";stream=watch"): frames of a 4-byte big-endian length and a bare
//     meta.v1 WatchEvent {type = 1, object = 2 (RawExtension {raw = 1}: an object's envelope)}.
// The messages' field numbers are in each API group's protobuf_messages*.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "common/status.h"

namespace allot::api {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";
inline constexpr std::string_view kProtobufWatchContentType =
    "application/vnd.kubernetes.protobuf;stream=watch";

// Whether objects of `type` can travel as protobuf.
bool HasProtobuf(const TypeInfo& type);
// Whether some object of `type` may hold a field protobuf cannot carry (an opaque subtree with
// content: a pod's probe, a node's daemonEndpoints), so that a protobuf watch of it may have to
// end early (docs/apiserver.md).
bool ProtobufMayRefuse(const TypeInfo& type);

// Checks the JSON text the object holds for Kubernetes messages (probes, security contexts,
// volume sources: api/codec/opaque_messages.h) as Go's decoder reads those messages, which is
// how kube-apiserver decodes a request: false, with the error in `ctx` ("json: cannot unmarshal
// ... into field spec.containers[0].livenessProbe.initialDelaySeconds of type int32"), for a
// value of the wrong type; members a message lacks are removed and recorded with ctx.Unknown.
// What passes can always be encoded in protobuf. True for kinds without protobuf.
bool NormalizeJsonMessages(Object& obj, DecodeContext& ctx);

// Gives the JSON text the object holds for Kubernetes messages the defaults kube-apiserver
// gives those messages when it decodes a request (api/codec/opaque_messages.h's DefaultOpaque):
// a probe's periodSeconds 10, a secret volume's defaultMode 420, ... Null for kinds none of
// whose objects hold a message that has defaults. The registry runs it after the kind's own
// defaulting (ResourceInfo::default_json_messages).
using JsonMessageDefaulter = void (*)(Object& obj);
JsonMessageDefaulter JsonMessageDefaulterFor(const TypeInfo& type);

// Appends the object's own message (no envelope): what a list item or the encode cache holds.
// False, with `out` unchanged, when the kind has no message or the object holds a value
// protobuf cannot carry (ProtoAs::kOpaque); the caller then answers in JSON.
bool EncodeProtobufMessage(const Object& obj, std::string& out);

// Appends the envelope around a message of `type`.
void AppendProtobufEnvelope(const TypeInfo& type, std::string_view message, std::string& out);
// Appends the envelope of a <Kind>List of `type` holding `items` (messages, no envelopes).
void AppendProtobufList(const TypeInfo& type, const ListMeta& meta,
                        const std::vector<std::string_view>& items, std::string& out);
// Appends one watch frame; `object` is an envelope (an object's, or a Status's).
void AppendProtobufWatchFrame(std::string_view type, std::string_view object, std::string& out);
// Appends a meta.v1 Status in its envelope: the object of a watch ERROR event, an error body.
void AppendProtobufStatus(const Status& status, std::string& out);

// --- reading -------------------------------------------------------------------------------------

struct ProtobufEnvelope {
  std::string_view api_version;
  std::string_view kind;
  std::string_view raw;
};
// 400 when `body` lacks the magic or is malformed.
Result<ProtobufEnvelope> ParseProtobufEnvelope(std::string_view body);

// The kind named by an envelope, among those with protobuf; null when none.
const TypeInfo* ProtobufKind(std::string_view api_version, std::string_view kind);

// Decodes an object of `type` from its message. 400 for malformed input or a wrong wire type,
// 415 when it holds, with content, a field Allot keeps as opaque JSON (send that object as JSON
// instead). With `dropped` (a client reading a server that models more, kube-apiserver for one),
// such fields are left empty instead and *dropped says whether any was: the caller then reads
// the object again as JSON.
Result<std::unique_ptr<Object>> DecodeProtobufMessage(const TypeInfo& type, std::string_view raw,
                                                      bool* dropped = nullptr);
// Decodes an object envelope, which must hold `type` (or name no kind at all).
Result<std::unique_ptr<Object>> DecodeProtobufObject(const TypeInfo& type, std::string_view body,
                                                     bool* dropped = nullptr);

struct ProtobufList {
  ListMeta meta;
  std::vector<std::unique_ptr<Object>> items;
};
Result<ProtobufList> DecodeProtobufList(const TypeInfo& type, std::string_view body,
                                        bool* dropped = nullptr);

// One watch frame's content (after its length): the event type and its object's envelope.
struct ProtobufWatchEvent {
  std::string_view type;
  std::string_view object;
};
Result<ProtobufWatchEvent> ParseProtobufWatchEvent(std::string_view frame);

// A meta.v1 Status read back from its envelope (a watch ERROR event, an error body); 400 when
// malformed. The client maps reason and code onto a Status.
struct ProtobufStatus {
  std::string status;  // Success | Failure
  std::string message;
  std::string reason;
  int32_t code = 0;
  StatusDetails details;
};
Result<ProtobufStatus> DecodeProtobufStatus(std::string_view body);

}  // namespace allot::api
