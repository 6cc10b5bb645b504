// Status objects on the wire: every non-2xx answer is a metav1.Status
//   {kind: Status, apiVersion: v1, metadata: {}, status: Failure, message, reason,
//    details: {name, group, kind, uid, causes: [{reason, message, field}]}, code}
// and successful deletes answer with status: Success.
#pragma once

#include <string>
#include <string_view>

#include "apiserver/transport/http_types.h"
#include "common/status.h"

namespace allot::apiserver {

// The Status JSON for an error (Failure, with reason and code from `status`). `list_continue`,
// when not empty, is written as metadata.continue (a 410 for an expired continue token offers
// one that finishes the list).
std::string StatusJson(const Status& status, std::string_view list_continue = {});
// {kind: Status, status: Success, details: {name, group, kind, uid}} (code 200 omitted as
// Kubernetes does for deletes; `code` > 0 adds it).
std::string SuccessStatusJson(const StatusDetails& details, int code = 0);

// A response carrying StatusJson(status, list_continue) with its HTTP code.
Response ErrorResponse(const Status& status, std::string_view list_continue = {});
// A JSON response.
Response JsonResponse(int code, std::string body);

// The errors the router and handlers raise themselves, with kube-apiserver's wording.
Status NotFoundPathError();                       // unknown path or resource: 404
Status MethodNotAllowedError();                   // 405
Status RequestTooLargeError(size_t limit_bytes);  // 413
Status UnsupportedMediaTypeError(std::string_view content_type,
                                 std::string_view accepted);  // 415
Status NotAcceptableError(std::string_view accept);           // 406

// Re-indents a JSON document for ?pretty=true; returns the input unchanged when it does not
// parse.
std::string PrettyJson(std::string_view json);

}  // namespace allot::apiserver
