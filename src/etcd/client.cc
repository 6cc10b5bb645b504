#include "etcd/client.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "etcd/etcd_api.grpc.pb.h"

namespace allot::etcd {

namespace pb = etcdserverpb;

namespace {

// "http://127.0.0.1:2379" -> ("127.0.0.1:2379", false); https -> true. A bare "host:port" is
// plain.
Result<std::pair<std::string, bool>> ParseEndpoint(const std::string& url) {
  std::string rest = url;
  bool tls = false;
  if (rest.rfind("https://", 0) == 0) {
    tls = true;
    rest = rest.substr(8);
  } else if (rest.rfind("http://", 0) == 0) {
    rest = rest.substr(7);
  } else if (rest.find("://") != std::string::npos) {
    return BadRequestError("etcd endpoint \"" + url + "\": the scheme must be http or https");
  }
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty() || rest.find('/') != std::string::npos || rest.find(':') == std::string::npos) {
    return BadRequestError("etcd endpoint \"" + url + "\" is not scheme://host:port");
  }
  return std::make_pair(rest, tls);
}

// The gRPC target of "host:port": an address literal needs no resolver ("ipv4:", "ipv6:"); a
// name goes through the system's resolver.
std::string Target(const std::string& host_port) {
  const std::string host = host_port.substr(0, host_port.rfind(':'));
  if (!host.empty() && host.front() == '[') return "ipv6:" + host_port;
  if (!host.empty() && host.find_first_not_of("0123456789.") == std::string::npos) {
    return "ipv4:" + host_port;
  }
  return "dns:///" + host_port;
}

Status FromGrpc(const grpc::Status& st, const std::string& endpoint) {
  const std::string what = "etcd " + endpoint + ": " + st.error_message();
  switch (st.error_code()) {
    case grpc::StatusCode::OK:
      return Status::Ok();
    case grpc::StatusCode::UNAVAILABLE:
      return Status(StatusCode::kServiceUnavailable, what);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Status(StatusCode::kTimeout, what);
    case grpc::StatusCode::OUT_OF_RANGE:
      // "etcdserver: mvcc: required revision has been compacted"
      if (st.error_message().find("compacted") != std::string::npos) {
        return Status(StatusCode::kExpired, what);
      }
      return Status(StatusCode::kInternalError, what);
    default:
      return Status(StatusCode::kInternalError, what);
  }
}

KeyValue FromPb(const pb::KeyValue& kv) {
  return KeyValue{kv.key(), kv.value(), kv.create_revision(), kv.mod_revision(), kv.version()};
}

void ToPb(const Op& op, pb::RequestOp& out) {
  switch (op.kind) {
    case Op::Kind::kGet: {
      pb::RangeRequest* r = out.mutable_request_range();
      r->set_key(op.key);
      r->set_range_end(op.range_end);
      break;
    }
    case Op::Kind::kPut: {
      pb::PutRequest* p = out.mutable_request_put();
      p->set_key(op.key);
      p->set_value(op.value);
      break;
    }
    case Op::Kind::kDelete: {
      pb::DeleteRangeRequest* d = out.mutable_request_delete_range();
      d->set_key(op.key);
      d->set_range_end(op.range_end);
      d->set_prev_kv(true);
      break;
    }
  }
}

pb::Compare::CompareResult ToPb(Compare::Result r) {
  switch (r) {
    case Compare::Result::kEqual:
      return pb::Compare::EQUAL;
    case Compare::Result::kGreater:
      return pb::Compare::GREATER;
    case Compare::Result::kLess:
      return pb::Compare::LESS;
    case Compare::Result::kNotEqual:
      return pb::Compare::NOT_EQUAL;
  }
  return pb::Compare::EQUAL;
}

void ToPb(const Txn& txn, pb::TxnRequest& req) {
  for (const Compare& c : txn.compare) {
    pb::Compare* pc = req.add_compare();
    pc->set_key(c.key);
    pc->set_result(ToPb(c.result));
    if (c.target == Compare::Target::kVersion) {
      pc->set_target(pb::Compare::VERSION);
      pc->set_version(c.value);
    } else {
      pc->set_target(pb::Compare::MOD);
      pc->set_mod_revision(c.value);
    }
  }
  for (const Op& op : txn.success) ToPb(op, *req.add_success());
  for (const Op& op : txn.failure) ToPb(op, *req.add_failure());
}

TxnResult FromPb(const pb::TxnResponse& res) {
  TxnResult out;
  out.succeeded = res.succeeded();
  out.revision = res.header().revision();
  for (const pb::ResponseOp& r : res.responses()) {
    OpResult& o = out.results.emplace_back();
    if (r.has_response_range()) {
      for (const pb::KeyValue& kv : r.response_range().kvs()) o.kvs.push_back(FromPb(kv));
    } else if (r.has_response_delete_range()) {
      o.deleted = r.response_delete_range().deleted();
      for (const pb::KeyValue& kv : r.response_delete_range().prev_kvs()) {
        o.kvs.push_back(FromPb(kv));
      }
    }
  }
  return out;
}

// The gRPC watch stream of one watch, read by a thread of its own into a queue.
class GrpcWatch final : public Watch {
 public:
  GrpcWatch(pb::Watch::Stub& stub, std::string endpoint) : endpoint_(std::move(endpoint)) {
    stream_ = stub.Watch(&context_);
  }

