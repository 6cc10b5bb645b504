// The REST resources Allot serves and their per-resource behaviour ("strategy"): scope, names
// for discovery, defaulting, validation, field selectors and `kubectl get` table columns.
//
// The store and API server are generic; everything kind-specific that they need is here, as
// plain function pointers filled in by the type's own file (api/core/resources.cc, ...). A null
// hook means "nothing to do".
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/machinery/object.h"
#include "api/machinery/validation.h"
#include "common/status.h"
#include "common/time.h"

namespace allot::api {

struct TableColumn {
  std::string name;
  std::string type;    // string | integer | number | boolean | date
  std::string format;  // "name" for the name column, else ""
  std::string description;
  int priority = 0;  // > 0: only with -o wide
};

using TableCell = std::variant<std::string, int64_t>;

struct ResourceInfo;

// What admission may read of the other stored objects: the store's state as of the write being
// admitted (writes earlier in the same batch included), so a check and the write it guards are
// one consistent step.
class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  // nullptr when there is no such object.
  virtual ObjectPtr Get(const ResourceInfo& r, std::string_view ns,
                        std::string_view name) const = 0;
  // Every object of the resource (all namespaces), in no particular order.
  virtual std::vector<ObjectPtr> List(const ResourceInfo& r) const = 0;
};

struct ResourceInfo {
  std::string group;     // "" for core
  std::string version;   // "v1"
  std::string resource;  // plural: "pods"
  std::string singular;  // "pod"
  const TypeInfo* type = nullptr;
  bool namespaced = true;
  std::vector<std::string> short_names;  // "po"
  std::vector<std::string> categories;   // "all"
  bool status_subresource = false;
  // metadata.generation is kept (1 on create, +1 on each spec change) only for the kinds whose
  // Kubernetes strategy does so (workloads, pods, disruption budgets, priority classes, device
  // classes, slices and taint rules, custom resources); the others never carry one.
  bool counts_generation = false;
  // With a status subresource, create normally resets status (it is the controllers' to
  // write). Kinds whose creator owns the status too (Node) keep it.
  bool create_keeps_status = false;
  // Extra subresources advertised in discovery (e.g. "binding", "eviction" for pods); the
  // server implements each one explicitly.
  std::vector<std::string> extra_subresources;

  // Sets defaults on a decoded object before validation (create and update).
  void (*default_fn)(Object& obj) = nullptr;
  // Then the defaults inside the parts the kind keeps as JSON text (a pod's probes and volume
  // sources: api/protobuf.h's JsonMessageDefaulterFor), set by the registry for every kind
  // that has them.
  void (*default_json_messages)(Object& obj) = nullptr;
  // Both, in that order: what a write runs before validation.
  void Default(Object& obj) const {
    if (default_fn) default_fn(obj);
    if (default_json_messages) default_json_messages(obj);
  }
  // Validates a new object (create and update); `validators` are the checks handed in from
  // above api/ (the store's StoreOptions::validators).
  void (*validate)(const Object& obj, FieldErrors& errs, const Validators& validators) = nullptr;
  // Validates an update (spec immutability, ...); `validate` runs too.
  void (*validate_update)(const Object& obj, const Object& old, FieldErrors& errs) = nullptr;
  // Validates a status update.
  void (*validate_status)(const Object& obj, const Object& old, FieldErrors& errs) = nullptr;

  // Admission (Kubernetes' admission plugins): checks and changes that depend on other objects,
  // run by the store before defaulting and validation. An error refuses the write as it is
  // (403 Forbidden, usually). Set by api/register.cc, which knows every group.
  Status (*admit_create)(Object& obj, const ObjectReader& objects) = nullptr;
  Status (*admit_update)(Object& obj, const Object& old, const ObjectReader& objects) = nullptr;
  Status (*admit_delete)(const Object& obj) = nullptr;
  // Objects the server creates when it starts, if they do not exist (Kubernetes' post-start
  // hooks: the system PriorityClasses).
  std::vector<ObjectPtr> (*bootstrap)() = nullptr;

  // Field selector support beyond metadata.name / metadata.namespace (which every resource has).
  std::vector<std::string> field_labels;
  std::optional<std::string> (*field_value)(const Object& obj, std::string_view field) = nullptr;

  // Table columns after NAME (the server adds NAME first and fills it with metadata.name,
  // unless leading_name_column is false); empty means the default NAME + "Created At".
  bool leading_name_column = true;
  std::vector<TableColumn> columns;
  std::vector<TableCell> (*row)(const Object& obj, Time now) = nullptr;

  // "pods", or "resourceclaims.resource.k8s.io": how errors name the resource.
  std::string QualifiedResource() const {
    return group.empty() ? resource : resource + "." + group;
  }
  std::string GroupVersion() const { return group.empty() ? version : group + "/" + version; }
};

// A ResourceInfo with its names and kind filled in; the hooks are the caller's to add.
ResourceInfo NewResourceInfo(std::string group, std::string version, std::string resource,
                             std::string singular, const TypeInfo& type, bool namespaced);

