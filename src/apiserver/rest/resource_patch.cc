// PATCH: JSON patch, merge patch, strategic merge patch and server-side apply
// (api-reference §4.7), on the main resource or its status.
#include "api/codec/codec.h"
#include "api/patch/patch.h"
#include "apiserver/encoding/body.h"
#include "apiserver/encoding/output.h"
#include "apiserver/encoding/served_version.h"
#include "apiserver/rest/field_manager.h"
#include "apiserver/rest/handlers.h"

namespace allot::apiserver {

namespace {

constexpr std::string_view kPatchTypes =
    "application/json-patch+json, application/merge-patch+json, "
    "application/strategic-merge-patch+json, application/apply-patch+yaml";

struct PatchRequest {
  api::PatchType type = api::PatchType::kMergePatch;
  FieldValidation validation = FieldValidation::kWarn;
  bool dry_run = false;
  bool force = false;  // apply only: take over the fields other managers own
  std::string field_manager;
  api::managed_fields::Writer writer;
  std::string body;  // JSON (apply patches are converted from YAML)
};

// PatchOptions as kube-apiserver validates them: a 422 of PatchOptions.meta.k8s.io.
Status CheckPatchOptions(const Request& req, api::PatchType type) {
  api::FieldErrors errs;
  if (type == api::PatchType::kApplyPatch) {
    if (req.Query("fieldManager").value_or("").empty()) {
      errs.Required(api::Path("fieldManager"), "is required for apply patch");
    }
  } else if (req.Query("force")) {
    errs.Forbidden(api::Path("force"), "may not be specified for non-apply patch");
  }
  return errs.ToStatus("PatchOptions", "meta.k8s.io", "");
}

Result<PatchRequest> ParsePatchRequest(const Call& call) {
  const Request& req = call.req;
  PatchRequest p;
  MediaType ct = ParseMediaType(req.Header("Content-Type"));
  auto type = api::PatchTypeFromContentType(ct.type);
  if (!type) return UnsupportedMediaTypeError(ct.type, kPatchTypes);
  p.type = *type;
  ALLOT_RETURN_IF_ERROR(CheckPatchOptions(req, p.type));
  ALLOT_ASSIGN_OR_RETURN(p.validation, ParseFieldValidation(req));
  ALLOT_ASSIGN_OR_RETURN(p.dry_run, ParseDryRun(req));
  ALLOT_ASSIGN_OR_RETURN(p.field_manager, ParseFieldManager(req, "PatchOptions"));
  p.force = QueryFlag(req, "force");
  p.writer = WriterOf(call, p.field_manager);
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return BadRequestError("the request body is empty");
  }
  if (p.type == api::PatchType::kApplyPatch) {
    ALLOT_ASSIGN_OR_RETURN(p.body, JsonOrYamlToJson(req.body));
  } else {
    ALLOT_RETURN_IF_ERROR(api::CheckJsonDepth(req.body));
    p.body = req.body;
  }
  return p;
}

// The patched object, decoded with the requested field validation, with its managedFields. In
// a served version the patch applies to the object as that version shows it (its schema is the
// stored one's: served versions differ only where no merge key is involved).
Result<DecodedBody> ApplyTo(const Call& call, const api::Object& current, const PatchRequest& p) {
  const api::ServedVersion* served = call.route.served;
  std::string original = api::EncodeJson(current);
  if (served) original = FromStorageJson(original, *served);
  const api::TypeInfo& type = current.type();
  ALLOT_ASSIGN_OR_RETURN(std::string patched,
                         api::ApplyPatch(p.type, original, p.body, type.schema()));
  std::vector<api::ManagedFieldsEntry> applied_fields;
  const bool apply = p.type == api::PatchType::kApplyPatch;
  if (apply) {
    ALLOT_ASSIGN_OR_RETURN(Applied applied, TrackApply(call, p.writer, &current, original,
                                                       patched, p.body, p.force));
    patched = std::move(applied.json);
    applied_fields = std::move(applied.managed_fields);
  }
  if (served) {
    ALLOT_ASSIGN_OR_RETURN(patched, ToStorageJson(patched, *served));
  }
  ALLOT_ASSIGN_OR_RETURN(DecodedBody d, DecodeObject(patched, type, p.validation));
  if (apply) {
    d.object->metadata.rare.set(&api::ObjectMetaRare::managedFields, std::move(applied_fields));
  } else {
    TrackUpdate(call, p.writer, &current, *d.object);
  }
  return d;
}

std::function<void(Result<api::ObjectPtr>)> ReplyPatched(const CallPtr& call, int code,
                                                         std::vector<std::string> warnings) {
  return [call, code, warnings = std::move(warnings)](Result<api::ObjectPtr> r) {
    Response res = r.ok() ? ObjectResponse(code, *r, WriteOutput(call->req), call->cache())
                          : ErrorResponse(r.status());
    AddWarnings(res, warnings);
    call->Reply(std::move(res));
  };
}

// Server-side apply of an object that does not exist yet: the applied configuration is the new
// object (201).
void ApplyCreate(const CallPtr& call, const PatchRequest& p) {
  auto applied = TrackApply(*call, p.writer, nullptr, "", p.body, p.body, p.force);
  if (!applied.ok()) return call->Fail(applied.status());
  Result<std::string> body = call->route.served ? ToStorageJson(applied->json, *call->route.served)
                                                : Result<std::string>(applied->json);
  if (!body.ok()) return call->Fail(body.status());
  auto decoded = DecodeObject(*body, *call->resource().type, p.validation);
  if (!decoded.ok()) return call->Fail(decoded.status());
  decoded->object->metadata.rare.set(&api::ObjectMetaRare::managedFields,
                                     std::move(applied->managed_fields));
  Status id = CheckBodyIdentity(*call, *decoded->object, true);
  if (!id.ok()) return call->Fail(id);
  Status admitted = call->Admit(nullptr, decoded->object.get());
  if (!admitted.ok()) return call->Fail(admitted);
  api::WriteOptions opts;
  opts.dry_run = p.dry_run;
  opts.field_manager = p.field_manager;
  call->ctx.store.CreateAsync(call->resource(), std::move(decoded->object), std::move(opts),
                              call->Track<Result<api::ObjectPtr>>(
                                  "create", ReplyPatched(call, 201, std::move(decoded->warnings))));
}

}  // namespace

