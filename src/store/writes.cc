// Staging a batch's creates, updates and deletes (store/store_impl.h).
#include "api/codec/codec.h"
#include "common/log.h"
#include "store/encoded_object.h"
#include "store/store_impl.h"

namespace allot::store {

// --- staging ----------------------------------------------------------------------------------

ObjectPtr Store::Impl::Lookup(const ResourceInfo& r, const std::string& key) const {
  auto it = overlay_.find({&r, key});
  if (it != overlay_.end()) return it->second;
  auto t = tables_.find(&r);
  if (t == tables_.end()) return nullptr;
  auto o = t->second.find(key);
  return o == t->second.end() ? nullptr : o->second;
}

ObjectPtr Store::Impl::Decoded(const ResourceInfo& r, const ObjectPtr& obj) const {
  auto decoded = Materialize(r, obj);
  if (decoded.ok()) return *decoded;
  log::Error("store", decoded.status().ToString());
  return nullptr;
}

std::vector<ObjectPtr> Store::Impl::BatchReader::List(const ResourceInfo& r) const {
  std::vector<ObjectPtr> out;
  auto t = impl_.tables_.find(&r);
  if (t != impl_.tables_.end()) {
    // This batch's writes of `r`, if any, stand in for the index's objects (below).
    auto first = impl_.overlay_.lower_bound({&r, std::string()});
    const bool overlaid = first != impl_.overlay_.end() && first->first.first == &r;
    for (const auto& [key, obj] : t->second) {
      if (overlaid && impl_.overlay_.count({&r, key.str()})) continue;
      if (ObjectPtr decoded = impl_.Decoded(r, obj)) out.push_back(std::move(decoded));
    }
  }
  for (const auto& [rk, obj] : impl_.overlay_) {
    if (rk.first == &r && obj) out.push_back(obj);
  }
  return out;
}

void Store::Impl::Stage(const ResourceInfo& r, std::string key, ObjectPtr obj, ObjectPtr prev,
                        uint64_t base_rv) {
  overlay_[{&r, key}] = obj;
  changes_.push_back(
      Change{&r, std::move(key), std::move(obj), std::move(prev), next_rv_, base_rv, current_op_});
}

Status Store::Impl::CheckNamespace(const std::string& ns) const {
  if (!namespaces_) return Status::Ok();
  ObjectPtr obj = Lookup(*namespaces_, ns);
  if (!obj) return NotFoundError("namespaces", ns);
  if (obj->metadata.rare->deletionTimestamp) {
    Status s(StatusCode::kForbidden,
             "unable to create new content in namespace " + ns + " because it is being terminated");
    return s;
  }
  return Status::Ok();
}

Status Store::Impl::StageCreate(const ResourceInfo& r, std::unique_ptr<Object> obj, bool dry_run,
                                ObjectPtr& result) {
  api::ObjectMeta& meta = obj->metadata;
  if (!r.namespaced) {
    meta.namespace_.clear();
  } else if (meta.namespace_.empty()) {
    return BadRequestError("the namespace of the provided object is empty");
  }
  if (!meta.resourceVersion.empty()) {
    return BadRequestError("resourceVersion should not be set on objects to be created");
  }
  // Status belongs to controllers: dropped on create unless the kind says otherwise.
  if (r.status_subresource && !r.create_keeps_status && obj->type().copy_status) {
    auto fresh = obj->type().make();
    obj->type().copy_status(*fresh, *obj);
  }
  if (r.admit_create) ALLOT_RETURN_IF_ERROR(r.admit_create(*obj, BatchReader(*this)));
  r.Default(*obj);
  bool generated = meta.name.empty() && !meta.generateName.empty();
  if (generated) {
    std::string prefix = meta.generateName.substr(0, kMaxGenerateNamePrefix);
    meta.name = prefix + RandomSuffix(prefix);
  }
  api::FieldErrors errs;
  if (r.validate) r.validate(*obj, errs, options_.validators);
  if (meta.name.empty() && errs.empty()) {
    errs.Required(api::Path("metadata").Child("name"), "name or generateName is required");
  }
  ALLOT_RETURN_IF_ERROR(errs.ToStatus(r.type->kind, r.group, meta.name));
  if (r.namespaced) ALLOT_RETURN_IF_ERROR(CheckNamespace(meta.namespace_));
  std::string key = ObjectKey(r, meta.namespace_, meta.name);
  for (int attempt = 1; Lookup(r, key); ++attempt) {
    if (!generated || attempt >= kGenerateNameAttempts) {
      return AlreadyExistsError(r.QualifiedResource(), meta.name);
    }
    std::string prefix = meta.generateName.substr(0, kMaxGenerateNamePrefix);
    meta.name = prefix + RandomSuffix(prefix);
    key = ObjectKey(r, meta.namespace_, meta.name);
  }
  meta.uid = NewUid(r, key);
  meta.creationTimestamp = clock_.Now().TruncatedToSeconds();
  meta.rare.set(&api::ObjectMetaRare::deletionTimestamp, std::nullopt);
  meta.rare.set(&api::ObjectMetaRare::deletionGracePeriodSeconds, std::nullopt);
  meta.generation = r.counts_generation ? 1 : 0;
  if (!meta.rare->selfLink.empty()) meta.rare.edit().selfLink.clear();
  meta.rare.compact();  // nothing allocated for fields the server cleared
  if (dry_run) {
    result = ObjectPtr(std::move(obj));
    return Status::Ok();
  }
  ++next_rv_;
  meta.resourceVersion = std::to_string(next_rv_);
  result = ObjectPtr(std::move(obj));
  Stage(r, key, result, nullptr, 0);
  return Status::Ok();
}

void Store::Impl::RunCreate(Op& op) {
  op.status = StageCreate(*op.resource, std::move(op.object), op.create_opts.dry_run, op.result);
}

Status Store::Impl::StageUpdate(const ResourceInfo& r, const ObjectPtr& current,
                                std::unique_ptr<Object> obj, Subresource sub, bool dry_run,
                                ObjectPtr& result, bool& removed) {
  const api::TypeInfo& type = *r.type;
  const api::ObjectMeta& cur = current->metadata;
  api::ObjectMeta& meta = obj->metadata;
  if (!meta.resourceVersion.empty() && meta.resourceVersion != cur.resourceVersion) {
    return ConflictError(r.QualifiedResource(), cur.name,
                         "the object has been modified; please apply your changes to the latest "
                         "version and try again");
  }
  if (!meta.uid.empty() && meta.uid != cur.uid) {
    return ConflictError(r.QualifiedResource(), cur.name,
                         "Precondition failed: UID in precondition: " + meta.uid +
                             ", UID in object meta: " + cur.uid);
  }
  // managedFields are the writer's to set (the API server computes them for each request);
  // a writer that sends none keeps the stored ones.
  std::vector<api::ManagedFieldsEntry> managed = meta.rare->managedFields.empty()
                                                     ? cur.rare->managedFields
                                                     : meta.rare->managedFields;
  if (sub == Subresource::kStatus) {
    // A status write changes status (and managedFields) only.
    if (type.copy_spec) type.copy_spec(*current, *obj);
    meta = cur;
  } else {
    if (sub == Subresource::kMain && r.status_subresource && type.copy_status) {
      type.copy_status(*current, *obj);
    }
    if (cur.rare->deletionTimestamp) {
      for (const auto& f : meta.finalizers) {
        if (!HasFinalizer(*current, f)) {
          api::FieldErrors errs;
          errs.Forbidden(api::Path("metadata").Child("finalizers"),
                         "no new finalizers can be added if the object is being deleted, found "
                         "new finalizers []string{" +
                             api::Quote(f) + "}");
          return errs.ToStatus(type.kind, r.group, cur.name);
        }
      }
    }
  }
  // Fields the server owns.
  meta.name = cur.name;
  meta.namespace_ = cur.namespace_;
  meta.uid = cur.uid;
  meta.creationTimestamp = cur.creationTimestamp;
  meta.rare.set(&api::ObjectMetaRare::deletionTimestamp, cur.rare->deletionTimestamp);
  meta.rare.set(&api::ObjectMetaRare::deletionGracePeriodSeconds,
                cur.rare->deletionGracePeriodSeconds);
  meta.generation = cur.generation;
  meta.rare.set(&api::ObjectMetaRare::managedFields, std::move(managed));
  if (!meta.rare->selfLink.empty()) meta.rare.edit().selfLink.clear();
  meta.rare.compact();  // nothing allocated for fields the server cleared
  if (meta.generateName.empty()) meta.generateName = cur.generateName;
  if (sub == Subresource::kMain && r.admit_update) {
    ALLOT_RETURN_IF_ERROR(r.admit_update(*obj, *current, BatchReader(*this)));
  }
  r.Default(*obj);
  api::FieldErrors errs;
  if (sub == Subresource::kStatus) {
    if (r.validate_status) r.validate_status(*obj, *current, errs);
  } else {
    if (r.validate) r.validate(*obj, errs, options_.validators);
    if (sub == Subresource::kMain && r.validate_update) r.validate_update(*obj, *current, errs);
  }
  ALLOT_RETURN_IF_ERROR(errs.ToStatus(type.kind, r.group, cur.name));
  // Binding writes storage directly in Kubernetes, bypassing the strategy that counts
  // generations: a bind does not bump metadata.generation.
  if (r.counts_generation && sub != Subresource::kBinding && type.spec_equal &&
      !type.spec_equal(*obj, *current)) {
    meta.generation = cur.generation + 1;
  }
  meta.resourceVersion = cur.resourceVersion;
  const bool finalized = cur.rare->deletionTimestamp && meta.finalizers.empty();
  if (!finalized && type.equal(*obj, *current)) {
    result = current;  // nothing changed: no write, no new resourceVersion
    return Status::Ok();
  }
  if (dry_run) {
    result = ObjectPtr(std::move(obj));
    return Status::Ok();
  }
  ++next_rv_;
  meta.resourceVersion = std::to_string(next_rv_);
  result = ObjectPtr(std::move(obj));
  std::string key = ObjectKey(r, cur.namespace_, cur.name);
  const uint64_t base_rv = ParseRv(cur.resourceVersion);
  if (finalized) {
    // The last finalizer is gone: deletion completes.
    removed = true;
    Stage(r, key, nullptr, result, base_rv);
  } else {
    Stage(r, key, result, current, base_rv);
  }
  return Status::Ok();
}

void Store::Impl::RunUpdate(Op& op) {
  const ResourceInfo& r = *op.resource;
  ObjectPtr current = Decoded(r, Lookup(r, ObjectKey(r, op.ns, op.name)));
  if (!current) {
    if (!op.update_opts.create_if_missing) {
      op.status = NotFoundError(r.QualifiedResource(), op.name);
      return;
    }
    auto empty = r.type->make();
    empty->metadata.name = op.name;
    empty->metadata.namespace_ = op.ns;
    auto desired = op.fn(*empty);
    if (!desired.ok()) {
      op.status = desired.TakeStatus();
      return;
    }
    std::unique_ptr<Object> obj = std::move(desired).value();
    obj->metadata.name = op.name;
    if (r.namespaced) obj->metadata.namespace_ = op.ns;
    obj->metadata.resourceVersion.clear();
    op.status = StageCreate(r, std::move(obj), op.update_opts.dry_run, op.result);
    return;
  }
  auto desired = op.fn(*current);
  if (!desired.ok()) {
    op.status = desired.TakeStatus();
    return;
  }
  bool removed = false;
  op.status = StageUpdate(r, current, std::move(desired).value(), op.update_opts.subresource,
                          op.update_opts.dry_run, op.result, removed);
  op.removed = removed;
}

void Store::Impl::RunDelete(Op& op) {
  const ResourceInfo& r = *op.resource;
  const DeleteOptions& opts = op.delete_opts;
  std::string key = ObjectKey(r, op.ns, op.name);
  ObjectPtr current = Decoded(r, Lookup(r, key));
  if (!current) {
    op.status = NotFoundError(r.QualifiedResource(), op.name);
    return;
  }
  const api::ObjectMeta& cur = current->metadata;
  if (r.admit_delete) {
    op.status = r.admit_delete(*current);
    if (!op.status.ok()) return;
  }
  if (opts.precondition_uid && *opts.precondition_uid != cur.uid) {
    op.status =
        ConflictError(r.QualifiedResource(), op.name,
                      "Precondition failed: UID in precondition: " + *opts.precondition_uid +
                          ", UID in object meta: " + cur.uid);
    return;
  }
  if (opts.precondition_resource_version &&
      *opts.precondition_resource_version != cur.resourceVersion) {
    op.status = ConflictError(r.QualifiedResource(), op.name,
                              "Precondition failed: ResourceVersion in precondition: " +
                                  *opts.precondition_resource_version +
                                  ", ResourceVersion in object meta: " + cur.resourceVersion);
    return;
  }
  const std::string& policy = opts.propagation_policy;
  if (!policy.empty() && policy != "Background" && policy != "Foreground" && policy != "Orphan") {
    api::FieldErrors errs;
    errs.NotSupported(api::Path("propagationPolicy"), policy,
                      {"Foreground", "Background", "Orphan"});
    op.status = errs.ToStatus("DeleteOptions", "", "");
    return;
  }
  std::unique_ptr<Object> next = current->Clone();
  api::ObjectMeta& meta = next->metadata;
  // Foreground and orphan deletion are carried out by the garbage collector through these
  // finalizers; they are added only while the object is not yet being deleted.
  if (!cur.rare->deletionTimestamp) {
    if (policy == "Foreground" && !HasFinalizer(*current, "foregroundDeletion")) {
      meta.finalizers.push_back("foregroundDeletion");
    } else if (policy == "Orphan" && !HasFinalizer(*current, "orphan")) {
      meta.finalizers.push_back("orphan");
    }
  }
  if (meta.finalizers.empty()) {
    op.removed = true;
    op.result = current;
    if (opts.dry_run) return;
    ++next_rv_;
    auto last = current->Clone();
    last->metadata.resourceVersion = std::to_string(next_rv_);
    ObjectPtr last_ptr(std::move(last));
    op.result = last_ptr;
    Stage(r, key, nullptr, last_ptr, ParseRv(cur.resourceVersion));
    return;
  }
  if (!meta.rare->deletionTimestamp) {
    meta.rare.edit().deletionTimestamp = clock_.Now().TruncatedToSeconds();
    meta.rare.edit().deletionGracePeriodSeconds = 0;
  }
  if (opts.dry_run || r.type->equal(*next, *current)) {
    op.result = opts.dry_run ? ObjectPtr(std::move(next)) : current;
    return;
  }
  ++next_rv_;
  meta.resourceVersion = std::to_string(next_rv_);
  op.result = ObjectPtr(std::move(next));
  Stage(r, key, op.result, current, ParseRv(cur.resourceVersion));
}

}  // namespace allot::store
