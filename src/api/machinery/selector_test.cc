#include "api/machinery/selector.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "api/machinery/names.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::kSubdomainMsg;

using Op = LabelRequirement::Op;

// Message fragments shared by many expectations.
const std::string kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const std::string kNamePartMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
    "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
LabelSelectorExpr MustParseLabels(std::string_view text) {
  auto s = LabelSelectorExpr::Parse(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().ToString();
  return s.ok() ? *s : LabelSelectorExpr::Nothing();
}

// --- names ----------------------------------------------------------------------------------

TEST(LabelNamesTest, DnsSubdomain) {
  for (std::string good : {"a", "example.com", "a-b.c-d", "0.1.2", "a--b", "x1.y2.z3"}) {
    EXPECT_TRUE(IsDnsSubdomain(good)) << good;
    EXPECT_TRUE(DnsSubdomainErrors(good).empty()) << good;
  }
  EXPECT_TRUE(IsDnsSubdomain(std::string(253, 'a')));
  for (std::string bad :
       {"", "A", "Foo", "-a", "a-", "a..b", ".a", "a.", "a_b", "a b", "a/b", "a.-b", "ä"}) {
    EXPECT_FALSE(IsDnsSubdomain(bad)) << bad;
    EXPECT_EQ(DnsSubdomainErrors(bad), std::vector<std::string>{kSubdomainMsg}) << bad;
  }
  EXPECT_EQ(DnsSubdomainErrors(std::string(254, 'a')),
            std::vector<std::string>{"must be no more than 253 bytes"});
  EXPECT_EQ(DnsSubdomainErrors(std::string(254, 'A')),
            (std::vector<std::string>{"must be no more than 253 bytes", kSubdomainMsg}));
}

TEST(LabelNamesTest, DnsLabel) {
  const std::string kLabelMsg =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
      "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
      "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  for (std::string good :
       std::vector<std::string>{"a", "my-name", "123-abc", "0", std::string(63, 'z')}) {
    EXPECT_TRUE(IsDnsLabel(good)) << good;
    EXPECT_TRUE(DnsLabelErrors(good).empty()) << good;
  }
  EXPECT_EQ(DnsLabelErrors("a.b"), std::vector<std::string>{"must not contain dots"});
  EXPECT_EQ(DnsLabelErrors("Ab"), std::vector<std::string>{kLabelMsg});
  EXPECT_EQ(DnsLabelErrors(""), std::vector<std::string>{kLabelMsg});
  EXPECT_EQ(DnsLabelErrors("-a"), std::vector<std::string>{kLabelMsg});
  EXPECT_EQ(DnsLabelErrors(std::string(64, 'a')),
            std::vector<std::string>{"must be no more than 63 bytes"});
  EXPECT_FALSE(IsDnsLabel("a.b"));
  EXPECT_FALSE(IsDnsLabel(std::string(64, 'a')));
}

TEST(LabelNamesTest, CIdentifier) {
  for (std::string good : {"a", "_", "my_name", "MY_NAME", "MyName", "_x9"}) {
    EXPECT_TRUE(IsCIdentifier(good)) << good;
    EXPECT_TRUE(CIdentifierErrors(good).empty()) << good;
  }
  const std::string kMsg =
      "a valid C identifier must start with alphabetic character or '_', followed by a string of "
      "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used "
      "for validation is '[A-Za-z_][A-Za-z0-9_]*')";
  for (std::string bad : {"", "1a", "a-b", "a.b", "a b"}) {
    EXPECT_FALSE(IsCIdentifier(bad)) << bad;
    EXPECT_EQ(CIdentifierErrors(bad), std::vector<std::string>{kMsg}) << bad;
  }
}