store::UpdateFn PrecomputedUpdate(const api::ObjectPtr& current, std::unique_ptr<api::Object> first,
                                  Transform transform) {
  std::shared_ptr<const api::Object> precomputed = std::move(first);
  std::string base_rv = current->metadata.resourceVersion;
  return store::UpdateFn([precomputed, base_rv, transform](
                             const api::Object& cur) -> Result<std::unique_ptr<api::Object>> {
    if (cur.metadata.resourceVersion == base_rv) return precomputed->Clone();
    return transform(cur);  // changed in between: patch the newer object
  });
}

void ServePatch(const CallPtr& call) {
  call->set_verb("PATCH");
  call->set_mutating();
  auto p = ParsePatchRequest(*call);
  if (!p.ok()) return call->Fail(p.status());
  if (p->type == api::PatchType::kApplyPatch) call->set_verb("APPLY");
  ServerContext& ctx = call->ctx;
  auto current = ctx.store.Get(call->resource(), call->route.namespace_, call->route.name);
  if (!current.ok()) {
    if (p->type == api::PatchType::kApplyPatch &&
        current.status().code() == StatusCode::kNotFound && call->route.subresource.empty()) {
      return ApplyCreate(call, *p);
    }
    return call->Fail(current.status());
  }
  auto request = std::make_shared<const PatchRequest>(std::move(p).value());
  auto first = ApplyTo(*call, **current, *request);
  if (!first.ok()) return call->Fail(first.status());
  // The transform runs again (on the committer thread) only if the object changed meanwhile;
  // the warnings of the first run are the ones reported.
  Transform transform = [call, request](
                            const api::Object& cur) -> Result<std::unique_ptr<api::Object>> {
    ALLOT_ASSIGN_OR_RETURN(DecodedBody d, ApplyTo(*call, cur, *request));
    return std::move(d.object);
  };
  store::UpdateFn fn = PrecomputedUpdate(*current, std::move(first->object), std::move(transform));
  store::UpdateOptions opts;
  opts.dry_run = request->dry_run;
  opts.field_manager = request->field_manager;
  opts.subresource =
      call->route.subresource == "status" ? store::Subresource::kStatus : store::Subresource::kMain;
  ctx.store.UpdateAsync(call->resource(), call->route.namespace_, call->route.name,
                        call->Admitted(std::move(fn)), std::move(opts),
                        call->Track<Result<api::ObjectPtr>>(
                            "update", ReplyPatched(call, 200, std::move(first->warnings))));
}

}  // namespace allot::apiserver
