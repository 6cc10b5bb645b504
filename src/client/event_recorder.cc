#include "client/event_recorder.h"

#include <cstdio>
#include <functional>

#include "api/core/types.h"
#include "client/client.h"

namespace allot::client {

namespace {

// Bounds the memory of the dedupe map; when it is cleared, the worst case is one repeat written.
constexpr size_t kMaxRemembered = 100000;

uint64_t Hash(std::string_view s) { return std::hash<std::string_view>{}(s); }
uint64_t HashCombine(uint64_t a, uint64_t b) {
  return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
}

}  // namespace

ClientEventRecorder::ClientEventRecorder(Client& client, Clock& clock, Options options)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      events_(&api::ResourceFor<api::Event>()) {}

void ClientEventRecorder::Record(const api::Object& involved, std::string_view type,
                                 std::string_view reason, std::string_view action,
                                 std::string message) {
  const Time now = clock_.Now();
  const uint64_t key = HashCombine(HashCombine(Hash(type), Hash(reason)), Hash(message));
  const uint64_t uid = Hash(involved.metadata.uid);
  const int64_t window_us =
      std::chrono::duration_cast<std::chrono::microseconds>(options_.dedupe_window).count();
  uint64_t n;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, added] = last_.try_emplace(uid);
    Last& last = it->second;
    if (!added && last.key == key && now.unix_micros - last.at_us < window_us) return;
    last = Last{key, now.unix_micros};
    n = ++counter_;
    ++written_;
    if (last_.size() > kMaxRemembered) last_.clear();
  }
  auto ev = std::make_unique<api::Event>();
  char suffix[40];
  std::snprintf(suffix, sizeof suffix, ".%016llx",
                static_cast<unsigned long long>(now.unix_micros * 1000 + n % 1000));
  ev->metadata.name = involved.metadata.name + suffix;
  // Events about cluster-scoped objects go to "default", as client-go's recorder puts them.
  ev->metadata.namespace_ =
      involved.metadata.namespace_.empty() ? "default" : involved.metadata.namespace_;
  ev->involvedObject = api::ObjectReference{involved.type().kind,
                                            involved.metadata.namespace_,
                                            involved.metadata.name,
                                            involved.metadata.uid,
                                            involved.type().api_version,
                                            involved.metadata.resourceVersion,
                                            ""};
  ev->reason = std::string(reason);
  ev->message = std::move(message);
  ev->source.component = options_.component;
  ev->firstTimestamp = now.TruncatedToSeconds();
  ev->lastTimestamp = now.TruncatedToSeconds();
  ev->count = 1;
  ev->type = std::string(type);
  ev->action = std::string(action);
  ev->reportingComponent = options_.component;
  ev->reportingInstance = options_.instance;
  client_.CreateAsync(*events_, std::move(ev), [](Result<api::ObjectPtr>) {});
}

uint64_t ClientEventRecorder::written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return written_;
}

std::unique_ptr<ClientEventRecorder> OwnRecorderUnless(EventRecorder* given, Client& client,
                                                       Clock& clock, std::string_view component) {
  if (given) return nullptr;
  return std::make_unique<ClientEventRecorder>(
      client, clock, ClientEventRecorder::Options{.component = std::string(component)});
}

}  // namespace allot::client
