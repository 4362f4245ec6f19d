// Options of a policy's parts (a scheduler, a cache manager, a link, a compute model). Each part
// declares its options once (name, type, unit, default, range or choices); what a user gives is
// checked against that declaration, so every part reports a bad option the same way, naming the
// part and the option. Values arrive in base units (bytes, bytes/s, FLOP/s): unit strings are
// the Python layer's to parse, from the unit declared here.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace dnnmem {

enum class OptionType : std::uint8_t { Number, Integer, Choice };

struct OptionSpec {
  std::string_view name;
  OptionType type = OptionType::Number;
  std::string_view unit;         // "" (a plain number), "bytes", "bytes/s", "FLOP/s"
  std::string_view description;
  double default_number = 0;     // Number / Integer
  std::string_view default_choice;  // Choice
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;    // the value must be > min rather than >= min
  std::vector<std::string_view> choices;  // Choice
};

// Declarations, for the parts' option lists.
OptionSpec number_option(std::string_view name, std::string_view unit, std::string_view description,
                         double default_value, double min, double max, bool min_exclusive = false);
OptionSpec integer_option(std::string_view name, std::string_view description,
                          double default_value, double min, double max);
OptionSpec choice_option(std::string_view name, std::string_view description,
                         std::string_view default_choice, std::vector<std::string_view> choices);

using OptionValue = std::variant<double, std::string>;
// As a user gave them: (name, value) pairs, in any order, each name at most once.
using OptionMap = std::vector<std::pair<std::string, OptionValue>>;

// A part's options after checking: one value per declared option, defaults filled in.
class Options {
 public:
  Options() = default;
  Options(const std::vector<OptionSpec>* specs, std::vector<OptionValue> values)
      : specs_(specs), values_(std::move(values)) {}
  // Throw std::logic_error for a name the part did not declare (a bug in the part, not input).
  double number(std::string_view name) const;
  std::int64_t integer(std::string_view name) const;
  const std::string& choice(std::string_view name) const;
  // True when the user gave this option (rather than its default applying).
  bool given(std::string_view name) const;
  const std::vector<OptionValue>& values() const { return values_; }
  void set_given(std::vector<bool> given) { given_ = std::move(given); }

 private:
  std::size_t index(std::string_view name) const;
  const std::vector<OptionSpec>* specs_ = nullptr;
  std::vector<OptionValue> values_;
  std::vector<bool> given_;
};

// Checks `given` against `specs` and fills in defaults. Throws std::invalid_argument naming the
// part ("link 'ratio'") and the option: an unknown name (listing the valid ones), a value of the
// wrong type, outside its range, or not one of its choices; a name given twice.
Options resolve_options(std::string_view part, const std::vector<OptionSpec>& specs,
                        const OptionMap& given);

}  // namespace dnnmem
