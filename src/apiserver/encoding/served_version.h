// Objects in a served version (api/machinery/resources.h ServedVersion: resource.k8s.io/v1beta1
// and v1beta2, events.k8s.io/v1): request bodies converted to the stored version before they are
// decoded, stored objects' JSON converted for the answer. In protobuf, a version of the stored
// shape uses the stored kind's messages (api/protobuf.h); one of another shape that names its
// messages (ServedVersion::protobuf_message) is carried through its JSON.
#pragma once

#include <string>
#include <string_view>

#include "api/machinery/resources.h"
#include "common/status.h"

namespace allot::apiserver {

// The stored object's JSON (api::EncodeJson) as `sv` shows it.
std::string FromStorageJson(std::string_view json, const api::ServedVersion& sv);

// A JSON body written in `sv`'s version, as JSON of the stored version. 400 when it is not a
// JSON object, when its apiVersion names another version ("the API version in the data (...)
// does not match the expected API version (...)", as kube-apiserver says), or when the
// conversion refuses it. A body without apiVersion is taken to be in `sv`'s version.
Result<std::string> ToStorageJson(std::string_view json, const api::ServedVersion& sv);

// The stored object's JSON as `sv`'s message (no envelope), appended to `out`. False when `sv`
// names no message or the object holds what the message cannot (the caller answers in JSON).
bool ServedProtobufMessage(std::string_view json, const api::ServedVersion& sv, std::string& out);

// A protobuf body (envelope and message) of `sv`'s kind, as that version's JSON (with apiVersion
// and kind), for ToStorageJson. 400 for a malformed body or one holding another kind or version;
// 415 when `sv` names no message.
Result<std::string> ServedProtobufToJson(std::string_view body, const api::ServedVersion& sv);

}  // namespace allot::apiserver
