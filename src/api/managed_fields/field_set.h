// A set of field paths: what one manager of an object owns (server-side apply, api-reference
// §4.7; Kubernetes' structured-merge-diff calls it fieldpath.Set). docs/server-side-apply.md
// explains how the field manager (api/managed_fields/field_manager.h) uses it.
//
// A path is a list of elements, each one as metadata.managedFields writes it:
//   "f:<name>"        a field of a struct or a key of a map ("f:spec", "f:labels", "f:app")
//   "k:<json object>" an item of a list keyed by a merge key (k:{"name":"nginx"})
//   "v:<json value>"  an item of a list of scalars merged as a set (v:"foregroundDeletion")
//   "i:<n>"           an item of a list by position (for items that lack their merge key)
// A set holds paths, not trees: {spec.replicas} says nothing about spec itself. FieldsV1 (the
// wire form) nests the paths as objects and marks a path that is itself in the set, and also
// has members below it, with a "." member.
//
// Thread-compatible value type.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace allot::api::managed_fields {

using FieldPath = std::vector<std::string>;

// "f:" + name, "k:" + compact JSON with its members sorted, "v:" + compact JSON, "i:" + n.
std::string FieldElement(std::string_view name);
std::string IndexElement(size_t index);

// The path as a conflict message prints it: ".spec.containers[name=\"nginx\"].image",
// ".metadata.finalizers[=\"x\"]", ".spec.items[3]".
std::string PathString(const FieldPath& path);

class FieldSet {
 public:
  void Insert(FieldPath path) { paths_.insert(std::move(path)); }
  bool Has(const FieldPath& path) const { return paths_.count(path) != 0; }
  // Whether `path`, or a path below it, is in the set.
  bool HasAtOrBelow(const FieldPath& path) const;
  bool Empty() const { return paths_.empty(); }
  size_t size() const { return paths_.size(); }
  const std::set<FieldPath>& paths() const { return paths_; }

  FieldSet Union(const FieldSet& other) const;
  FieldSet Intersection(const FieldSet& other) const;
  FieldSet Difference(const FieldSet& other) const;
  // The paths `keep` says yes to.
  template <class Pred>
  FieldSet Filter(Pred keep) const {
    FieldSet out;
    for (const FieldPath& p : paths_) {
      if (keep(p)) out.paths_.insert(out.paths_.end(), p);
    }
    return out;
  }

  // metadata.managedFields[].fieldsV1, e.g. {"f:spec":{"f:replicas":{}}}: a JSON object whose
  // members are path elements, each an object of what lies below it ("." for the path itself).
  // A malformed document is a 400 naming what is wrong.
  static Result<FieldSet> FromFieldsV1(std::string_view json);
  // Members are written "." first, then fields, keys, values and indexes, each sorted.
  std::string ToFieldsV1() const;

  bool operator==(const FieldSet&) const = default;

 private:
  std::set<FieldPath> paths_;
};

}  // namespace allot::api::managed_fields
