#include "api/machinery/quantity.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace allot::api {
namespace {

__extension__ typedef __int128 I128;
__extension__ typedef unsigned __int128 U128;

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

// Largest |exponent| a parsed value may carry; keeps all exponent arithmetic far from int32
// overflow (sums and roundings move it by at most a few dozen).
constexpr int64_t kMaxExponent = 1'000'000'000;
// BinarySI values are capped here on parse (2^63-1), as Kubernetes does.
constexpr std::string_view kMaxBinaryDigits = "9223372036854775807";

struct Pow10Table {
  U128 v[39];
  constexpr Pow10Table() : v() {
    v[0] = 1;
    for (int i = 1; i < 39; ++i) v[i] = v[i - 1] * 10;
  }
};
constexpr Pow10Table kPow10;

// Number of decimal digits of v (0 for 0).
int DigitCount(U128 v) {
  int n = 0;
  while (n < 39 && v >= kPow10.v[n]) ++n;
  return n;
}

std::string U128ToString(U128 v) {
  if (v == 0) return "0";
  char buf[48];
  int i = sizeof(buf);
  while (v != 0) {
    buf[--i] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  return std::string(buf + i, sizeof(buf) - i);
}

U128 Magnitude(I128 v) { return v < 0 ? -static_cast<U128>(v) : static_cast<U128>(v); }

// ceil(m / 10^k) for m > 0.
U128 DivPow10Up(U128 m, int64_t k) {
  if (k <= 0) return m;
  if (k >= 39) return 1;  // m < 10^39 would need k < 39 to keep a digit
  U128 p = kPow10.v[k];
  U128 q = m / p;
  if (m % p != 0) ++q;
  return q;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsSuffixChar(char c) {
  switch (c) {
    case 'e':
    case 'E':
    case 'i':
    case 'n':
    case 'u':
    case 'm':
    case 'k':
    case 'K':
    case 'M':
    case 'G':
    case 'T':
    case 'P':
      return true;
    default:
      return false;
  }
}

// Go strconv.ParseInt(s, 10, 64): optional sign, at least one digit, no overflow.
bool ParseGoInt64(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  U128 v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    v = v * 10 + static_cast<U128>(c - '0');
    if (v > static_cast<U128>(std::numeric_limits<int64_t>::max()) + 1) return false;
  }
  if (!negative && v > static_cast<U128>(std::numeric_limits<int64_t>::max())) return false;
  *out = negative ? static_cast<int64_t>(-static_cast<I128>(v)) : static_cast<int64_t>(v);
  return true;
}

// Maps a suffix to (base, exponent, format) as resource's suffixer does. Exponent suffixes
// ("e3", "E-2", "e+6") outside the int32 range are rejected (Kubernetes would wrap them).
bool InterpretSuffix(std::string_view s, int* base, int64_t* exponent, Quantity::Format* format) {
  using F = Quantity::Format;
  struct Entry {
    std::string_view suffix;
    int base;
    int exponent;
    F format;
  };
  static constexpr Entry kTable[] = {
      {"", 10, 0, F::kDecimalSI},   {"n", 10, -9, F::kDecimalSI}, {"u", 10, -6, F::kDecimalSI},
      {"m", 10, -3, F::kDecimalSI}, {"k", 10, 3, F::kDecimalSI},  {"M", 10, 6, F::kDecimalSI},
      {"G", 10, 9, F::kDecimalSI},  {"T", 10, 12, F::kDecimalSI}, {"P", 10, 15, F::kDecimalSI},
      {"E", 10, 18, F::kDecimalSI}, {"Ki", 2, 10, F::kBinarySI},  {"Mi", 2, 20, F::kBinarySI},
      {"Gi", 2, 30, F::kBinarySI},  {"Ti", 2, 40, F::kBinarySI},  {"Pi", 2, 50, F::kBinarySI},
      {"Ei", 2, 60, F::kBinarySI},
  };
  for (const Entry& e : kTable) {
    if (e.suffix == s) {
      *base = e.base;
      *exponent = e.exponent;
      *format = e.format;
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    int64_t v = 0;
    if (!ParseGoInt64(s.substr(1), &v)) return false;
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      return false;
    }
    *base = 10;
    *exponent = v;
    *format = F::kDecimalExponent;
    return true;
  }
  return false;
}

// Removes trailing '0's of a non-empty digit string without leading zeros, moving them into
// *exponent.
void StripTrailingZeros(std::string& digits, int64_t* exponent) {
  size_t last = digits.find_last_not_of('0');
  if (last == std::string::npos) return;  // not reached: callers pass non-zero digits
  *exponent += static_cast<int64_t>(digits.size() - 1 - last);
  digits.resize(last + 1);
}

// digits := digits + 1 (decimal, may grow by one digit).
void IncrementDigits(std::string& digits) {
  for (size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return;
    }
    digits[i] = '0';
  }
  digits.insert(digits.begin(), '1');
}

// digits := digits * 2 (decimal).
void DoubleDigits(std::string& digits) {
  int carry = 0;
  for (size_t i = digits.size(); i-- > 0;) {
    int d = (digits[i] - '0') * 2 + carry;
    digits[i] = static_cast<char>('0' + d % 10);
    carry = d / 10;
  }
  if (carry != 0) digits.insert(digits.begin(), static_cast<char>('0' + carry));
}

// Kubernetes' fast path keeps the input text as the serialized form under these conditions;
// `num` is the integer part (the scanner reports an all-zero one as "0"), `denom` the fraction.
bool KeepsText(Quantity::Format format, std::string_view num, std::string_view denom,
               int64_t suffix_exponent) {
  if (format == Quantity::Format::kBinarySI) {
    int64_t precision = 15 - static_cast<int64_t>(num.size()) - suffix_exponent * 3 / 10 - 1;
    if (!denom.empty() || precision < 0) return false;
    int64_t value = 0;
    for (char c : num) value = value * 10 + (c - '0');
    return (value & 0x07) != 0;
  }
  int64_t precision = 18 - static_cast<int64_t>(num.size() + denom.size());
  int64_t scale = suffix_exponent - static_cast<int64_t>(denom.size());
  if (precision < 0 || scale < -9) return false;
  std::string shifted(num);
  shifted.append(denom);
  return scale % 3 == 0 && !shifted.ends_with("000") && shifted[0] != '0';
}

Status Fail(std::string_view message) {
  return Status(StatusCode::kBadRequest, std::string(message));
}

}  // namespace

