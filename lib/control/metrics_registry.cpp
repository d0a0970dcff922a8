#include "control/metrics_registry.hpp"

#include <charconv>
#include <cmath>
#include <exception>
#include <stdexcept>

namespace braid::control {
namespace {

bool is_name(const std::string& name, bool colon_allowed) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon_allowed && c == ':');
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string escape_help(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

bool is_valid_metric_name(const std::string& name) {
  return is_name(name, true);
}

bool is_valid_label_name(const std::string& name) {
  return is_name(name, false) && !name.starts_with("__");
}

std::string escape_label_value(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void MetricWriter::family(const std::string& name, const std::string& help, MetricType type) {
  if (!is_valid_metric_name(name)) throw std::invalid_argument("bad metric name \"" + name + "\"");
  auto [it, inserted] = families_.try_emplace(name, Family{help, type, {}});
  if (inserted) order_.push_back(name);
  current_ = &it->second;
  current_name_ = name;
}

void MetricWriter::add_line(const Labels& labels, const std::string& value) {
  if (current_ == nullptr) throw std::logic_error("metric sample before family()");
  std::string line = current_name_;
  if (!labels.empty()) {
    line += "{";
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (!is_valid_label_name(labels[i].first))
        throw std::invalid_argument("bad label name \"" + labels[i].first + "\"");
      line +=
          (i ? "," : "") + labels[i].first + "=\"" + escape_label_value(labels[i].second) + "\"";
    }
    line += "}";
  }
  current_->samples.push_back(line + " " + value);
}

void MetricWriter::sample(const Labels& labels, double value) {
  std::string text;
  if (std::isnan(value)) {
    text = "NaN";
  } else if (std::isinf(value)) {
    text = value > 0 ? "+Inf" : "-Inf";
  } else {
    char buffer[64];
    text.assign(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
  }
  add_line(labels, text);
}

void MetricWriter::sample(const Labels& labels, std::uint64_t value) {
  add_line(labels, std::to_string(value));
}

std::string MetricWriter::render() const {
  std::string out;
  for (const std::string& name : order_) {
    const Family& family = families_.at(name);
    out += "# HELP " + name + " " + escape_help(family.help) + "\n";
    out += "# TYPE " + name + (family.type == MetricType::kCounter ? " counter\n" : " gauge\n");
    for (const std::string& line : family.samples)
      out += line + "\n";
  }
  return out;
}

std::string MetricsRegistry::render() const {
  MetricWriter writer;
  std::string problems;
  for (const Collector& collector : collectors_) {
    try {
      collector(writer);
    } catch (const std::exception& error) {
      problems += "# collector failed: " + escape_help(error.what()) + "\n";
    }
  }
  return writer.render() + problems;
}

}  // namespace braid::control
