// Malformed network files (SPEC §2: "errors ... are reported with the layer name and the field,
// never a crash"). Every case must throw dnnmem::NetworkError, never anything else, naming the
// source ("test.json"), the layer and the field both in its accessors and in what().
#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "helpers.hpp"
#include "dnnmem/errors.hpp"
#include "dnnmem/network_json.hpp"

using namespace dnnmem;

namespace {

std::string doc(const std::string& layers) {
  return "{\"name\": \"t\", \"layers\": [" + layers + "]}";
}

using dnnmem::test::contains;

std::string shorten(const std::string& s) {
  return s.size() <= 300 ? s : s.substr(0, 300) + "... (" + std::to_string(s.size()) + " bytes)";
}

// Parses a whole document; requires a NetworkError with this layer and field, whose what() names
// the file, the layer and the field, and whose detail contains `detail` (when given).
void expect_doc_error(const std::string& text, const std::string& layer, const std::string& field,
                      const std::string& detail = "") {
  INFO("document: " << shorten(text));
  bool thrown = false;
  try {
    (void)parse_network(text, "test.json");
  } catch (const NetworkError& e) {
    thrown = true;
    const std::string what = e.what();
    INFO("what(): " << what);
    CHECK(e.source() == "test.json");
    CHECK(e.layer() == layer);
    CHECK(e.field() == field);
    CHECK(contains(what, "test.json"));
    if (!layer.empty()) CHECK(contains(what, "layer '" + layer + "'"));
    if (!field.empty()) CHECK(contains(what, "field '" + field + "'"));
    if (!detail.empty()) CHECK(contains(e.detail(), detail));
    CHECK_FALSE(e.detail().empty());
  }
  CHECK(thrown);
}

// The same for a list of layer objects wrapped into a document.
void expect_error(const std::string& layers, const std::string& layer, const std::string& field,
                  const std::string& detail = "") {
  expect_doc_error(doc(layers), layer, field, detail);
}

// Parses; fine if it succeeds, fine if it throws NetworkError; anything else fails the test.
bool parses_or_network_error(const std::string& text) {
  try {
    (void)parse_network(text, "test.json");
    return true;
  } catch (const NetworkError& e) {
    return !std::string(e.what()).empty() && e.source() == "test.json";
  }
}

const std::string kX = R"({"name":"x","kind":"input","shape":[8,8,3]})";
const std::string kV = R"({"name":"x","kind":"input","shape":[4]})";

}  // namespace

// ---- the document ------------------------------------------------------------------------------

TEST_CASE("text that is not JSON") {
  expect_doc_error("hello", "", "", "not valid JSON");
  expect_doc_error("", "", "", "not valid JSON");
  expect_doc_error("{\"layers\": [", "", "", "not valid JSON");
  expect_doc_error(doc(kV) + " trailing", "", "", "not valid JSON");
  expect_doc_error(std::string("{\"layers\":[\0]}", 14), "", "", "not valid JSON");
}

TEST_CASE("invalid UTF-8 bytes") {
  // Checked before parsing, so the message names the byte and where it is.
  const std::string a = doc("{\"name\":\"x\xff\xfe\",\"kind\":\"input\",\"shape\":[4]}");
  expect_doc_error(a, "", "", "not UTF-8 text: byte 0xFF at offset " + std::to_string(a.find('\xff')));
  const std::string b = doc("{\"name\":\"x\",\"kind\":\"input\",\"shape\":[4],\"meta\":\"\xc3\"}");
  expect_doc_error(b, "", "", "not UTF-8 text: byte 0xC3 at offset " + std::to_string(b.find('\xc3')));
  expect_doc_error(doc("{\"na\x80me\":\"x\",\"kind\":\"input\",\"shape\":[4]}"), "", "",
                   "not UTF-8 text: byte 0x80");
  // Overlong encodings and UTF-16 surrogates are not UTF-8 either; real multi-byte text is.
  expect_doc_error(doc("{\"name\":\"\xc0\xaf\",\"kind\":\"input\",\"shape\":[4]}"), "", "",
                   "byte 0xC0");
  expect_doc_error(doc("{\"name\":\"\xed\xa0\x80\",\"kind\":\"input\",\"shape\":[4]}"), "", "",
                   "byte 0xED");
  CHECK_NOTHROW(parse_network(doc("{\"name\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\",\"kind\":\"input\",\"shape\":[4]}"),
                              "test.json"));
}

