// What Go's encoding/json says of text that is not JSON, for error messages that must read as
// kube-apiserver's ("unexpected end of JSON input", "invalid character 'x' looking for beginning
// of value").
#pragma once

#include <string>
#include <string_view>

namespace allot::api {

// encoding/json's SyntaxError message for `text`; empty when `text` is well-formed JSON. The
// context of an "invalid character" follows Go's scanner for the common cases (where a value,
// an object key, a colon, a comma or the end was expected; escapes; numbers); literals and
// other rarities get the nearest of those.
std::string GoJsonSyntaxError(std::string_view text);

}  // namespace allot::api
