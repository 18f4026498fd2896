#include "common/json_writer.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "efield/error.hpp"

namespace efield::bench {
namespace {
std::string escaped(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += c;
  }
  return out + "\"";
}
}  // namespace

void JsonWriter::key(const char* k) {
  if (need_comma_) text_ += ",";
  text_ += "\n" + std::string(2 * depth_, ' ');
  if (k) text_ += escaped(k) + ": ";
  need_comma_ = true;
}

JsonWriter& JsonWriter::begin_object(const char* k) {
  key(k);
  text_ += "{";
  ++depth_, need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  --depth_;
  text_ += "\n" + std::string(2 * depth_, ' ') + "}";
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::begin_array(const char* k) {
  key(k);
  text_ += "[";
  ++depth_, need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  --depth_;
  text_ += "\n" + std::string(2 * depth_, ' ') + "]";
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::field(const char* k, const std::string& v) {
  key(k);
  text_ += escaped(v);
  return *this;
}
JsonWriter& JsonWriter::field(const char* k, double v) {
  key(k);
  if (!std::isfinite(v)) {
    text_ += "null";
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    text_ += buf;
  }
  return *this;
}
JsonWriter& JsonWriter::field(const char* k, long long v) {
  key(k);
  text_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::field(const char* k, bool v) {
  key(k);
  text_ += v ? "true" : "false";
  return *this;
}
void JsonWriter::save(const std::string& path) const {
  std::ofstream out(path);
  out << text_ << "\n";
  if (!out) throw Error(path + ": cannot write JSON");
}

}  // namespace efield::bench