void Quantity::Normalize(bool negative, UInt128 magnitude, int64_t exponent) {
  if (magnitude == 0) {
    mantissa_ = 0;
    exponent_ = 0;
    return;
  }
  while (magnitude % 10 == 0) {
    magnitude /= 10;
    ++exponent;
  }
  int digits = DigitCount(magnitude);
  if (digits > kMaxDigits) {
    int drop = digits - kMaxDigits;
    magnitude = DivPow10Up(magnitude, drop);
    exponent += drop;
    while (magnitude % 10 == 0) {
      magnitude /= 10;
      ++exponent;
    }
  }
  mantissa_ = negative ? -static_cast<Int128>(magnitude) : static_cast<Int128>(magnitude);
  exponent_ = static_cast<int32_t>(exponent);
}

Quantity Quantity::FromInt(int64_t value) { return FromScaled(value, 0); }

Quantity Quantity::FromMilli(int64_t milli) { return FromScaled(milli, -3); }

Quantity Quantity::FromScaled(int64_t value, int32_t scale) {
  Quantity q;
  q.Normalize(value < 0, Magnitude(value), scale);
  return q;
}

Result<Quantity> Quantity::Parse(std::string_view str) {
  if (str.empty()) return Fail(kErrFormatWrong);

  // <sign><leading zeros><num>[.<denom>]<suffix letters>[<sign>]<digits>, as resource's scanner.
  size_t pos = 0;
  const size_t end = str.size();
  bool negative = false;
  if (str[0] == '-') {
    negative = true;
    ++pos;
  } else if (str[0] == '+') {
    ++pos;
  }
  while (pos < end && str[pos] == '0') ++pos;
  if (pos == end) return Quantity();  // "0", "-0", "+", "000": zero, DecimalSI

  size_t begin = pos;
  while (pos < end && IsDigit(str[pos])) ++pos;
  std::string_view num = str.substr(begin, pos - begin);
  std::string_view denom;
  if (pos < end && str[pos] == '.') {
    begin = ++pos;
    while (pos < end && IsDigit(str[pos])) ++pos;
    denom = str.substr(begin, pos - begin);
  }
  const size_t suffix_begin = pos;
  while (pos < end && IsSuffixChar(str[pos])) ++pos;
  if (pos < end && (str[pos] == '+' || str[pos] == '-')) ++pos;
  while (pos < end && IsDigit(str[pos])) ++pos;
  if (pos != end) return Fail(kErrFormatWrong);

  int base = 10;
  int64_t suffix_exponent = 0;
  Format format = Format::kDecimalSI;
  if (!InterpretSuffix(str.substr(suffix_begin), &base, &suffix_exponent, &format)) {
    return Fail(kErrSuffix);
  }

  const std::string_view num_or_zero = num.empty() ? std::string_view("0") : num;
  const bool keep_text = KeepsText(format, num_or_zero, denom, suffix_exponent);

  // The exact value: digits * 10^exponent (* 2^suffix_exponent for BinarySI).
  std::string digits(num);
  digits.append(denom);
  int64_t exponent = -static_cast<int64_t>(denom.size());
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    Quantity zero;
    zero.format_ = format;
    return zero;
  }
  digits.erase(0, first);
  StripTrailingZeros(digits, &exponent);
  if (base == 2) {
    // Anything with 20 or more integer digits is above the cap whatever the multiplier.
    if (static_cast<int64_t>(digits.size()) + exponent < 20) {
      for (int64_t i = 0; i < suffix_exponent; ++i) DoubleDigits(digits);
      StripTrailingZeros(digits, &exponent);
    } else {
      digits.assign(kMaxBinaryDigits);
      exponent = 0;
    }
  } else {
    exponent += suffix_exponent;
  }

  // Round a non-zero value finer than nano away from zero to the next nano.
  if (exponent < -9) {
    int64_t drop = -9 - exponent;
    if (drop >= static_cast<int64_t>(digits.size())) {
      digits.assign("1");
    } else {
      // The dropped digits end in a non-zero digit, so the value always rounds up.
      digits.resize(digits.size() - static_cast<size_t>(drop));
      IncrementDigits(digits);
    }
    exponent = -9;
    StripTrailingZeros(digits, &exponent);
  }

  if (format == Format::kBinarySI) {
    const int64_t int_digits = static_cast<int64_t>(digits.size()) + exponent;
    bool over = int_digits > 19;
    if (int_digits == 19) {
      std::string int_part = exponent >= 0 ? digits + std::string(exponent, '0')
                                           : digits.substr(0, static_cast<size_t>(int_digits));
      int cmp = int_part.compare(kMaxBinaryDigits);
      over = cmp > 0 || (cmp == 0 && exponent < 0);
    }
    if (over) {
      digits.assign(kMaxBinaryDigits);
      exponent = 0;
    } else if (int_digits <= 0) {
      format = Format::kDecimalSI;  // 0 < |value| < 1
    }
  }

  if (static_cast<int64_t>(digits.size()) > kMaxDigits || exponent > kMaxExponent ||
      exponent < -kMaxExponent) {
    return Fail(kErrNumeric);
  }
  U128 magnitude = 0;
  for (char c : digits) magnitude = magnitude * 10 + static_cast<U128>(c - '0');

  Quantity q;
  q.Normalize(negative, magnitude, exponent);
  q.format_ = format;
  // Kept only where it differs from what the value would print: "100m" and "1Gi" are their own
  // canonical form, so most quantities hold no text.
  if (keep_text && q.CanonicalString() != str) q.text_.emplace(str);
  return q;
}