TEST_CASE("nesting deeper than 64 levels") {
  auto nest = [](std::size_t d) { return std::string(d, '[') + std::string(d, ']'); };
  // Inside a layer's free-form meta: document, layers list and layer object are 3 levels.
  expect_doc_error(doc(R"({"name":"x","kind":"input","shape":[4],"meta":)" + nest(200) + "}"), "",
                   "", "nested too deeply (more than 64 levels)");
  // At the top level, deep enough to exhaust a recursive parser's stack.
  expect_doc_error(nest(100000), "", "", "nested too deeply (more than 64 levels)");
  expect_doc_error(std::string(100000, '{'), "", "", "");
  // 64 levels in all are fine: 3 + 61.
  CHECK_NOTHROW(parse_network(doc(R"({"name":"x","kind":"input","shape":[4],"meta":)" + nest(61) + "}"),
                              "test.json"));
}

TEST_CASE("top level that is not an object") {
  for (const char* text : {"[]", "5", "\"layers\"", "null", "true"}) {
    expect_doc_error(text, "", "", "must be a JSON object");
  }
}

TEST_CASE("layers missing, not a list, or empty") {
  expect_doc_error(R"({"name":"t"})", "", "layers", "is missing");
  expect_doc_error(R"({"layers":{}})", "", "layers", "must be a list");
  expect_doc_error(R"({"layers":"x"})", "", "layers", "must be a list");
  expect_doc_error(R"({"layers":null})", "", "layers", "must be a list");
  expect_doc_error(R"({"layers":[]})", "", "layers", "no layers");
  expect_doc_error(R"({"name":5,"layers":[]})", "", "name", "must be a string");
}

TEST_CASE("a layer that is not an object is named by its position") {
  expect_error(kV + ", 5", "layers[1]", "", "must be an object");
  expect_error(kV + ", \"y\"", "layers[1]", "", "must be an object");
  expect_error("[], " + kV, "layers[0]", "", "must be an object");
  expect_error(kV + ", null", "layers[1]", "", "must be an object");
}

// ---- names, kinds, inputs ----------------------------------------------------------------------

TEST_CASE("layer name missing, not a string, or empty") {
  expect_error(kV + R"(, {"kind":"relu","inputs":["x"]})", "layers[1]", "name", "is missing");
  expect_error(kV + R"(, {"name":5,"kind":"relu","inputs":["x"]})", "layers[1]", "name",
               "must be a string");
  expect_error(kV + R"(, {"name":null,"kind":"relu","inputs":["x"]})", "layers[1]", "name",
               "must be a string");
  expect_error(kV + R"(, {"name":"","kind":"relu","inputs":["x"]})", "layers[1]", "name",
               "must not be empty");
}

TEST_CASE("duplicate layer name") {
  expect_error(kV + R"(, {"name":"a","kind":"relu","inputs":["x"]},
                        {"name":"a","kind":"tanh","inputs":["x"]})",
               "a", "name", "duplicate");
  // An lstm_cell's expanded parts collide with a user layer of the same name.
  expect_error(kV + R"(, {"name":"l/i","kind":"relu","inputs":["x"]},
                        {"name":"l","kind":"lstm_cell","inputs":["x"],"units":3})",
               "l/i", "name", "duplicate");
}

TEST_CASE("kind missing, not a string, or unknown") {
  expect_error(kV + R"(, {"name":"a","inputs":["x"]})", "a", "kind", "is missing");
  expect_error(kV + R"(, {"name":"a","kind":3,"inputs":["x"]})", "a", "kind", "must be a string");
  expect_error(kV + R"(, {"name":"a","kind":"conv3d","inputs":["x"]})", "a", "kind",
               "unknown kind 'conv3d'");
  expect_error(kV + R"(, {"name":"a","kind":"","inputs":["x"]})", "a", "kind", "unknown kind");
}

TEST_CASE("inputs missing or malformed") {
  expect_error(kV + R"(, {"name":"a","kind":"relu"})", "a", "inputs", "is missing");
  expect_error(kV + R"(, {"name":"a","kind":"relu","inputs":3})", "a", "inputs", "must be a list");
  expect_error(kV + R"(, {"name":"a","kind":"relu","inputs":[3]})", "a", "inputs", "layer names");
  expect_error(kV + R"(, {"name":"a","kind":"relu","inputs":[]})", "a", "inputs", "got 0");
  expect_error(kV + R"(, {"name":"a","kind":"relu","inputs":["x","x"]})", "a", "inputs", "got 2");
  expect_error(kV + R"(, {"name":"y","kind":"input","shape":[4],"inputs":["x"]})", "y", "inputs",
               "got 1");
}

