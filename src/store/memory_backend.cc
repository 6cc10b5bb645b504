// A backend that keeps nothing: writes are "durable" for the life of the process only.
#include "store/backend.h"

namespace allot::store {

namespace {

class MemoryBackend final : public Backend {
 public:
  Status Load(const std::function<Status(std::string_view, std::string_view, uint64_t)>&,
              uint64_t& max_rv) override {
    max_rv = 0;
    return Status::Ok();
  }
  Status Commit(const std::vector<BackendWrite>&, uint64_t) override { return Status::Ok(); }
  bool ReadsValues() const override { return false; }
  std::string_view Name() const override { return "memory"; }
};

}  // namespace

std::unique_ptr<Backend> NewMemoryBackend() { return std::make_unique<MemoryBackend>(); }

}  // namespace allot::store