std::string Quantity::ToString() const {
  if (text_) return *text_;
  return CanonicalString();
}

std::string Quantity::CanonicalString() const {
  if (mantissa_ == 0) return "0";
  const bool negative = mantissa_ < 0;
  U128 magnitude = Magnitude(mantissa_);
  int64_t exponent = exponent_;
  std::string out = negative ? "-" : "";

  if (format_ == Format::kBinarySI && exponent >= 0 && DigitCount(magnitude) + exponent <= 38) {
    U128 value = magnitude * kPow10.v[exponent];
    if (value >= 1024) {
      static constexpr std::string_view kBinarySuffixes[] = {"",   "Ki", "Mi", "Gi",
                                                             "Ti", "Pi", "Ei"};
      int power = 0;
      while (power < 6 && value % 1024 == 0) {
        value /= 1024;
        ++power;
      }
      out += U128ToString(value);
      out += kBinarySuffixes[power];
      return out;
    }
  }
  // DecimalSI / DecimalExponent (and BinarySI values that are fractional or below 1024):
  // lower the exponent to a multiple of 3.
  int64_t r = ((exponent % 3) + 3) % 3;
  magnitude *= kPow10.v[r];
  exponent -= r;
  out += U128ToString(magnitude);
  if (format_ != Format::kDecimalExponent && exponent >= -9 && exponent <= 18) {
    static constexpr std::string_view kDecimalSuffixes[] = {"n", "u", "m", "",  "k",
                                                            "M", "G", "T", "P", "E"};
    out += kDecimalSuffixes[(exponent + 9) / 3];
  } else if (exponent != 0) {
    out += 'e';
    out += std::to_string(exponent);
  }
  return out;
}