TEST_CASE("unknown input layer") {
  expect_error(kV + R"(, {"name":"a","kind":"relu","inputs":["nope"]})", "a", "inputs",
               "unknown input layer 'nope'");
  // The closest name, when one is within a third of the name's length in edits.
  expect_error(kV + R"(, {"name":"conv1","kind":"relu","inputs":["x"]},
                       {"name":"a","kind":"relu","inputs":["conv_1"]})",
               "a", "inputs", "unknown input layer 'conv_1'; did you mean 'conv1'?");
}

TEST_CASE("a layer that reads its own output") {
  expect_error(kV + R"(, {"name":"a","kind":"add","inputs":["x","a"]})", "a", "inputs",
               "its own output");
}

TEST_CASE("a 2-cycle and a 3-cycle") {
  expect_error(kV + R"(, {"name":"a","kind":"add","inputs":["x","b"]},
                        {"name":"b","kind":"relu","inputs":["a"]})",
               "a", "inputs", "cycle");
  expect_error(kV + R"(, {"name":"a","kind":"relu","inputs":["c"]},
                        {"name":"b","kind":"relu","inputs":["a"]},
                        {"name":"c","kind":"relu","inputs":["b"]})",
               "a", "inputs", "cycle");
}

// A layer downstream of a cycle is never blamed for it: the message names layers on the cycle.
TEST_CASE("a cycle is blamed on a layer on it, not on one downstream") {
  try {
    (void)parse_network(doc(kV + R"(, {"name":"d","kind":"relu","inputs":["a"]},
                                      {"name":"a","kind":"add","inputs":["x","b"]},
                                      {"name":"b","kind":"relu","inputs":["a"]})"),
                        "test.json");
    FAIL("no error");
  } catch (const NetworkError& e) {
    INFO(e.what());
    CHECK(e.field() == "inputs");
    CHECK(e.layer() == "a");  // the cycle's earliest layer in the file; "d" is downstream
    CHECK(std::string(e.what()).find("'a' -> 'b' -> 'a'") != std::string::npos);
  }
}

// ---- shapes that do not fit --------------------------------------------------------------------

TEST_CASE("add of different shapes names the inputs field") {
  expect_error(kV + R"(, {"name":"y","kind":"input","shape":[5]},
                        {"name":"s","kind":"add","inputs":["x","y"]})",
               "s", "inputs", "add of different shapes");
  // add does not broadcast: [4] + [1] is refused too.
  expect_error(kV + R"(, {"name":"y","kind":"input","shape":[1]},
                        {"name":"s","kind":"add","inputs":["x","y"]})",
               "s", "inputs", "[4]");
  expect_error(kV + R"(, {"name":"s","kind":"add","inputs":["x"]})", "s", "inputs", "at least 2");
}

TEST_CASE("multiply of shapes that cannot broadcast") {
  expect_error(kV + R"(, {"name":"y","kind":"input","shape":[3]},
                        {"name":"m","kind":"multiply","inputs":["x","y"]})",
               "m", "inputs", "cannot be broadcast");
}

TEST_CASE("concat of mismatched shapes or out-of-range axis") {
  expect_error(kX + R"(, {"name":"y","kind":"input","shape":[8,7,3]},
                        {"name":"c","kind":"concat","inputs":["x","y"]})",
               "c", "inputs", "cannot concatenate");
  expect_error(kX + R"(, {"name":"y","kind":"input","shape":[8,3]},
                        {"name":"c","kind":"concat","inputs":["x","y"]})",
               "c", "inputs", "cannot concatenate");
  expect_error(kX + R"(, {"name":"c","kind":"concat","inputs":["x","x"],"axis":3})", "c", "axis",
               "out of range");
  expect_error(kX + R"(, {"name":"c","kind":"concat","inputs":["x","x"],"axis":-4})", "c", "axis",
               "out of range");
  expect_error(kX + R"(, {"name":"c","kind":"concat","inputs":["x","x"],"axis":-9})", "c", "axis",
               ">= -8");
}

