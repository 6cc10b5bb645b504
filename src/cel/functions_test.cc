// The function library: strings (standard and ext.Strings), regular expressions, lists, sets,
// quantity and semver.
#include <gtest/gtest.h>

#include "cel/regex.h"
#include "cel/testing/util.h"

namespace allot::cel {
namespace {

// Each expression must evaluate to true (or, with "error: x", fail with a message containing x).
struct Case {
  const char* expr;
  const char* error = nullptr;
};

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    Result<bool> r = testing::Match(c.expr);
    if (c.error) {
      ASSERT_FALSE(r.ok()) << "got " << *r;
      EXPECT_NE(r.status().message().find(c.error), std::string::npos) << r.status().message();
    } else {
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_TRUE(*r);
    }
  }
}

TEST(FunctionsTest, StandardStrings) {
  RunCases({
      {"'hello'.startsWith('he') && !'hello'.startsWith('lo')"},
      {"'hello'.endsWith('lo') && 'hello'.contains('ell') && !'hello'.contains('x')"},
      {"'hello'.matches('^h.*o$') && !'hello'.matches('^x')"},
      {"matches('abc', 'b')"},
      {"'NVIDIA A100-SXM4'.matches('A1[0-9]{2}')"},
      {"'abc'.matches('(?i)ABC') && !'abc'.matches('ABC')"},
      {"'a.b'.matches('a\\\\.b') && !'axb'.matches('a\\\\.b')"},
      {"'x'.matches('[')", "error parsing regexp: missing closing ]"},
  });
}

TEST(FunctionsTest, ExtStrings) {
  RunCases({
      {"'héllo'.charAt(1) == 'é' && 'abc'.charAt(3) == ''"},
      {"'abc'.charAt(4) == ''", "index out of range: 4"},
      {"'hello'.indexOf('l') == 2 && 'hello'.indexOf('l', 3) == 3 && 'hello'.indexOf('z') == -1"},
      {"'héllo'.indexOf('l') == 2 && 'abc'.indexOf('') == 0"},
      {"'hello'.lastIndexOf('l') == 3 && 'hello'.lastIndexOf('l', 2) == 2"},
      {"'hello'.lastIndexOf('') == 5 && 'hello'.lastIndexOf('x') == -1"},
      {"'abc'.indexOf('a', 5) == 0", "index out of range: 5"},
      {"'TacoCat'.lowerAscii() == 'tacocat' && 'TacoCat'.upperAscii() == 'TACOCAT'"},
      {"'ÀB'.lowerAscii() == 'Àb'"},
      {"'a-b-c'.replace('-', '+') == 'a+b+c' && 'a-b-c'.replace('-', '', 1) == 'ab-c'"},
      {"'ab'.replace('', '.') == '.a.b.'"},
      {"'a,b,c'.split(',') == ['a', 'b', 'c'] && 'a,b,c'.split(',', 2) == ['a', 'b,c']"},
      {"'abc'.split('') == ['a', 'b', 'c'] && 'a,b'.split(',', 0) == []"},
      {"'hello'.substring(1) == 'ello' && 'hello'.substring(1, 3) == 'el'"},
      {"'hello'.substring(3, 1) == ''", "invalid substring range. start: 3, end: 1"},
      {"'hello'.substring(-1) == ''", "index out of range: -1"},
      {"'  \\t hi \\n'.trim() == 'hi'"},
      {"['a', 'b'].join() == 'ab' && ['a', 'b'].join('-') == 'a-b' && [].join('-') == ''"},
  });
}

TEST(FunctionsTest, RegexFindFunctions) {
  RunCases({
      {"'abc123def'.find('[0-9]+') == '123' && 'abc'.find('[0-9]+') == ''"},
      {"'a1b22c333'.findAll('[0-9]+') == ['1', '22', '333']"},
      {"'a1b22c333'.findAll('[0-9]+', 2) == ['1', '22']"},
      {"'aaa'.findAll('a*?') == ['', '', '', '']"},
  });
}

TEST(FunctionsTest, Lists) {
  RunCases({
      {"[1, 2, 3].isSorted() && ![3, 1].isSorted() && [].isSorted()"},
      {"['a', 'b'].isSorted()"},
      {"[1, 2, 3].sum() == 6 && [1.5, 2.5].sum() == 4.0 && [1u, 2u].sum() == 3u"},
      {"[[1], 'a'].isSorted()", "no such overload"},
      {"[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3 && ['b', 'a'].min() == 'a'"},
      {"[].min() == 1", "min called on empty list"},
      {"[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2 && [1].indexOf(5) == -1"},
      {"[9223372036854775807, 1].sum() > 0", "integer overflow"},
      {"sets.contains([1, 2, 3], [1, 3]) && !sets.contains([1], [2])"},
      {"sets.equivalent([1, 2], [2, 1, 1]) && !sets.equivalent([1], [1, 2])"},
      {"sets.intersects([1, 2], [2, 3]) && !sets.intersects([1], [2])"},
  });
}

