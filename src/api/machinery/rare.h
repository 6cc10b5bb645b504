// Rare<T>: the fields of an API struct that most objects leave unset, kept together out of line.
//
// A decoded object pays for every field it could hold: an empty std::string is 32 bytes, an
// empty list 24. A pod's Container has thirteen fields that a typical container never sets
// (probes, lifecycle, workingDir, stdin, ...); together they are about 300 of its 736 bytes,
// and each pod holds its containers for as long as it exists, in the store and in every cache
// that shares it. Rare<T> holds such fields as one pointer, null while they are all unset
// (docs/performance.md, "Rarely set fields out of line").
//
// On the wire nothing changes: the parent's Visit() names each rare field in its usual place,
// through VisitRare, so both codecs, the schema and field-path errors see the same fields in
// the same order as before:
//
//   struct ContainerRare { std::string workingDir; ... bool operator==(...) const = default; };
//   struct Container {
//     std::string image;
//     Rare<ContainerRare> rare;
//     template <class V> void Visit(V& v) {
//       v("image", image);
//       VisitRare(v, "workingDir", rare, &ContainerRare::workingDir);
//     }
//   };
//
// Reading: `c.rare->workingDir` (an unset Rare reads as T{}). Writing: `c.rare.edit()
// .workingDir = ...` (allocates T on first use), or `c.rare.set(&ContainerRare::workingDir, v)`,
// which allocates nothing for an empty v. Equality treats unset as T{}, so an object whose rare
// fields were all written back to empty still equals one that never had them.
//
// Visitors: a visitor that only reads fields needs nothing: an unset field is visited as an
// empty temporary of its type. A visitor that writes fields (a decoder) must define
//   template <class T, class F> void RareField(const char* name, Rare<T>& r, F T::*m, FieldTags);
// and call r.edit() only for the field it writes; without it, its writes to an unset rare
// field would go to that temporary and be lost.
#pragma once

#include <utility>

#include "api/machinery/boxed.h"
#include "api/machinery/field.h"

namespace allot::api {

template <class T>
class Rare {
 public:
  using value_type = T;

  // Whether any rare field was ever written (they may have been written back to empty).
  bool allocated() const { return box_.has_value(); }
  // The fields, for reading: T{} while unset.
  const T& get() const { return box_ ? *box_ : Empty(); }
  const T* operator->() const { return &get(); }
  const T& operator*() const { return get(); }
  // The fields, for writing: allocates them on first use.
  T& edit() { return box_ ? *box_ : box_.emplace(); }
  // Writes `value` to the field `m`; a value equal to F{} written to an unset Rare leaves it
  // unset (nothing to allocate for).
  template <class F, class U>
  void set(F T::*m, U&& value) {
    if (!box_ && value == F{}) return;
    edit().*m = std::forward<U>(value);
  }
  // Unsets every rare field.
  void clear() { box_.reset(); }
  // Frees the part if every field in it is back to empty.
  void compact() {
    if (box_ && *box_ == T{}) box_.reset();
  }

  friend bool operator==(const Rare& a, const Rare& b) {
    if (!a.box_ && !b.box_) return true;
    return a.get() == b.get();
  }

 private:
  static const T& Empty() {
    static const T empty{};
    return empty;
  }
  Boxed<T> box_;  // out of line, copied deep (api/machinery/boxed.h)
};

// Visits the rare field `m` of `r` under `name`, with `tags`, as if it were a plain member.
template <class V, class T, class F>
void VisitRare(V& v, const char* name, Rare<T>& r, F T::*m, FieldTags tags = {}) {
  if constexpr (requires { v.RareField(name, r, m, tags); }) {
    v.RareField(name, r, m, tags);
  } else if (r.allocated()) {
    v(name, r.edit().*m, tags);
  } else {
    F unset{};
    v(name, unset, tags);
  }
}

}  // namespace allot::api
