// REST handlers for resource routes, one function per verb. Each answers through
// call->Reply() exactly once, possibly later from the store's committer thread (writes use the
// store's *Async methods so io threads never wait for a durable commit).
#pragma once

#include "apiserver/context.h"

namespace allot::apiserver {

// resource_read.cc
void ServeGet(const CallPtr& call);
void ServeList(const CallPtr& call);  // also watch, when ?watch=true

// resource_write.cc
void ServeCreate(const CallPtr& call);
void ServeUpdate(const CallPtr& call);  // PUT, main or status
void ServeDelete(const CallPtr& call);
void ServeDeleteCollection(const CallPtr& call);

// resource_patch.cc
void ServePatch(const CallPtr& call);  // main or status; apply patches may create

// pod_subresources.cc
void ServeBinding(const CallPtr& call);
void ServeEviction(const CallPtr& call);

// access_reviews.cc
void ServeReview(const CallPtr& call, authz::Review review);  // POST only

// Shared by the handlers (resource_write.cc).

// DeleteOptions from a parsed JSON body (may be null) and the query parameters
// (propagationPolicy, gracePeriodSeconds, dryRun, orphanDependents). `orphan_false` reports
// an explicit orphanDependents=false (which turns a delayed delete's 200 into 202).
Result<api::DeleteOptions> ParseDeleteOptions(const Request& req, const api::JsonValue* body,
                                              bool* orphan_false);
// Namespace and name of a decoded body against the URL: fills them in when empty, 400 when
// they differ. `check_name` is false for creates (the URL has no name).
Status CheckBodyIdentity(const Call& call, api::Object& obj, bool check_name);
// The status JSON of a completed delete: {status: Success, details: {name, group, kind, uid}}.
std::string DeletedStatusJson(const api::ResourceInfo& r, const api::Object& obj);

// resource_patch.cc

// A change computed from the current object: the patched / bound / ... desired object.
using Transform = std::function<Result<std::unique_ptr<api::Object>>(const api::Object& current)>;
// `first` is transform(*current), computed by the caller on the io thread so that the store's
// committer thread does no JSON work in the common case. The UpdateFn hands `first` to the
// store when the object is still at current's resourceVersion, and recomputes otherwise.
store::UpdateFn PrecomputedUpdate(const api::ObjectPtr& current, std::unique_ptr<api::Object> first,
                                  Transform transform);

}  // namespace allot::apiserver