  ~GrpcWatch() override {
    Cancel();
    if (reader_.joinable()) reader_.join();
  }

  Status Open(const WatchOptions& o) {
    pb::WatchRequest req;
    pb::WatchCreateRequest* c = req.mutable_create_request();
    c->set_key(o.key);
    c->set_range_end(o.range_end);
    c->set_start_revision(o.start_revision);
    c->set_prev_kv(o.prev_kv);
    c->set_progress_notify(o.progress_notify);
    std::lock_guard<std::mutex> write_lock(write_mu_);
    if (!stream_ || !stream_->Write(req)) {
      return FromGrpc(
          stream_ ? stream_->Finish() : grpc::Status(grpc::StatusCode::UNAVAILABLE, "no stream"),
          endpoint_);
    }
    reader_ = std::thread([this] { Read(); });
    return Status::Ok();
  }

  Result<std::vector<WatchEvent>> Next(std::chrono::milliseconds timeout,
                                       int64_t* progress) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return !events_.empty() || ended_ || cancelled_; });
    if (progress) *progress = progress_;
    if (!events_.empty()) {
      std::vector<WatchEvent> out(std::make_move_iterator(events_.begin()),
                                  std::make_move_iterator(events_.end()));
      events_.clear();
      return out;
    }
    if (cancelled_) return Status(StatusCode::kGone, "the watch was cancelled");
    if (ended_) return end_;
    return std::vector<WatchEvent>{};
  }

  void RequestProgress() override {
    pb::WatchRequest req;
    req.mutable_progress_request();
    std::lock_guard<std::mutex> write_lock(write_mu_);
    if (stream_ && !finished_) stream_->Write(req);
  }

  void Cancel() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cancelled_) return;
      cancelled_ = true;
    }
    context_.TryCancel();
    cv_.notify_all();
  }

 private:
  void Read() {
    pb::WatchResponse res;
    Status end = Status(StatusCode::kServiceUnavailable, "etcd " + endpoint_ + ": watch ended");
    while (stream_->Read(&res)) {
      std::lock_guard<std::mutex> lock(mu_);
      if (res.has_header() && res.events().empty() && !res.created()) {
        progress_ = std::max(progress_, res.header().revision());  // a progress notification
      }
      if (res.compact_revision() > 0) {
        end = Status(StatusCode::kExpired, "etcd " + endpoint_ +
                                               ": required revision has been compacted (compacted "
                                               "at " +
                                               std::to_string(res.compact_revision()) + ")");
        break;
      }
      if (res.canceled()) {
        end = Status(StatusCode::kInternalError,
                     "etcd " + endpoint_ + ": watch cancelled: " + res.cancel_reason());
        break;
      }
      for (const pb::Event& e : res.events()) {
        WatchEvent ev;
        ev.type =
            e.type() == pb::Event::DELETE ? WatchEvent::Type::kDelete : WatchEvent::Type::kPut;
        ev.kv = FromPb(e.kv());
        if (e.has_prev_kv()) ev.prev_kv = FromPb(e.prev_kv());
        events_.push_back(std::move(ev));
      }
      cv_.notify_all();
    }
    context_.TryCancel();
    grpc::Status st;
    {
      std::lock_guard<std::mutex> write_lock(write_mu_);
      finished_ = true;
      st = stream_->Finish();
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (end.code() == StatusCode::kServiceUnavailable && !st.ok()) end = FromGrpc(st, endpoint_);
    end_ = end;
    ended_ = true;
    cv_.notify_all();
  }

  const std::string endpoint_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<pb::WatchRequest, pb::WatchResponse>> stream_;
  std::thread reader_;
  std::mutex write_mu_;    // one writer on the stream at a time, none once it is finished
  bool finished_ = false;  // guarded by write_mu_

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WatchEvent> events_;  // guarded by mu_
  int64_t progress_ = 0;           // guarded by mu_
  bool ended_ = false;             // guarded by mu_
  bool cancelled_ = false;         // guarded by mu_
  Status end_;                     // guarded by mu_
};

