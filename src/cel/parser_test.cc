// Lexer and parser: literals, escapes, grammar shapes, syntax errors and the nesting limits.
#include "cel/parser.h"

#include <gtest/gtest.h>

#include "cel/lexer.h"
#include "cel/testing/util.h"

namespace allot::cel {
namespace {

std::string ParseError(std::string_view text) {
  ErrorList errors;
  ExprPtr e = Parse(text, errors);
  if (e) return "";
  return errors.Format(text);
}

TEST(ParserTest, StringLiterals) {
  struct C {
    const char* expr;
  };
  const C cases[] = {
      {"'a\\nb' == \"a\\u000ab\""},
      {"r'a\\nb'.size() == 4"},
      {"R\"\\d\" == '\\\\d'"},
      {"'''multi\nline''' == 'multi\\nline'"},
      {"\"\"\"it's \"quoted\" \"\"\" == 'it\\'s \"quoted\" '"},
      {"'\\x41\\101\\u00e9\\U0001F600' == 'AAé😀'"},
      {"b'\\xff'.size() == 1 && b'\\377' == b'\\xff'"},
      {"'\\a\\b\\f\\r\\t\\v\\?\\`'.size() == 8"},
      {"rb'\\x'.size() == 2 && BR'a' == b'a'"},
      {"'é'.size() == 1 && b'é'.size() == 2"},
      {"// comment\n1 == 1 // trailing"},
  };
  for (const C& c : cases) {
    SCOPED_TRACE(c.expr);
    Result<bool> r = testing::Match(c.expr);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(*r);
  }
}

TEST(ParserTest, NumberLiterals) {
  for (const char* e : {"1 == 1", "0x1F == 31", "0X1f == 31", "1u == 1U", "0x1Fu == 31u",
                        "1.5e2 == 150.0", "1e-2 == 0.01", "2.5E+1 == 25.0", ".25 == 0.25", "-1 < 0",
                        "- 1 == -1", "18446744073709551615u > 0u"}) {
    SCOPED_TRACE(e);
    Result<bool> r = testing::Match(e);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(*r);
  }
  EXPECT_NE(ParseError("18446744073709551616u").find("invalid uint literal"), std::string::npos);
}

TEST(ParserTest, SyntaxErrors) {
  EXPECT_EQ(ParseError("1 +"),
            "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', "
            "'(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, "
            "BYTES, IDENTIFIER}\n | 1 +\n | ...^");
  EXPECT_EQ(ParseError("(1"),
            "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' "
            "expecting ')'\n | (1\n | ..^");
  EXPECT_EQ(ParseError("1 2"),
            "ERROR: <input>:1:3: Syntax error: mismatched input '2' "
            "expecting <EOF>\n | 1 2\n | ..^");
  EXPECT_EQ(ParseError("a # b"),
            "ERROR: <input>:1:3: Syntax error: token recognition error at: "
            "'#'\n | a # b\n | ..^");
  EXPECT_NE(ParseError("'abc").find("token recognition error"), std::string::npos);
  EXPECT_NE(ParseError("'a\nb'").find("token recognition error"), std::string::npos);
  EXPECT_NE(ParseError("'\\q'").find("token recognition error"), std::string::npos);
  EXPECT_NE(ParseError("if").find("reserved identifier: if"), std::string::npos);
  EXPECT_NE(ParseError("a.?1").find("expecting IDENTIFIER"), std::string::npos);
  EXPECT_NE(ParseError("a = 1").find("token recognition error at: '='"), std::string::npos);
  EXPECT_NE(ParseError("[1, 2").find("expecting ']'"), std::string::npos);
  EXPECT_NE(ParseError("{1: 2").find("expecting '}'"), std::string::npos);
  EXPECT_NE(ParseError("true ? 1").find("expecting ':'"), std::string::npos);
  EXPECT_EQ(ParseError("[1, 2,]"), "");
  EXPECT_EQ(ParseError("{'a': 1,}"), "");
  EXPECT_EQ(ParseError("f(1, 2)"), "");
}

TEST(ParserTest, NestingLimits) {
  std::string deep(300, '(');
  deep += "1";
  deep += std::string(300, ')');
  EXPECT_NE(ParseError(deep).find("expression recursion limit exceeded: 250"), std::string::npos);
  std::string ok(200, '(');
  ok += "true" + std::string(200, ')');
  EXPECT_TRUE(*testing::Match(ok));

  std::string chain = "1";
  for (int i = 0; i < 2000; ++i) chain += " + 1";
  EXPECT_NE(ParseError(chain).find("max recursion depth exceeded"), std::string::npos);

  // Long && / || chains are balanced and stay shallow.
  std::string ors = "false";
  for (int i = 0; i < 1000; ++i) ors += " || false";
  ors += " || true";
  Result<bool> r = testing::Match(ors);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(*r);

  // Unary chains collapse.
  std::string nots(3001, '!');
  EXPECT_FALSE(*testing::Match(nots + "true"));
}

TEST(ParserTest, ShapesAndPositions) {
  ErrorList errors;
  ExprPtr e = Parse("a.b[c].d(e) + f", errors);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ExprKind::kCall);
  EXPECT_EQ(e->name, "_+_");
  EXPECT_EQ(e->offset, 12);
  const Expr& call = *e->args[0];
  EXPECT_EQ(call.name, "d");
  EXPECT_TRUE(call.has_target);
  EXPECT_EQ(call.offset, 8);
  EXPECT_EQ(call.args[0]->name, "_[_]");
  EXPECT_EQ(call.args[0]->args[0]->kind, ExprKind::kSelect);

  e = Parse("x.all(y, y)", errors);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ExprKind::kComprehension);
  EXPECT_EQ(e->macro, MacroKind::kAll);
  e = Parse("x.map(y, y > 1, y)", errors);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->macro, MacroKind::kMapFilter);
  e = Parse("has(x.y)", errors);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->test_only);
  e = Parse("cel.bind(v, 1, v)", errors);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ExprKind::kBind);
  EXPECT_TRUE(errors.empty());
}

}  // namespace
}  // namespace allot::cel
