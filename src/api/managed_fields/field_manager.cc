#include "api/managed_fields/field_manager.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace allot::api::managed_fields {
namespace {

constexpr std::string_view kApply = "Apply";
constexpr std::string_view kUpdate = "Update";
constexpr std::string_view kFieldsV1 = "FieldsV1";
constexpr size_t kMaxManagerLength = 128;

// One entry of metadata.managedFields with its fields decoded.
struct Owner {
  ManagedFieldsEntry entry;  // fieldsV1 is rewritten from `fields` at the end
  FieldSet fields;
};

// Two entries are the same manager when they agree on the manager, the operation and the
// subresource, and, for updates, on the API version (an applier keeps one entry whatever
// version it applies in).
bool SameManager(const ManagedFieldsEntry& a, const ManagedFieldsEntry& b) {
  return a.manager == b.manager && a.operation == b.operation && a.subresource == b.subresource &&
         (a.operation == kApply || a.apiVersion == b.apiVersion);
}

// The stored entries, decoded. As kube-apiserver, entries that cannot be read are dropped as
// a whole: the object is then treated as untracked.
std::vector<Owner> Decode(const std::vector<ManagedFieldsEntry>& entries) {
  std::vector<Owner> owners;
  for (const ManagedFieldsEntry& e : entries) {
    Result<FieldSet> fields = FieldSet::FromFieldsV1(e.fieldsV1.json);
    bool known_operation = e.operation == kApply || e.operation == kUpdate;
    if (!fields.ok() || e.fieldsType != kFieldsV1 || !known_operation) return {};
    owners.push_back(Owner{e, std::move(fields).value()});
  }
  return owners;
}

std::vector<ManagedFieldsEntry> Encode(std::vector<Owner> owners) {
  std::vector<ManagedFieldsEntry> out;
  for (Owner& o : owners) {
    if (o.fields.Empty()) continue;
    o.entry.fieldsType = std::string(kFieldsV1);
    o.entry.fieldsV1.json = o.fields.ToFieldsV1();
    out.push_back(std::move(o.entry));
  }
  auto seconds = [](const ManagedFieldsEntry& e) { return e.time ? e.time->unix_seconds() : 0; };
  std::stable_sort(out.begin(), out.end(), [&](const auto& p, const auto& q) {
    return std::make_tuple(p.operation, seconds(p), p.manager, p.apiVersion, p.subresource) <
           std::make_tuple(q.operation, seconds(q), q.manager, q.apiVersion, q.subresource);
  });
  return out;
}

// Whether a write through `endpoint` may own `path`.
bool Ownable(const FieldPath& path, EndpointFields endpoint) {
  if (path.empty()) return false;
  const std::string& top = path[0];
  if (path.size() == 1 && (top == "f:apiVersion" || top == "f:kind" || top == "f:metadata")) {
    return false;
  }
  if (top == "f:metadata" && path.size() >= 2) {
    static constexpr std::string_view kServerSet[] = {
        "f:name",       "f:namespace",  "f:creationTimestamp", "f:selfLink",       "f:uid",
        "f:clusterName", "f:generation", "f:managedFields",     "f:resourceVersion"};
    for (std::string_view s : kServerSet) {
      if (path[1] == s && (path.size() == 2 || s == "f:managedFields")) return false;
    }
  }
  switch (endpoint) {
    case EndpointFields::kAll: return true;
    case EndpointFields::kAllButStatus: return top != "f:status";
    case EndpointFields::kStatusOnly: return top == "f:status";
  }
  return true;
}

Comparison OwnableChanges(const JsonValue& before, const JsonValue& after, const SchemaNode& schema,
                          EndpointFields endpoint) {
  Comparison c = Compare(before, after, schema);
  auto keep = [endpoint](const FieldPath& p) { return Ownable(p, endpoint); };
  return Comparison{c.added.Filter(keep), c.modified.Filter(keep), c.removed.Filter(keep)};
}

ManagedFieldsEntry Identity(const Writer& w, std::string_view operation) {
  ManagedFieldsEntry e;
  e.manager = w.manager.empty() ? "unknown" : w.manager;
  e.operation = std::string(operation);
  e.apiVersion = w.api_version;
  e.subresource = w.subresource;
  return e;
}

Owner* Find(std::vector<Owner>& owners, const ManagedFieldsEntry& who) {
  for (Owner& o : owners) {
    if (SameManager(o.entry, who)) return &o;
  }
  return nullptr;
}

// The write of `who` changed `c`: the fields it changed are taken from everyone else, the
// fields it removed from everyone; they become `who`'s (the entry's time moves only then).
void RecordUpdate(std::vector<Owner>& owners, const Comparison& c, const ManagedFieldsEntry& who,
                  const Writer& w) {
  FieldSet changed = c.added.Union(c.modified);
  for (Owner& o : owners) o.fields = o.fields.Difference(changed).Difference(c.removed);
  if (changed.Empty()) return;
  Owner* mine = Find(owners, who);
  if (!mine) {
    owners.push_back(Owner{who, {}});
    mine = &owners.back();
  }
  mine->fields = mine->fields.Union(changed);
  mine->entry.apiVersion = w.api_version;
  mine->entry.time = w.now.TruncatedToSeconds();
}

// Go's %q of a manager name.
std::string Quoted(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

// How a conflict names a manager: "kubectl", "kube-controller-manager" with subresource
// "status", "kubectl-client-side-apply" using apps/v1 at 2026-12-03T10:00:00Z.
std::string ManagerText(const ManagedFieldsEntry& e) {
  std::string out = Quoted(e.manager);
  if (!e.subresource.empty()) out += " with subresource " + Quoted(e.subresource);
  if (e.operation == kUpdate) {
    out += " using " + e.apiVersion;
    if (e.time) out += " at " + e.time->TruncatedToSeconds().ToRfc3339();
  }
  return out;
}

Status ConflictStatus(const std::vector<std::pair<const Owner*, FieldSet>>& conflicts) {
  size_t total = 0;
  for (const auto& [owner, fields] : conflicts) total += fields.size();
  std::string message;
  if (total == 1) {
    const auto& [owner, fields] = conflicts.front();
    message = "Apply failed with 1 conflict: conflict with " + ManagerText(owner->entry) + ": " +
              PathString(*fields.paths().begin());
  } else {
    message = "Apply failed with " + std::to_string(total) + " conflicts: ";
    bool first = true;
    for (const auto& [owner, fields] : conflicts) {
      message += (first ? "" : "\n") + std::string("conflicts with ") + ManagerText(owner->entry) +
                 ":";
      first = false;
      for (const FieldPath& p : fields.paths()) message += "\n- " + PathString(p);
    }
  }
  Status st(StatusCode::kConflict, message);
  for (const auto& [owner, fields] : conflicts) {
    for (const FieldPath& p : fields.paths()) {
      st.AddCause(StatusCause{"FieldManagerConflict", "conflict with " + ManagerText(owner->entry),
                              PathString(p)});
    }
  }
  return st;
}

}  // namespace

std::string ManagerFromUserAgent(std::string_view user_agent) {
  std::string_view name = user_agent.substr(0, user_agent.find('/'));
  if (name.empty()) return "unknown";
  return std::string(name.substr(0, kMaxManagerLength));
}

std::vector<ManagedFieldsEntry> Update(const JsonValue& zero, const JsonValue* live,
                                       const JsonValue& next,
                                       const std::vector<ManagedFieldsEntry>& entries,
                                       const SchemaNode& schema, const Writer& writer) {
  std::vector<Owner> owners = Decode(entries);
  if (live && owners.empty()) return {};
  Comparison c = OwnableChanges(live ? *live : zero, next, schema, writer.endpoint);
  RecordUpdate(owners, c, Identity(writer, kUpdate), writer);
  return Encode(std::move(owners));
}

Result<std::vector<ManagedFieldsEntry>> Apply(const JsonValue& zero, const JsonValue* live,
                                              JsonValue& merged,
                                              const JsonValue& config,
                                              const std::vector<ManagedFieldsEntry>& entries,
                                              bool force, const SchemaNode& schema,
                                              const Writer& writer) {
  if (config.IsObject()) {
    auto meta = config.FindMember("metadata");
    if (meta != config.MemberEnd() && meta->value.IsObject() &&
        meta->value.HasMember("managedFields") && !meta->value["managedFields"].IsNull()) {
      return BadRequestError("metadata.managedFields must be nil");
    }
  }
  const JsonValue& before = live ? *live : zero;
  std::vector<Owner> owners = Decode(entries);
  if (live && owners.empty()) {
    // An object never tracked: what it holds belongs to "before-first-apply", so that the first
    // apply conflicts with it as with any other manager.
    Writer first = writer;
    first.manager = "before-first-apply";
    RecordUpdate(owners, OwnableChanges(zero, *live, schema, writer.endpoint),
                 Identity(first, kUpdate), first);
  }
  const ManagedFieldsEntry applier = Identity(writer, kApply);
  auto ownable = [&writer](const FieldPath& p) { return Ownable(p, writer.endpoint); };
  FieldSet applied = FieldsOf(config, schema).Filter(ownable);

  // Prune what this applier set last time and leaves out now, unless someone else holds it.
  Owner* mine = Find(owners, applier);
  if (mine) {
    FieldSet held = applied;
    for (const Owner& o : owners) {
      if (&o != mine) held = held.Union(o.fields);
    }
    FieldSet dropped = mine->fields.Difference(applied).Filter(
        [&held](const FieldPath& p) { return !held.HasAtOrBelow(p); });
    RemoveFields(merged, dropped);
  }

  Comparison c = OwnableChanges(before, merged, schema, writer.endpoint);
  FieldSet changed = c.added.Union(c.modified);
  std::vector<std::pair<const Owner*, FieldSet>> conflicts;
  for (const Owner& o : owners) {
    if (SameManager(o.entry, applier)) continue;
    FieldSet clash = o.fields.Intersection(changed);
    if (!clash.Empty()) conflicts.emplace_back(&o, std::move(clash));
  }
  if (!conflicts.empty() && !force) {
    std::sort(conflicts.begin(), conflicts.end(), [](const auto& a, const auto& b) {
      const ManagedFieldsEntry &p = a.first->entry, &q = b.first->entry;
      return std::tie(p.manager, p.operation, p.apiVersion, p.subresource) <
             std::tie(q.manager, q.operation, q.apiVersion, q.subresource);
    });
    return ConflictStatus(conflicts);
  }
  for (Owner& o : owners) {
    if (SameManager(o.entry, applier)) continue;
    o.fields = o.fields.Difference(changed).Difference(c.removed);
  }
  mine = Find(owners, applier);
  if (!mine) {
    owners.push_back(Owner{applier, {}});
    mine = &owners.back();
  }
  if (!c.Same() || mine->fields != applied || !mine->entry.time) {
    mine->entry.time = writer.now.TruncatedToSeconds();
  }
  mine->entry.apiVersion = writer.api_version;
  mine->fields = std::move(applied);
  return Encode(std::move(owners));
}

}  // namespace allot::api::managed_fields