TEST_CASE("matmul whose inner dimensions differ") {
  expect_error(R"({"name":"a","kind":"input","shape":[3,4]},
                  {"name":"b","kind":"input","shape":[5,6]},
                  {"name":"m","kind":"matmul","inputs":["a","b"]})",
               "m", "inputs", "inner dimensions differ");
  // transpose_b turns a valid product into a mismatch.
  expect_error(R"({"name":"a","kind":"input","shape":[3,4]},
                  {"name":"b","kind":"input","shape":[4,5]},
                  {"name":"m","kind":"matmul","inputs":["a","b"],"transpose_b":true})",
               "m", "inputs", "inner dimensions differ");
  expect_error(R"({"name":"a","kind":"input","shape":[2,3,4]},
                  {"name":"b","kind":"input","shape":[3,4,5]},
                  {"name":"m","kind":"matmul","inputs":["a","b"]})",
               "m", "inputs", "cannot be broadcast");
  expect_error(kV + R"(, {"name":"m","kind":"matmul","inputs":["x","x"]})", "m", "inputs",
               "rank >= 2");
  expect_error(R"({"name":"a","kind":"input","shape":[3,4]},
                  {"name":"m","kind":"matmul","inputs":["a","a","a"]})",
               "m", "inputs", "got 3");
}

TEST_CASE("conv2d on a rank-2 input") {
  expect_error(R"({"name":"x","kind":"input","shape":[8,8]},
                  {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3})",
               "c", "inputs", "needs rank 3");
  expect_error(R"({"name":"x","kind":"input","shape":[8,8]},
                  {"name":"p","kind":"maxpool","inputs":["x"]})",
               "p", "inputs", "needs rank 3");
  expect_error(R"({"name":"x","kind":"input","shape":[]},
                  {"name":"d","kind":"dense","inputs":["x"],"units":3})",
               "d", "inputs", "rank >= 1");
}

// ---- numbers -----------------------------------------------------------------------------------

TEST_CASE("bad numbers in filters, units, kernel_size and shape") {
  struct Bad {
    const char* value;
    const char* detail;
  };
  const Bad bad[] = {{"-3", "positive"},          {"0", "positive"},
                     {"2.5", "integer"},          {"true", "boolean"},
                     {"\"8\"", "a string"},       {"null", "null"},
                     {"1e300", "too large"},      {"1099511627776", "too large"},  // 2^40
                     {"-1099511627776", "positive"}, {"[3]", "integer"}};
  for (const auto& b : bad) {
    const std::string v = b.value;
    INFO("value " << v);
    expect_error(kX + R"(, {"name":"l","kind":"conv2d","inputs":["x"],"kernel_size":3,"filters":)" + v + "}",
                 "l", "filters", b.detail);
    expect_error(kV + R"(, {"name":"l","kind":"dense","inputs":["x"],"units":)" + v + "}", "l",
                 "units", b.detail);
    expect_error(kX + R"(, {"name":"l","kind":"lstm_cell","inputs":["x"],"units":)" + v + "}", "l",
                 "units", b.detail);
    if (v != "[3]") {  // [3] is a list of the wrong length for a pair: its own message
      expect_error(kX + R"(, {"name":"l","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":)" + v + "}",
                   "l", "kernel_size", b.detail);
    }
    expect_error(kX + R"(, {"name":"l","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":[3,)" + v + "]}",
                 "l", "kernel_size", b.detail);
    expect_error(R"({"name":"x","kind":"input","shape":[4,)" + v + "]}", "x", "shape", b.detail);
  }
  expect_error(kX + R"(, {"name":"l","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":[3]})",
               "l", "kernel_size", "list of 2");
  expect_error(kX + R"(, {"name":"l","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":[3,3,3]})",
               "l", "kernel_size", "list of 2");
  expect_error(R"({"name":"x","kind":"input","shape":4})", "x", "shape", "must be a list");
  expect_error(R"({"name":"x","kind":"input","shape":[1,1,1,1,1,1,1,1,1]})", "x", "shape",
               "more than 8");
  expect_error(R"({"name":"x","kind":"input"})", "x", "shape", "is missing");
}

