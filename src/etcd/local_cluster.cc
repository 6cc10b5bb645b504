#include "etcd/local_cluster.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "etcd/client.h"

extern char** environ;

namespace allot::etcd {

namespace {

constexpr char kEtcdBinary[] = "/usr/bin/etcd";

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

bool Accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

std::string LocalCluster::Url(int port) const {
  return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port);
}

Result<std::unique_ptr<LocalCluster>> LocalCluster::Start(int size, const LocalClusterTls* tls) {
  std::unique_ptr<LocalCluster> c(new LocalCluster());
  if (tls) c->tls_ = *tls;
  char tmpl[] = "/tmp/allot-etcd-XXXXXX";
  if (!::mkdtemp(tmpl)) return InternalError("mkdtemp failed");
  c->dir_ = tmpl;
  for (int i = 0; i < size; ++i) {
    Member m;
    m.name = "m" + std::to_string(i);
    m.client_port = FreePort();
    m.peer_port = FreePort();
    c->members_.push_back(m);
  }
  for (int i = 0; i < size; ++i) ALLOT_RETURN_IF_ERROR(c->Spawn(i));
  for (int i = 0; i < size; ++i) ALLOT_RETURN_IF_ERROR(c->WaitReady(i));
  return c;
}

LocalCluster::~LocalCluster() {
  for (size_t i = 0; i < members_.size(); ++i) Kill(static_cast<int>(i));
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::vector<std::string> LocalCluster::endpoints() const {
  std::vector<std::string> out;
  for (const Member& m : members_) out.push_back(Url(m.client_port));
  return out;
}

std::string LocalCluster::endpoint(int i) const {
  return Url(members_[static_cast<size_t>(i)].client_port);
}

void LocalCluster::Kill(int i) {
  Member& m = members_[static_cast<size_t>(i)];
  if (m.pid <= 0) return;
  ::kill(m.pid, SIGKILL);
  ::waitpid(m.pid, nullptr, 0);
  m.pid = -1;
}

Status LocalCluster::Restart(int i) {
  ALLOT_RETURN_IF_ERROR(Spawn(i, /*existing=*/true));
  return WaitReady(i);
}

Status LocalCluster::SaveSnapshot(int i, const std::string& file) {
  const std::string cmd = "ETCDCTL_API=3 /usr/bin/etcdctl --endpoints=" + endpoint(i) +
                          " snapshot save " + file + " >>" + dir_ + "/etcdctl.log 2>&1";
  if (std::system(cmd.c_str()) != 0) return InternalError("etcdctl snapshot save failed");
  return Status::Ok();
}

Status LocalCluster::RestoreSnapshot(const std::string& file) {
  Kill(0);
  Member& m = members_[0];
  const std::string data = dir_ + "/" + m.name;
  std::error_code ec;
  std::filesystem::remove_all(data, ec);
  const std::string peer = "http://127.0.0.1:" + std::to_string(m.peer_port);
  const std::string cmd = "ETCDCTL_API=3 /usr/bin/etcdctl snapshot restore " + file +
                          " --name=" + m.name + " --data-dir=" + data +
                          " --initial-cluster=" + m.name + "=" + peer +
                          " --initial-advertise-peer-urls=" + peer +
                          " --initial-cluster-token=allot-test >>" + dir_ + "/etcdctl.log 2>&1";
  if (std::system(cmd.c_str()) != 0) return InternalError("etcdctl snapshot restore failed");
  return Restart(0);
}

Status LocalCluster::Spawn(int i, bool existing) {
  Member& m = members_[static_cast<size_t>(i)];
  std::string initial;
  for (const Member& o : members_) {
    if (!initial.empty()) initial += ",";
    initial += o.name + "=http://127.0.0.1:" + std::to_string(o.peer_port);
  }
  const std::string peer = "http://127.0.0.1:" + std::to_string(m.peer_port);
  std::vector<std::string> args = {
      kEtcdBinary,
      "--name=" + m.name,
      "--data-dir=" + dir_ + "/" + m.name,
      "--listen-client-urls=" + Url(m.client_port),
      "--advertise-client-urls=" + Url(m.client_port),
      "--listen-peer-urls=" + peer,
      "--initial-advertise-peer-urls=" + peer,
      "--initial-cluster=" + initial,
      std::string("--initial-cluster-state=") + (existing ? "existing" : "new"),
      "--initial-cluster-token=allot-test",
      "--heartbeat-interval=50",
      "--election-timeout=500",
      "--logger=zap",
      "--log-outputs=stderr"};
  if (tls_) {
    args.push_back("--cert-file=" + tls_->cert_file);
    args.push_back("--key-file=" + tls_->key_file);
    args.push_back("--trusted-ca-file=" + tls_->ca_file);
    args.push_back("--client-cert-auth");
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = dir_ + "/" + m.name + ".log";
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, kEtcdBinary, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return InternalError("cannot start " + std::string(kEtcdBinary));
  m.pid = pid;
  return Status::Ok();
}

// Waits until the member accepts connections and answers with a leader. A new client per
// attempt: a gRPC channel that failed to connect backs off before trying again.
Status LocalCluster::WaitReady(int i) {
  Options o;
  o.endpoints = {endpoint(i)};
  o.request_timeout = std::chrono::milliseconds(1000);
  if (tls_) {
    auto read = [](const std::string& path) {
      std::ifstream f(path);
      return std::string(std::istreambuf_iterator<char>(f), {});
    };
    o.ca_pem = read(tls_->ca_file);
    o.cert_pem = read(tls_->cert_file);
    o.key_pem = read(tls_->key_file);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  const int port = members_[static_cast<size_t>(i)].client_port;
  // What the last attempt saw, for the timeout's message.
  std::string last = "its client port " + std::to_string(port) + " accepted no connection";
  while (std::chrono::steady_clock::now() < deadline) {
    if (Accepts(port)) {
      ALLOT_ASSIGN_OR_RETURN(auto client, Client::Connect(o));
      auto st = client->GetMemberStatus();
      if (st.ok() && st->leader != 0) return Status::Ok();
      last = st.ok() ? std::string("it answered without a leader") : st.status().ToString();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status(StatusCode::kTimeout, "etcd member " + members_[static_cast<size_t>(i)].name +
                                          " did not become ready in 30 s: " + last);
}

}  // namespace allot::etcd
