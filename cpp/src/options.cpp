#include "dnnmem/options.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace dnnmem {
namespace {

// As Python's dnnmem.policy writes an option's value: a whole number below 10^15 in full
// (1000000000000), anything else in the shortest form that reads back to the same double (0.1,
// not 0.10000000000000001; 1e+18).
std::string format_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<long long>(v));
  char text[64];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

std::string valid_names(const std::vector<OptionSpec>& specs) {
  if (specs.empty()) return "it takes no options";
  std::string s = "valid: ";
  for (std::size_t i = 0; i < specs.size(); ++i) s += (i ? ", " : "") + std::string(specs[i].name);
  return s;
}

}  // namespace

OptionSpec number_option(std::string_view name, std::string_view unit, std::string_view description,
                         double default_value, double min, double max, bool min_exclusive) {
  OptionSpec s;
  s.name = name;
  s.type = OptionType::Number;
  s.unit = unit;
  s.description = description;
  s.default_number = default_value;
  s.min = min;
  s.max = max;
  s.min_exclusive = min_exclusive;
  return s;
}

OptionSpec integer_option(std::string_view name, std::string_view description,
                          double default_value, double min, double max) {
  OptionSpec s = number_option(name, "", description, default_value, min, max);
  s.type = OptionType::Integer;
  return s;
}

OptionSpec choice_option(std::string_view name, std::string_view description,
                         std::string_view default_choice, std::vector<std::string_view> choices) {
  OptionSpec s;
  s.name = name;
  s.type = OptionType::Choice;
  s.description = description;
  s.default_choice = default_choice;
  s.choices = std::move(choices);
  return s;
}

std::size_t Options::index(std::string_view name) const {
  if (specs_)
    for (std::size_t i = 0; i < specs_->size(); ++i)
      if ((*specs_)[i].name == name) return i;
  throw std::logic_error("option '" + std::string(name) + "' is not declared by this part");
}

double Options::number(std::string_view name) const {
  return std::get<double>(values_[index(name)]);
}

std::int64_t Options::integer(std::string_view name) const {
  return static_cast<std::int64_t>(std::get<double>(values_[index(name)]));
}

const std::string& Options::choice(std::string_view name) const {
  return std::get<std::string>(values_[index(name)]);
}

bool Options::given(std::string_view name) const {
  const std::size_t i = index(name);
  return i < given_.size() && given_[i];
}

Options resolve_options(std::string_view part, const std::vector<OptionSpec>& specs,
                        const OptionMap& given) {
  std::vector<OptionValue> values;
  values.reserve(specs.size());
  for (const OptionSpec& s : specs) {
    if (s.type == OptionType::Choice) values.emplace_back(std::string(s.default_choice));
    else values.emplace_back(s.default_number);
  }
  std::vector<bool> seen(specs.size(), false);
  for (const auto& [name, value] : given) {
    std::size_t i = 0;
    while (i < specs.size() && specs[i].name != name) ++i;
    const std::string where = std::string(part) + ": option '" + name + "'";
    if (i == specs.size())
      throw std::invalid_argument(std::string(part) + ": unknown option '" + name + "' (" +
                                  valid_names(specs) + ")");
    if (seen[i]) throw std::invalid_argument(where + " given twice");
    seen[i] = true;
    const OptionSpec& s = specs[i];
    if (s.type == OptionType::Choice) {
      const auto* text = std::get_if<std::string>(&value);
      std::string list;
      bool ok = false;
      for (std::size_t c = 0; c < s.choices.size(); ++c) {
        list += (c ? ", " : "") + std::string(s.choices[c]);
        ok = ok || (text && *text == s.choices[c]);
      }
      if (!ok)
        throw std::invalid_argument(where + " must be one of " + list + ", got " +
                                    (text ? "'" + *text + "'" : format_number(std::get<double>(value))));
      values[i] = *text;
      continue;
    }
    const auto* v = std::get_if<double>(&value);
    if (!v) throw std::invalid_argument(where + " must be a number, got '" + std::get<std::string>(value) + "'");
    if (!std::isfinite(*v)) throw std::invalid_argument(where + " must be finite, got " + format_number(*v));
    if (s.type == OptionType::Integer && *v != std::floor(*v))
      throw std::invalid_argument(where + " must be a whole number, got " + format_number(*v));
    const bool low = s.min_exclusive ? *v <= s.min : *v < s.min;
    if (low || *v > s.max) {
      std::string range = std::string(s.min_exclusive ? "> " : ">= ") + format_number(s.min);
      if (std::isfinite(s.max)) range += " and <= " + format_number(s.max);
      throw std::invalid_argument(where + " must be " + range + ", got " + format_number(*v));
    }
    values[i] = *v;
  }
  Options o(&specs, std::move(values));
  o.set_given(std::move(seen));
  return o;
}

}  // namespace dnnmem
