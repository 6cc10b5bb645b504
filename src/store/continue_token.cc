#include "store/continue_token.h"

#include <charconv>
#include <string>

namespace allot::store {

namespace {

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64Url(std::string_view in) {
  std::string out;
  uint32_t buf = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buf = (buf << 8) | c;
    bits += 8;
    while (bits >= 6) {
      out += kB64[(buf >> (bits - 6)) & 63];
      bits -= 6;
    }
  }
  if (bits > 0) out += kB64[(buf << (6 - bits)) & 63];
  return out;
}

bool UnBase64Url(std::string_view in, std::string& out) {
  uint32_t buf = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = std::char_traits<char>::find(kB64, 64, c);
    if (!p) return false;
    buf = (buf << 6) | static_cast<uint32_t>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      out += static_cast<char>((buf >> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return true;
}

}  // namespace

std::string EncodeContinue(uint64_t rv, std::string_view last_key) {
  return Base64Url(std::to_string(rv) + ":" + std::string(last_key));
}

std::string EncodeLatestContinue(std::string_view last_key) {
  return Base64Url("-1:" + std::string(last_key));
}

Result<ContinuePoint> DecodeContinue(std::string_view token) {
  std::string raw;
  size_t colon = 0;
  uint64_t rv = 0;
  if (!UnBase64Url(token, raw) || (colon = raw.find(':')) == std::string::npos) {
    return BadRequestError("continue key is not valid: incorrect encoded start resourceVersion");
  }
  if (std::string_view(raw).substr(0, colon) == "-1") return ContinuePoint{0, raw.substr(colon + 1)};
  if (std::from_chars(raw.data(), raw.data() + colon, rv).ptr != raw.data() + colon || rv == 0) {
    return BadRequestError("continue key is not valid: incorrect encoded start resourceVersion");
  }
  return ContinuePoint{rv, raw.substr(colon + 1)};
}

Status ExpiredContinue() {
  return Status(StatusCode::kExpired,
                "The provided continue parameter is too old to display a consistent list result. "
                "You can start a new list without the continue parameter.");
}

}  // namespace allot::store
