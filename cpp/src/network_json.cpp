// JSON network format → LayerSpec list → build_network. Every failure becomes a NetworkError
// naming the source, the layer and the field (docs/network-format.md).
#include "dnnmem/network_json.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "dnnmem/errors.hpp"
#include "dnnmem/interrupt.hpp"

namespace dnnmem {
namespace {

using json = nlohmann::json;

// Sizes beyond this are certainly typos, and keeping them small keeps every product exact.
constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;
constexpr int kMaxDepth = 64;

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "a list";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a number";
    default: return "an integer";
  }
}

struct Reader {
  const std::string& source;
  std::string layer;
  const json* obj = nullptr;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw NetworkError(source, layer, field, what);
  }

  bool has(const char* f) const { return obj->contains(f); }

  std::int64_t to_int(const json& v, const std::string& field, std::int64_t lo) const {
    std::int64_t x = 0;
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxDim))
        fail(field, "value " + v.dump() + " is too large");
      x = v.get<std::int64_t>();
    } else if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!std::isfinite(d) || d != std::floor(d))
        fail(field, "must be an integer, got " + v.dump());
      if (d < static_cast<double>(lo)) fail(field, (lo == 1 ? "must be a positive integer, got " : "must be >= " + std::to_string(lo) + ", got ") + v.dump());
      if (std::fabs(d) > static_cast<double>(kMaxDim)) fail(field, "value " + v.dump() + " is too large");
      x = static_cast<std::int64_t>(d);
    } else {
      fail(field, std::string("must be an integer, got ") + type_name(v));
    }
    if (x > kMaxDim) fail(field, "value " + std::to_string(x) + " is too large");
    if (x < lo)
      fail(field, lo == 1 ? "must be a positive integer, got " + std::to_string(x)
                          : "must be >= " + std::to_string(lo) + ", got " + std::to_string(x));
    return x;
  }

  std::int64_t get_int(const char* f, std::int64_t def, std::int64_t lo) const {
    if (!has(f)) return def;
    return to_int((*obj)[f], f, lo);
  }
  std::int64_t need_int(const char* f, std::int64_t lo) const {
    if (!has(f)) fail(f, "is missing");
    return to_int((*obj)[f], f, lo);
  }
  bool get_bool(const char* f, bool def) const {
    if (!has(f)) return def;
    const json& v = (*obj)[f];
    if (!v.is_boolean()) fail(f, std::string("must be true or false, got ") + type_name(v));
    return v.get<bool>();
  }
  std::string get_string(const char* f, const std::string& def) const {
    if (!has(f)) return def;
    const json& v = (*obj)[f];
    if (!v.is_string()) fail(f, std::string("must be a string, got ") + type_name(v));
    return v.get<std::string>();
  }
  // An int, or a list of two ints (Keras' kernel_size / strides / pool_size).
  std::array<std::int64_t, 2> get_pair(const char* f, std::array<std::int64_t, 2> def,
                                       std::int64_t lo) const {
    if (!has(f)) return def;
    const json& v = (*obj)[f];
    if (v.is_array()) {
      if (v.size() != 2) fail(f, "must be an integer or a list of 2 integers, got " + v.dump());
      return {to_int(v[0], f, lo), to_int(v[1], f, lo)};
    }
    const std::int64_t x = to_int(v, f, lo);
    return {x, x};
  }
  Shape get_shape(const char* f, bool allow_minus_one) const {
    if (!has(f)) fail(f, "is missing");
    const json& v = (*obj)[f];
    if (!v.is_array()) fail(f, std::string("must be a list of sizes, got ") + type_name(v));
    if (v.size() > 8) fail(f, "has more than 8 dimensions");
    Shape s;
    for (const auto& d : v) {
      if (allow_minus_one && d.is_number_integer() && !d.is_number_unsigned() && d.get<std::int64_t>() == -1)
        s.push_back(-1);
      else s.push_back(to_int(d, f, 1));
    }
    return s;
  }
  Padding2D get_padding() const {
    Padding2D p;
    if (!has("padding")) return p;
    const json& v = (*obj)["padding"];
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      if (s == "same") p.same = true;
      else if (s != "valid") fail("padding", "must be \"valid\", \"same\", an integer or a list, got \"" + s + "\"");
      return p;
    }
    if (v.is_array() && v.size() == 2 && v[0].is_array() && v[1].is_array()) {
      if (v[0].size() != 2 || v[1].size() != 2)
        fail("padding", "must be [[top, bottom], [left, right]], got " + v.dump());
      p.top = to_int(v[0][0], "padding", 0);
      p.bottom = to_int(v[0][1], "padding", 0);
      p.left = to_int(v[1][0], "padding", 0);
      p.right = to_int(v[1][1], "padding", 0);
      return p;
    }
    if (v.is_array()) {
      if (v.size() != 2) fail("padding", "must be [rows, cols] or [[top, bottom], [left, right]], got " + v.dump());
      p.top = p.bottom = to_int(v[0], "padding", 0);
      p.left = p.right = to_int(v[1], "padding", 0);
      return p;
    }
    if (!v.is_number())
      fail("padding", std::string("must be \"valid\", \"same\", an integer or a list, got ") + type_name(v));
    p.top = p.bottom = p.left = p.right = to_int(v, "padding", 0);
    return p;
  }
};

