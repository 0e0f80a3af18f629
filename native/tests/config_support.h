// Helpers shared by the config tests (config_parse_test.cc,
// config_table_test.cc): files written to a temporary directory, settings read
// from the built-in mlperf.conf with or without a user.conf, and the official
// seeds. Functions are inline so a test that leaves one unused gets no warning.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "check.h"
#include "config.h"

namespace config_support {

using lg::TestSettings;

// A fresh directory under $TMPDIR (or /tmp) for the files tests write,
// removed with them when the program ends.
class TempFiles {
 public:
  TempFiles() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/lg_config_test_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) dir_ = buf.data();
  }
  ~TempFiles() {
    for (const std::string& f : files_) std::remove(f.c_str());
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  const std::string& dir() const { return dir_; }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    files_.insert(path);
    return path;
  }

 private:
  std::string dir_;
  std::set<std::string> files_;
};

inline TempFiles& Temp() {
  static TempFiles temp;
  return temp;
}

inline const std::string& TempDir() { return Temp().dir(); }

inline std::string WriteFile(const std::string& name, const std::string& text) { return Temp().Write(name, text); }

inline bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

inline bool AnyContains(const std::vector<std::string>& list, const std::string& needle) {
  for (const auto& s : list) {
    if (Contains(s, needle)) return true;
  }
  return false;
}

// Settings after the built-in mlperf.conf alone.
inline TestSettings FromBuiltin(const std::string& model, const std::string& scenario) {
  TestSettings s;
  lg::ConfigResult r = lg::LoadSettingsFromConfig(nullptr, nullptr, model, scenario, &s);
  CHECK(r.ok);
  CHECK(r.errors.empty());
  return s;
}

// Settings after the built-in mlperf.conf and a user.conf with `text`.
inline TestSettings WithUserConf(const std::string& text, const std::string& model, const std::string& scenario,
                                 lg::ConfigResult* result = nullptr) {
  const std::string path = WriteFile("user.conf", text);
  TestSettings s;
  lg::ConfigResult r = lg::LoadSettingsFromConfig(nullptr, &path, model, scenario, &s);
  if (result) *result = r;
  return s;
}

const uint64_t kQslSeed = 2085463073848966840ULL;
const uint64_t kSampleSeed = 2747215439041700203ULL;
const uint64_t kScheduleSeed = 16159082839903944936ULL;

}  // namespace config_support