// A resource served in a group-version besides the one it is stored in, converted on the way in
// and out as kube-apiserver converts every served version through its internal one:
// resource.k8s.io v1beta1 and v1beta2 beside v1, events.k8s.io/v1 for core/v1 Events. The
// conversions rewrite one object's JSON document in place, apiVersion and kind included; objects
// in a served version travel as JSON only.
struct ServedVersion {
  const ResourceInfo* storage = nullptr;  // the resource as stored (what the store knows)
  // The resource as this version names it (group, version, resource, kind, columns): what
  // discovery lists and what lists, watches and errors say. view.type is view_type.
  ResourceInfo view;
  TypeInfo view_type;
  // Into the stored version; an error (400 BadRequest, with the field) for what has no place
  // there.
  Status (*to_storage)(rapidjson::Document& object) = nullptr;
  void (*from_storage)(rapidjson::Document& object) = nullptr;
  // The version's objects have the stored kind's shape field for field (resource.k8s.io/v1beta2):
  // its schema, and its protobuf messages, are the stored kind's.
  bool same_shape = false;
  // Else, the protobuf message of the version's objects, when they have one the catalog holds
  // (api/codec/opaque_messages.h: "k8s.io.api.resource.v1beta1.ResourceClaim"): protobuf
  // bodies are read as that message into the version's JSON, and objects written from it.
  std::string protobuf_message;
  // Whether its objects travel in protobuf at all (one way or the other above).
  bool has_protobuf() const { return same_shape || !protobuf_message.empty(); }
};

class ResourceRegistry {
 public:
  // All built-in resources (defined in api/register.cc, which knows every group). Built once,
  // immutable, thread-safe.
  static const ResourceRegistry& Default();

  void Add(ResourceInfo info);
  // For api/register.cc while it builds the registry (admission hooks): nullptr when absent.
  ResourceInfo* Mutable(std::string_view group, std::string_view resource);
  const ResourceInfo* Find(std::string_view group, std::string_view version,
                           std::string_view resource) const;
  const ResourceInfo* FindByKind(std::string_view api_version, std::string_view kind) const;
  // The resource whose objects have this type; null when none is registered.
  const ResourceInfo* FindByType(const TypeInfo& type) const;
  const std::vector<ResourceInfo>& All() const { return resources_; }

  // Serves the stored resource group/resource also as `group`/`version` (resource and kind
  // unchanged unless given), converted by the two functions. For api/register.cc, after every
  // Add.
  void AddServedVersion(std::string_view storage_group, std::string_view resource,
                        std::string group, std::string version,
                        Status (*to_storage)(rapidjson::Document&),
                        void (*from_storage)(rapidjson::Document&), bool same_shape = false,
                        std::string_view protobuf_message = {});
  // The served version at group/version/resource; null when there is none (a stored resource is
  // found by Find).
  const ServedVersion* FindServed(std::string_view group, std::string_view version,
                                  std::string_view resource) const;
  const std::deque<ServedVersion>& ServedVersions() const { return served_; }

 private:
  std::vector<ResourceInfo> resources_;
  std::deque<ServedVersion> served_;  // a deque: views point into their own elements
};

// The served resource of the kind T (ResourceFor<Pod>() is "pods"): the one lookup of a resource
// by type. T must be a kind of the default registry; anything else is a programming error and
// aborts on first use.
const ResourceInfo& MustFindByType(const TypeInfo& type);
template <class T>
const ResourceInfo& ResourceFor() {
  static const ResourceInfo& resource = MustFindByType(T::Type());
  return resource;
}

// Human age as kubectl prints it ("5s", "3m12s", "2d4h"): duration.HumanDuration.
std::string HumanDuration(int64_t seconds);
// The AGE cell for an object, and its column as kube-apiserver describes it.
std::string AgeCell(const Object& obj, Time now);
TableColumn AgeColumn();

// Each group's file registers its resources.
void RegisterCoreResources(ResourceRegistry& registry);         // api/core/resources.cc
void RegisterDraResources(ResourceRegistry& registry);          // api/resource/resources.cc
void RegisterKoordinatorResources(ResourceRegistry& registry);  // api/koordinator/resources.cc
void RegisterSchedulingResources(ResourceRegistry& registry);   // api/scheduling/resources.cc
void RegisterPolicyResources(ResourceRegistry& registry);       // api/policy/resources.cc
void RegisterRbacResources(ResourceRegistry& registry);         // api/rbac/resources.cc
void RegisterAppsResources(ResourceRegistry& registry);         // api/apps/resources.cc
void RegisterStorageResources(ResourceRegistry& registry);      // api/storage/resources.cc
// The served versions (after every Add): resource.k8s.io v1beta1/v1beta2, events.k8s.io/v1.
void RegisterDraServedVersions(ResourceRegistry& registry);    // api/resource/served_versions.cc
void RegisterEventsServedVersion(ResourceRegistry& registry);  // api/core/events_v1.cc

}  // namespace allot::api
