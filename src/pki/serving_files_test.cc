#include "pki/serving_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <ctime>
#include <filesystem>

#include "common/files.h"

namespace allot::pki {
namespace {

namespace fs = std::filesystem;

class ServingFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("allot-pki-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }
  unsigned Mode(const std::string& name) {
    struct stat st {};
    ::stat((dir_ + "/" + name).c_str(), &st);
    return st.st_mode & 0777;
  }
  std::string dir_;
};

TEST_F(ServingFilesTest, CreatedOnceThenKept) {
  auto first = EnsureServingFiles(dir_, {"10.1.2.3", "api.example"}, Now());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Mode("ca.key"), 0600u);
  EXPECT_EQ(Mode("apiserver.key"), 0600u);
  EXPECT_EQ(Mode("admin.key"), 0600u);
  auto info = Inspect(first->serving.cert_pem);
  ASSERT_TRUE(info.ok());
  EXPECT_NE(std::find(info->ip_addresses.begin(), info->ip_addresses.end(), "10.1.2.3"),
            info->ip_addresses.end());
  EXPECT_NE(std::find(info->dns_names.begin(), info->dns_names.end(), "api.example"),
            info->dns_names.end());
  EXPECT_TRUE(Verify(first->serving.cert_pem, first->ca.cert_pem, Now()).ok());
  auto admin = Inspect(first->admin.cert_pem);
  EXPECT_EQ(admin->common_name, "allot-admin");
  EXPECT_EQ(admin->organizations, std::vector<std::string>{"system:masters"});
  // A restart keeps everything.
  auto again = EnsureServingFiles(dir_, {"10.1.2.3"}, Now());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ca.cert_pem, first->ca.cert_pem);
  EXPECT_EQ(again->serving.cert_pem, first->serving.cert_pem);
  EXPECT_EQ(again->admin.cert_pem, first->admin.cert_pem);
  // A new name: a new serving certificate from the same CA.
  auto more = EnsureServingFiles(dir_, {"10.9.9.9"}, Now());
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more->ca.cert_pem, first->ca.cert_pem);
  EXPECT_NE(more->serving.cert_pem, first->serving.cert_pem);
  // Close to expiry (in 11 months): issued again.
  auto later = EnsureServingFiles(dir_, {}, Now() + 340LL * 24 * 3600);
  ASSERT_TRUE(later.ok());
  EXPECT_NE(later->serving.cert_pem, more->serving.cert_pem);
  EXPECT_NE(later->admin.cert_pem, first->admin.cert_pem);
}

TEST_F(ServingFilesTest, ClientCertificatesFromTheCA) {
  ASSERT_FALSE(IssueClientCertificate(dir_, "x", {}, std::chrono::hours(1)).ok());
  auto files = EnsureServingFiles(dir_, {}, Now());
  ASSERT_TRUE(files.ok());
  auto node =
      IssueClientCertificate(dir_, "system:node:n1", {"system:nodes"}, std::chrono::hours(24));
  ASSERT_TRUE(node.ok());
  EXPECT_TRUE(Verify(node->cert_pem, files->ca.cert_pem, Now()).ok());
  EXPECT_EQ(Inspect(node->cert_pem)->common_name, "system:node:n1");
}

TEST_F(ServingFilesTest, AForeignCAKeyIsRefused) {
  ASSERT_TRUE(EnsureServingFiles(dir_, {}, Now()).ok());
  ASSERT_TRUE(
      WriteFileAtomically(dir_ + "/ca.key", NewCA("x", std::chrono::hours(1))->key_pem, 0600).ok());
  auto st = EnsureServingFiles(dir_, {}, Now()).status();
  EXPECT_EQ(st.code(), StatusCode::kBadRequest);
  EXPECT_NE(st.message().find("ca.key"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace allot::pki
