#include "control/output.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "control/utf8.hpp"

namespace braid::control {
namespace {

std::string format_double(double number) {
  if (std::isnan(number)) return "NaN";
  if (std::isinf(number)) return number > 0 ? "+Inf" : "-Inf";
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, number);
  return std::string(text, result.ptr);
}

std::size_t width_of(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text)
    width += (c & 0xc0) != 0x80;  // count UTF-8 code points, not bytes
  return width;
}

void pad_to(std::string& out, const std::string& text, std::size_t width) {
  out += text;
  for (std::size_t w = width_of(text); w < width; ++w)
    out += ' ';
}

}  // namespace

std::string Value::plain() const {
  switch (kind) {
    case Kind::kString:
      return string;
    case Kind::kInt:
      return std::to_string(int_value);
    case Kind::kUint:
      return std::to_string(uint_value);
    case Kind::kDouble:
      return format_double(double_value);
    case Kind::kBool:
      return bool_value ? "yes" : "no";
    case Kind::kMissing:
      return "-";
  }
  return "";
}

std::string Value::text() const {
  return display.empty() ? plain() : display;
}

std::string Value::json() const {
  switch (kind) {
    case Kind::kString:
      return json_quote(string);
    case Kind::kDouble:
      return std::isfinite(double_value) ? format_double(double_value) : "null";  // no NaN in JSON
    case Kind::kBool:
      return bool_value ? "true" : "false";
    case Kind::kMissing:
      return "null";
    default:
      return plain();
  }
}

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  for (std::size_t at = 0; at < text.size();) {
    const Utf8Char c = decode_utf8(text, at);
    const std::string_view bytes = text.substr(at, c.length);
    at += c.length;
    switch (c.code_point) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\r':
        out += "\\r";
        continue;
      default:
        break;
    }
    if (!c.valid) {
      // A reply must stay parsable whatever bytes a request or a device name carried (RFC 8259
      // 8.1: JSON text is UTF-8): each ill-formed sequence becomes one U+FFFD.
      out += "\xef\xbf\xbd";
    } else if (c.code_point < 0x20 || (c.code_point >= 0x7f && c.code_point <= 0x9f)) {
      // C0 controls must be escaped (RFC 8259 7); DEL and the C1 controls may not, but a
      // terminal showing the reply would act on them.
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c.code_point));
      out += escaped;
    } else {
      out += bytes;
    }
  }
  return out + "\"";
}

Table& Table::row(std::vector<Value> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
  return *this;
}

Output& Output::value(std::string key, Value value) {
  items_.push_back({Item::Kind::kValue, std::move(key), std::move(value), nullptr, nullptr});
  return *this;
}

Table& Output::table(std::string name, std::vector<std::string> columns) {
  auto table = std::make_unique<Table>(name, std::move(columns));
  Table& ref = *table;
  items_.push_back({Item::Kind::kTable, std::move(name), {}, std::move(table), nullptr});
  return ref;
}

Output& Output::section(std::string name) {
  auto child = std::make_unique<Output>();
  Output& ref = *child;
  items_.push_back({Item::Kind::kSection, std::move(name), {}, nullptr, std::move(child)});
  return ref;
}

Output& Output::line(std::string text) {
  items_.push_back({Item::Kind::kLine, std::move(text), {}, nullptr, nullptr});
  return *this;
}

Output& Output::error(std::string message) {
  errors_.push_back(std::move(message));
  return *this;
}

std::string Output::render_text() const {
  // Errors first: when something failed, that is what the reader needs before any usage.
  std::string out;
  for (const std::string& message : errors_)
    out += "error: " + message + "\n";
  render_text_into(out, "");
  return out;
}

void Output::render_text_into(std::string& out, const std::string& indent) const {
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const Item& item = items_[i];
    switch (item.kind) {
      case Item::Kind::kValue: {
        // Align a run of consecutive key/values on one column.
        std::size_t end = i;
        std::size_t key_width = 0;
        while (end < items_.size() && items_[end].kind == Item::Kind::kValue) {
          key_width = std::max(key_width, width_of(items_[end].key));
          ++end;
        }
        for (; i < end; ++i) {
          out += indent;
          pad_to(out, items_[i].key + ":", key_width + 2);
          out += items_[i].value.text() + "\n";
        }
        --i;
        break;
      }
      case Item::Kind::kTable: {
        const Table& table = *item.table;
        std::vector<std::size_t> widths;
        for (const std::string& column : table.columns())
          widths.push_back(width_of(column));
        std::vector<std::vector<std::string>> cells;
        for (const auto& row : table.rows()) {
          cells.emplace_back();
          for (std::size_t c = 0; c < row.size(); ++c) {
            cells.back().push_back(row[c].text());
            widths[c] = std::max(widths[c], width_of(cells.back().back()));
          }
        }
        auto emit = [&](const std::vector<std::string>& texts) {
          std::string text_line = indent;
          for (std::size_t c = 0; c < texts.size(); ++c) {
            if (c + 1 == texts.size()) {
              text_line += texts[c];
            } else {
              pad_to(text_line, texts[c], widths[c] + 2);
            }
          }
          while (!text_line.empty() && text_line.back() == ' ')
            text_line.pop_back();
          out += text_line + "\n";
        };
        emit(table.columns());
        for (const auto& row : cells)
          emit(row);
        break;
      }
      case Item::Kind::kSection:
        out += indent + item.key + ":\n";
        item.section->render_text_into(out, indent + "  ");
        break;
      case Item::Kind::kLine:
        out += indent + item.key + "\n";
        break;
    }
  }
}

std::string Output::render_json() const {
  std::string out;
  render_json_into(out);
  return out;
}

void Output::render_json_into(std::string& out) const {
  out += "{";
  bool first = true;
  auto key = [&](const std::string& name) {
    if (!first) out += ",";
    first = false;
    out += json_quote(name) + ":";
  };
  std::vector<const std::string*> lines;
  for (const Item& item : items_) {
    switch (item.kind) {
      case Item::Kind::kValue:
        key(item.key);
        out += item.value.json();
        break;
      case Item::Kind::kTable: {
        key(item.key);
        out += "[";
        const Table& table = *item.table;
        for (std::size_t r = 0; r < table.rows().size(); ++r) {
          out += r ? ",{" : "{";
          for (std::size_t c = 0; c < table.columns().size(); ++c) {
            if (c) out += ",";
            out += json_quote(table.columns()[c]) + ":" + table.rows()[r][c].json();
          }
          out += "}";
        }
        out += "]";
        break;
      }
      case Item::Kind::kSection:
        key(item.key);
        item.section->render_json_into(out);
        break;
      case Item::Kind::kLine:
        lines.push_back(&item.key);
        break;
    }
  }
  if (!lines.empty()) {
    key("messages");
    out += "[";
    for (std::size_t i = 0; i < lines.size(); ++i)
      out += (i ? "," : "") + json_quote(*lines[i]);
    out += "]";
  }
  if (!errors_.empty()) {
    key("errors");
    out += "[";
    for (std::size_t i = 0; i < errors_.size(); ++i)
      out += (i ? "," : "") + json_quote(errors_[i]);
    out += "]";
  }
  out += "}";
}

}  // namespace braid::control