TEST(LabelNamesTest, QualifiedName) {
  for (std::string good : std::vector<std::string>{
           "a", "A", "a_b.c-D", "123-abc", "example.com/MyName", "k8s.io/x", "0.1.2.domain/99",
           std::string(63, 'a'), std::string(253, 'a') + "/" + std::string(63, 'b')}) {
    EXPECT_TRUE(IsQualifiedName(good)) << good;
    EXPECT_TRUE(ValidateLabelKey(good).ok()) << good;
  }
  struct Case {
    std::string key;
    std::vector<std::string> errors;
  };
  const Case cases[] = {
      {"", {"name part must be non-empty", kNamePartMsg}},
      {"-a", {kNamePartMsg}},
      {"a_", {kNamePartMsg}},
      {"app:web", {kNamePartMsg}},
      {std::string(64, 'a'), {"name part must be no more than 63 bytes"}},
      {"/a", {"prefix part must be non-empty"}},
      {"example.com/", {"name part must be non-empty", kNamePartMsg}},
      {"Example.com/a", {"prefix part " + kSubdomainMsg}},
      {"app.kubernetes_io/name", {"prefix part " + kSubdomainMsg}},
      {std::string(254, 'a') + "/b", {"prefix part must be no more than 253 bytes"}},
      {"a/b/c",
       {"a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
        "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}},
      {"Bad/-x", {"prefix part " + kSubdomainMsg, kNamePartMsg}},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(IsQualifiedName(c.key)) << c.key;
    EXPECT_EQ(QualifiedNameErrors(c.key), c.errors) << c.key;
  }
  Status st = ValidateLabelKey("Bad/-x");
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(), "prefix part " + kSubdomainMsg + "; " + kNamePartMsg);
}

TEST(LabelNamesTest, LabelValue) {
  for (std::string good : std::vector<std::string>{"", "a", "MyValue", "my_value", "12345",
                                                   "a.b-c_d", std::string(63, 'v')}) {
    EXPECT_TRUE(IsLabelValue(good)) << good;
    EXPECT_TRUE(LabelValueErrors(good).empty()) << good;
    EXPECT_TRUE(ValidateLabelValue(good).ok()) << good;
  }
  for (std::string bad : {"-a", "a-", "a b", "a/b", "demo-{nginx}", "_", "é"}) {
    EXPECT_FALSE(IsLabelValue(bad)) << bad;
    EXPECT_EQ(LabelValueErrors(bad), std::vector<std::string>{kLabelValueMsg}) << bad;
  }
  EXPECT_EQ(LabelValueErrors(std::string(64, 'v')),
            std::vector<std::string>{"must be no more than 63 bytes"});
  EXPECT_EQ(LabelValueErrors(std::string(64, '-')),
            (std::vector<std::string>{"must be no more than 63 bytes", kLabelValueMsg}));
  Status st = ValidateLabelValue("a b");
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(), kLabelValueMsg);
}

TEST(LabelNamesTest, RegexErrorFormat) {
  EXPECT_EQ(RegexError("msg", "re"), "msg (regex used for validation is 're')");
  EXPECT_EQ(RegexError("msg", "re", {"a"}), "msg (e.g. 'a', regex used for validation is 're')");
  EXPECT_EQ(RegexError("msg", "re", {"a", "b"}),
            "msg (e.g. 'a',  or 'b', regex used for validation is 're')");
  EXPECT_EQ(MaxLenError(63), "must be no more than 63 bytes");
  EXPECT_EQ(EmptyError(), "must be non-empty");
}

// --- label selectors ------------------------------------------------------------------------

TEST(LabelSelectorTest, ParseAndToString) {
  struct Case {
    const char* input;
    const char* output;
  };
  // apimachinery TestSelectorParse / TestSetSelectorParser, with the String() of the result.
  const Case cases[] = {
      {"", ""},
      {"x=a,y=b,z=c", "x=a,y=b,z=c"},
      {"x!=a,y=b", "x!=a,y=b"},
      {"x=", "x="},
      {"x= ", "x="},
      {"x=,z= ", "x=,z="},
      {"x= ,z= ", "x=,z="},
      {"!x", "!x"},
      {"x>1", "x>1"},
      {"x>1,z<5", "x>1,z<5"},
      {"x=a,a=x", "a=x,x=a"},
      {"a=x,x=a", "a=x,x=a"},
      {"\rx", "x"},
      {"this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"},
      {"this-is-another-dns.domain.com/key-with-dash in (so,what)",
       "this-is-another-dns.domain.com/key-with-dash in (so,what)"},
      {"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
       "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"},
      {"foo  in\t (abc)", "foo in (abc)"},
      {"x notin\n (abc)", "x notin (abc)"},
      {"x  notin\t\t\t(abc,def)", "x notin (abc,def)"},
      {"x in (abc,def)", "x in (abc,def)"},
      {"x in (def,abc,def)", "x in (abc,def)"},
      {"x in (abc,)", "x in (,abc)"},
      {"x in ()", "x in ()"},
      {"x in (,)", "x in ()"},
      {"x in (,,a)", "x in (,a)"},
      {"x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"},
      {"x,y in (a)", "x,y in (a)"},
      {"x,y", "x,y"},
      {"x=a", "x=a"},
      {"x==a", "x==a"},
      {"x == a", "x==a"},
      {"x<7", "x<7"},
      {"x=a,y!=b", "x=a,y!=b"},
      {"x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"},
      {"x notin ( )", "x notin ()"},
      {"x notin (, a)", "x notin (,a)"},
      {"a ", "a"},
      {" a , !b ", "a,!b"},
      {"a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"},
      {"notin=in", "notin=in"},
      {"in", "in"},
      {"!in", "!in"},
      {"x=in", "x=in"},
      {"app.kubernetes.io/name=web,tier in (a,b),!canary",
       "app.kubernetes.io/name=web,!canary,tier in (a,b)"},
      {"x=1,x=2", "x=1,x=2"},
  };
  for (const Case& c : cases) {
    LabelSelectorExpr s = MustParseLabels(c.input);
    EXPECT_EQ(s.ToString(), c.output) << c.input;
    EXPECT_EQ(s.Empty(), std::string(c.output).empty()) << c.input;
    // ToString() parses back to the same selector.
    auto again = LabelSelectorExpr::Parse(s.ToString());
    ASSERT_TRUE(again.ok()) << s.ToString();
    EXPECT_EQ(again->requirements(), s.requirements()) << c.input;
  }
}