// One member's channel and stubs.
struct Member {
  std::string endpoint;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::KV::Stub> kv;
  std::unique_ptr<pb::Watch::Stub> watch;
  std::unique_ptr<pb::Maintenance::Stub> maintenance;
};

class GrpcClient final : public Client {
 public:
  GrpcClient(std::vector<Member> members, std::chrono::milliseconds timeout)
      : members_(std::move(members)), timeout_(timeout) {}

  Result<RangeResult> Range(const std::string& key, const std::string& range_end, int64_t revision,
                            int64_t limit) override {
    pb::RangeRequest req;
    req.set_key(key);
    req.set_range_end(range_end);
    req.set_revision(revision);
    req.set_limit(limit);
    pb::RangeResponse res;
    ALLOT_RETURN_IF_ERROR(Call(
        [&](Member& m, grpc::ClientContext* ctx) { return m.kv->Range(ctx, req, &res); }, true));
    RangeResult out;
    out.kvs.reserve(static_cast<size_t>(res.kvs_size()));
    for (const pb::KeyValue& kv : res.kvs()) out.kvs.push_back(FromPb(kv));
    out.more = res.more();
    out.count = res.count();
    out.revision = res.header().revision();
    return out;
  }

  Result<int64_t> Put(const std::string& key, const std::string& value) override {
    pb::PutRequest req;
    req.set_key(key);
    req.set_value(value);
    pb::PutResponse res;
    ALLOT_RETURN_IF_ERROR(Call(
        [&](Member& m, grpc::ClientContext* ctx) { return m.kv->Put(ctx, req, &res); }, false));
    return res.header().revision();
  }

  Result<int64_t> Delete(const std::string& key, const std::string& range_end) override {
    pb::DeleteRangeRequest req;
    req.set_key(key);
    req.set_range_end(range_end);
    pb::DeleteRangeResponse res;
    ALLOT_RETURN_IF_ERROR(
        Call([&](Member& m, grpc::ClientContext* ctx) { return m.kv->DeleteRange(ctx, req, &res); },
             false));
    return res.deleted();
  }

  Result<TxnResult> Commit(const Txn& txn) override {
    pb::TxnRequest req;
    ToPb(txn, req);
    pb::TxnResponse res;
    ALLOT_RETURN_IF_ERROR(Call(
        [&](Member& m, grpc::ClientContext* ctx) { return m.kv->Txn(ctx, req, &res); }, false));
    return FromPb(res);
  }

