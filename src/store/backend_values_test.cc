// The store encodes objects for the backend only when the backend reads them
// (Backend::ReadsValues).
#include <gtest/gtest.h>

#include <mutex>

#include "common/time.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"

namespace allot::store {
namespace {

// Keeps the last batch it was given.
class RecordingBackend final : public Backend {
 public:
  explicit RecordingBackend(bool reads_values) : reads_values_(reads_values) {}
  Status Load(const std::function<Status(std::string_view, std::string_view, uint64_t)>&,
              uint64_t& max_rv) override {
    max_rv = 0;
    return Status::Ok();
  }
  Status Commit(const std::vector<BackendWrite>& writes, uint64_t) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_ = writes;
    return Status::Ok();
  }
  bool ReadsValues() const override { return reads_values_; }
  std::string_view Name() const override { return "recording"; }

  std::vector<BackendWrite> last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  const bool reads_values_;
  std::mutex mu_;
  std::vector<BackendWrite> last_;
};

// Creates one pod through a store on `backend` and returns what the backend got for it.
BackendWrite PodWrite(RecordingBackend* backend) {
  FakeClock clock;
  Store store(std::unique_ptr<Backend>(backend), clock);
  EXPECT_TRUE(store.Open().ok());
  auto created = store.Create(testing::Resource("", "pods"), testing::PodManifest("default", "p1"));
  EXPECT_TRUE(created.ok());
  std::vector<BackendWrite> last = backend->last();
  EXPECT_EQ(last.size(), 1u);
  BackendWrite w = last.empty() ? BackendWrite{} : last[0];
  store.Close();
  return w;
}

TEST(BackendValuesTest, ABackendThatReadsValuesGetsEachObjectsJson) {
  BackendWrite w = PodWrite(new RecordingBackend(true));
  EXPECT_EQ(w.key, "core/pods/default/p1");
  EXPECT_NE(w.value.find("\"name\":\"p1\""), std::string::npos) << w.value;
}

TEST(BackendValuesTest, ABackendThatKeepsNothingGetsNoEncoding) {
  BackendWrite w = PodWrite(new RecordingBackend(false));
  EXPECT_EQ(w.key, "core/pods/default/p1");
  EXPECT_TRUE(w.value.empty());
  EXPECT_GT(w.resource_version, 0u);
}

}  // namespace
}  // namespace allot::store