TEST_CASE("required sizes missing") {
  expect_error(kX + R"(, {"name":"l","kind":"conv2d","inputs":["x"],"kernel_size":3})", "l",
               "filters", "is missing");
  expect_error(kX + R"(, {"name":"l","kind":"conv2d","inputs":["x"],"filters":3})", "l",
               "kernel_size", "is missing");
  expect_error(kX + R"(, {"name":"l","kind":"depthwise_conv2d","inputs":["x"]})", "l",
               "kernel_size", "is missing");
  expect_error(kV + R"(, {"name":"l","kind":"dense","inputs":["x"]})", "l", "units", "is missing");
  expect_error(kV + R"(, {"name":"l","kind":"lstm_cell","inputs":["x"]})", "l", "units",
               "is missing");
  expect_error(kV + R"(, {"name":"l","kind":"embedding","inputs":["x"],"output_dim":4})", "l",
               "input_dim", "is missing");
  expect_error(kV + R"(, {"name":"l","kind":"embedding","inputs":["x"],"input_dim":4})", "l",
               "output_dim", "is missing");
}

TEST_CASE("zero in any other size field names that field") {
  struct Case {
    std::string layer_json, field;
  };
  const Case cases[] = {
      {R"({"name":"l","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":3,"strides":0})", "strides"},
      {R"({"name":"l","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":3,"dilation":[1,0]})", "dilation"},
      {R"({"name":"l","kind":"conv2d","inputs":["x"],"filters":3,"kernel_size":3,"groups":0})", "groups"},
      {R"({"name":"l","kind":"depthwise_conv2d","inputs":["x"],"kernel_size":3,"depth_multiplier":0})", "depth_multiplier"},
      {R"({"name":"l","kind":"maxpool","inputs":["x"],"pool_size":0})", "pool_size"},
      {R"({"name":"l","kind":"avgpool","inputs":["x"],"strides":[2,0]})", "strides"},
      {R"({"name":"l","kind":"embedding","inputs":["x"],"input_dim":0,"output_dim":4})", "input_dim"},
      {R"({"name":"l","kind":"embedding","inputs":["x"],"input_dim":4,"output_dim":0})", "output_dim"},
      {R"({"name":"l","kind":"reshape","inputs":["x"],"target_shape":[0,-1]})", "target_shape"},
  };
  for (const auto& c : cases) {
    INFO(c.field);
    expect_error(kX + ", " + c.layer_json, "l", c.field, "positive");
  }
  expect_error(R"({"name":"a","kind":"input","shape":[3,4]},
                  {"name":"l","kind":"matmul","inputs":["a","a"],"heads":0})",
               "l", "heads", "positive");
}

TEST_CASE("padding garbage") {
  const char* bad[] = {R"("foo")", R"("SAME")", "-1",       "true",        "[1,2,3]", "[[1,2],[3]]",
                       "[[1,2],3]", R"({"a":1})", "[1,-2]", "[[1,2],[3,-4]]", "2.5",   "null"};
  for (const char* p : bad) {
    INFO("padding " << p);
    expect_error(kX + R"(, {"name":"c","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":3,"padding":)" +
                     std::string(p) + "}",
                 "c", "padding");
    expect_error(kX + R"(, {"name":"z","kind":"zero_padding","inputs":["x"],"padding":)" +
                     std::string(p) + "}",
                 "z", "padding");
  }
  expect_error(kX + R"(, {"name":"z","kind":"zero_padding","inputs":["x"],"padding":"same"})", "z",
               "padding", "explicit sizes");
}

TEST_CASE("other fields of the wrong type") {
  expect_error(kV + R"(, {"name":"d","kind":"dense","inputs":["x"],"units":2,"use_bias":1})", "d",
               "use_bias", "true or false");
  expect_error(kV + R"(, {"name":"d","kind":"dense","inputs":["x"],"units":2,"trainable":"yes"})",
               "d", "trainable", "true or false");
  expect_error(kV + R"(, {"name":"d","kind":"dense","inputs":["x"],"units":2,"weights":5})", "d",
               "weights", "must be a string");
  expect_error(kX + R"(, {"name":"g","kind":"global_avgpool","inputs":["x"],"keepdims":"no"})", "g",
               "keepdims", "true or false");
  expect_error(R"({"name":"a","kind":"input","shape":[3,3]},
                  {"name":"m","kind":"matmul","inputs":["a","a"],"transpose_b":1})",
               "m", "transpose_b", "true or false");
  expect_error(R"({"name":"x","kind":"input","shape":[4],"dtype":5})", "x", "dtype",
               "must be a string");
}

// ---- unknown and unsupported fields ------------------------------------------------------------

