// What a command produces, independent of how it is shown: key/values, tables, nested sections
// and free text lines, each value typed. The same Output renders as aligned text for the console
// and as JSON for `braidctl --json`, the telemetry endpoints and scripts, so a handler fills it
// once and never formats twice.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace braid::control {

// A typed value plus an optional human form ("1.52 Mpps" for 1520000.0). JSON and telemetry use
// the typed value; text uses the human form when there is one.
struct Value {
  // Plain fields rather than std::variant: GCC 12 reports false -Wmaybe-uninitialized on
  // variants holding std::string in initializer lists, and -Werror turns that into a failure.
  enum class Kind { kString, kInt, kUint, kDouble, kBool, kMissing };
  Kind kind = Kind::kString;
  std::string string;
  std::int64_t int_value = 0;
  std::uint64_t uint_value = 0;
  double double_value = 0;
  bool bool_value = false;
  std::string display;

  Value() = default;
  Value(std::string text) : string(std::move(text)) {}
  Value(std::string_view text) : string(text) {}
  Value(const char* text) : string(text) {}
  Value(unsigned long number) : kind(Kind::kUint), uint_value(number) {}
  Value(unsigned long long number) : kind(Kind::kUint), uint_value(number) {}
  Value(unsigned number) : kind(Kind::kUint), uint_value(number) {}
  Value(std::uint16_t number) : kind(Kind::kUint), uint_value(number) {}
  Value(long number) : kind(Kind::kInt), int_value(number) {}
  Value(int number) : kind(Kind::kInt), int_value(number) {}
  Value(double number) : kind(Kind::kDouble), double_value(number) {}
  Value(bool flag) : kind(Kind::kBool), bool_value(flag) {}

  // A number that is not there (a counter the NIC does not have, a queue depth nobody measured):
  // "-" in text, null in JSON, so that a script never parses "-" as a number.
  static Value missing() {
    Value value;
    value.kind = Kind::kMissing;
    return value;
  }
  template <typename T>
  static Value optional(const std::optional<T>& number) {
    return number ? Value(*number) : missing();
  }

  // The same value, shown to people as `human` ("1.52Mpps" for 1520000.0).
  static Value displayed(Value value, std::string human) {
    value.display = std::move(human);
    return value;
  }

  std::string plain() const;  // the value printed plainly, ignoring display
  std::string text() const;   // display, or plain()
  std::string json() const;   // a JSON literal
};

class Table {
 public:
  Table(std::string name, std::vector<std::string> columns)
      : name_(std::move(name)), columns_(std::move(columns)) {}
  // A row with fewer cells than columns is padded with empty strings; extra cells are dropped.
  Table& row(std::vector<Value> cells);

  const std::string& name() const { return name_; }
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<Value>>& rows() const { return rows_; }

 private:
  std::string name_;
  std::vector<std::string> columns_;
  std::vector<std::vector<Value>> rows_;
};

class Output {
 public:
  Output() = default;
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  Output(Output&&) = default;
  Output& operator=(Output&&) = default;

  Output& value(std::string key, Value value);
  Table& table(std::string name, std::vector<std::string> columns);
  Output& section(std::string name);  // a nested Output, shown indented under its name
  Output& line(std::string text);     // free text: shown as is; JSON "messages"
  // Marks the command as failed (braidctl exits non-zero); the message is shown as "error: ...".
  Output& error(std::string message);

  bool failed() const { return !errors_.empty(); }
  const std::vector<std::string>& errors() const { return errors_; }
  bool empty() const { return items_.empty() && errors_.empty(); }

  std::string render_text() const;
  std::string render_json() const;

  // Read access for other renderers (telemetry).
  struct Item {
    enum class Kind { kValue, kTable, kSection, kLine } kind;
    std::string key;  // value key, section name or the text of a line
    Value value;
    std::unique_ptr<Table> table;
    std::unique_ptr<Output> section;
  };
  const std::vector<Item>& items() const { return items_; }

 private:
  void render_text_into(std::string& out, const std::string& indent) const;
  void render_json_into(std::string& out) const;

  std::vector<Item> items_;
  std::vector<std::string> errors_;
};

std::string json_quote(std::string_view text);

}  // namespace braid::control
