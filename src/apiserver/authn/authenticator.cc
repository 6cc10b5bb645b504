#include "apiserver/authn/authenticator.h"

#include <algorithm>

namespace allot::apiserver::authn {

namespace {

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

Status Unauthorized() { return Status(StatusCode::kUnauthorized, "Unauthorized"); }

std::vector<std::string> SplitGroups(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    out.emplace_back(s.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// RFC 4180 records as Go's encoding/csv reads them (no comments, no leading-space trimming):
// quoted fields may hold commas, newlines and doubled quotes; blank lines are skipped.
Result<std::vector<std::vector<std::string>>> ParseCsv(std::string_view in,
                                                       std::string_view file_name) {
  std::vector<std::vector<std::string>> records;
  size_t i = 0, line = 1;
  auto error = [&](const std::string& why) {
    return BadRequestError("token file \"" + std::string(file_name) + "\": line " +
                           std::to_string(line) + ": " + why);
  };
  while (i < in.size()) {
    if (in[i] == '\n' || (in[i] == '\r' && i + 1 < in.size() && in[i + 1] == '\n')) {
      i += in[i] == '\r' ? 2 : 1;
      ++line;
      continue;  // a blank line
    }
    std::vector<std::string> record;
    while (true) {
      std::string field;
      if (i < in.size() && in[i] == '"') {
        ++i;
        while (true) {
          if (i >= in.size()) return error("extraneous or missing \" in quoted-field");
          if (in[i] == '"') {
            if (i + 1 < in.size() && in[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (in[i] == '\n') ++line;
          field += in[i++];
        }
        if (i < in.size() && in[i] != ',' && in[i] != '\n' && in[i] != '\r') {
          return error("extraneous or missing \" in quoted-field");
        }
      } else {
        while (i < in.size() && in[i] != ',' && in[i] != '\n' &&
               !(in[i] == '\r' && i + 1 < in.size() && in[i + 1] == '\n')) {
          if (in[i] == '"') return error("bare \" in non-quoted-field");
          field += in[i++];
        }
      }
      record.push_back(std::move(field));
      if (i < in.size() && in[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    if (i < in.size()) {
      i += in[i] == '\r' ? 2 : 1;
      ++line;
    }
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace

Result<std::unordered_map<std::string, UserInfo>> ParseTokenFile(
    std::string_view csv, std::string_view file_name, std::vector<std::string>* warnings) {
  ALLOT_ASSIGN_OR_RETURN(auto records, ParseCsv(csv, file_name));
  std::unordered_map<std::string, UserInfo> tokens;
  size_t number = 0;
  for (auto& record : records) {
    ++number;
    if (record.size() < 3) {
      return BadRequestError("token file \"" + std::string(file_name) +
                             "\" must have at least 3 columns (token, user name, user uid), "
                             "found " +
                             std::to_string(record.size()));
    }
    if (record[0].empty()) {
      if (warnings) {
        warnings->push_back("empty token has been found in token file \"" + std::string(file_name) +
                            "\", record number " + std::to_string(number));
      }
      continue;
    }
    if (tokens.count(record[0]) && warnings) {
      warnings->push_back("duplicate token has been found in token file \"" +
                          std::string(file_name) + "\", record number " + std::to_string(number));
    }
    UserInfo user{record[1], record[2], {}};
    if (record.size() >= 4) user.groups = SplitGroups(record[3]);
    tokens[record[0]] = std::move(user);
  }
  return tokens;
}

Result<std::shared_ptr<const Authenticator>> Authenticator::Create(
    const AuthenticatorOptions& options) {
  auto a = std::make_shared<Authenticator>();
  a->options_ = options;
  if (!options.token_file_csv.empty()) {
    ALLOT_ASSIGN_OR_RETURN(
        a->tokens_, ParseTokenFile(options.token_file_csv, options.token_file_name, &a->warnings_));
  }
  a->options_.token_file_csv.clear();  // the tokens live in tokens_ only
  return std::shared_ptr<const Authenticator>(std::move(a));
}

bool Authenticator::IsHealthProbe(std::string_view path) {
  for (std::string_view probe : {"/healthz", "/livez", "/readyz"}) {
    if (path == probe || (path.starts_with(probe) && path[probe.size()] == '/')) return true;
  }
  return false;
}

Result<UserInfo> Authenticator::Authenticate(const Request& req) const {
  std::optional<UserInfo> user;
  if (options_.client_certificates && req.client_certificate) {
    const Request::Certificate& c = *req.client_certificate;
    if (c.common_name.empty()) return Unauthorized();  // kube-apiserver: "common name empty"
    user = UserInfo{c.common_name, "", c.organizations};
  }
  if (!user) {
    std::string_view auth = req.Header("Authorization");
    if (!auth.empty()) {
      size_t space = auth.find(' ');
      std::string_view scheme = auth.substr(0, space);
      std::string_view token =
          space == std::string_view::npos ? std::string_view() : auth.substr(space + 1);
      if (IEquals(scheme, "Bearer")) {
        while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
        auto it = token.empty() ? tokens_.end() : tokens_.find(std::string(token));
        // A presented token that is not known is refused, never taken as anonymous.
        if (it == tokens_.end()) return Unauthorized();
        user = it->second;
      }
    }
  }
  if (!user) {
    if (!options_.anonymous) return Unauthorized();
    return UserInfo{std::string(kAnonymousUser), "", {std::string(kUnauthenticatedGroup)}};
  }
  if (std::find(user->groups.begin(), user->groups.end(), kAuthenticatedGroup) ==
      user->groups.end()) {
    user->groups.emplace_back(kAuthenticatedGroup);
  }
  return *user;
}

}  // namespace allot::apiserver::authn