  std::vector<Result<TxnResult>> CommitEach(const std::vector<Txn>& txns) override {
    // All on the current member's channel at once (gRPC's callback API): etcd batches
    // concurrent proposals into few raft entries and fsyncs.
    struct Pending {
      grpc::ClientContext ctx;
      pb::TxnRequest req;
      pb::TxnResponse res;
      grpc::Status status;
    };
    Member& m = members_[current_.load() % members_.size()];
    std::vector<std::unique_ptr<Pending>> pending(txns.size());
    std::mutex mu;
    std::condition_variable cv;
    size_t left = txns.size();
    const auto deadline = std::chrono::system_clock::now() + timeout_;
    for (size_t i = 0; i < txns.size(); ++i) {
      pending[i] = std::make_unique<Pending>();
      Pending& p = *pending[i];
      ToPb(txns[i], p.req);
      p.ctx.set_deadline(deadline);
      m.kv->async()->Txn(&p.ctx, &p.req, &p.res, [&, i](grpc::Status st) {
        std::lock_guard<std::mutex> lock(mu);
        pending[i]->status = std::move(st);
        if (--left == 0) cv.notify_all();
      });
    }
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return left == 0; });
    }
    std::vector<Result<TxnResult>> out;
    out.reserve(txns.size());
    bool unavailable = false;
    for (const auto& p : pending) {
      if (p->status.ok()) {
        out.push_back(FromPb(p->res));
      } else {
        unavailable |= p->status.error_code() == grpc::StatusCode::UNAVAILABLE;
        out.push_back(FromGrpc(p->status, m.endpoint));
      }
    }
    if (unavailable) Failover(m);  // the next requests go to the next member
    return out;
  }

  Status Compact(int64_t revision, bool physical) override {
    pb::CompactionRequest req;
    req.set_revision(revision);
    req.set_physical(physical);
    pb::CompactionResponse res;
    return Call([&](Member& m, grpc::ClientContext* ctx) { return m.kv->Compact(ctx, req, &res); },
                false);
  }

  Result<std::unique_ptr<Watch>> StartWatch(const WatchOptions& options) override {
    Status last;
    for (size_t tried = 0; tried < members_.size(); ++tried) {
      Member& m = members_[current_.load() % members_.size()];
      auto w = std::make_unique<GrpcWatch>(*m.watch, m.endpoint);
      last = w->Open(options);
      if (last.ok()) return std::unique_ptr<Watch>(std::move(w));
      Failover(m);
    }
    return last;
  }

  Result<MemberStatus> GetMemberStatus() override {
    pb::StatusRequest req;
    pb::StatusResponse res;
    ALLOT_RETURN_IF_ERROR(Call(
        [&](Member& m, grpc::ClientContext* ctx) { return m.maintenance->Status(ctx, req, &res); },
        true));
    MemberStatus out;
    out.version = res.version();
    out.member_id = res.header().member_id();
    out.leader = res.leader();
    out.revision = res.header().revision();
    out.db_size = res.dbsize();
    return out;
  }

 private:
  // Runs `rpc` on the current member. When that member is unreachable the next requests go to
  // the next one; a read is also retried there at once (up to every member once), a write is
  // not (it may have been applied: the caller decides).
  template <class Rpc>
  allot::Status Call(Rpc rpc, bool idempotent) {
    allot::Status last;
    for (size_t tried = 0; tried < members_.size(); ++tried) {
      Member& m = members_[current_.load() % members_.size()];
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + timeout_);
      grpc::Status st = rpc(m, &ctx);
      if (st.ok()) return allot::Status::Ok();
      last = FromGrpc(st, m.endpoint);
      if (st.error_code() != grpc::StatusCode::UNAVAILABLE) return last;
      Failover(m);
      if (!idempotent) return last;
    }
    return last;
  }

  void Failover(const Member& failed) {
    size_t i = current_.load();
    if (&members_[i % members_.size()] == &failed) current_.compare_exchange_strong(i, i + 1);
  }

  std::vector<Member> members_;
  const std::chrono::milliseconds timeout_;
  std::atomic<size_t> current_{0};
};

}  // namespace

std::string PrefixEnd(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    unsigned char c = static_cast<unsigned char>(end.back());
    if (c < 0xff) {
      end.back() = static_cast<char>(c + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

Result<std::unique_ptr<Client>> Client::Connect(const Options& options) {
  if (options.endpoints.empty()) return BadRequestError("no etcd endpoints");
  std::vector<Member> members;
  for (const std::string& url : options.endpoints) {
    ALLOT_ASSIGN_OR_RETURN(auto parsed, ParseEndpoint(url));
    std::shared_ptr<grpc::ChannelCredentials> creds;
    if (parsed.second) {
      grpc::SslCredentialsOptions ssl;
      ssl.pem_root_certs = options.ca_pem;
      ssl.pem_cert_chain = options.cert_pem;
      ssl.pem_private_key = options.key_pem;
      creds = grpc::SslCredentials(ssl);
    } else {
      creds = grpc::InsecureChannelCredentials();
    }
    grpc::ChannelArguments args;
    // A member that went away is noticed within seconds, and one that came back is reached
    // again soon (gRPC's defaults back off to two minutes).
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    args.SetMaxReceiveMessageSize(-1);  // a whole range of objects may be large
    Member m;
    m.endpoint = parsed.first;
    m.channel = grpc::CreateCustomChannel(Target(parsed.first), creds, args);
    m.kv = pb::KV::NewStub(m.channel);
    m.watch = pb::Watch::NewStub(m.channel);
    m.maintenance = pb::Maintenance::NewStub(m.channel);
    members.push_back(std::move(m));
  }
  return std::unique_ptr<Client>(new GrpcClient(std::move(members), options.request_timeout));
}

}  // namespace allot::etcd
