#include "client/kubeconfig.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "api/codec/yaml.h"
#include "common/base64.h"
#include "common/files.h"

namespace allot::client {

namespace {

namespace fs = std::filesystem;

// One kubeconfig file, parsed: its named entries as JSON objects.
struct File {
  std::string path;
  std::string dir;
  rapidjson::Document doc;
};

// The named entries of one list ("clusters", "users", "contexts"), first file first.
struct Entry {
  const rapidjson::Value* value = nullptr;  // the inner "cluster" / "user" / "context" object
  const File* file = nullptr;
};

Status FileError(const std::string& path, const std::string& why) {
  return BadRequestError("kubeconfig \"" + path + "\": " + why);
}

std::string Str(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return {};
  auto it = obj.FindMember(key);
  return it != obj.MemberEnd() && it->value.IsString()
             ? std::string(it->value.GetString(), it->value.GetStringLength())
             : std::string();
}

bool Bool(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return false;
  auto it = obj.FindMember(key);
  return it != obj.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}

void Collect(const File& f, const char* list, const char* inner,
             std::map<std::string, Entry>& out) {
  // MemberEnd() is only defined on objects: on a scalar it does arithmetic on the number's bits.
  if (!f.doc.IsObject()) return;
  auto it = f.doc.FindMember(list);
  if (it == f.doc.MemberEnd() || !it->value.IsArray()) return;
  for (const auto& item : it->value.GetArray()) {
    if (!item.IsObject()) continue;  // `- 9`
    std::string name = Str(item, "name");
    auto v = item.FindMember(inner);
    if (name.empty() || v == item.MemberEnd()) continue;
    out.emplace(name, Entry{&v->value, &f});  // the first file to name it wins
  }
}

// `data_key` (base64) or `key` (a file, relative to the kubeconfig's directory); `data_key`
// null: the file only.
Result<std::string> DataOrFile(const Entry& e, const char* key, const char* data_key) {
  std::string data = data_key ? Str(*e.value, data_key) : std::string();
  if (!data.empty()) {
    std::optional<std::string> decoded = Base64Decode(data);
    if (!decoded) return FileError(e.file->path, std::string(data_key) + ": invalid base64");
    return *decoded;
  }
  std::string path = Str(*e.value, key);
  if (path.empty()) return std::string();
  if (fs::path(path).is_relative()) path = (fs::path(e.file->dir) / path).string();
  auto text = ReadFile(path);
  if (!text.ok()) {
    return FileError(e.file->path, std::string(key) + ": " + text.status().message());
  }
  return std::move(text).value();
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

namespace {

Result<std::unique_ptr<File>> ParseFile(std::string_view text, const std::string& path) {
  auto json = api::YamlDocumentToJson(text);
  if (!json.ok()) return FileError(path, json.status().message());
  auto f = std::make_unique<File>();
  f->path = path;
  f->dir = fs::path(path).parent_path().string();
  f->doc.Parse(json->c_str());
  if (f->doc.HasParseError() || (!f->doc.IsObject() && !f->doc.IsNull())) {
    return FileError(path, "not a kubeconfig (expected a mapping)");
  }
  return f;
}

Result<RestConfig> Resolve(const std::vector<std::unique_ptr<File>>& parsed,
                           std::string_view context);

}  // namespace

Result<RestConfig> ParseKubeconfig(std::string_view yaml, const std::string& path,
                                   std::string_view context) {
  std::vector<std::unique_ptr<File>> parsed;
  ALLOT_ASSIGN_OR_RETURN(auto f, ParseFile(yaml, path));
  parsed.push_back(std::move(f));
  return Resolve(parsed, context);
}

Result<RestConfig> LoadKubeconfig(const std::vector<std::string>& files, std::string_view context) {
  std::vector<std::unique_ptr<File>> parsed;
  for (const std::string& path : files) {
    if (path.empty()) continue;
    auto text = ReadFile(path);
    if (!text.ok()) {
      // With several files (KUBECONFIG), missing ones are skipped, as client-go does.
      if (files.size() > 1 && !fs::exists(path)) continue;
      return FileError(path, text.status().message());
    }
    ALLOT_ASSIGN_OR_RETURN(auto f, ParseFile(*text, path));
    parsed.push_back(std::move(f));
  }
  return Resolve(parsed, context);
}

namespace {

Result<RestConfig> Resolve(const std::vector<std::unique_ptr<File>>& parsed,
                           std::string_view context) {
  if (parsed.empty()) return BadRequestError("no kubeconfig file found");
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current;
  for (const auto& f : parsed) {
    Collect(*f, "clusters", "cluster", clusters);
    Collect(*f, "users", "user", users);
    Collect(*f, "contexts", "context", contexts);
    if (current.empty()) current = Str(f->doc, "current-context");
  }
  const std::string& where = parsed.front()->path;
  std::string name = context.empty() ? current : std::string(context);
  if (name.empty()) return FileError(where, "no context given and no current-context");
  auto ctx = contexts.find(name);
  if (ctx == contexts.end()) return FileError(where, "context \"" + name + "\" not found");
  RestConfig out;
  out.source = "kubeconfig " + ctx->second.file->path;
  out.namespace_ = Str(*ctx->second.value, "namespace");
  std::string cluster_name = Str(*ctx->second.value, "cluster");
  auto cluster = clusters.find(cluster_name);
  if (cluster == clusters.end()) {
    return FileError(where,
                     "cluster \"" + cluster_name + "\" of context \"" + name + "\" not found");
  }
  const Entry& c = cluster->second;
  out.server = Str(*c.value, "server");
  if (out.server.empty()) {
    return FileError(c.file->path, "cluster \"" + cluster_name + "\" has no server");
  }
  out.insecure_skip_verify = Bool(*c.value, "insecure-skip-tls-verify");
  out.tls_server_name = Str(*c.value, "tls-server-name");
  ALLOT_ASSIGN_OR_RETURN(out.ca_pem,
                         DataOrFile(c, "certificate-authority", "certificate-authority-data"));
  std::string user_name = Str(*ctx->second.value, "user");
  if (!user_name.empty()) {
    auto user = users.find(user_name);
    if (user == users.end()) {
      return FileError(where, "user \"" + user_name + "\" of context \"" + name + "\" not found");
    }
    const Entry& u = user->second;
    ALLOT_ASSIGN_OR_RETURN(out.cert_pem,
                           DataOrFile(u, "client-certificate", "client-certificate-data"));
    ALLOT_ASSIGN_OR_RETURN(out.key_pem, DataOrFile(u, "client-key", "client-key-data"));
    out.token = Str(*u.value, "token");
    if (out.token.empty()) {
      ALLOT_ASSIGN_OR_RETURN(std::string token, DataOrFile(u, "tokenFile", nullptr));
      out.token = Trim(std::move(token));
    }
  }
  return out;
}

}  // namespace

Result<RestConfig> InClusterConfig(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !port || !*host || !*port) {
    return BadRequestError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
        "defined");
  }
  RestConfig out;
  out.source = "in-cluster";
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // an IPv6 address
  out.server = "https://" + h + ":" + port;
  auto token = ReadFile(root + "/token");
  if (!token.ok()) return BadRequestError("in-cluster token: " + token.status().message());
  out.token = Trim(std::move(token).value());
  auto ca = ReadFile(root + "/ca.crt");
  if (!ca.ok()) return BadRequestError("in-cluster CA: " + ca.status().message());
  out.ca_pem = std::move(ca).value();
  return out;
}

Result<RestConfig> ResolveRestConfig(const std::string& kubeconfig, const std::string& context,
                                     const std::string& server) {
  std::vector<std::string> files;
  if (!kubeconfig.empty()) {
    files.push_back(kubeconfig);
  } else if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
    std::string_view list = env;
    while (!list.empty()) {
      size_t colon = list.find(':');
      files.emplace_back(list.substr(0, colon));
      if (colon == std::string_view::npos) break;
      list.remove_prefix(colon + 1);
    }
  }
  Result<RestConfig> cfg = BadRequestError("unset");
  if (!files.empty()) {
    cfg = LoadKubeconfig(files, context);
  } else if (std::getenv("KUBERNETES_SERVICE_HOST") && server.empty()) {
    cfg = InClusterConfig();
  } else {
    if (server.empty()) return BadRequestError("no --server, --kubeconfig or $KUBECONFIG given");
    RestConfig plain;
    plain.server = server;
    plain.source = "--server";
    return plain;
  }
  if (cfg.ok() && !server.empty()) cfg->server = server;
  return cfg;
}