TEST_CASE("an unknown field such as the typo filter") {
  expect_error(kX + R"(, {"name":"c","kind":"conv2d","inputs":["x"],"filter":4,"kernel_size":3})",
               "c", "filter", "not a field of a conv2d layer");
  expect_error(kV + R"(, {"name":"r","kind":"relu","inputs":["x"],"units":3})", "r", "units",
               "not a field of a relu layer");
  expect_error(kV + R"(, {"name":"d","kind":"dense","inputs":["x"],"units":3,"kernel_size":3})", "d",
               "kernel_size", "not a field of a dense layer");
}

TEST_CASE("a fused activation") {
  expect_error(kV + R"(, {"name":"d","kind":"dense","inputs":["x"],"units":3,"activation":"relu"})",
               "d", "activation", "fused activations are not supported");
  expect_error(kV + R"(, {"name":"d","kind":"dense","inputs":["x"],"units":3,"activation":5})", "d",
               "activation", "fused activations are not supported");
}

// ---- parameters that do not fit the input ------------------------------------------------------

TEST_CASE("a window larger than its input") {
  expect_error(R"({"name":"x","kind":"input","shape":[3,3,1]},
                  {"name":"c","kind":"conv2d","inputs":["x"],"filters":1,"kernel_size":5})",
               "c", "kernel_size", "larger than the padded input 3");
  // dilation 3 stretches a 3-tap kernel to 7 > 5.
  expect_error(R"({"name":"x","kind":"input","shape":[5,5,1]},
                  {"name":"c","kind":"conv2d","inputs":["x"],"filters":1,"kernel_size":3,"dilation":3})",
               "c", "kernel_size", "window 7");
  expect_error(R"({"name":"x","kind":"input","shape":[3,3,1]},
                  {"name":"c","kind":"depthwise_conv2d","inputs":["x"],"kernel_size":[1,4]})",
               "c", "kernel_size", "larger");
}

// Pooling layers call their window 'pool_size': the error names that field.
TEST_CASE("a pooling window larger than its input names pool_size") {
  expect_error(R"({"name":"x","kind":"input","shape":[3,3,1]},
                  {"name":"p","kind":"maxpool","inputs":["x"],"pool_size":5})",
               "p", "pool_size", "larger");
  expect_error(R"({"name":"x","kind":"input","shape":[3,3,1]},
                  {"name":"p","kind":"avgpool","inputs":["x"],"pool_size":4})",
               "p", "pool_size", "larger");
}

TEST_CASE("a reshape whose element count differs, or with two -1") {
  const std::string x = R"({"name":"x","kind":"input","shape":[4,6]})";
  expect_error(x + R"(, {"name":"r","kind":"reshape","inputs":["x"],"target_shape":[5,5]})", "r",
               "target_shape", "has 25 elements but the input [4, 6] has 24");
  expect_error(x + R"(, {"name":"r","kind":"reshape","inputs":["x"],"target_shape":[-1,-1]})", "r",
               "target_shape", "at most one");
  expect_error(x + R"(, {"name":"r","kind":"reshape","inputs":["x"],"target_shape":[5,-1]})", "r",
               "target_shape", "does not divide 24");
  expect_error(x + R"(, {"name":"r","kind":"reshape","inputs":["x"],"target_shape":[-2,12]})", "r",
               "target_shape", "positive");
  expect_error(x + R"(, {"name":"r","kind":"reshape","inputs":["x"]})", "r", "target_shape",
               "is missing");
}

// 2^64 - 1 must not wrap to -1 ("infer this dimension").
TEST_CASE("target_shape 2^64-1 is too large, not -1") {
  expect_error(R"({"name":"x","kind":"input","shape":[6]},
                  {"name":"r","kind":"reshape","inputs":["x"],"target_shape":[18446744073709551615,2]})",
               "r", "target_shape", "too large");
}

TEST_CASE("groups that do not divide the channels") {
  expect_error(kX + R"(, {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":1,"groups":2})",
               "c", "groups", "input channels 3 are not divisible by groups 2");
  expect_error(R"({"name":"x","kind":"input","shape":[4,4,4]},
                  {"name":"c","kind":"conv2d","inputs":["x"],"filters":3,"kernel_size":1,"groups":2})",
               "c", "groups", "filters 3 are not divisible by groups 2");
}

