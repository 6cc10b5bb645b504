// Boxed<T>: an optional T kept out of line. Unset it costs its parent one pointer instead of
// sizeof(std::optional<T>), which is what rarely set structs of the largest objects want
// (pod.spec.affinity is 184 bytes inline and unset in most pods; docs/performance.md, "RSS per
// pod"). It reads like std::optional<T> — has_value, bool, *, ->, emplace, reset, ==, assigning
// a T or std::nullopt — and both codecs treat it as one (absent when unset).
//
// Copies copy the T (objects are values; a Clone must not share mutable parts).
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace allot::api {

template <class T>
class Boxed {
 public:
  using value_type = T;

  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT: as std::optional
  Boxed(const T& v) : p_(std::make_unique<T>(v)) {}             // NOLINT: as std::optional
  Boxed(T&& v) : p_(std::make_unique<T>(std::move(v))) {}        // NOLINT: as std::optional
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }
  Boxed& operator=(const T& v) {
    p_ = std::make_unique<T>(v);
    return *this;
  }
  Boxed& operator=(T&& v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  // Unchecked, as std::optional's: only when set.
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }

  template <class... Args>
  T& emplace(Args&&... args) {
    p_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *p_;
  }
  void reset() { p_.reset(); }

  friend bool operator==(const Boxed& a, const Boxed& b) {
    if (!a.p_ || !b.p_) return !a.p_ && !b.p_;
    return *a.p_ == *b.p_;
  }
  friend bool operator==(const Boxed& a, std::nullopt_t) { return !a.p_; }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace allot::api
