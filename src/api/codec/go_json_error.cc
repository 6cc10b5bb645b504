#include "api/codec/go_json_error.h"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cctype>
#include <cstdio>

namespace allot::api {
namespace {

// Go's quoteChar: the byte as a character literal, '\'' and '"' as Go writes them.
std::string QuoteChar(unsigned char c) {
  if (c == '\'') return R"('\'')";
  if (c == '"') return R"('"')";
  switch (c) {
    case '\a': return R"('\a')";
    case '\b': return R"('\b')";
    case '\f': return R"('\f')";
    case '\n': return R"('\n')";
    case '\r': return R"('\r')";
    case '\t': return R"('\t')";
    case '\v': return R"('\v')";
    case '\\': return R"('\\')";
    default: break;
  }
  char buf[8];
  if (c < 0x20 || c == 0x7f) {
    std::snprintf(buf, sizeof buf, "'\\x%02x'", c);
  } else if (c >= 0x80) {
    // A lone byte of a multi-byte sequence: strconv.Quote writes it as an escape.
    std::snprintf(buf, sizeof buf, "'\\x%02x'", c);
  } else {
    std::snprintf(buf, sizeof buf, "'%c'", c);
  }
  return buf;
}

const char* Context(rapidjson::ParseErrorCode code) {
  switch (code) {
    case rapidjson::kParseErrorObjectMissName: return "looking for beginning of object key string";
    case rapidjson::kParseErrorObjectMissColon: return "after object key";
    case rapidjson::kParseErrorObjectMissCommaOrCurlyBracket: return "after object key:value pair";
    case rapidjson::kParseErrorArrayMissCommaOrSquareBracket: return "after array element";
    case rapidjson::kParseErrorDocumentRootNotSingular: return "after top-level value";
    case rapidjson::kParseErrorStringEscapeInvalid: return "in string escape code";
    case rapidjson::kParseErrorStringUnicodeEscapeInvalidHex:
      return "in \\u hexadecimal character escape";
    case rapidjson::kParseErrorStringMissQuotationMark: return "in string literal";
    case rapidjson::kParseErrorNumberMissFraction: return "after decimal point in numeric literal";
    case rapidjson::kParseErrorNumberMissExponent: return "in exponent of numeric literal";
    default: return "looking for beginning of value";
  }
}

}  // namespace

std::string GoJsonSyntaxError(std::string_view text) {
  rapidjson::Reader reader;
  rapidjson::BaseReaderHandler<> ignore;
  rapidjson::MemoryStream in(text.data(), text.size());
  rapidjson::ParseResult r = reader.Parse<rapidjson::kParseStopWhenDoneFlag>(in, ignore);
  if (r) {
    // One value, then only whitespace (the flag above stops after the value).
    for (size_t i = in.Tell(); i < text.size(); ++i) {
      char c = text[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
      return "invalid character " + QuoteChar(static_cast<unsigned char>(c)) +
             " after top-level value";
    }
    return {};
  }
  if (r.Offset() >= text.size() || r.Code() == rapidjson::kParseErrorDocumentEmpty) {
    return "unexpected end of JSON input";
  }
  size_t at = r.Offset();
  // rapidjson points at an escape's backslash; Go at the byte that does not fit after it.
  if (r.Code() == rapidjson::kParseErrorStringEscapeInvalid && text[at] == '\\' &&
      at + 1 < text.size()) {
    ++at;
  }
  if (r.Code() == rapidjson::kParseErrorStringUnicodeEscapeInvalidHex) {
    if (text.substr(at, 2) == "\\u") at += 2;
    while (at < text.size() && std::isxdigit(static_cast<unsigned char>(text[at]))) ++at;
    if (at >= text.size()) return "unexpected end of JSON input";
  }
  const std::string bad = "invalid character " + QuoteChar(static_cast<unsigned char>(text[at]));
  if (r.Code() == rapidjson::kParseErrorValueInvalid) {
    // Inside true, false or null: rapidjson stops at the first byte that does not fit.
    for (std::string_view literal : {"true", "false", "null"}) {
      for (size_t n = 1; n < literal.size() && n <= at; ++n) {
        if (text.substr(at - n, n) == literal.substr(0, n) &&
            (at - n == 0 || !std::isalpha(static_cast<unsigned char>(text[at - n - 1])))) {
          return bad + " in literal " + std::string(literal) + " (expecting " +
                 QuoteChar(static_cast<unsigned char>(literal[n])) + ")";
        }
      }
    }
  }
  return bad + " " + Context(r.Code());
}

}  // namespace allot::api