TEST(LabelSelectorTest, ParsedRequirements) {
  LabelSelectorExpr s = MustParseLabels("x notin (abc,,def),bar,z in (),w,y>3,!q");
  const std::vector<LabelRequirement> expect = {
      {"bar", Op::kExists, {}},       {"q", Op::kDoesNotExist, {}},
      {"w", Op::kExists, {}},         {"x", Op::kNotIn, {"", "abc", "def"}},
      {"y", Op::kGreaterThan, {"3"}}, {"z", Op::kIn, {""}},
  };
  EXPECT_EQ(s.requirements(), expect);
}

TEST(LabelSelectorTest, ParseErrors) {
  const std::string kPrefix = "unable to parse requirement: ";
  struct Case {
    std::string input;
    std::string message;
  };
  const Case cases[] = {
      {"x=a||y=b", kPrefix + "values[0][x]: Invalid value: \"a||y\": " + kLabelValueMsg},
      {"x==a==b", "found '==', expected: ',' or 'end of string'"},
      {"!x=a", "found '=', expected: ',' or 'end of string'"},
      {"x<a", kPrefix +
                  "values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be "
                  "an integer"},
      {"environment>qa", kPrefix +
                             "values[0]: Invalid value: \"qa\": for 'Gt', 'Lt' operators, the "
                             "value must be an integer"},
      {"x>-1", kPrefix + "values[0][x]: Invalid value: \"-1\": " + kLabelValueMsg},
      {"x>", kPrefix +
                 "values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an "
                 "integer"},
      {",x,y", "found ',', expected: !, identifier, or 'end of string'"},
      {"x,,y", "found ',', expected: identifier after ','"},
      {"x nott in (y)", kPrefix + "found 'nott', expected: in, notin, =, ==, !=, gt, lt"},
      {"a b", kPrefix + "found 'b', expected: in, notin, =, ==, !=, gt, lt"},
      {"a in (xyz),", "found '', expected: identifier after ','"},
      {"a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'"},
      {"a in (xyz abc)", kPrefix + "found 'abc', expected: ',' or ')'"},
      {"a in (b", kPrefix + "found '', expected: ',' or ')'"},
      {"a in (b,", kPrefix + "found '', expected: ',', or identifier"},
      {"a in (=)", kPrefix + "found '=', expected: ',', ')' or identifier"},
      {"a in (b,=)", kPrefix + "found '=', expected: ',', or identifier"},
      {"a notin(", kPrefix + "found '', expected: ',', ')' or identifier"},
      {"a in", kPrefix + "found '' expected: '('"},
      {"a in x", kPrefix + "found 'x' expected: '('"},
      {"a (", kPrefix + "found '(', expected: in, notin, =, ==, !=, gt, lt"},
      {"a !b", kPrefix + "found '!', expected: in, notin, =, ==, !=, gt, lt"},
      {"(", "found '(', expected: !, identifier, or 'end of string'"},
      {"=a", "found '=', expected: !, identifier, or 'end of string'"},
      {"!", kPrefix + "found '', expected: identifier"},
      {"!!x", kPrefix + "found '!', expected: identifier"},
      {"x=a b", "found 'b', expected: ',' or 'end of string'"},
      {"x=(a)", kPrefix + "found '(', expected: identifier"},
      {"app:web", kPrefix + "<nil>: Invalid value: \"app:web\": " + kNamePartMsg},
      {"app.kubernetes_io/name=x",
       kPrefix + "<nil>: Invalid value: \"app.kubernetes_io/name\": prefix part " + kSubdomainMsg},
      {"a/b/c ?=? def",
       kPrefix +
           "<nil>: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric "
           "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
           "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
           "and '/' (e.g. 'example.com/MyName')"},
      {std::string(64, 'k'), kPrefix + "<nil>: Invalid value: \"" + std::string(64, 'k') +
                                 "\": name part must be no more than 63 bytes"},
      {"x=" + std::string(64, 'v'), kPrefix + "values[0][x]: Invalid value: \"" +
                                        std::string(64, 'v') + "\": must be no more than 63 bytes"},
      {"a=b\"c", kPrefix + "values[0][a]: Invalid value: \"b\\\"c\": " + kLabelValueMsg},
      {"a=b\\c", kPrefix + "values[0][a]: Invalid value: \"b\\\\c\": " + kLabelValueMsg},
      {"a=\xc3\xa9", kPrefix + "values[0][a]: Invalid value: \"\xc3\xa9\": " + kLabelValueMsg},
      {"a=\x01", kPrefix + "values[0][a]: Invalid value: \"\\x01\": " + kLabelValueMsg},
      {"a in (-x,y-)", kPrefix + "[values[0][a]: Invalid value: \"-x\": " + kLabelValueMsg +
                           ", values[1][a]: Invalid value: \"y-\": " + kLabelValueMsg + "]"},
  };
  for (const Case& c : cases) {
    auto s = LabelSelectorExpr::Parse(c.input);
    ASSERT_FALSE(s.ok()) << c.input << " parsed as " << s->ToString();
    EXPECT_EQ(s.status().code(), StatusCode::kBadRequest) << c.input;
    EXPECT_EQ(s.status().message(), c.message) << c.input;
  }
}