// Fields each kind accepts besides the common ones; anything else is a typo worth reporting.
std::vector<std::string> allowed_fields(Kind k) {
  switch (k) {
    case Kind::Input: return {"shape", "dtype"};
    case Kind::Conv2D: return {"filters", "kernel_size", "strides", "padding", "dilation", "groups", "use_bias"};
    case Kind::DepthwiseConv2D: return {"kernel_size", "strides", "padding", "dilation", "depth_multiplier", "use_bias"};
    case Kind::Dense: return {"units", "use_bias"};
    case Kind::MatMul: return {"transpose_a", "transpose_b", "heads", "merge_heads"};
    case Kind::BatchNorm: case Kind::LayerNorm: return {"center", "scale", "epsilon", "momentum"};
    case Kind::Dropout: return {"rate"};
    case Kind::Softmax: return {"axis"};
    case Kind::Concat: return {"axis"};
    case Kind::MaxPool: case Kind::AvgPool: return {"pool_size", "strides", "padding"};
    case Kind::GlobalAvgPool: case Kind::GlobalMaxPool: return {"keepdims"};
    case Kind::ZeroPadding: return {"padding"};
    case Kind::Reshape: return {"target_shape"};
    case Kind::Embedding: return {"input_dim", "output_dim"};
    case Kind::LSTMCell: return {"units", "use_bias"};
    case Kind::LeakyReLU: return {"alpha"};
    case Kind::Upsample: return {"size", "interpolation"};
    case Kind::Rescaling: return {"scale", "offset"};
    case Kind::Normalization: return {"axis"};
    case Kind::Opaque: return {"shape"};
    default: return {};
  }
}

