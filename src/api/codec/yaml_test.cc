#include "api/codec/yaml.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace allot::api {
namespace {

// The JSON of `value` under key "v" in a one-document YAML map.
std::string Convert(const std::string& yaml) {
  Result<std::vector<std::string>> r = YamlToJson(yaml);
  if (!r.ok()) return "ERROR: " + r.status().message();
  if (r->size() != 1) return "DOCS: " + std::to_string(r->size());
  return (*r)[0];
}

std::string ValueOf(const std::string& scalar) { return Convert("v: " + scalar + "\n"); }

struct ScalarCase {
  const char* yaml;
  const char* json;  // the JSON of {"v": <yaml>}
};

class YamlScalarTest : public ::testing::TestWithParam<ScalarCase> {};

TEST_P(YamlScalarTest, ResolvesAsGoYamlV2) {
  EXPECT_EQ(ValueOf(GetParam().yaml), GetParam().json) << "yaml: " << GetParam().yaml;
}

INSTANTIATE_TEST_SUITE_P(
    Table, YamlScalarTest,
    ::testing::Values(
        // null
        ScalarCase{"", R"({"v":null})"}, ScalarCase{"~", R"({"v":null})"},
        ScalarCase{"null", R"({"v":null})"}, ScalarCase{"Null", R"({"v":null})"},
        ScalarCase{"NULL", R"({"v":null})"}, ScalarCase{"nULL", R"({"v":"nULL"})"},
        ScalarCase{"\"null\"", R"({"v":"null"})"},
        // bool, YAML 1.1 style
        ScalarCase{"true", R"({"v":true})"}, ScalarCase{"True", R"({"v":true})"},
        ScalarCase{"TRUE", R"({"v":true})"}, ScalarCase{"yes", R"({"v":true})"},
        ScalarCase{"Yes", R"({"v":true})"}, ScalarCase{"YES", R"({"v":true})"},
        ScalarCase{"y", R"({"v":true})"}, ScalarCase{"Y", R"({"v":true})"},
        ScalarCase{"on", R"({"v":true})"}, ScalarCase{"On", R"({"v":true})"},
        ScalarCase{"ON", R"({"v":true})"}, ScalarCase{"false", R"({"v":false})"},
        ScalarCase{"False", R"({"v":false})"}, ScalarCase{"FALSE", R"({"v":false})"},
        ScalarCase{"no", R"({"v":false})"}, ScalarCase{"No", R"({"v":false})"},
        ScalarCase{"NO", R"({"v":false})"}, ScalarCase{"n", R"({"v":false})"},
        ScalarCase{"N", R"({"v":false})"}, ScalarCase{"off", R"({"v":false})"},
        ScalarCase{"Off", R"({"v":false})"}, ScalarCase{"OFF", R"({"v":false})"},
        ScalarCase{"yEs", R"({"v":"yEs"})"}, ScalarCase{"tRUE", R"({"v":"tRUE"})"},
        ScalarCase{"'yes'", R"({"v":"yes"})"}, ScalarCase{"\"on\"", R"({"v":"on"})"},
        // int
        ScalarCase{"0", R"({"v":0})"}, ScalarCase{"123", R"({"v":123})"},
        ScalarCase{"-17", R"({"v":-17})"}, ScalarCase{"+5", R"({"v":5})"},
        ScalarCase{"1_000", R"({"v":1000})"}, ScalarCase{"0x1F", R"({"v":31})"},
        ScalarCase{"0o17", R"({"v":15})"}, ScalarCase{"017", R"({"v":15})"},
        ScalarCase{"0b101", R"({"v":5})"}, ScalarCase{"-0b11", R"({"v":-3})"},
        ScalarCase{"9223372036854775807", R"({"v":9223372036854775807})"},
        ScalarCase{"-9223372036854775808", R"({"v":-9223372036854775808})"},
        ScalarCase{"9223372036854775808", R"({"v":9223372036854775808})"},
        ScalarCase{"18446744073709551616", R"({"v":18446744073709552000})"},
        ScalarCase{"08", R"({"v":8})"},  // not octal, so a float 8
        ScalarCase{"0x", R"({"v":"0x"})"}, ScalarCase{"\"123\"", R"({"v":"123"})"},
        // float
        ScalarCase{"1.5", R"({"v":1.5})"}, ScalarCase{"1.0", R"({"v":1})"},
        ScalarCase{"1e3", R"({"v":1000})"}, ScalarCase{"-2.5e-3", R"({"v":-0.0025})"},
        ScalarCase{".5", R"({"v":0.5})"}, ScalarCase{"1.", R"({"v":1})"},
        ScalarCase{"6.02e23", R"({"v":6.02e+23})"}, ScalarCase{"1e-7", R"({"v":1e-7})"},
        ScalarCase{"1e400", R"({"v":"1e400"})"}, ScalarCase{"1.2.3", R"({"v":"1.2.3"})"},
        ScalarCase{"1:20", R"({"v":"1:20"})"},  // no base 60 in go-yaml v2
        // timestamps stay text
        ScalarCase{"2024-01-02", R"({"v":"2024-01-02"})"},
        ScalarCase{"2001-12-14t21:59:43.10-05:00", R"({"v":"2001-12-14t21:59:43.10-05:00"})"},
        // strings
        ScalarCase{"hello world", R"({"v":"hello world"})"},
        ScalarCase{"'it''s'", R"({"v":"it's"})"},
        ScalarCase{"\"tab\\there\"", R"({"v":"tab\there"})"}, ScalarCase{"<<", R"({"v":"<<"})"},
        // explicit tags
        ScalarCase{"!!str 123", R"({"v":"123"})"}, ScalarCase{"!!str true", R"({"v":"true"})"},
        ScalarCase{"!!int \"42\"", R"({"v":42})"}, ScalarCase{"!!float 1", R"({"v":1})"},
        ScalarCase{"!!bool yes", R"({"v":true})"}, ScalarCase{"!!null ''", R"({"v":null})"},
        ScalarCase{"!!binary aGVsbG8=", R"({"v":"hello"})"},
        ScalarCase{"!custom thing", R"({"v":"thing"})"}));

TEST(YamlTest, RejectedScalars) {
  EXPECT_EQ(ValueOf(".inf"), "ERROR: error converting YAML to JSON: json: unsupported value: +Inf");
  EXPECT_EQ(ValueOf("-.Inf"),
            "ERROR: error converting YAML to JSON: json: unsupported value: -Inf");
  EXPECT_EQ(ValueOf(".NaN"), "ERROR: error converting YAML to JSON: json: unsupported value: NaN");
  EXPECT_EQ(ValueOf("!!int abc"),
            "ERROR: error converting YAML to JSON: yaml: cannot decode !!str `abc` as a !!int");
  EXPECT_EQ(ValueOf("!!bool 1"),
            "ERROR: error converting YAML to JSON: yaml: cannot decode !!int `1` as a !!bool");
  EXPECT_EQ(ValueOf("!!binary not*base64"),
            "ERROR: error converting YAML to JSON: yaml: !!binary value contains invalid base64 "
            "data");
}

// yaml-cpp turns \N and \_ into lone bytes; they must come out as U+0085 and U+00A0 (found by
// decode_fuzz: the emitter writes U+0085 as \N, as go-yaml does).
TEST(YamlTest, NextLineAndNonBreakingSpaceEscapes) {
  EXPECT_EQ(Convert("a: \"x\\Ny\\_z\"\n"), "{\"a\":\"x\u0085y\u00a0z\"}");
  EXPECT_EQ(Convert("\"\\N\": \"\u00e9\\_\"\n"), "{\"\u0085\":\"\u00e9\u00a0\"}");
}

TEST(YamlTest, KeysBecomeStrings) {
  EXPECT_EQ(Convert("1: a\ntrue: b\n1.5: c\nno: d\n0x10: e\n"),
            R"({"1":"a","1.5":"c","16":"e","false":"d","true":"b"})");
  // Float keys are printed as float32 (sigs.k8s.io/yaml), so huge ones become .inf.
  EXPECT_EQ(Convert("1e300: a\n-1e39: b\n3.4028235e38: c\n"),
            R"({"-.inf":"b",".inf":"a","3.4028235e+38":"c"})");
  EXPECT_EQ(Convert("~: a\n"),
            "ERROR: error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: "
            "<nil>");
  EXPECT_EQ(Convert("? [a]\n: b\n"),
            "ERROR: error converting YAML to JSON: yaml: invalid map key: []interface {}");
}

TEST(YamlTest, KeysAreSortedAndLaterDuplicatesWin) {
  EXPECT_EQ(Convert("b: 1\na: 2\nc: {z: 1, w: 2}\na: 3\n"), R"({"a":3,"b":1,"c":{"w":2,"z":1}})");
}

TEST(YamlTest, YesNoKeysAreBooleansToo) {
  // The YAML 1.1 gotcha Kubernetes users meet: plain y/n/on/off keys are booleans.
  EXPECT_EQ(Convert("y: 1\nn: 2\non: 3\n'y': 4\n"), R"({"false":2,"true":3,"y":4})");
}

TEST(YamlTest, BlockAndFlowCollections) {
  EXPECT_EQ(Convert(R"(apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: app
    image: nginx
    args: ["-c", 'x y']
    ports:
      - containerPort: 80
  nodeSelector: {}
  tolerations: []
)"),
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"web"},"name":"web"},)"
            R"("spec":{"containers":[{"args":["-c","x y"],"image":"nginx","name":"app",)"
            R"("ports":[{"containerPort":80}]}],"nodeSelector":{},"tolerations":[]}})");
}