TEST_CASE("heads that do not divide the width") {
  expect_error(R"({"name":"q","kind":"input","shape":[6,8]},
                  {"name":"s","kind":"matmul","inputs":["q","q"],"heads":3,"transpose_b":true})",
               "s", "heads", "not divisible by 3 heads");
  expect_error(R"({"name":"q","kind":"input","shape":[6,8]},
                  {"name":"s","kind":"matmul","inputs":["q","q"],"transpose_b":true,"merge_heads":true})",
               "s", "merge_heads", "needs 'heads'");
  expect_error(R"({"name":"a","kind":"input","shape":[2,2,3,4]},
                  {"name":"b","kind":"input","shape":[2,2,4,3]},
                  {"name":"m","kind":"matmul","inputs":["a","b"],"heads":2,"merge_heads":true})",
               "m", "merge_heads", "[heads, T, e]");
}

TEST_CASE("shared weights whose sizes or trainability differ") {
  expect_error(kV + R"(, {"name":"a","kind":"dense","inputs":["x"],"units":4,"weights":"w"},
                        {"name":"b","kind":"dense","inputs":["a"],"units":5,"weights":"w"})",
               "b", "weights", "shares weight 'w' of 20 elements but needs 25");
  expect_error(kV + R"(, {"name":"a","kind":"dense","inputs":["x"],"units":4,"weights":"w"},
                        {"name":"b","kind":"dense","inputs":["a"],"units":4,"weights":"w","trainable":false})",
               "b", "trainable", "disagree");
}

TEST_CASE("dropout rate below 0 or not below 1") {
  for (const char* rate : {"1.5", "1", "1.0", "-0.1", "\"0.5\"", "null", "true"}) {
    INFO("rate " << rate);
    expect_error(kV + R"(, {"name":"d","kind":"dropout","inputs":["x"],"rate":)" + std::string(rate) + "}",
                 "d", "rate", "[0, 1)");
  }
}

TEST_CASE("lstm_cell with 4 inputs or none") {
  expect_error(kV + R"(, {"name":"l","kind":"lstm_cell","inputs":["x","x","x","x"],"units":3})", "l",
               "inputs", "got 4 inputs");
  expect_error(kV + R"(, {"name":"l","kind":"lstm_cell","inputs":[],"units":3})", "l", "inputs",
               "got 0 inputs");
  expect_error(kV + R"(, {"name":"l","kind":"lstm_cell","inputs":["x"],"units":3,"filters":2})", "l",
               "filters", "not a field");
}

TEST_CASE("input dtype float8") {
  expect_error(R"({"name":"x","kind":"input","shape":[4],"dtype":"float8"})", "x", "dtype",
               "got \"float8\"");
}

TEST_CASE("sizes whose products overflow are an error on the layer") {
  // 2^31 · 2^31 = 2^62 elements per sample: beyond the 2^44 cap. The message has no field.
  try {
    (void)parse_network(doc(R"({"name":"x","kind":"input","shape":[2147483648,2147483648]})"),
                        "test.json");
    FAIL("no error");
  } catch (const NetworkError& e) {
    INFO(e.what());
    CHECK(e.layer() == "x");
    CHECK(contains(e.detail(), "overflow"));
  }
  try {
    (void)parse_network(doc(R"({"name":"x","kind":"input","shape":[65536]},
                               {"name":"d","kind":"dense","inputs":["x"],"units":2147483648})"),
                        "test.json");
    FAIL("no error");
  } catch (const NetworkError& e) {
    INFO(e.what());
    CHECK(e.layer() == "d");
    CHECK(contains(e.detail(), "overflow"));
  }
}

// ---- files -------------------------------------------------------------------------------------

TEST_CASE("load_network_file on a missing path or a folder") {
  const std::string path = "/nonexistent-dnnmem-dir/test.json";
  try {
    (void)load_network_file(path);
    FAIL("no error");
  } catch (const NetworkError& e) {
    CHECK(e.source() == path);
    CHECK(e.layer().empty());
    CHECK(e.field().empty());
    CHECK(contains(e.what(), path));
    CHECK(contains(e.what(), "cannot open"));
  }
  CHECK_THROWS_AS(load_network_file("/"), NetworkError);
}

// ---- robustness: no crash and no other exception on mangled files -----------------------------