TEST(LabelSelectorTest, Matches) {
  struct Case {
    const char* selector;
    StringMap labels;
    bool match;
  };
  const StringMap kFooBaz = {{"foo", "bar"}, {"baz", "blah"}};
  const Case cases[] = {
      {"", {{"x", "y"}}, true},
      {"", {}, true},
      {"x=y", {{"x", "y"}}, true},
      {"x==y", {{"x", "y"}}, true},
      {"x=y,z=w", {{"x", "y"}, {"z", "w"}}, true},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "a"}}, true},
      {"notin=in", {{"notin", "in"}}, true},
      {"x", {{"x", "z"}}, true},
      {"x", {{"x", ""}}, true},
      {"!x", {{"y", "z"}}, true},
      {"x>1", {{"x", "2"}}, true},
      {"x<1", {{"x", "0"}}, true},
      {"x<1", {{"x", "-5"}}, true},
      {"x=z", {}, false},
      {"x=y", {{"x", "z"}}, false},
      {"x=y,z=w", {{"x", "w"}, {"z", "w"}}, false},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "w"}}, false},
      {"x", {{"y", "z"}}, false},
      {"!x", {{"x", "z"}}, false},
      {"x>1", {{"x", "0"}}, false},
      {"x>1", {{"x", "1"}}, false},
      {"x<1", {{"x", "2"}}, false},
      {"x>1", {{"x", "v2"}}, false},
      {"x>1", {}, false},
      {"x!=y", {}, true},
      {"x notin (a)", {}, true},
      {"x notin (a)", {{"x", "a"}}, false},
      {"x notin (a)", {{"x", "b"}}, true},
      {"x in (a,b)", {{"x", "b"}}, true},
      {"x in (a,b)", {{"x", "c"}}, false},
      {"x in (a,b)", {}, false},
      {"x in ()", {{"x", ""}}, true},
      {"x in ()", {{"y", "baz"}}, false},
      {"x notin (),y", {{"y", ""}}, true},
      {"!x,y", {{"y", ""}}, true},
      {"x notin (),!y", {{"y", ""}}, false},
      {"x=", {{"x", ""}}, true},
      {"x=", {}, false},
      {"foo=bar", kFooBaz, true},
      {"baz=blah", kFooBaz, true},
      {"foo=bar,baz=blah", kFooBaz, true},
      {"foo=blah", kFooBaz, false},
      {"baz=bar", kFooBaz, false},
      {"foo=bar,foobar=bar,baz=blah", kFooBaz, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MustParseLabels(c.selector).Matches(c.labels), c.match) << c.selector;
  }
}

TEST(LabelSelectorTest, EverythingNothingFromSet) {
  EXPECT_TRUE(LabelSelectorExpr().Empty());
  EXPECT_TRUE(LabelSelectorExpr().Matches({{"x", "y"}}));
  EXPECT_TRUE(LabelSelectorExpr::Everything().Matches({}));
  LabelSelectorExpr nothing = LabelSelectorExpr::Nothing();
  EXPECT_FALSE(nothing.Empty());
  EXPECT_FALSE(nothing.Matches({}));
  EXPECT_FALSE(nothing.Matches({{"x", "y"}}));
  EXPECT_EQ(nothing.ToString(), "");

  LabelSelectorExpr set = LabelSelectorExpr::FromSet({{"foo", "bar"}, {"baz", "blah"}});
  EXPECT_EQ(set.ToString(), "baz=blah,foo=bar");
  EXPECT_TRUE(set.Matches({{"foo", "bar"}, {"baz", "blah"}, {"x", "y"}}));
  EXPECT_FALSE(set.Matches({{"foo", "bar"}}));
  EXPECT_TRUE(LabelSelectorExpr::FromSet({}).Empty());
  EXPECT_TRUE(LabelSelectorExpr::FromSet({}).Matches({{"a", "b"}}));
}

TEST(LabelSelectorTest, ExactMatch) {
  LabelSelectorExpr s = MustParseLabels("a=b,c in (d),e in (f,g),h!=i,j==k,l,!m");
  EXPECT_EQ(s.ExactMatch("a"), "b");
  EXPECT_EQ(s.ExactMatch("c"), "d");
  EXPECT_EQ(s.ExactMatch("j"), "k");
  EXPECT_EQ(s.ExactMatch("e"), std::nullopt);
  EXPECT_EQ(s.ExactMatch("h"), std::nullopt);
  EXPECT_EQ(s.ExactMatch("l"), std::nullopt);
  EXPECT_EQ(s.ExactMatch("m"), std::nullopt);
  EXPECT_EQ(s.ExactMatch("zz"), std::nullopt);
  EXPECT_EQ(MustParseLabels("x=").ExactMatch("x"), "");
}