TEST(YamlTest, BlockScalars) {
  EXPECT_EQ(Convert("a: |\n  line1\n  line2\nb: >\n  folded\n  text\nc: |-\n  x\n"),
            R"({"a":"line1\nline2\n","b":"folded text\n","c":"x"})");
}

TEST(YamlTest, AnchorsAliasesAndMerges) {
  EXPECT_EQ(Convert("a: &x {k: v}\nb: *x\nc: &s str\nd: *s\n"),
            R"({"a":{"k":"v"},"b":{"k":"v"},"c":"str","d":"str"})");
  EXPECT_EQ(Convert("base: &b {x: 1, w: 2}\nd:\n  <<: *b\n  w: 3\n"),
            R"({"base":{"w":2,"x":1},"d":{"w":3,"x":1}})");
  // Earlier maps in a merge list take precedence.
  EXPECT_EQ(Convert("p: &p {a: 1}\nq: &q {a: 2, b: 2}\nr:\n  <<: [*p, *q]\n"),
            R"({"p":{"a":1},"q":{"a":2,"b":2},"r":{"a":1,"b":2}})");
  EXPECT_EQ(Convert("a:\n  <<: 1\n"),
            "ERROR: error converting YAML to JSON: yaml: map merge requires map or sequence of "
            "maps as the value");
  // A quoted "<<" is an ordinary key.
  EXPECT_EQ(Convert("a:\n  '<<': 1\n"), R"({"a":{"<<":1}})");
}

