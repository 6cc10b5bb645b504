// Quantity: an exact decimal amount with the Kubernetes text form ("100m", "1Gi", "2", "1e3").
//
// Semantics follow k8s.io/apimachinery/pkg/api/resource: a value is parsed from
// <sign><digits>[.<digits>]<suffix> where suffix is a binary SI (Ki Mi Gi Ti Pi Ei), decimal
// SI (n u m "" k M G T P E) or decimal exponent (e3, E-2) form. The format of the input is
// remembered and used for the canonical output (ToString), which is what the API server
// returns: "1000m" -> "1", "1.5Gi" -> "1536Mi", "0.1" -> "100m", "1e3" -> "1e3".
// Arithmetic and comparison are exact (no floating point).
//
// Parsing, as Kubernetes does it:
//  - a non-zero value finer than 1n is rounded away from zero to the next nano ("0.9n" -> 1n,
//    "3.001n" -> 4n);
//  - a BinarySI value is silently capped at 2^63-1 ("8Ei", "9Ei" parse as 9223372036854775807);
//    a decimal value is not capped;
//  - a BinarySI value strictly between -1 and 1 (after rounding) becomes DecimalSI
//    ("0.000000000001Ki" -> "2n").
//
// Serialization (ToString), as Kubernetes' Quantity.String():
//  - when the parsed text is already in the form Kubernetes recognizes as canonical it is echoed
//    verbatim, exactly under Kubernetes' (slightly loose) conditions, so e.g. "1.500k" and "+1"
//    come back unchanged just as the API server returns them; CanonicalString() ignores that text;
//  - otherwise zero is "0"; DecimalSI and DecimalExponent use the largest exponent that is a
//    multiple of 3 and keeps the mantissa an integer ("1500" -> "1500", "1000" -> "1k",
//    "1.2e3" -> "1200", "0.5e-1" -> "50e-3"); DecimalSI falls back to "e<n>" beyond "E"
//    ("1000E" -> "1e21"); BinarySI is used only for integers with |value| >= 1024, with the
//    largest binary suffix that divides the value ("1.5Gi" -> "1536Mi", "0.5Ki" -> "512"),
//    else the DecimalSI form ("0.1Ki" -> "102400m").
//
// Range (a documented limit of this implementation; Kubernetes uses arbitrary precision):
// values carry at most kMaxDigits (36) significant decimal digits and a power-of-ten exponent of
// magnitude at most 10^9. Everything from 1n up to 10^27 is therefore exact, including sums of
// such values. Parse rejects inputs that need more digits (e.g. a 40-digit integer) with
// "unable to parse numeric part of quantity"; an Add/Sub result that would need more digits is
// rounded to 36 digits (no longer exact). BinarySI output never uses a suffix beyond "Ei".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/machinery/boxed.h"
#include "common/status.h"

namespace allot::api {

class Quantity {
 public:
  enum class Format : uint8_t { kDecimalSI, kBinarySI, kDecimalExponent };

  // Significant decimal digits a Quantity can hold exactly.
  static constexpr int kMaxDigits = 36;

  Quantity() = default;
  // An integer quantity in DecimalSI ("5", "5k").
  static Quantity FromInt(int64_t value);
  // value / 1000 in DecimalSI ("100m").
  static Quantity FromMilli(int64_t milli);
  // value * 10^scale in DecimalSI (resource.NewScaledQuantity): FromScaled(5, -9) is "5n".
  // |scale| must be at most 10^9.
  static Quantity FromScaled(int64_t value, int32_t scale);
  // Errors (code kBadRequest) carry Kubernetes' messages: "quantities must match the regular
  // expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" for malformed text, "unable to
  // parse quantity's suffix" for an unknown suffix, and "unable to parse numeric part of
  // quantity" for values outside the range above. Leading/trailing spaces are not accepted.
  static Result<Quantity> Parse(std::string_view text);

  // Canonical form, as Kubernetes serializes it (see above; may echo the parsed text).
  std::string ToString() const;
  // The canonical form computed from value and format, never the echoed input text.
  std::string CanonicalString() const;

  // -1, 0, 1. Formats are ignored.
  int Compare(const Quantity& other) const;
  bool operator==(const Quantity& other) const { return Compare(other) == 0; }
  bool operator<(const Quantity& other) const { return Compare(other) < 0; }

  // As resource.Quantity.Add/Sub: when *this is zero it takes other's format.
  Quantity& Add(const Quantity& other);
  Quantity& Sub(const Quantity& other);
  Quantity operator+(const Quantity& o) const { Quantity q = *this; q.Add(o); return q; }
  Quantity operator-(const Quantity& o) const { Quantity q = *this; q.Sub(o); return q; }
  // Negates in place (format kept).
  Quantity& Neg();

  // Value rounded up to an integer (as resource.Quantity.Value()): away from zero, so 1.1 -> 2
  // and -1.1 -> -2. Saturates at INT64_MIN/INT64_MAX (Kubernetes leaves overflow undefined).
  int64_t Value() const;
  // Value * 1000 rounded up (as resource.Quantity.MilliValue()), saturating.
  int64_t MilliValue() const;
  // ceil(value / 10^scale), away from zero, saturating: ScaledValue(-9) is the nano value.
  int64_t ScaledValue(int32_t scale) const;
  // Rounds the value away from zero to a multiple of 10^scale (resource.Quantity.RoundUp);
  // returns false if that lost precision. RoundUp(-3) is what core/v1 defaulting applies to
  // every ResourceList value.
  bool RoundUp(int32_t scale);

  bool IsZero() const { return mantissa_ == 0; }
  int Sign() const { return mantissa_ > 0 ? 1 : (mantissa_ < 0 ? -1 : 0); }
  Format format() const { return format_; }
  void set_format(Format format) {
    format_ = format;
    text_.reset();
  }

 private:
  __extension__ typedef __int128 Int128;

  __extension__ typedef unsigned __int128 UInt128;

  // Sets the value to (negative ? -magnitude : magnitude) * 10^exponent, stripping trailing zeros
  // into the exponent and rounding away from zero to kMaxDigits digits.
  void Normalize(bool negative, UInt128 magnitude, int64_t exponent);
  // *this += (negate ? -other : other).
  Quantity& AddImpl(const Quantity& other, bool negate);

  // The amount is mantissa_ * 10^exponent_ exactly. Invariants: mantissa_ has no trailing
  // decimal zeros and at most kMaxDigits digits; zero is (0, 0); |exponent_| <= ~10^9.
  Int128 mantissa_ = 0;
  int32_t exponent_ = 0;
  Format format_ = Format::kDecimalSI;
  // The parsed text when Kubernetes would echo it from String() and it differs from
  // CanonicalString() ("1.500k", "+1"); cleared by any mutation. Out of line, since few
  // quantities have one: a Quantity is 32 bytes instead of 64.
  Boxed<std::string> text_;
};

}  // namespace allot::api