LayerSpec read_layer(const json& v, std::size_t index, const std::string& source) {
  Reader r{source, "", &v};
  const std::string where = "layers[" + std::to_string(index) + "]";
  if (!v.is_object())
    throw NetworkError(source, where, "", std::string("must be an object, got ") + type_name(v));
  LayerSpec s;
  if (!v.contains("name")) throw NetworkError(source, where, "name", "is missing");
  if (!v["name"].is_string())
    throw NetworkError(source, where, "name", std::string("must be a string, got ") + type_name(v["name"]));
  s.name = v["name"].get<std::string>();
  if (s.name.empty()) throw NetworkError(source, where, "name", "must not be empty");
  r.layer = s.name;
  if (!v.contains("kind")) r.fail("kind", "is missing");
  const std::string kind = r.get_string("kind", "");
  auto k = kind_from_name(kind);
  if (!k) {
    std::string names;
    for (const auto& info : all_kinds()) names += (names.empty() ? "" : ", ") + std::string(info.name);
    r.fail("kind", "unknown kind '" + kind + "' (known: " + names + ")");
  }
  s.kind = *k;

  if (v.contains("inputs")) {
    const json& ins = v["inputs"];
    if (ins.is_string()) s.inputs.push_back(ins.get<std::string>());
    else if (ins.is_array()) {
      for (const auto& i : ins) {
        if (!i.is_string()) r.fail("inputs", std::string("must list layer names, got ") + type_name(i));
        s.inputs.push_back(i.get<std::string>());
      }
    } else {
      r.fail("inputs", std::string("must be a list of layer names, got ") + type_name(ins));
    }
  } else if (s.kind != Kind::Input) {
    r.fail("inputs", "is missing");
  }

  const auto allowed = allowed_fields(s.kind);
  for (const auto& [key, _] : v.items()) {
    if (key == "name" || key == "kind" || key == "inputs" || key == "weights" ||
        key == "trainable" || key == "meta" || key == "activation")
      continue;
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      r.fail(key, "is not a field of a " + std::string(kind_name(s.kind)) + " layer" +
                      (list.empty() ? std::string() : " (its fields: " + list + ")"));
    }
  }
  if (v.contains("activation")) {
    // Activations fused into a layer would hide a step; files list them as layers of their own.
    const json& a = v["activation"];
    if (!(a.is_null() || (a.is_string() && (a == "linear" || a == "none" || a == ""))))
      r.fail("activation", "fused activations are not supported: list " + a.dump() +
                               " as a layer of its own");
  }

  LayerParams& p = s.params;
  p.weights = r.get_string("weights", "");
  p.trainable = r.get_bool("trainable", true);
  switch (s.kind) {
    case Kind::Input: {
      p.shape = r.get_shape("shape", false);
      const std::string dt = r.get_string("dtype", "float");
      if (dt == "float" || dt == "float32" || dt == "float16" || dt == "bfloat16") p.dtype = DType::Float;
      else if (dt == "int32") p.dtype = DType::Int32;
      else if (dt == "int64") p.dtype = DType::Int64;
      else r.fail("dtype", "must be \"float\", \"int32\" or \"int64\", got \"" + dt + "\"");
      break;
    }
    case Kind::Conv2D:
      p.filters = r.need_int("filters", 1);
      p.groups = r.get_int("groups", 1, 1);
      [[fallthrough]];
    case Kind::DepthwiseConv2D:
      if (!r.has("kernel_size")) r.fail("kernel_size", "is missing");
      p.kernel = r.get_pair("kernel_size", {1, 1}, 1);
      p.strides = r.get_pair("strides", {1, 1}, 1);
      p.dilation = r.get_pair("dilation", {1, 1}, 1);
      p.padding = r.get_padding();
      p.depth_multiplier = r.get_int("depth_multiplier", 1, 1);
      p.use_bias = r.get_bool("use_bias", true);
      break;
    case Kind::Dense:
    case Kind::LSTMCell:
      p.units = r.need_int("units", 1);
      p.use_bias = r.get_bool("use_bias", true);
      break;
    case Kind::MatMul:
      p.transpose_a = r.get_bool("transpose_a", false);
      p.transpose_b = r.get_bool("transpose_b", false);
      p.heads = r.get_int("heads", 0, 1);
      p.merge_heads = r.get_bool("merge_heads", false);
      if (p.merge_heads && p.heads == 0) r.fail("merge_heads", "needs 'heads'");
      break;
    case Kind::BatchNorm:
    case Kind::LayerNorm:
      p.center = r.get_bool("center", true);
      p.scale = r.get_bool("scale", true);
      break;
    case Kind::Concat: p.axis = r.get_int("axis", -1, -8); break;
    case Kind::MaxPool:
    case Kind::AvgPool:
      p.kernel = r.get_pair("pool_size", {2, 2}, 1);
      p.strides = r.get_pair("strides", p.kernel, 1);
      p.padding = r.get_padding();
      break;
    case Kind::GlobalAvgPool:
    case Kind::GlobalMaxPool: p.keepdims = r.get_bool("keepdims", false); break;
    case Kind::ZeroPadding: p.padding = r.get_padding(); break;
    case Kind::Reshape: p.target_shape = r.get_shape("target_shape", true); break;
    case Kind::Opaque:
      if (!r.has("shape")) r.fail("shape", "is missing (an opaque layer's output shape)");
      p.shape = r.get_shape("shape", false);
      break;
    case Kind::Embedding:
      p.input_dim = r.need_int("input_dim", 1);
      p.output_dim = r.need_int("output_dim", 1);
      break;
    case Kind::Upsample: {
      p.size = r.get_pair("size", {2, 2}, 1);
      // Counted as a copy either way; bilinear's 4-tap weights are not worth a constant of their own.
      const std::string mode = r.get_string("interpolation", "nearest");
      if (mode != "nearest" && mode != "bilinear")
        r.fail("interpolation", "must be \"nearest\" or \"bilinear\", got \"" + mode + "\"");
      break;
    }
    case Kind::Normalization:
      if (r.get_int("axis", -1, -8) != -1) r.fail("axis", "only the last (channel) axis, -1, is supported");
      break;
    default: break;
  }
  for (const char* f : {"alpha", "scale", "offset"}) {
    // Values that change no count, but a typo such as a string must not pass silently.
    if ((s.kind == Kind::LeakyReLU || s.kind == Kind::Rescaling) && v.contains(f) && !v[f].is_number())
      r.fail(f, std::string("must be a number, got ") + type_name(v[f]));
  }
  if (s.kind == Kind::Dropout && v.contains("rate")) {
    const json& rate = v["rate"];
    if (!rate.is_number() || !(rate.get<double>() >= 0.0 && rate.get<double>() < 1.0))
      r.fail("rate", "must be a number in [0, 1), got " + rate.dump());
  }
  return s;
}

}  // namespace

