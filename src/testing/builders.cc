#include "testing/builders.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace allot::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "allot-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace allot::testing