TEST(FunctionsTest, Quantity) {
  RunCases({
      {"quantity('1Gi').compareTo(quantity('1024Mi')) == 0"},
      {"quantity('1').compareTo(quantity('2')) == -1 && quantity('2').compareTo(quantity('1')) == "
       "1"},
      {"quantity('1.5').isGreaterThan(quantity('1')) && "
       "quantity('500m').isLessThan(quantity('1'))"},
      {"quantity('1Gi').add(quantity('1Gi')) == quantity('2Gi')"},
      {"quantity('1').add(2) == quantity('3') && quantity('5').sub(2) == quantity('3')"},
      {"quantity('1Gi').sub(quantity('512Mi')) == quantity('512Mi')"},
      {"quantity('-1').sign() == -1 && quantity('0').sign() == 0 && quantity('2k').sign() == 1"},
      {"quantity('2k').isInteger() && !quantity('1.5').isInteger()"},
      {"quantity('2k').asInteger() == 2000"},
      {"quantity('1.5').asInteger() == 1", "cannot convert value to integer"},
      {"quantity('100m').asApproximateFloat() == 0.1"},
      {"quantity('1Gi').asApproximateFloat() == 1073741824.0"},
      {"isQuantity('1Gi') && !isQuantity('1 Gi') && !isQuantity('abc')"},
      {"quantity('abc') == quantity('1')", "quantities must match the regular expression"},
      {"device.capacity['dra.example.com'].memory == quantity('80Gi')"},
      {"device.capacity['dra.example.com'].memory.isGreaterThan(quantity('4Gi'))"},
  });
  Result<std::shared_ptr<const DeviceSelectorProgram>> p =
      CompileDeviceSelector("quantity('1') < quantity('2')");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("found no matching overload for '_<_' applied to "
                                      "'(kubernetes.Quantity, kubernetes.Quantity)'"),
            std::string::npos);
  EXPECT_FALSE(CompileDeviceSelector("quantity('1') + quantity('2') == quantity('3')").ok());
}

TEST(FunctionsTest, Semver) {
  RunCases({
      {"semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && "
       "semver('1.2.3').patch() == 3"},
      {"semver('1.2.3').compareTo(semver('1.2.3')) == 0"},
      {"semver('1.2.3').compareTo(semver('2.0.0')) == -1"},
      {"semver('1.2.3').compareTo(semver('0.1.2')) == 1"},
      {"semver('1.0.0-alpha').isLessThan(semver('1.0.0'))"},
      {"semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))"},
      {"semver('1.0.0-2').isLessThan(semver('1.0.0-10'))"},
      {"semver('1.0.0+build.1') == semver('1.0.0')"},
      {"semver('2.0.0').isGreaterThan(semver('1.9.9'))"},
      {"semver('v1.2', true) == semver('1.2.0') && semver('01.02.03', true) == semver('1.2.3')"},
      {"isSemver('1.2.3') && !isSemver('1.2') && isSemver('v1.2', true) && !isSemver('x', true)"},
      {"semver('1.2') == semver('1.2.0')", "No Major.Minor.Patch elements found"},
      {"semver('01.2.3') == semver('1.2.3')", "Major number must not contain leading zeroes"},
      {"semver('1.2', true).minor() == 2"},
  });
}

TEST(FunctionsTest, RegexEngine) {
  struct R {
    const char* pattern;
    const char* text;
    bool match;
  };
  const R cases[] = {
      {"abc", "xxabcxx", true},
      {"^abc$", "abc", true},
      {"^abc$", "abcd", false},
      {"a|b", "b", true},
      {"(ab)+c", "ababc", true},
      {"a{2,3}", "a", false},
      {"a{2,3}", "aaa", true},
      {"^a{2}$", "aaa", false},
      {"[^0-9]", "123", false},
      {"\\d+", "ab12", true},
      {"\\bfoo\\b", "a foo b", true},
      {"\\bfoo\\b", "afoob", false},
      {"(?i)hello", "HeLLo", true},
      {"[[:upper:]]", "abc", false},
      {"\\Aab\\z", "ab", true},
      {"é.", "éx", true},
      {"^.$", "é", true},
      {"(?s)a.b", "a\nb", true},
      {"a.b", "a\nb", false},
      {"(?m)^b", "a\nb", true},
      {"^b", "a\nb", false},
      {"(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", false},
      {"(?P<name>x)y", "xy", true},
      {"\\Qa.b\\E", "a.b", true},
      {"\\Qa.b\\E", "axb", false},
      {"x*", "", true},
      {"[a-c]+$", "zzb", true},
      {"\\x41", "A", true},
      {"^\\p{L}+$", "Grüße", true},  // Unicode classes, as Go's regexp has them
      {"^\\p{L}+$", "a1", false},
      {"(?i)straße", "STRASSE", false},   // simple case folding only, as Go
      {"(?i)é", "É", true},
  };
  for (const R& c : cases) {
    SCOPED_TRACE(std::string(c.pattern) + " ~ " + c.text);
    auto re = Regex::Compile(c.pattern);
    ASSERT_TRUE(re.ok()) << re.status().message();
    EXPECT_EQ((*re)->Search(c.text), c.match);
  }
  for (const char* bad : {"(", ")", "a**", "*", "[z-a]", "a{1001}", "\\p{Nope}", "(?z)", "\\1"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(Regex::Compile(bad).ok());
  }
  auto re = *Regex::Compile("a+");
  auto m = re->Find("xxaaay");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->first, 2u);
  EXPECT_EQ(m->second, 5u);
  auto lazy = *Regex::Compile("a+?");
  EXPECT_EQ(lazy->Find("aaa")->second, 1u);
  auto alt = *Regex::Compile("ab|abc");
  EXPECT_EQ(alt->Find("abc")->second, 2u);  // leftmost-first, not leftmost-longest
}

}  // namespace
}  // namespace allot::cel