// The offset of the first byte that is not well-formed UTF-8 (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF), or npos.
static std::size_t invalid_utf8(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size()) {
    const auto c = static_cast<unsigned char>(t[i]);
    std::size_t len = 0;
    std::uint32_t cp = 0, min = 0;
    if (c < 0x80) { ++i; continue; }
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1Fu; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0Fu; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07u; min = 0x10000; }
    else return i;
    if (i + len > t.size()) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto d = static_cast<unsigned char>(t[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

// Whether more than `limit` arrays / objects are open at once anywhere in `text` (brackets
// inside strings do not count). One linear pass; on text that is not JSON it may answer either
// way, and json::parse then reports what is wrong.
static bool nested_deeper_than(std::string_view t, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (in_string) {
      if (c == '\\') ++i;  // skip the escaped character (\" or \\ included)
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

Network parse_network(std::string_view text, const std::string& source) {
  if (const auto bad = invalid_utf8(text); bad != std::string_view::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
    throw NetworkError(source, "", "", std::string("not UTF-8 text: byte ") + hex + " at offset " +
                                           std::to_string(bad) + " (JSON files must be UTF-8)");
  }
  // The depth limit keeps hostile files from exhausting the stack in recursive walks later.
  // It is checked by a pre-scan, not by a json::parse callback: nlohmann's callback parser
  // re-examines the parent container after every value, which made loading quadratic in the
  // number of layers (1M layers: minutes); the scan and a plain parse are both linear.
  if (nested_deeper_than(text, kMaxDepth))
    throw NetworkError(source, "", "", "the JSON is nested too deeply (more than 64 levels)");
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, column 2: ".
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    throw NetworkError(source, "", "", "not valid JSON: " + what);
  }
  if (!doc.is_object())
    throw NetworkError(source, "", "", std::string("the document must be a JSON object with a "
                                                   "'layers' list, got ") + type_name(doc));
  // As in a layer, an unknown key is most likely a typo ("layer", "Name"); free-form data goes
  // under "meta".
  for (const auto& [key, _] : doc.items())
    if (key != "name" && key != "layers" && key != "meta")
      throw NetworkError(source, "", key, "is not a field of a network document (its fields: "
                                          "name, layers, meta)");
  if (!doc.contains("layers")) throw NetworkError(source, "", "layers", "is missing");
  const json& layers = doc["layers"];
  if (!layers.is_array())
    throw NetworkError(source, "", "layers", std::string("must be a list, got ") + type_name(layers));
  std::string name;
  if (doc.contains("name")) {
    if (!doc["name"].is_string())
      throw NetworkError(source, "", "name", std::string("must be a string, got ") + type_name(doc["name"]));
    name = doc["name"].get<std::string>();
  }
  std::vector<LayerSpec> specs;
  specs.reserve(layers.size());
  try {
    for (std::size_t i = 0; i < layers.size(); ++i) {
      check_interrupt_every(i);
      specs.push_back(read_layer(layers[i], i, source));
    }
  } catch (const json::exception& e) {
    throw NetworkError(source, "", "", std::string("malformed layer: ") + e.what());
  }
  Network net = build_network(std::move(specs), name, source);
  net.document = doc.dump();
  return net;
}

Network load_network_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NetworkError(path, "", "", "cannot open the file");
  // Read in chunks up to the limit: a device such as /dev/zero never ends.
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw NetworkError(path, "", "", "the file is larger than " + std::to_string(max_bytes) +
                                           " bytes, the most a network file may hold");
  }
  if (in.bad()) throw NetworkError(path, "", "", "cannot read the file");
  return parse_network(text, path);
}

}  // namespace dnnmem