TEST(LabelSelectorTest, FromLabelSelector) {
  LabelSelector ls;
  ls.matchLabels = {{"app", "web"}};
  ls.matchExpressions = {{"tier", "In", {"b", "a"}},
                         {"canary", "DoesNotExist", {}},
                         {"env", "NotIn", {"dev"}},
                         {"team", "Exists", {}}};
  auto s = LabelSelectorExpr::FromLabelSelector(ls);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->Empty());
  EXPECT_EQ(s->ToString(), "app=web,!canary,env notin (dev),team,tier in (a,b)");
  EXPECT_TRUE(s->Matches({{"app", "web"}, {"tier", "a"}, {"team", "x"}}));
  EXPECT_TRUE(s->Matches({{"app", "web"}, {"tier", "b"}, {"team", "x"}, {"env", "prod"}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"tier", "c"}, {"team", "x"}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"tier", "a"}, {"team", "x"}, {"canary", ""}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"tier", "a"}, {"team", "x"}, {"env", "dev"}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"tier", "a"}}));
  EXPECT_FALSE(s->Matches({{"tier", "a"}, {"team", "x"}}));
  EXPECT_EQ(s->ExactMatch("app"), "web");

  auto empty = LabelSelectorExpr::FromLabelSelector(LabelSelector{});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->Empty());
  EXPECT_TRUE(empty->Matches({{"any", "thing"}}));
}

