// Continue tokens of a paged list (ListOptions::continue_token, ListResult::continue_token):
// where the next page starts, as an opaque string. Allot's is base64url("<rv>:<last key>"): the
// revision the first page was read at (every page reads the same state) and the ObjectKey of the
// last object returned. Clients only pass it back.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace allot::store {

struct ContinuePoint {
  // The revision of the list's first page; 0 for a token that continues at the latest state
  // (EncodeLatestContinue).
  uint64_t rv = 0;
  std::string after;  // the page starts after this ObjectKey
};

std::string EncodeContinue(uint64_t rv, std::string_view last_key);
// A token that continues after `last_key` at whatever the state is when it is used (its
// revision is written -1, as kube-apiserver writes it): what a 410 for an expired token offers
// to finish the list inconsistently.
std::string EncodeLatestContinue(std::string_view last_key);
// Errors: 400 "continue key is not valid: ..." (kube-apiserver's words) for a token this server
// did not make.
Result<ContinuePoint> DecodeContinue(std::string_view token);
// 410 Expired: the token's revision has left the history.
Status ExpiredContinue();

}  // namespace allot::store