namespace {

const std::string kValid = doc(R"({"name":"x","kind":"input","shape":[8,8,3]},
  {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3,"strides":2,"padding":[[0,1],[1,0]]},
  {"name":"bn","kind":"batchnorm","inputs":["c"]},
  {"name":"r","kind":"relu","inputs":["bn"]},
  {"name":"p","kind":"maxpool","inputs":["r"],"pool_size":2},
  {"name":"f","kind":"reshape","inputs":["p"],"target_shape":[-1,4]},
  {"name":"q","kind":"dense","inputs":["f"],"units":8},
  {"name":"att","kind":"matmul","inputs":["q","q"],"heads":2,"transpose_b":true},
  {"name":"ids","kind":"input","shape":[4],"dtype":"int32"},
  {"name":"e","kind":"embedding","inputs":["ids"],"input_dim":10,"output_dim":8},
  {"name":"l","kind":"lstm_cell","inputs":["e","q"],"units":8,"weights":"rnn"},
  {"name":"d","kind":"dropout","inputs":["l"],"rate":0.5})");

}  // namespace

TEST_CASE("the robustness base document is valid") {
  CHECK_NOTHROW(parse_network(kValid, "test.json"));
}

TEST_CASE("every truncation of a valid file is a NetworkError") {
  for (std::size_t len = 0; len < kValid.size(); ++len) {
    INFO("prefix of " << len << " bytes");
    CHECK_THROWS_AS(parse_network(kValid.substr(0, len), "test.json"), NetworkError);
  }
}

TEST_CASE("single-byte corruptions of a valid file parse or give a NetworkError") {
  const char replacements[] = {'{', ']', '"', ',', '0', '9', '-', 'x', ' ', '\xff'};
  int failures = 0;
  for (std::size_t i = 0; i < kValid.size(); ++i) {
    for (char r : replacements) {
      std::string text = kValid;
      text[i] = r;
      if (!parses_or_network_error(text)) ++failures;
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("extreme values in every integer of a valid file parse or give a NetworkError") {
  // Each run of digits (with its sign) in turn replaced by each value.
  const char* values[] = {"0",  "-1", "-0", "1.5", "2147483647", "2147483648", "2147483649",
                          "9223372036854775807", "18446744073709551616", "1e308", "true", "\"1\""};
  int failures = 0, runs = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 1; i < kValid.size(); ++i) {  // kValid[0] is '{'
    const char prev = kValid[i - 1];
    if (!digit(kValid[i]) || digit(prev) || prev == '.') continue;
    std::size_t j = i;
    while (j < kValid.size() && (digit(kValid[j]) || kValid[j] == '.')) ++j;
    const std::size_t from = prev == '-' ? i - 1 : i;
    ++runs;
    for (const char* v : values) {
      const std::string text = kValid.substr(0, from) + v + kValid.substr(j);
      INFO(shorten(text));
      if (!parses_or_network_error(text)) ++failures;
    }
  }
  CHECK(runs > 20);
  CHECK(failures == 0);
}

// A 'same' pooling window skips the window-size check; its FLOP count must still not overflow.
TEST_CASE("a huge same-padded pooling window overflows cleanly") {
  expect_error(R"({"name":"x","kind":"input","shape":[64,64,64]},
                  {"name":"p","kind":"maxpool","inputs":["x"],"pool_size":2147483647,"strides":1,"padding":"same"})",
               "p", "pool_size", "overflow");
}

TEST_CASE("fields of the kinds beyond SPEC's table are checked") {
  expect_error(kX + R"(, {"name":"u","kind":"upsample","inputs":["x"],"size":0})", "u", "size");
  expect_error(kX + R"(, {"name":"u","kind":"upsample","inputs":["x"],"interpolation":"cubic"})",
               "u", "interpolation", "\"nearest\" or \"bilinear\"");
  expect_error(kV + R"(, {"name":"u","kind":"upsample","inputs":["x"]})", "u", "inputs", "needs rank 3");
  expect_error(kX + R"(, {"name":"l","kind":"leaky_relu","inputs":["x"],"alpha":"0.1"})", "l",
               "alpha", "must be a number");
  expect_error(kX + R"(, {"name":"r","kind":"rescaling","inputs":["x"],"scale":null})", "r", "scale",
               "must be a number");
  expect_error(kX + R"(, {"name":"n","kind":"normalization","inputs":["x"],"axis":1})", "n", "axis",
               "only the last");
  expect_error(kX + R"(, {"name":"c","kind":"class_token","inputs":["x"]})", "c", "inputs",
               "needs rank 2");
  expect_error(kX + R"(, {"name":"s","kind":"swish","inputs":["x"],"beta":1})", "s", "beta",
               "is not a field of a swish layer");
}