Result<std::unique_ptr<HttpClient>> NewHttpClient(const RestConfig& config,
                                                  HttpClientOptions options) {
  options.tls.ca_pem = config.ca_pem;
  options.tls.cert_pem = config.cert_pem;
  options.tls.key_pem = config.key_pem;
  options.tls.insecure_skip_verify = config.insecure_skip_verify;
  options.tls.server_name = config.tls_server_name;
  if (!config.token.empty()) options.bearer_token = config.token;
  return HttpClient::FromUrl(config.server, std::move(options));
}

std::string KubeconfigYaml(const std::string& name, const std::string& server,
                           const std::string& ca_pem, const std::string& user,
                           const std::string& cert_pem, const std::string& key_pem) {
  // Names and the server as JSON strings: valid YAML whatever they hold.
  auto q = [](const std::string& s) {
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return std::string(b.GetString(), b.GetSize());
  };
  std::string y = "apiVersion: v1\nkind: Config\nclusters:\n- name: " + q(name) +
                  "\n  cluster:\n    server: " + q(server) + "\n";
  if (!ca_pem.empty()) y += "    certificate-authority-data: " + Base64Encode(ca_pem) + "\n";
  y += "users:\n- name: " + q(user) + "\n  user:";
  if (cert_pem.empty() && key_pem.empty()) y += " {}";
  y += "\n";
  if (!cert_pem.empty()) y += "    client-certificate-data: " + Base64Encode(cert_pem) + "\n";
  if (!key_pem.empty()) y += "    client-key-data: " + Base64Encode(key_pem) + "\n";
  y += "contexts:\n- name: " + q(name) + "\n  context:\n    cluster: " + q(name) +
       "\n    user: " + q(user) + "\ncurrent-context: " + q(name) + "\n";
  return y;
}

}  // namespace allot::client
