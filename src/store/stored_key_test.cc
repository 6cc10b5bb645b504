// The index keys an object by views of its own namespace and name, so an object must be stored
// under its own key: one that is not is a corrupt store, refused when it is read back.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/core/types.h"
#include "api/machinery/resources.h"
#include "common/time.h"
#include "store/backend.h"
#include "store/store.h"

namespace allot::store {
namespace {

// A backend holding fixed rows, as a store written by someone else would.
class RowsBackend final : public Backend {
 public:
  explicit RowsBackend(std::vector<std::pair<std::string, std::string>> rows)
      : rows_(std::move(rows)) {}
  Status Load(const std::function<Status(std::string_view, std::string_view, uint64_t)>& fn,
              uint64_t& max_rv) override {
    max_rv = 0;
    for (const auto& [key, value] : rows_) {
      ++max_rv;
      if (Status st = fn(key, value, max_rv); !st.ok()) return st;
    }
    return Status::Ok();
  }
  Status Commit(const std::vector<BackendWrite>&, uint64_t) override { return Status::Ok(); }
  std::string_view Name() const override { return "rows"; }

 private:
  std::vector<std::pair<std::string, std::string>> rows_;
};

std::string Pod(const std::string& ns, const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":")" + ns + R"(","uid":"u-)" + name +
         R"("},"spec":{"containers":[{"name":"c","image":"i"}]}})";
}

TEST(StoredKeyTest, AnObjectStoredUnderItsOwnKeyLoads) {
  FakeClock clock;
  Store store(std::make_unique<RowsBackend>(std::vector<std::pair<std::string, std::string>>{
                  {"core/pods/default/a", Pod("default", "a")}}),
              clock);
  ASSERT_TRUE(store.Open().ok());
  EXPECT_TRUE(store.Get(api::ResourceFor<api::Pod>(), "default", "a").ok());
}

TEST(StoredKeyTest, AnObjectStoredUnderAnotherKeyIsRefused) {
  FakeClock clock;
  Store store(std::make_unique<RowsBackend>(std::vector<std::pair<std::string, std::string>>{
                  {"core/pods/default/a", Pod("default", "b")}}),
              clock);
  Status st = store.Open();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("corrupt stored object core/pods/default/a: it names default/b"),
            std::string::npos)
      << st.ToString();
}

}  // namespace
}  // namespace allot::store