int Quantity::Compare(const Quantity& other) const {
  const int sa = Sign();
  const int sb = other.Sign();
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  U128 ma = Magnitude(mantissa_);
  U128 mb = Magnitude(other.mantissa_);
  // Order of magnitude first: value lies in [10^(top-1), 10^top).
  const int64_t ta = DigitCount(ma) + static_cast<int64_t>(exponent_);
  const int64_t tb = DigitCount(mb) + static_cast<int64_t>(other.exponent_);
  int cmp;
  if (ta != tb) {
    cmp = ta < tb ? -1 : 1;
  } else {
    // Same top digit position: aligning never exceeds the longer mantissa's digit count.
    if (exponent_ > other.exponent_) {
      ma *= kPow10.v[exponent_ - other.exponent_];
    } else {
      mb *= kPow10.v[other.exponent_ - exponent_];
    }
    cmp = ma < mb ? -1 : (ma > mb ? 1 : 0);
  }
  return sa > 0 ? cmp : -cmp;
}

Quantity& Quantity::AddImpl(const Quantity& other, bool negate) {
  text_.reset();
  if (mantissa_ == 0) {
    format_ = other.format_;
    mantissa_ = negate ? -other.mantissa_ : other.mantissa_;
    exponent_ = other.exponent_;
    return *this;
  }
  if (other.mantissa_ == 0) return *this;

  const U128 ma = Magnitude(mantissa_);
  const U128 mb = Magnitude(other.mantissa_);
  const int64_t ea = exponent_;
  const int64_t eb = other.exponent_;
  const int64_t top = std::max(DigitCount(ma) + ea, DigitCount(mb) + eb);
  // Align both on a common exponent; keep at most 37 digits so the sum fits in 128 bits.
  // When the exponents are too far apart, the smaller term is rounded away from zero.
  const int64_t low = std::max(std::min(ea, eb), top - 37);
  auto align = [low](U128 m, int64_t e) -> U128 {
    if (e >= low) return m * kPow10.v[e - low];
    return DivPow10Up(m, low - e);
  };
  I128 a = static_cast<I128>(align(ma, ea));
  I128 b = static_cast<I128>(align(mb, eb));
  if (mantissa_ < 0) a = -a;
  if ((other.mantissa_ < 0) != negate) b = -b;
  const I128 sum = a + b;
  Normalize(sum < 0, Magnitude(sum), low);
  return *this;
}

Quantity& Quantity::Add(const Quantity& other) { return AddImpl(other, false); }

Quantity& Quantity::Sub(const Quantity& other) { return AddImpl(other, true); }

Quantity& Quantity::Neg() {
  text_.reset();
  mantissa_ = -mantissa_;
  return *this;
}

int64_t Quantity::ScaledValue(int32_t scale) const {
  if (mantissa_ == 0) return 0;
  const bool negative = mantissa_ < 0;
  const U128 magnitude = Magnitude(mantissa_);
  const int64_t shift = static_cast<int64_t>(exponent_) - scale;
  U128 result;
  if (shift >= 0) {
    if (DigitCount(magnitude) + shift > 20) return negative ? INT64_MIN : INT64_MAX;
    result = magnitude * kPow10.v[shift];
  } else {
    result = DivPow10Up(magnitude, -shift);
  }
  const U128 limit = static_cast<U128>(INT64_MAX) + (negative ? 1 : 0);
  if (result > limit) return negative ? INT64_MIN : INT64_MAX;
  return negative ? static_cast<int64_t>(-static_cast<I128>(result)) : static_cast<int64_t>(result);
}

int64_t Quantity::Value() const { return ScaledValue(0); }

int64_t Quantity::MilliValue() const { return ScaledValue(-3); }

bool Quantity::RoundUp(int32_t scale) {
  if (mantissa_ == 0 || exponent_ >= scale) return true;
  text_.reset();
  // The mantissa ends in a non-zero digit, so dropping any digit loses precision.
  const bool negative = mantissa_ < 0;
  Normalize(negative, DivPow10Up(Magnitude(mantissa_), static_cast<int64_t>(scale) - exponent_),
            scale);
  return false;
}

}  // namespace allot::api
