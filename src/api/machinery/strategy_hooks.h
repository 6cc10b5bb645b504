// Adapters from a kind's typed strategy functions to ResourceInfo's generic hook signatures, for
// the API groups' resources.cc files:
//
//   r.default_fn = hooks::Default<Pod, DefaultPod>;
//   r.validate = hooks::Validate<Pod, ValidatePod>;
//   r.validate_update = hooks::ValidateUpdate<Pod, ValidatePodUpdate>;
#pragma once

#include "api/machinery/object.h"
#include "api/machinery/validation.h"

namespace allot::api::hooks {

template <class T, void (*F)(T&)>
void Default(Object& obj) {
  F(static_cast<T&>(obj));
}

// A validation that needs nothing from above api/.
template <class T, void (*F)(const T&, FieldErrors&)>
void Validate(const Object& obj, FieldErrors& errs, const Validators&) {
  F(static_cast<const T&>(obj), errs);
}

// A validation that uses the Validators (CEL selectors).
template <class T, void (*F)(const T&, FieldErrors&, const Validators&)>
void ValidateWith(const Object& obj, FieldErrors& errs, const Validators& validators) {
  F(static_cast<const T&>(obj), errs, validators);
}

// An update or status-update validation.
template <class T, void (*F)(const T&, const T&, FieldErrors&)>
void ValidateUpdate(const Object& obj, const Object& old, FieldErrors& errs) {
  F(static_cast<const T&>(obj), static_cast<const T&>(old), errs);
}

}  // namespace allot::api::hooks