TEST(LabelSelectorTest, FromLabelSelectorErrors) {
  struct Case {
    LabelSelector selector;
    std::string message;
  };
  const Case cases[] = {
      {{{}, {{"name", "Seriously", {}}}}, "\"Seriously\" is not a valid label selector operator"},
      {{{}, {{"name", "Gt", {"1"}}}}, "\"Gt\" is not a valid label selector operator"},
      {{{}, {{"name", "", {"1"}}}}, "\"\" is not a valid label selector operator"},
      {{{}, {{"name", "In", {}}}},
       "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
       "empty"},
      {{{}, {{"name", "NotIn", {}}}},
       "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
       "empty"},
      {{{}, {{"name", "Exists", {"a", "b"}}}},
       "values: Invalid value: []string{\"a\", \"b\"}: values set must be empty for exists and "
       "does not exist"},
      {{{{"app", "demo-{nginx}"}}, {}},
       "values[0][app]: Invalid value: \"demo-{nginx}\": " + kLabelValueMsg},
      {{{{"app:x", "y"}}, {}}, "key: Invalid value: \"app:x\": " + kNamePartMsg},
      {{{}, {{"a b", "In", {}}}},
       "[key: Invalid value: \"a b\": " + kNamePartMsg +
           ", values: Invalid value: []string(nil): for 'in', 'notin' operators, values set "
           "can't be empty]"},
  };
  for (const Case& c : cases) {
    auto s = LabelSelectorExpr::FromLabelSelector(c.selector);
    ASSERT_FALSE(s.ok()) << c.message;
    EXPECT_EQ(s.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(s.status().message(), c.message);
  }
}

// apimachinery TestRequirementConstructor / TestToString.
TEST(LabelRequirementTest, Make) {
  struct Case {
    std::string key;
    Op op;
    std::vector<std::string> values;
    bool ok;
  };
  const Case cases[] = {
      {"x", Op::kIn, {}, false},
      {"x", Op::kNotIn, {}, false},
      {"x", Op::kIn, {"foo"}, true},
      {"x", Op::kNotIn, {"foo"}, true},
      {"x", Op::kExists, {}, true},
      {"x", Op::kDoesNotExist, {}, true},
      {"1foo", Op::kIn, {"bar"}, true},
      {"1234", Op::kIn, {"bar"}, true},
      {"y", Op::kGreaterThan, {"1"}, true},
      {"z", Op::kLessThan, {"6"}, true},
      {"foo", Op::kGreaterThan, {"bar"}, false},
      {"barz", Op::kLessThan, {"blah"}, false},
      {"y", Op::kGreaterThan, {"1", "2"}, false},
      {"y", Op::kGreaterThan, {"99999999999999999999"}, false},
      {std::string(254, 'a'), Op::kExists, {}, false},
      {"x", Op::kEquals, {}, false},
      {"x", Op::kEquals, {"a", "b"}, false},
      {"x", Op::kNotEquals, {""}, true},
      {"x", Op::kExists, {"a"}, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(LabelRequirement::Make(c.key, c.op, c.values).ok(), c.ok) << c.key;
  }
  auto gt = LabelRequirement::Make("y", Op::kGreaterThan, {"1", "x"}, "spec.selector");
  ASSERT_FALSE(gt.ok());
  EXPECT_EQ(gt.status().message(),
            "[spec.selector.values: Invalid value: []string{\"1\", \"x\"}: for 'Gt', 'Lt' "
            "operators, exactly one value is required, spec.selector.values[1]: Invalid value: "
            "\"x\": for 'Gt', 'Lt' operators, the value must be an integer]");

  struct StringCase {
    std::vector<LabelRequirement> reqs;
    std::string out;
  };
  const StringCase strings[] = {
      {{{"x", Op::kIn, {"abc", "def"}}, {"y", Op::kNotIn, {"jkl"}}, {"z", Op::kExists, {}}},
       "x in (abc,def),y notin (jkl),z"},
      {{{"x", Op::kNotIn, {"def", "abc"}},
        {"y", Op::kNotEquals, {"jkl"}},
        {"z", Op::kDoesNotExist, {}}},
       "x notin (abc,def),y!=jkl,!z"},
      {{{"x", Op::kNotIn, {"abc"}}, {"y", Op::kIn, {"jkl", "mno"}}, {"z", Op::kNotIn, {""}}},
       "x notin (abc),y in (jkl,mno),z notin ()"},
      {{{"x", Op::kEquals, {"abc"}},
        {"y", Op::kDoubleEquals, {"jkl"}},
        {"z", Op::kNotEquals, {"a"}},
        {"z", Op::kExists, {}}},
       "x=abc,y==jkl,z!=a,z"},
      {{{"x", Op::kGreaterThan, {"2"}}, {"y", Op::kLessThan, {"8"}}, {"z", Op::kExists, {}}},
       "x>2,y<8,z"},
  };
  for (const StringCase& c : strings) {
    std::string out;
    for (const LabelRequirement& r : c.reqs) {
      if (!out.empty()) out += ",";
      out += r.ToString();
    }
    EXPECT_EQ(out, c.out);
  }
}

// --- field selectors ------------------------------------------------------------------------

std::optional<std::string> PodField(std::string_view field) {
  if (field == "metadata.name") return "web-1";
  if (field == "metadata.namespace") return "default";
  if (field == "spec.nodeName") return "node-a";
  if (field == "status.phase") return "Running";
  if (field == "spec.weird") return "a,b=c\\d";
  if (field == "spec.empty") return "";
  return std::nullopt;
}

TEST(FieldSelectorTest, Parse) {
  auto s = FieldSelectorExpr::Parse("status.phase==Running,metadata.name=x,spec.nodeName!=y");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  using F = FieldRequirement;
  const std::vector<FieldRequirement> expect = {
      {"metadata.name", F::Op::kEquals, "x"},
      {"spec.nodeName", F::Op::kNotEquals, "y"},
      {"status.phase", F::Op::kEquals, "Running"},
  };
  EXPECT_EQ(s->requirements(), expect);
  EXPECT_EQ(s->ToString(), "metadata.name=x,spec.nodeName!=y,status.phase=Running");
  EXPECT_FALSE(s->Empty());

  struct Case {
    const char* input;
    std::vector<FieldRequirement> reqs;
    const char* output;
  };
  const Case cases[] = {
      {"", {}, ""},
      {",", {}, ""},
      {",,a=b,", {{"a", F::Op::kEquals, "b"}}, "a=b"},
      {"a==b", {{"a", F::Op::kEquals, "b"}}, "a=b"},
      {"a=", {{"a", F::Op::kEquals, ""}}, "a="},
      {"a!=", {{"a", F::Op::kNotEquals, ""}}, "a!="},
      {"=", {}, ""},
      {"!=", {}, ""},
      {"=x", {{"", F::Op::kEquals, "x"}}, "=x"},
      {"a=!b", {{"a", F::Op::kEquals, "!b"}}, "a=!b"},
      {"a b=c d", {{"a b", F::Op::kEquals, "c d"}}, "a b=c d"},
      {"x=a\\,b", {{"x", F::Op::kEquals, "a,b"}}, "x=a\\,b"},
      {"x=a\\=b\\\\c", {{"x", F::Op::kEquals, "a=b\\c"}}, "x=a\\=b\\\\c"},
      {"x=a\\,b,y!=\\=",
       {{"x", F::Op::kEquals, "a,b"}, {"y", F::Op::kNotEquals, "="}},
       "x=a\\,b,y!=\\="},
      {"z=1,a=2", {{"a", F::Op::kEquals, "2"}, {"z", F::Op::kEquals, "1"}}, "a=2,z=1"},
  };
  for (const Case& c : cases) {
    auto p = FieldSelectorExpr::Parse(c.input);
    ASSERT_TRUE(p.ok()) << c.input << ": " << p.status().ToString();
    EXPECT_EQ(p->requirements(), c.reqs) << c.input;
    EXPECT_EQ(p->ToString(), c.output) << c.input;
    EXPECT_EQ(p->Empty(), c.reqs.empty()) << c.input;
    auto again = FieldSelectorExpr::Parse(p->ToString());
    ASSERT_TRUE(again.ok()) << p->ToString();
    EXPECT_EQ(again->requirements(), p->requirements()) << c.input;
  }
}

TEST(FieldSelectorTest, ParseErrors) {
  struct Case {
    const char* input;
    const char* message;
  };
  const Case cases[] = {
      {"a", "invalid selector: 'a'; can't understand 'a'"},
      {"x=a,y", "invalid selector: 'x=a,y'; can't understand 'y'"},
      {"z,a", "invalid selector: 'z,a'; can't understand 'a'"},  // terms are sorted first
      {"a!b", "invalid selector: 'a!b'; can't understand 'a!b'"},
      {"a=b=c", "invalid field selector: unescaped character in value: 61"},
      {"a!=b=c", "invalid field selector: unescaped character in value: 61"},
      {"a=b\\c", "invalid field selector: invalid escape sequence: \\c"},
      {"a=b\\", "invalid field selector: invalid escape sequence: \\"},
      {"a=\\\xc3\xa9", "invalid field selector: invalid escape sequence: \\\xc3\xa9"},
  };
  for (const Case& c : cases) {
    auto s = FieldSelectorExpr::Parse(c.input);
    ASSERT_FALSE(s.ok()) << c.input;
    EXPECT_EQ(s.status().code(), StatusCode::kBadRequest) << c.input;
    EXPECT_EQ(s.status().message(), c.message) << c.input;
  }
}

TEST(FieldSelectorTest, Matches) {
  struct Case {
    const char* selector;
    bool match;
  };
  const Case cases[] = {
      {"", true},
      {"metadata.name=web-1", true},
      {"metadata.name==web-1", true},
      {"metadata.name=web-2", false},
      {"metadata.name!=web-2", true},
      {"metadata.name!=web-1", false},
      {"metadata.name=web-1,spec.nodeName=node-a,status.phase=Running", true},
      {"metadata.name=web-1,spec.nodeName=node-b", false},
      {"spec.nodeName!=,status.phase!=Pending", true},
      {"spec.empty=", true},
      {"spec.empty!=", false},
      {"spec.weird=a\\,b\\=c\\\\d", true},
      {"spec.unknown=x", false},
      {"spec.unknown!=x", false},
      {"spec.unknown=", false},
  };
  for (const Case& c : cases) {
    auto s = FieldSelectorExpr::Parse(c.selector);
    ASSERT_TRUE(s.ok()) << c.selector;
    EXPECT_EQ(s->Matches(PodField), c.match) << c.selector;
  }
}

TEST(FieldSelectorTest, ExactMatchAndOneTerm) {
  auto s = FieldSelectorExpr::Parse("spec.nodeName!=a,metadata.name=web-1,status.phase==Running");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->ExactMatch("metadata.name"), "web-1");
  EXPECT_EQ(s->ExactMatch("status.phase"), "Running");
  EXPECT_EQ(s->ExactMatch("spec.nodeName"), std::nullopt);
  EXPECT_EQ(s->ExactMatch("metadata.namespace"), std::nullopt);

  FieldSelectorExpr one = FieldSelectorExpr::OneTermEqual("metadata.name", "a,b");
  EXPECT_EQ(one.ToString(), "metadata.name=a\\,b");
  EXPECT_EQ(one.ExactMatch("metadata.name"), "a,b");
  EXPECT_FALSE(one.Matches(PodField));
  EXPECT_TRUE(FieldSelectorExpr().Empty());
  EXPECT_TRUE(FieldSelectorExpr().Matches(PodField));
  EXPECT_EQ(EscapeFieldSelectorValue("a\\b,c=d"), "a\\\\b\\,c\\=d");

  // Callers validate field names against what the resource supports.
  auto bad = FieldSelectorExpr::Parse("metadata.name=x,spec.bogus=y");
  ASSERT_TRUE(bad.ok());
  std::vector<std::string> unsupported;
  for (const FieldRequirement& r : bad->requirements()) {
    if (!PodField(r.field)) unsupported.push_back(r.field);
  }
  EXPECT_EQ(unsupported, std::vector<std::string>{"spec.bogus"});
}

// --- node selectors -------------------------------------------------------------------------

NodeSelectorRequirement Req(std::string key, std::string op, std::vector<std::string> values) {
  return NodeSelectorRequirement{std::move(key), std::move(op), std::move(values)};
}

TEST(NodeSelectorTest, Term) {
  const StringMap labels = {
      {"zone", "us-1a"}, {"cpu", "8"}, {"gpu", ""}, {"arch", "amd64"}, {"bad", "v2"}};
  struct Case {
    const char* name;
    NodeSelectorTerm term;
    std::string node_name;
    bool match;
  };
  const Case cases[] = {
      {"empty term", {}, "n1", false},
      {"empty term, no name", {}, "", false},
      {"in", {{Req("zone", "In", {"us-1a", "us-1b"})}, {}}, "n1", true},
      {"in miss", {{Req("zone", "In", {"us-1b"})}, {}}, "n1", false},
      {"in absent", {{Req("rack", "In", {"r1"})}, {}}, "n1", false},
      {"notin", {{Req("zone", "NotIn", {"us-1b"})}, {}}, "n1", true},
      {"notin hit", {{Req("zone", "NotIn", {"us-1a"})}, {}}, "n1", false},
      {"notin absent", {{Req("rack", "NotIn", {"r1"})}, {}}, "n1", true},
      {"exists", {{Req("gpu", "Exists", {})}, {}}, "n1", true},
      {"exists absent", {{Req("rack", "Exists", {})}, {}}, "n1", false},
      {"does not exist", {{Req("rack", "DoesNotExist", {})}, {}}, "n1", true},
      {"does not exist present", {{Req("gpu", "DoesNotExist", {})}, {}}, "n1", false},
      {"gt", {{Req("cpu", "Gt", {"4"})}, {}}, "n1", true},
      {"gt equal", {{Req("cpu", "Gt", {"8"})}, {}}, "n1", false},
      {"lt", {{Req("cpu", "Lt", {"16"})}, {}}, "n1", true},
      {"lt miss", {{Req("cpu", "Lt", {"4"})}, {}}, "n1", false},
      {"gt non-integer label", {{Req("bad", "Gt", {"1"})}, {}}, "n1", false},
      {"gt absent", {{Req("rack", "Gt", {"1"})}, {}}, "n1", false},
      {"gt non-integer value", {{Req("cpu", "Gt", {"four"})}, {}}, "n1", false},
      {"gt two values", {{Req("cpu", "Gt", {"1", "2"})}, {}}, "n1", false},
      {"and", {{Req("zone", "In", {"us-1a"}), Req("cpu", "Gt", {"4"})}, {}}, "n1", true},
      {"and miss", {{Req("zone", "In", {"us-1a"}), Req("cpu", "Gt", {"9"})}, {}}, "n1", false},
      {"unknown operator", {{Req("zone", "Equals", {"us-1a"})}, {}}, "n1", false},
      {"in without values", {{Req("zone", "In", {})}, {}}, "n1", false},
      {"exists with values", {{Req("zone", "Exists", {"us-1a"})}, {}}, "n1", false},
      {"invalid key", {{Req("bad key", "Exists", {})}, {}}, "n1", false},
      {"invalid value", {{Req("zone", "NotIn", {"not valid"})}, {}}, "n1", false},
      {"invalid after mismatch",
       {{Req("zone", "In", {"x"}), Req("k", "Nope", {})}, {}},
       "n1",
       false},
      {"field in", {{}, {Req("metadata.name", "In", {"n1"})}}, "n1", true},
      {"field in miss", {{}, {Req("metadata.name", "In", {"n2"})}}, "n1", false},
      {"field notin", {{}, {Req("metadata.name", "NotIn", {"n2"})}}, "n1", true},
      {"field notin hit", {{}, {Req("metadata.name", "NotIn", {"n1"})}}, "n1", false},
      {"field two values", {{}, {Req("metadata.name", "In", {"n1", "n2"})}}, "n1", false},
      {"field exists", {{}, {Req("metadata.name", "Exists", {})}}, "n1", false},
      {"field unknown in", {{}, {Req("spec.x", "In", {"n1"})}}, "n1", false},
      {"field unknown notin", {{}, {Req("spec.x", "NotIn", {"n1"})}}, "n1", true},
      {"field ignored without node name", {{}, {Req("metadata.name", "In", {"n2"})}}, "", true},
      {"field still validated without node name",
       {{}, {Req("metadata.name", "In", {"a", "b"})}},
       "",
       false},
      {"labels and fields",
       {{Req("zone", "In", {"us-1a"})}, {Req("metadata.name", "In", {"n1"})}},
       "n1",
       true},
      {"labels and fields miss",
       {{Req("zone", "In", {"us-1a"})}, {Req("metadata.name", "In", {"n2"})}},
       "n1",
       false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MatchesNodeSelectorTerm(c.term, labels, c.node_name), c.match) << c.name;
  }
}

TEST(NodeSelectorTest, TermsAreOred) {
  const StringMap labels = {{"zone", "us-1a"}};
  NodeSelector none;
  EXPECT_FALSE(MatchesNodeSelector(none, labels, "n1"));

  NodeSelector empty_term{{NodeSelectorTerm{}}};
  EXPECT_FALSE(MatchesNodeSelector(empty_term, labels, "n1"));

  NodeSelector ored{{
      NodeSelectorTerm{{Req("zone", "In", {"us-1b"})}, {}},
      NodeSelectorTerm{{Req("zone", "In", {"us-1a"})}, {}},
  }};
  EXPECT_TRUE(MatchesNodeSelector(ored, labels, "n1"));
  EXPECT_FALSE(MatchesNodeSelector(ored, {{"zone", "us-1c"}}, "n1"));

  // A malformed term does not spoil the others.
  NodeSelector with_bad{{
      NodeSelectorTerm{{Req("zone", "Bogus", {"us-1a"})}, {}},
      NodeSelectorTerm{},
      NodeSelectorTerm{{}, {Req("metadata.name", "In", {"n1"})}},
  }};
  EXPECT_TRUE(MatchesNodeSelector(with_bad, labels, "n1"));
  EXPECT_FALSE(MatchesNodeSelector(with_bad, labels, "n2"));
}

}  // namespace
}  // namespace allot::api