TEST(YamlTest, RecursiveAliasIsAnError) {
  EXPECT_EQ(Convert("a: &x [1, *x]\n"),
            "ERROR: error converting YAML to JSON: yaml: anchor 'x' value contains itself");
}

TEST(YamlTest, ExcessiveAliasingIsAnError) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    std::string prev(1, static_cast<char>(c - 1));
    bomb += std::string(1, c) + ": &" + std::string(1, c) + " [";
    for (int i = 0; i < 10; ++i) bomb += (i ? ", *" : "*") + prev;
    bomb += "]\n";
  }
  EXPECT_EQ(Convert(bomb),
            "ERROR: error converting YAML to JSON: yaml: document contains excessive aliasing");
}

TEST(YamlTest, MultipleDocuments) {
  Result<std::vector<std::string>> r =
      YamlToJson("---\na: 1\n---\n# only a comment\n---\n\n---\nb: 2\n...\n---\n~\n---\n- x\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<std::string>{R"({"a":1})", R"({"b":2})", R"(["x"])"}));
  EXPECT_TRUE(YamlToJson("")->empty());
  EXPECT_TRUE(YamlToJson("# nothing\n")->empty());
}

TEST(YamlTest, FirstDocumentOnly) {
  EXPECT_EQ(*YamlDocumentToJson("a: 1\n---\nb: 2\n"), R"({"a":1})");
  EXPECT_EQ(*YamlDocumentToJson(""), "null");
  // Like yaml.Unmarshal, later documents are not even parsed.
  EXPECT_EQ(*YamlDocumentToJson("a: 1\n---\n[unclosed\n"), R"({"a":1})");
}

TEST(YamlTest, JsonIsYaml) {
  EXPECT_EQ(Convert(R"({"b": [1, 2.5, "x", null, true], "a": {"c": "d"}})"),
            R"({"a":{"c":"d"},"b":[1,2.5,"x",null,true]})");
}

TEST(YamlTest, ParseErrorsCarryTheLine) {
  EXPECT_EQ(Convert("a: 1\nb: c: d\n"),
            "ERROR: error converting YAML to JSON: yaml: line 2: mapping values are not allowed in "
            "this context");
  Result<std::vector<std::string>> r = YamlToJson("a: [1, 2\nb: 3\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message().rfind("error converting YAML to JSON: yaml: line ", 0), 0u)
      << r.status().message();
  r = YamlToJson("a: *nope\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("yaml: line 1:"), std::string::npos) << r.status().message();
}

TEST(YamlTest, StrayFlowEntryAtBlockLevelIsAnErrorNotAHang) {
  // yaml-cpp 0.7 alone loops forever on these (found by decode_fuzz).
  for (const char* text : {",", "[a],", "{a: b},", "'x',", "a: 1\n---\n, b\n"}) {
    Result<std::vector<std::string>> r = YamlToJson(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find("did not find expected node content"), std::string::npos)
        << r.status().message();
  }
}

TEST(YamlTest, InputCheckedLikeGoYamlsReader) {
  EXPECT_EQ(Convert(std::string("a: \x01\n")),
            "ERROR: error converting YAML to JSON: yaml: control characters are not allowed");
  EXPECT_EQ(Convert("a: \xff\n"),
            "ERROR: error converting YAML to JSON: yaml: invalid leading UTF-8 octet");
  EXPECT_EQ(Convert("a: \xc3\n"),
            "ERROR: error converting YAML to JSON: yaml: invalid trailing UTF-8 octet");
  EXPECT_EQ(Convert("a: caf\xc3\xa9\n"), "{\"a\":\"caf\xc3\xa9\"}");
}

TEST(YamlTest, DeepNestingIsRejected) {
  std::string deep(3000, '[');
  Result<std::vector<std::string>> r = YamlToJson(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
}

// --- JSON to YAML -----------------------------------------------------------------------------

TEST(JsonToYamlTest, PodInKubectlStyle) {
  Result<std::string> r = JsonToYaml(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"web","labels":{"app":"web"},"annotations":{}},
      "spec":{"containers":[{"name":"app","image":"nginx:1.25","args":["-c","x"],
        "ports":[{"containerPort":80}],"resources":{}}],"tolerations":[]},
      "status":{"phase":"Pending"}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, R"(apiVersion: v1
kind: Pod
metadata:
  annotations: {}
  labels:
    app: web
  name: web
spec:
  containers:
  - args:
    - -c
    - x
    image: nginx:1.25
    name: app
    ports:
    - containerPort: 80
    resources: {}
  tolerations: []
status:
  phase: Pending
)");
}

TEST(JsonToYamlTest, QuotesStringsThatWouldBeMisread) {
  Result<std::string> r = JsonToYaml(R"({"a":"true","b":"123","c":"","d":"2024-01-02",
      "e":"- x","f":"a: b","g":"plain text","h":"y","i":"null","j":"1:20","k":"it's: x",
      "l":"tab\there","m":"0x1F","n":"#comment","o":" padded","p":"<<","q":"1e400"})");
  // Keys follow the same rules ("n" would read back as false). "<<" has no resolver hint in
  // go-yaml, so it stays plain.
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, R"(a: "true"
b: "123"
c: ""
d: "2024-01-02"
e: '- x'
f: 'a: b'
g: plain text
h: "y"
i: "null"
j: "1:20"
k: 'it''s: x'
l: "tab\there"
m: "0x1F"
"n": '#comment'
o: ' padded'
p: <<
q: 1e400
)");
}

TEST(JsonToYamlTest, NumbersAsGoYamlPrintsThem) {
  EXPECT_EQ(*JsonToYaml(R"({"a":1,"b":-2,"c":1.5,"d":1.0,"e":1e6,"f":18446744073709551615})"),
            "a: 1\nb: -2\nc: 1.5\nd: 1\ne: 1e+06\nf: 18446744073709551615\n");
}

TEST(JsonToYamlTest, MultilineStringsUseLiteralBlocks) {
  EXPECT_EQ(*JsonToYaml(R"({"a":"x\ny\n","b":"x\ny","c":"x\n\n","d":["l1\nl2"]})"),
            "a: |\n  x\n  y\nb: |-\n  x\n  y\nc: |+\n  x\n\nd:\n- |-\n  l1\n  l2\n");
  // Trailing spaces would be lost in a block: double quotes instead.
  EXPECT_EQ(*JsonToYaml(R"({"a":"x \ny"})"), "a: \"x \\ny\"\n");
}

TEST(JsonToYamlTest, KeyOrderIsGoYamls) {
  EXPECT_EQ(*JsonToYaml(R"({"a10":1,"a9":2,"B":3,"a":4,"_x":5})"),
            "_x: 5\nB: 3\na: 4\na9: 2\na10: 1\n");
}

TEST(JsonToYamlTest, NestedListsAndScalarsAtTheTop) {
  EXPECT_EQ(*JsonToYaml(R"([[1,2],[],{"a":[{"b":1}]}])"), "- - 1\n  - 2\n- []\n- a:\n  - b: 1\n");
  EXPECT_EQ(*JsonToYaml(R"("hello")"), "hello\n");
  EXPECT_EQ(*JsonToYaml("{}"), "{}\n");
  EXPECT_EQ(*JsonToYaml("null"), "null\n");
}

TEST(JsonToYamlTest, MalformedJsonIs400) {
  Result<std::string> r = JsonToYaml(R"({"a":})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(r.status().message().find("invalid JSON at line 1, column 6"), std::string::npos)
      << r.status().message();
}

TEST(JsonToYamlTest, RoundTripsThroughYamlToJson) {
  const std::string json =
      R"({"a":{"b":["x","yes","","1.5",1.5,true,null,"multi\nline\n"]},"c":"it's",)"
      R"("d":"\u0001ctl","e":"- item","f":{"nested":{"deep":[{"k":"v"},[1,[2]]]}},)"
      R"("g":"say \"hi\"","h":"caf\u00e9"})";
  Result<std::string> yaml = JsonToYaml(json);
  ASSERT_TRUE(yaml.ok()) << yaml.status().ToString();
  Result<std::vector<std::string>> back = YamlToJson(*yaml);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << *yaml;
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0],
            R"({"a":{"b":["x","yes","","1.5",1.5,true,null,"multi\nline\n"]},"c":"it's",)"
            R"("d":"\u0001ctl","e":"- item","f":{"nested":{"deep":[{"k":"v"},[1,[2]]]}},)"
            "\"g\":\"say \\\"hi\\\"\",\"h\":\"caf\xc3\xa9\"}")
      << *yaml;
}

}  // namespace
}  // namespace allot::api
