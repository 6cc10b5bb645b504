// Objects in a served version (api/machinery/resources.h ServedVersion: resource.k8s.io/v1beta1
// and v1beta2, events.k8s.io/v1): request bodies converted to the stored version before they are
// decoded, stored objects' JSON converted for the answer. JSON only.
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

}  // namespace allot::apiserver
