// ReadFile and WriteFileAtomically: a regular file is replaced whole with the mode asked for;
// a device such as /dev/null is written in place and stays a device.
#include "common/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace allot {
namespace {

std::string TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "allot-files-XXXXXX").string();
  return ::mkdtemp(tmpl.data()) ? tmpl : "";
}

TEST(FilesTest, ReplacesARegularFileWithTheModeAsked) {
  const std::string dir = TempDir();
  ASSERT_FALSE(dir.empty());
  const std::string path = dir + "/out.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first, longer contents", 0644).ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second", 0600).ok());
  EXPECT_EQ(*ReadFile(path), "second");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::filesystem::remove_all(dir);
}

TEST(FilesTest, ADeviceIsWrittenInPlaceNotReplaced) {
  ASSERT_TRUE(WriteFileAtomically("/dev/null", "{\"report\": 1}\n", 0644).ok());
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));  // still the device
  EXPECT_FALSE(std::filesystem::exists("/dev/null.tmp"));
}

TEST(FilesTest, ErrorsNameThePath) {
  Status st = WriteFileAtomically("/nonexistent-dir/x.json", "x", 0644);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/nonexistent-dir/x.json"), std::string::npos);
  EXPECT_FALSE(ReadFile("/nonexistent-dir/x.json").ok());
}

}  // namespace
}  // namespace allot
