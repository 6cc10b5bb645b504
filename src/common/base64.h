// Standard base64 (RFC 4648, with padding), as Go's base64.StdEncoding: kubeconfig's *-data
// fields, YAML's !!binary.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace allot {

std::string Base64Encode(std::string_view in);
// nullopt when `in` is not valid base64; CR and LF are ignored (as Go's decoder does).
std::optional<std::string> Base64Decode(std::string_view in);

}  // namespace allot
