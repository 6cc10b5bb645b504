// Protobuf field numbers of the API structs: how a struct's Visit() list maps onto the message
// Kubernetes generates for it (k8s.io/api/<group>/<version>/generated.proto,
// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto).
//
// Each API struct carried in protobuf specialises ProtoMessage with one entry per field of its
// Visit(), named by the field's JSON name:
//
//   template <> struct ProtoMessage<ContainerPort> {
//     static constexpr ProtoField kFields[] = {
//         {"name", 1}, {"hostPort", 2}, {"containerPort", 3}, {"protocol", 4}, {"hostIP", 5}};
//   };
//
// The numbers are facts of the Kubernetes API (they never change once released); the tables live
// beside the structs, one header per API group (api/<group>/protobuf_fields.h). The codec that
// reads them is api/codec/protobuf_reflect.h; a test checks every field of every carried kind is
// listed.
#pragma once

#include <cstdint>

namespace allot::api {

// How a field travels when its C++ type alone does not say.
enum class ProtoAs : uint8_t {
  // By its C++ type: string as bytes, integers and bool as varints, double as fixed64, a struct
  // as its message, Time/MicroTime/Duration/Quantity/IntOrString as apimachinery's messages,
  // vector as a repeated field, map<string, T> as a map (entries {key = 1, value = 2}).
  kNatural,
  // A RawJson that is a runtime.RawExtension: the message {bytes raw = 1} with the JSON in it.
  kRawExtension,
  // A RawJson standing for a typed message Allot keeps verbatim and does not model (a probe, a
  // security context, a volume source). With ProtoField::message set it travels as that message
  // (api/codec/opaque_messages.h). Without, only its empty form ({}, an empty message, as
  // defaulting leaves a pod's securityContext) can be carried: an object holding one with
  // content is sent as JSON instead, and a protobuf body holding one is refused with a 415.
  kOpaque,
  // A field of a struct that Go embeds: JSON shows it inline, protobuf nests it. It travels as
  // field `inner` of the message at `number` (several fields may share one embedded message).
  kEmbedded,
};

struct ProtoField {
  const char* name;  // the JSON name, exactly as the struct's Visit() spells it
  int number;        // the field number in Kubernetes' generated.proto
  ProtoAs as = ProtoAs::kNatural;
  int inner = 0;  // kEmbedded: the field's number inside the embedded message
  // A RawJson (or list of them) that is a Kubernetes message Allot keeps as JSON text: the
  // message's protobuf name ("k8s.io.api.core.v1.Probe"), from api/codec/opaque_messages/.
  const char* message = nullptr;
};

// Fields Allot adds to a Kubernetes message (KEP-3063's allocation mode, for one) take numbers
// from here up, far above any Kubernetes uses, so readers that do not know them skip them.
inline constexpr int kFirstAllotField = 1000;

// Specialised per API struct (see above). Left undefined for structs with no protobuf message:
// Allot's CRD kinds (Reservation) are JSON only, as custom resources are in Kubernetes.
template <class T>
struct ProtoMessage;

}  // namespace allot::api
