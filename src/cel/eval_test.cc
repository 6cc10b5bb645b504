// Language semantics: operators, precedence, error propagation, overflow, conversions,
// macros, cel.bind and optionals, evaluated through CompileDeviceSelector/Matches.
#include <gtest/gtest.h>

#include "cel/testing/util.h"

namespace allot::cel {
namespace {

using testing::Match;

// want: "true", "false", "error: <substring of the evaluation error>" or
// "compile: <substring of the compile error>".
struct Case {
  const char* expr;
  const char* want;
};

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    std::string want = c.want;
    Result<std::shared_ptr<const DeviceSelectorProgram>> p = CompileDeviceSelector(c.expr);
    if (want.rfind("compile: ", 0) == 0) {
      ASSERT_FALSE(p.ok());
      EXPECT_NE(p.status().message().find(want.substr(9)), std::string::npos)
          << p.status().message();
      continue;
    }
    ASSERT_TRUE(p.ok()) << p.status().message();
    Result<bool> r = (*p)->Matches(testing::kTestDriver, testing::TestDevice());
    if (want.rfind("error: ", 0) == 0) {
      ASSERT_FALSE(r.ok()) << "got " << *r;
      EXPECT_NE(r.status().message().find(want.substr(7)), std::string::npos)
          << r.status().message();
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(*r, want == "true");
  }
}

TEST(EvalTest, ArithmeticAndPrecedence) {
  RunCases({
      {"1 + 2 * 3 == 7", "true"},
      {"(1 + 2) * 3 == 9", "true"},
      {"10 - 4 - 3 == 3", "true"},
      {"7 / 2 == 3 && 7 % 2 == 1", "true"},
      {"-7 / 2 == -3 && -7 % 2 == -1", "true"},
      {"2u * 3u == 6u", "true"},
      {"1.5 * 2.0 == 3.0", "true"},
      {"7.0 / 2.0 == 3.5", "true"},
      {"-(3) == -3", "true"},
      {"--3 == 3", "true"},
      {"!!true", "true"},
      {"!false && true", "true"},
      {"1 < 2 == true", "true"},
      {"true || false && false", "true"},
      {"(true || false) && false", "false"},
      {"(1 + 1 == 2 ? 'a' : 'b') == 'a'", "true"},
      {"1 + 1 == 2 ? 'a' : 'b' == 'a'",
       "compile: found no matching overload for '_?_:_' applied to '(bool, string, bool)'"},
      {"(false ? 1 : 2) == 2", "true"},
      {"true ? false : true ? true : true", "false"},
      {"0x10 == 16 && 0x10u == 16u", "true"},
      {"1e3 == 1000.0 && .5 == 0.5", "true"},
      {"-9223372036854775808 < 0", "true"},
      {"'ab' + 'cd' == 'abcd'", "true"},
      {"b'ab' + b'c' == b'abc'", "true"},
      {"[1, 2] + [3] == [1, 2, 3]", "true"},
      {"[] + [] == []", "true"},
  });
}

TEST(EvalTest, OverflowAndDivision) {
  RunCases({
      {"9223372036854775807 + 1 > 0", "error: integer overflow"},
      {"-9223372036854775808 - 1 < 0", "error: integer overflow"},
      {"9223372036854775807 * 2 > 0", "error: integer overflow"},
      {"-(-9223372036854775808) > 0", "error: integer overflow"},
      {"-9223372036854775808 / -1 > 0", "error: integer overflow"},
      {"0u - 1u > 0u", "error: unsigned integer overflow"},
      {"18446744073709551615u + 1u > 0u", "error: unsigned integer overflow"},
      {"1 / 0 == 0", "error: division by zero"},
      {"1 % 0 == 0", "error: modulus by zero"},
      {"1u / 0u == 0u", "error: division by zero"},
      {"1.0 / 0.0 > 1e308", "true"},
      {"9223372036854775808 > 0", "compile: invalid int literal"},
  });
}

TEST(EvalTest, LogicalOperatorsAbsorbErrors) {
  RunCases({
      {"false && 1 / 0 == 0", "false"},
      {"1 / 0 == 0 && false", "false"},
      {"true || 1 / 0 == 0", "true"},
      {"1 / 0 == 0 || true", "true"},
      {"true && 1 / 0 == 0", "error: division by zero"},
      {"1 / 0 == 0 && true", "error: division by zero"},
      {"false || 1 / 0 == 0", "error: division by zero"},
      {"1 / 0 == 0 || false", "error: division by zero"},
      {"1 / 0 == 0 || 2 % 0 == 0", "error: division by zero"},
      {"true ? true : 1 / 0 == 0", "true"},
      {"false ? 1 / 0 == 0 : true", "true"},
      {"1 / 0 == 0 ? true : true", "error: division by zero"},
      // Calls are strict.
      {"[1 / 0 == 0, true].size() == 2", "error: division by zero"},
      {"device.attributes['dra.example.com'].missing == 1 && false", "false"},
      {"device.attributes['dra.example.com'].missing == 1 || true", "true"},
  });
}

TEST(EvalTest, ComparisonAcrossNumericTypes) {
  RunCases({
      {"1 < 2u", "true"},
      {"1 < 1.5", "true"},
      {"2u > 1.5", "true"},
      {"-1 < 0u", "true"},
      {"1.0 <= 1", "true"},
      {"9223372036854775807 < 9223372036854775808.0", "true"},
      {"'a' < 'b' && 'abc' > 'abb'", "true"},
      {"b'a' < b'b'", "true"},
      {"false < true", "true"},
      {"1 == 1.0", "compile: found no matching overload for '_==_' applied to '(int, double)'"},
      {"dyn(1) == 1.0", "true"},
      {"dyn(1) == 1u", "true"},
      {"dyn(1) == '1'", "false"},
      {"dyn(2) != 2.5", "true"},
      {"1 < 'a'", "compile: found no matching overload for '_<_' applied to '(int, string)'"},
      {"null == null", "true"},
      {"[1, 2] == [1, 2] && [1] != [2]", "true"},
      {"{'a': 1} == {'a': 1} && {'a': 1} != {'a': 2}", "true"},
      {"dyn({1: 'x'})[1u] == 'x'", "true"},
  });
}

TEST(EvalTest, InAndIndex) {
  RunCases({
      {"2 in [1, 2, 3]", "true"},
      {"4 in [1, 2, 3]", "false"},
      {"'a' in {'a': 1}", "true"},
      {"'b' in {'a': 1}", "false"},
      {"[1, 2, 3][1] == 2", "true"},
      {"[1, 2, 3][3] == 2", "error: index '3' out of range in list size '3'"},
      {"{'a': 1}['a'] == 1", "true"},
      {"{'a': 1}['b'] == 1", "error: no such key: b"},
      {"{'a': {'b': 2}}.a.b == 2", "true"},
      {"{'a': 1}.b == 1", "error: no such key: b"},
      {"has({'a': 1}.a) && !has({'a': 1}.b)", "true"},
      {"size('héllo') == 5 && size(b'ab') == 2 && size([1]) == 1 && size({}) == 0", "true"},
      {"'abc'.size() == 3 && [1, 2].size() == 2 && {'a': 1}.size() == 1", "true"},
      {"{'a': 1, 'a': 2}.size() == 1", "error: repeated key"},
  });
}

TEST(EvalTest, Conversions) {
  RunCases({
      {"int('42') == 42 && int(2.9) == 2 && int(-2.9) == -2 && int(3u) == 3", "true"},
      {"uint(42) == 42u && uint('7') == 7u && uint(2.5) == 2u", "true"},
      {"double(1) == 1.0 && double('2.5') == 2.5 && double(3u) == 3.0", "true"},
      {"string(1) == '1' && string(2u) == '2' && string(true) == 'true'", "true"},
      {"string(1.5) == '1.5' && string(100.0) == '100' && string(1e21) == '1e+21'", "true"},
      {"string(b'abc') == 'abc' && bytes('abc') == b'abc'", "true"},
      {"bool('true') && !bool('false') && bool('1')", "true"},
      {"int('x') == 0", "error: type conversion error from 'string' to 'int'"},
      {"uint(-1) == 0u", "error: unsigned integer overflow"},
      {"int(1e19) == 0", "error: integer overflow"},
      {"bool('maybe')", "error: type conversion error"},
      {"type(1) == int && type('a') == string && type([]) == list", "true"},
      {"type(device.attributes['dra.example.com'].index) == int", "true"},
  });
}

TEST(EvalTest, Macros) {
  RunCases({
      {"[1, 2, 3].all(x, x > 0)", "true"},
      {"[1, 2, 3].all(x, x > 1)", "false"},
      {"[1, 2, 3].exists(x, x == 2)", "true"},
      {"[1, 2, 3].exists(x, x == 5)", "false"},
      {"[1, 2, 3].exists_one(x, x > 2)", "true"},
      {"[1, 2, 3].exists_one(x, x > 1)", "false"},
      {"[1, 2, 3].map(x, x * 2) == [2, 4, 6]", "true"},
      {"[1, 2, 3].map(x, x > 1, x * 10) == [20, 30]", "true"},
      {"[1, 2, 3].filter(x, x != 2) == [1, 3]", "true"},
      {"{'a': 1, 'b': 2}.all(k, k.size() == 1)", "true"},
      {"{'a': 1, 'b': 2}.map(k, k) == ['a', 'b']", "true"},
      {"{'a': 1, 'b': 2}.filter(k, k == 'b') == ['b']", "true"},
      {"[].all(x, false) && ![].exists(x, true)", "true"},
      // all/exists absorb errors when another element decides.
      {"[0, 1].all(x, 1 / x > 5)", "false"},
      {"[0, 1].exists(x, 1 / x == 1)", "true"},
      {"[0, 1].all(x, 1 / x == 1)", "error: division by zero"},
      {"[0, 1].exists_one(x, 1 / x == 1)", "error: division by zero"},
      {"[0, 1].map(x, 1 / x) == [0]", "error: division by zero"},
      {"[[1, 2], [3]].all(l, l.all(x, x > 0))", "true"},
      {"[1, 2].map(x, [1, 2].map(y, x * y)) == [[1, 2], [2, 4]]", "true"},
      {"[1, 2].exists(x, x == 'a')", "compile: found no matching overload for '_==_'"},
      {"[1].all(x, x)", "compile: found no matching overload for '_&&_' applied to '(bool, int)'"},
      {"1.all(x, true)", "compile: cannot be the range of a comprehension"},
      {"[1].all(1, true)", "compile: argument must be a simple name"},
      {"has(1)", "compile: invalid argument to has() macro"},
  });
}

TEST(EvalTest, BindAndScopes) {
  RunCases({
      {"cel.bind(x, 2, x * x == 4)", "true"},
      {"cel.bind(x, 1, cel.bind(y, x + 1, x + y == 3))", "true"},
      {"cel.bind(x, 1, [2, 3].all(x, x > 1)) ", "true"},
      {"cel.bind(x, 1 / 0, true)", "true"},
      {"cel.bind(x, 1 / 0, x == 1)", "error: division by zero"},
      {"cel.bind(dra, device.attributes['dra.example.com'], dra.shared && dra.index == 3)", "true"},
      {"cel.bind(1, 2, true)", "compile: cel.bind() variable names must be simple identifiers"},
      {"[1].all(x, x == 1) && x == 1", "compile: undeclared reference to 'x'"},
  });
}

TEST(EvalTest, Optionals) {
  RunCases({
      {"{'a': 1}.?a.hasValue() && !{'a': 1}.?b.hasValue()", "true"},
      {"{'a': 1}.?b.orValue(5) == 5", "true"},
      {"{'a': 1}.?a.orValue(5) == 1", "true"},
      {"{'a': 1}[?'a'].value() == 1", "true"},
      {"[1, 2][?5].orValue(0) == 0 && [1, 2][?1].value() == 2", "true"},
      {"{'a': {'b': 1}}.?a.b.orValue(0) == 1", "true"},
      {"{'a': {'b': 1}}.?x.b.orValue(7) == 7", "true"},
      {"{'a': {'b': 1}}.?a['b'].orValue(0) == 1", "true"},
      {"optional.of(1).value() == 1 && !optional.none().hasValue()", "true"},
      {"optional.ofNonZeroValue(0).orValue(9) == 9", "true"},
      {"optional.none().or(optional.of(2)).value() == 2", "true"},
      {"optional.none().value() == 1", "error: optional.none() dereference"},
      {"[?optional.of(1), ?optional.none(), 2] == [1, 2]", "true"},
      {"{?'a': optional.none(), 'b': 1} == {'b': 1}", "true"},
      {"device.attributes['dra.example.com'].?missing.orValue(false) == false", "true"},
      {"device.attributes['dra.example.com'].?index.orValue(0) == 3", "true"},
  });
}

TEST(EvalTest, ResultMustBeBool) {
  Result<bool> r = Match("1 + 1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "must evaluate to bool or the unknown type, not int");
  r = Match("device.attributes['dra.example.com'].model");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "CEL result of type string could not be converted to bool: unsupported native "
            "conversion from string to 'bool'");
  EXPECT_TRUE(*Match("device.attributes['dra.example.com'].shared"));
}

TEST(EvalTest, TypeIdentifiersAndDyn) {
  RunCases({
      {"dyn([1, 'a']).size() == 2", "true"},
      {"[1, 'a'].size() == 2", "true"},
      {"dyn('abc').startsWith('a')", "true"},
      {"dyn(1).startsWith('a')", "error: no such overload"},
  });
}

TEST(EvalTest, ValuesRenderAsExpected) {
  std::string got;
  ASSERT_TRUE(testing::EvalWith("'a' + string(1.25)", [&](const Value& v) {
                got = std::string(v.string_value());
              }).ok());
  EXPECT_EQ(got, "a1.25");
  ASSERT_TRUE(testing::EvalWith("string(0.000001)", [&](const Value& v) {
                got = std::string(v.string_value());
              }).ok());
  EXPECT_EQ(got, "1e-06");
  ASSERT_TRUE(testing::EvalWith("string(123456789.0)", [&](const Value& v) {
                got = std::string(v.string_value());
              }).ok());
  EXPECT_EQ(got, "1.23456789e+08");
}

}  // namespace
}  // namespace allot::cel
