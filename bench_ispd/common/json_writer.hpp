#pragma once
// A minimal JSON writer for bench_ispd --json: nested objects and arrays, numbers, strings.
#include <string>

namespace efield::bench {

class JsonWriter {
 public:
  JsonWriter& begin_object(const char* key = nullptr);
  JsonWriter& end_object();
  JsonWriter& begin_array(const char* key = nullptr);
  JsonWriter& end_array();
  JsonWriter& field(const char* key, const std::string& value);
  JsonWriter& field(const char* key, const char* value) { return field(key, std::string(value)); }
  JsonWriter& field(const char* key, double value);  // non-finite values as null
  JsonWriter& field(const char* key, long long value);
  JsonWriter& field(const char* key, int value) { return field(key, static_cast<long long>(value)); }
  JsonWriter& field(const char* key, bool value);
  const std::string& text() const { return text_; }
  void save(const std::string& path) const;  // throws efield::Error

 private:
  void key(const char* k);
  std::string text_;
  int depth_ = 0;
  bool need_comma_ = false;
};

}  // namespace efield::bench
