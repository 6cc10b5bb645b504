#include "api/machinery/quantity.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace allot::api {
namespace {

using Format = Quantity::Format;

constexpr int64_t kMostPositive = std::numeric_limits<int64_t>::max();
constexpr int64_t kMostNegative = std::numeric_limits<int64_t>::min();

Quantity Q(std::string_view text) {
  auto q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status().ToString();
  return q.ok() ? *q : Quantity();
}

Quantity WithFormat(Quantity q, Format f) {
  q.set_format(f);
  return q;
}

struct ParseCase {
  const char* input;
  const char* canonical;  // ToString()
  Format format;
};

// Inputs from apimachinery's TestQuantityParse, TestQuantityString (canonical and alternate
// spellings) and TestQuantityParseEmit, with the string Kubernetes' String() returns for each.
// Some inputs come back verbatim because Kubernetes keeps the text when its fast path considers
// it canonical ("100.035k", "1E-3", "1.").
const ParseCase kParseCases[] = {
    // Zero in every suffix.
    {"0", "0", Format::kDecimalSI},
    {"0n", "0", Format::kDecimalSI},
    {"0u", "0", Format::kDecimalSI},
    {"0m", "0", Format::kDecimalSI},
    {"0Ki", "0", Format::kBinarySI},
    {"0k", "0", Format::kDecimalSI},
    {"0Mi", "0", Format::kBinarySI},
    {"0M", "0", Format::kDecimalSI},
    {"0Gi", "0", Format::kBinarySI},
    {"0G", "0", Format::kDecimalSI},
    {"0Ti", "0", Format::kBinarySI},
    {"0T", "0", Format::kDecimalSI},
    {"00", "0", Format::kDecimalSI},
    {"-0", "0", Format::kDecimalSI},
    {"0e3", "0", Format::kDecimalExponent},
    // Quantity-less numbers.
    {"1", "1", Format::kDecimalSI},
    {"1024", "1024", Format::kDecimalSI},
    {"1500", "1500", Format::kDecimalSI},
    {"1000", "1k", Format::kDecimalSI},
    // Binary suffixes.
    {"1Ki", "1Ki", Format::kBinarySI},
    {"8Ki", "8Ki", Format::kBinarySI},
    {"7Mi", "7Mi", Format::kBinarySI},
    {"6Gi", "6Gi", Format::kBinarySI},
    {"5Ti", "5Ti", Format::kBinarySI},
    {"4Pi", "4Pi", Format::kBinarySI},
    {"3Ei", "3Ei", Format::kBinarySI},
    {"1Ei", "1Ei", Format::kBinarySI},
    {"10Ti", "10Ti", Format::kBinarySI},
    {"100Ti", "100Ti", Format::kBinarySI},
    {"1024Mi", "1Gi", Format::kBinarySI},
    {"307200Ki", "300Mi", Format::kBinarySI},
    {"1025024Mi", "1001Gi", Format::kBinarySI},
    {"1024Gi", "1Ti", Format::kBinarySI},
    {"1.5Gi", "1536Mi", Format::kBinarySI},
    {"0.5Ki", "512", Format::kBinarySI},
    {"0.1Ki", "102400m", Format::kBinarySI},
    // Decimal suffixes.
    {"5n", "5n", Format::kDecimalSI},
    {"4u", "4u", Format::kDecimalSI},
    {"3m", "3m", Format::kDecimalSI},
    {"9", "9", Format::kDecimalSI},
    {"8k", "8k", Format::kDecimalSI},
    {"50k", "50k", Format::kDecimalSI},
    {"7M", "7M", Format::kDecimalSI},
    {"6G", "6G", Format::kDecimalSI},
    {"5T", "5T", Format::kDecimalSI},
    {"40T", "40T", Format::kDecimalSI},
    {"300T", "300T", Format::kDecimalSI},
    {"2P", "2P", Format::kDecimalSI},
    {"1E", "1E", Format::kDecimalSI},
    {"12E", "12E", Format::kDecimalSI},
    {"1000m", "1", Format::kDecimalSI},
    {"5000m", "5", Format::kDecimalSI},
    {"1000M", "1G", Format::kDecimalSI},
    {"0.001T", "1G", Format::kDecimalSI},
    {"1000u", "1m", Format::kDecimalSI},
    {"1080000000n", "1080m", Format::kDecimalSI},
    {"1.5k", "1500", Format::kDecimalSI},
    {"1000E", "1e21", Format::kDecimalSI},
    {"5000E", "5e21", Format::kDecimalSI},
    {"1000000E", "1e24", Format::kDecimalSI},
    // Decimal exponents.
    {"1E-3", "1E-3", Format::kDecimalExponent},
    {"1e3", "1e3", Format::kDecimalExponent},
    {"1E6", "1E6", Format::kDecimalExponent},
    {"1e9", "1e9", Format::kDecimalExponent},
    {"1E12", "1E12", Format::kDecimalExponent},
    {"1e15", "1e15", Format::kDecimalExponent},
    {"1E18", "1E18", Format::kDecimalExponent},
    {"12e6", "12e6", Format::kDecimalExponent},
    {"1000e0", "1e3", Format::kDecimalExponent},
    {"1e14", "100e12", Format::kDecimalExponent},
    {"1e13", "10e12", Format::kDecimalExponent},
    {".001e12", "1e9", Format::kDecimalExponent},
    {"0.001e0", "1e-3", Format::kDecimalExponent},
    {"1000e-12", "1e-9", Format::kDecimalExponent},
    {"1e21", "1e21", Format::kDecimalExponent},
    // Non-canonical but echoed verbatim by Kubernetes.
    {"100.035k", "100.035k", Format::kDecimalSI},
    {"10.035M", "10.035M", Format::kDecimalSI},
    {"7.123456M", "7.123456M", Format::kDecimalSI},
    {"6.987654321G", "6.987654321G", Format::kDecimalSI},
    {"5.444T", "5.444T", Format::kDecimalSI},
    {"1.", "1.", Format::kDecimalSI},
    {"1.G", "1.G", Format::kDecimalSI},
    {"+1", "+1", Format::kDecimalSI},
    {"01Ki", "01Ki", Format::kBinarySI},
    // Things that look like floating point.
    {"0.001", "1m", Format::kDecimalSI},
    {"0.0005k", "500m", Format::kDecimalSI},
    {"0.005", "5m", Format::kDecimalSI},
    {"0.05", "50m", Format::kDecimalSI},
    {"0.5", "500m", Format::kDecimalSI},
    {"0.1", "100m", Format::kDecimalSI},
    {"0.00050k", "500m", Format::kDecimalSI},
    {"0.00500", "5m", Format::kDecimalSI},
    {"0.05000", "50m", Format::kDecimalSI},
    {"0.50000", "500m", Format::kDecimalSI},
    {"1.08", "1080m", Format::kDecimalSI},
    {"1.2345", "1234500u", Format::kDecimalSI},
    {"0.5e0", "500e-3", Format::kDecimalExponent},
    {"0.5e-1", "50e-3", Format::kDecimalExponent},
    {"0.5e-2", "5e-3", Format::kDecimalExponent},
    {"1.2e3", "1200", Format::kDecimalExponent},
    {"1.3E+6", "1300e3", Format::kDecimalExponent},
    {"1.40e9", "1400e6", Format::kDecimalExponent},
    {"1.53E12", "1530e9", Format::kDecimalExponent},
    {"1.6e15", "1600e12", Format::kDecimalExponent},
    {"1.7E18", "1700e15", Format::kDecimalExponent},
    {"9.01", "9010m", Format::kDecimalSI},
    {"8.1k", "8100", Format::kDecimalSI},
    {"40.1T", "40100G", Format::kDecimalSI},
    {"300.2T", "300200G", Format::kDecimalSI},
    {"2.5P", "2500T", Format::kDecimalSI},
    {"1.01E", "1010P", Format::kDecimalSI},
    // Things that saturate or round.
    {"3.001n", "4n", Format::kDecimalSI},
    {"1.1E-9", "2e-9", Format::kDecimalExponent},
    {"0.0000000001", "1n", Format::kDecimalSI},
    {"0.0000000005", "1n", Format::kDecimalSI},
    {"0.00000000050", "1n", Format::kDecimalSI},
    {"0.5e-9", "1e-9", Format::kDecimalExponent},
    {"0.9n", "1n", Format::kDecimalSI},
    {"0.00000012345", "124n", Format::kDecimalSI},
    {"0.00000012354", "124n", Format::kDecimalSI},
    {"1e-1000", "1e-9", Format::kDecimalExponent},
    {"9Ei", "9223372036854775807", Format::kBinarySI},
    {"8Ei", "9223372036854775807", Format::kBinarySI},
    {"9223372036854775807Ki", "9223372036854775807", Format::kBinarySI},
    {"100000000000000000000000Ki", "9223372036854775807", Format::kBinarySI},
    {"18446744073709551616", "18446744073709551616", Format::kDecimalSI},
    // Fractional binary values.
    {"100.035Ki", "102435840m", Format::kBinarySI},
    {"0.5Mi", "512Ki", Format::kBinarySI},
    {"0.05Gi", "53687091200m", Format::kBinarySI},
    {"0.025Ti", "27487790694400m", Format::kBinarySI},
    {".001Ki", "1024m", Format::kBinarySI},
    {".000001Ki", "1024u", Format::kDecimalSI},  // below 1: DecimalSI
    {".000000001Ki", "1024n", Format::kDecimalSI},
    // Things written by trolls.
    {"0.000000000001Ki", "2n", Format::kDecimalSI},
    {".000000000001Ki", "2n", Format::kDecimalSI},
    {".001", "1m", Format::kDecimalSI},
    {".0001k", "100m", Format::kDecimalSI},
    {".", "0", Format::kDecimalSI},
    {"-.", "0", Format::kDecimalSI},
    {"+", "0", Format::kDecimalSI},
};

TEST(QuantityTest, ParseTable) {
  for (const ParseCase& c : kParseCases) {
    auto q = Quantity::Parse(c.input);
    ASSERT_TRUE(q.ok()) << c.input << ": " << q.status().ToString();
    EXPECT_EQ(q->ToString(), c.canonical) << c.input;
    EXPECT_EQ(q->format(), c.format) << c.input;
    // The canonical string parses back to an equal value, and is its own canonical form.
    auto again = Quantity::Parse(q->CanonicalString());
    ASSERT_TRUE(again.ok()) << c.input << " -> " << q->CanonicalString();
    EXPECT_EQ(again->Compare(*q), 0) << c.input << " -> " << q->CanonicalString();
    EXPECT_EQ(again->CanonicalString(), q->CanonicalString()) << c.input;
  }
}

TEST(QuantityTest, ParseTableNegatedAndPlusSign) {
  for (const ParseCase& c : kParseCases) {
    std::string input = c.input;
    if (input[0] == '-' || input[0] == '+') continue;
    Quantity positive = Q(input);
    Quantity negative = Q("-" + input);
    Quantity plus = Q("+" + input);
    EXPECT_EQ(negative.Compare(Quantity() - positive), 0) << input;
    EXPECT_EQ(plus.Compare(positive), 0) << input;
    EXPECT_EQ(negative.format(), positive.format()) << input;
    if (!positive.IsZero()) {
      EXPECT_EQ(negative.CanonicalString(), "-" + positive.CanonicalString()) << input;
      EXPECT_EQ(negative.Sign(), -1) << input;
    } else {
      EXPECT_EQ(negative.ToString(), "0") << input;  // never "-0"
    }
  }
}

TEST(QuantityTest, CanonicalStringIgnoresEchoedText) {
  EXPECT_EQ(Q("100.035k").CanonicalString(), "100035");
  EXPECT_EQ(Q("1E-3").CanonicalString(), "1e-3");
  EXPECT_EQ(Q("+1").CanonicalString(), "1");
  EXPECT_EQ(Q("01Ki").CanonicalString(), "1Ki");
  EXPECT_EQ(Q("1.G").CanonicalString(), "1G");
  EXPECT_EQ(Q("1.500k").ToString(), "1.500k");
  EXPECT_EQ(Q("1.500k").CanonicalString(), "1500");
  // Any mutation drops the echoed text.
  Quantity q = Q("1.500k");
  q.Add(Quantity());
  EXPECT_EQ(q.ToString(), "1500");
}

TEST(QuantityTest, Invalid) {
  const char* kFormatWrong[] = {"",       "1.1.M", "1+1.0M", "aoeu", " 1",    "1 ",
                                "1..",    "1e1.5", "1ee3.",  "1Ki ", "1,5",   "1_0", "1e-3-",
                                "0x10",   "1/2",   "Infinity", "NaN", "1 Ki", "1\n",
                                "0.1am", "1KiB"};
  for (const char* text : kFormatWrong) {
    auto q = Quantity::Parse(text);
    ASSERT_FALSE(q.ok()) << "'" << text << "' parsed as " << q->ToString();
    EXPECT_EQ(q.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(q.status().message(),
              "quantities must match the regular expression "
              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
        << text;
  }
  const char* kBadSuffix[] = {"0.1mi", ".5i", "--1", "+-1",  "1i",  "-3.01i", "-3.01e-", "1K",
                              "1ki",   "1e",    "1E+",  "1Ki5", "1m3",   "1ee3",
                              "1MM",   "1e2147483648", "1e99999999999999999999", "1i1"};
  for (const char* text : kBadSuffix) {
    auto q = Quantity::Parse(text);
    ASSERT_FALSE(q.ok()) << "'" << text << "' parsed as " << q->ToString();
    EXPECT_EQ(q.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(q.status().message(), "unable to parse quantity's suffix") << text;
  }
  // Beyond this implementation's 36 significant digits (Kubernetes would accept these).
  for (const char* text :
       {"1234567890123456789012345678901234567", "1000000000000000000000000000.000000001"}) {
    auto q = Quantity::Parse(text);
    ASSERT_FALSE(q.ok()) << text;
    EXPECT_EQ(q.status().message(), "unable to parse numeric part of quantity") << text;
  }
  // 36 digits are fine.
  EXPECT_EQ(Q("123456789012345678901234567890123456").ToString(),
            "123456789012345678901234567890123456");
}

TEST(QuantityTest, ExponentLimits) {
  EXPECT_EQ(Q("1e999999999").ToString(), "1e999999999");
  EXPECT_EQ(Q("1e999999998").CanonicalString(), "100e999999996");
  EXPECT_FALSE(Quantity::Parse("1e2000000000").ok());
  EXPECT_EQ(Q("1e-2147483648").ToString(), "1e-9");
  EXPECT_EQ(Q("-1e-2147483648").ToString(), "-1e-9");
}

TEST(QuantityTest, Constructors) {
  struct Case {
    Quantity q;
    const char* expect;
  };
  const Case cases[] = {
      {Quantity::FromInt(1), "1"},
      {Quantity::FromInt(1000), "1k"},
      {Quantity::FromInt(1234000), "1234k"},
      {Quantity::FromInt(0), "0"},
      {Quantity::FromInt(-5), "-5"},
      {WithFormat(Quantity::FromInt(1024), Format::kBinarySI), "1Ki"},
      {WithFormat(Quantity::FromInt(1024 * 1024), Format::kBinarySI), "1Mi"},
      {WithFormat(Quantity::FromInt(1000000), Format::kDecimalExponent), "1e6"},
      {Quantity::FromMilli(1), "1m"},
      {Quantity::FromMilli(1000), "1"},
      {Quantity::FromMilli(1234000), "1234"},
      {Quantity::FromMilli(-100), "-100m"},
      {WithFormat(Quantity::FromMilli(1024), Format::kBinarySI), "1024m"},
      {WithFormat(Quantity::FromMilli(1024 * 1024), Format::kBinarySI), "1048576m"},
      {WithFormat(Quantity::FromMilli(1000000), Format::kDecimalExponent), "1e3"},
      {Quantity::FromScaled(1, -9), "1n"},
      {Quantity::FromScaled(1000, -9), "1u"},
      {Quantity::FromScaled(1, -6), "1u"},
      {Quantity::FromScaled(1000, -6), "1m"},
      {Quantity::FromScaled(1, -3), "1m"},
      {Quantity::FromScaled(1000, -3), "1"},
      {Quantity::FromScaled(1, 0), "1"},
      {Quantity::FromScaled(0, -9), "0"},
      {Quantity::FromScaled(0, -6), "0"},
      {Quantity::FromScaled(0, -3), "0"},
      {Quantity::FromScaled(3, 3), "3k"},
      {Quantity::FromScaled(1234567, 6), "1234567M"},
      {Quantity::FromScaled(1, 12), "1T"},
      {Quantity::FromScaled(1, 18), "1E"},
      {Quantity::FromScaled(1, 21), "1e21"},
      {Quantity::FromScaled(5, 21), "5e21"},
      {Quantity::FromScaled(1, 24), "1e24"},
      {Quantity::FromScaled(108, -2), "1080m"},
      {Quantity::FromScaled(10800, -4), "1080m"},
      {Quantity::FromScaled(10800, -10), "1080n"},
      {Quantity::FromScaled(kMostNegative, 0), "-9223372036854775808"},
      {WithFormat(Quantity::FromInt(5), Format::kBinarySI), "5"},
      {WithFormat(Quantity::FromScaled(500, -3), Format::kBinarySI), "500m"},
      {WithFormat(Quantity::FromScaled(1234567, -3), Format::kBinarySI), "1234567m"},
      {WithFormat(Quantity::FromInt(1025), Format::kBinarySI), "1025"},
      {WithFormat(Quantity::FromInt(1001LL * 1024 * 1024 * 1024), Format::kBinarySI), "1001Gi"},
      {WithFormat(Quantity::FromScaled(1, 9), Format::kDecimalExponent), "1e9"},
      {WithFormat(Quantity::FromScaled(1, -3), Format::kDecimalExponent), "1e-3"},
      {WithFormat(Quantity::FromScaled(80, -3), Format::kDecimalExponent), "80e-3"},
      {WithFormat(Quantity::FromScaled(300, 6), Format::kDecimalExponent), "300e6"},
      {WithFormat(Quantity::FromScaled(0, 0), Format::kDecimalExponent), "0"},
      {WithFormat(Quantity::FromScaled(3, 3), Format::kDecimalExponent), "3e3"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.q.ToString(), c.expect);
    // The negation prints with a leading "-".
    if (!c.q.IsZero() && c.q.Sign() > 0) {
      Quantity n = c.q;
      n.Neg();
      EXPECT_EQ(n.ToString(), std::string("-") + c.expect);
    }
  }
  // Binary values beyond Ei keep the Ei suffix (Kubernetes would print a suffix-less number).
  Quantity big = WithFormat(Quantity::FromInt(int64_t{1} << 60), Format::kBinarySI);
  big.Add(big);
  EXPECT_EQ(big.ToString(), "2Ei");
  Quantity zetta = WithFormat(Quantity::FromInt(int64_t{1} << 60), Format::kBinarySI);
  for (int i = 0; i < 10; ++i) zetta.Add(zetta);  // 2^70
  EXPECT_EQ(zetta.ToString(), "1024Ei");
}

TEST(QuantityTest, Compare) {
  struct Case {
    const char* a;
    const char* b;
    int expect;
  };
  const Case cases[] = {
      {"0", "0", 0},
      {"100m", "50m", 1},
      {"50m", "100m", -1},
      {"10000T", "100Gi", 1},
      {"1", "1000m", 0},
      {"1Ki", "1024", 0},
      {"1.5Gi", "1536Mi", 0},
      {"1e3", "1k", 0},
      {"0", "0Ki", 0},
      {"-1", "1", -1},
      {"-1", "-2", 1},
      {"-100m", "-0.1", 0},
      {"1n", "0", 1},
      {"-1n", "0", -1},
      {"999999999n", "1", -1},
      {"1000000001n", "1", 1},
      {"1E", "999999999999999999", 1},
      {"9Ei", "8Ei", 0},
      {"1e-1000", "1n", 0},
      {"18446744073709551616", "18446744073709551615", 1},
      {"1e999999999", "1e999999998", 1},
      {"-1e999999999", "-1e999999998", -1},
      {"123456789012345678901234567890123456", "123456789012345678901234567890123457", -1},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Q(c.a).Compare(Q(c.b)), c.expect) << c.a << " vs " << c.b;
    EXPECT_EQ(Q(c.b).Compare(Q(c.a)), -c.expect) << c.b << " vs " << c.a;
    EXPECT_EQ(Q(c.a) == Q(c.b), c.expect == 0) << c.a << " vs " << c.b;
    EXPECT_EQ(Q(c.a) < Q(c.b), c.expect < 0) << c.a << " vs " << c.b;
  }
}

// apimachinery TestQuantityCmpInt64AndDec, with intQuantity(v, scale) as FromScaled(v, scale).
TEST(QuantityTest, CompareScaled) {
  struct Case {
    int64_t av;
    int32_t as;
    int64_t bv;
    int32_t bs;
    int expect;
  };
  constexpr int64_t kE18 = 1000000LL * 1000000LL * 1000000LL;
  const Case cases[] = {
      {901, -2, 901, -2, 0},
      {90, -1, 901, -2, -1},
      {901, -2, 900, -2, 1},
      {0, 0, 0, 0, 0},
      {0, 1, 0, -1, 0},
      {0, -1, 0, 1, 0},
      {800, -3, 1, 0, -1},
      {800, -3, 79, -2, 1},
      {kMostPositive, 0, 1, -1, 1},
      {kMostPositive, 1, 1, 0, 1},
      {kMostPositive, 1, 1, 1, 1},
      {kMostPositive, 1, 0, 1, 1},
      {kMostPositive, -16, 1, 3, -1},
      {kMostNegative, 0, 0, 0, -1},
      {kMostNegative, -18, -1, 0, -1},
      {kMostNegative, -19, -1, 0, 1},
      {kE18, -17, 1, 1, 0},
      {kE18, -17, -10, 0, 1},
      {-kE18, -17, -10, 0, 0},
      {kE18, -17, 1, 0, 1},
      {kE18 + 1, -17, 1, 1, 1},
      {kE18 - 1, -17, 1, 1, -1},
  };
  for (const Case& c : cases) {
    Quantity a = Quantity::FromScaled(c.av, c.as);
    Quantity b = Quantity::FromScaled(c.bv, c.bs);
    EXPECT_EQ(a.Compare(b), c.expect) << c.av << "e" << c.as << " vs " << c.bv << "e" << c.bs;
    EXPECT_EQ(b.Compare(a), -c.expect) << c.av << "e" << c.as << " vs " << c.bv << "e" << c.bs;
  }
}

TEST(QuantityTest, AddSub) {
  struct Case {
    Quantity a;
    Quantity b;
    Quantity sum;
    Quantity diff;
  };
  const Case cases[] = {
      {Quantity::FromInt(10), Quantity::FromScaled(1, 1), Quantity::FromInt(20), Quantity()},
      {Quantity::FromInt(10), WithFormat(Quantity::FromInt(1), Format::kBinarySI),
       Quantity::FromInt(11), Quantity::FromInt(9)},
      {Quantity(), Quantity::FromInt(50), Quantity::FromInt(50), Quantity::FromInt(-50)},
      {Quantity::FromInt(50), Quantity(), Quantity::FromInt(50), Quantity::FromInt(50)},
      {Quantity(), Quantity(), Quantity(), Quantity()},
      {Q("100m"), Q("1Gi"), Q("1073741824100m"), Q("-1073741823900m")},
      {Q("1n"), Q("1E"), Q("1000000000000000000000000001n"), Q("-999999999999999999999999999n")},
      {Q("9Ei"), Q("1n"), Q("9223372036854775807000000001n"), Q("9223372036854775806999999999n")},
      {Q("1.5"), Q("-1.5"), Quantity(), Q("3")},
      {Q("250m"), Q("750m"), Q("1"), Q("-500m")},
  };
  for (const Case& c : cases) {
    EXPECT_EQ((c.a + c.b).Compare(c.sum), 0)
        << c.a.ToString() << " + " << c.b.ToString() << " = " << (c.a + c.b).ToString();
    EXPECT_EQ((c.b + c.a).Compare(c.sum), 0) << c.b.ToString() << " + " << c.a.ToString();
    EXPECT_EQ((c.a - c.b).Compare(c.diff), 0)
        << c.a.ToString() << " - " << c.b.ToString() << " = " << (c.a - c.b).ToString();
    Quantity inplace = c.a;
    inplace.Add(c.b).Sub(c.b);
    EXPECT_EQ(inplace.Compare(c.a), 0) << c.a.ToString() << " +- " << c.b.ToString();
  }
}

TEST(QuantityTest, AddSubFormatAndZero) {
  // Adding or subtracting zero keeps the suffix; a zero receiver adopts the other's format.
  for (const char* text : {"100m", "1Gi"}) {
    Quantity zero = Q("0");
    Quantity v = Q(text);
    EXPECT_EQ((v + zero).ToString(), text);
    EXPECT_EQ((zero + v).ToString(), text);
    EXPECT_EQ((v - zero).ToString(), text);
    EXPECT_EQ((zero - v).ToString(), std::string("-") + text);
  }
  // A non-zero receiver keeps its own format.
  EXPECT_EQ((WithFormat(Quantity::FromInt(10), Format::kBinarySI) + Quantity::FromInt(1014))
                .ToString(),
            "1Ki");
  EXPECT_EQ((Quantity::FromInt(10) + Q("1014")).format(), Format::kDecimalSI);
  EXPECT_EQ((Quantity::FromInt(10) - Q("10")).ToString(), "0");
}

TEST(QuantityTest, MostNegative) {
  // -(2^63) does not fit an int64 but is exact here.
  Quantity neg = Quantity::FromInt(kMostNegative);
  neg.Neg();
  EXPECT_EQ(neg.ToString(), "9223372036854775808");
  EXPECT_EQ(neg.Sign(), 1);
  EXPECT_EQ(neg.Compare(Q("9223372036854775808")), 0);

  Quantity sub = Quantity() - Quantity::FromInt(kMostNegative);
  EXPECT_EQ(sub.ToString(), "9223372036854775808");
  EXPECT_EQ((Quantity::FromInt(1) - Quantity::FromInt(kMostNegative)).ToString(),
            "9223372036854775809");
  EXPECT_EQ((Quantity::FromInt(10) - Quantity::FromInt(kMostNegative)).ToString(),
            "9223372036854775818");
  Quantity scaled = Quantity::FromScaled(kMostNegative, -3);
  scaled.Neg();
  EXPECT_EQ(scaled.ToString(), "9223372036854775808m");
  EXPECT_EQ((Quantity::FromScaled(1, -3) - Quantity::FromScaled(kMostNegative, -3)).ToString(),
            "9223372036854775809m");
  Quantity binary = Quantity() - WithFormat(Quantity::FromInt(kMostNegative), Format::kBinarySI);
  EXPECT_EQ(binary.format(), Format::kBinarySI);
  EXPECT_EQ(binary.ToString(), "8Ei");
  EXPECT_EQ(binary.Value(), kMostPositive);  // saturates
}

TEST(QuantityTest, AddBeyondDigits) {
  // Sums needing more than 36 significant digits are rounded, not wrapped.
  Quantity a = Q("1e30");
  Quantity b = Q("1n");
  Quantity sum = a + b;
  EXPECT_EQ(sum.Sign(), 1);
  EXPECT_GE(sum.Compare(a), 0);
  EXPECT_EQ((Q("1e999999999") + Q("1")).Compare(Q("1e999999999")), 1);
  EXPECT_EQ((Q("1e999999999") - Q("1e999999999")).ToString(), "0");
}

TEST(QuantityTest, ValueAndMilliValue) {
  struct Case {
    const char* text;
    int64_t value;
    int64_t milli;
  };
  const Case cases[] = {
      {"0", 0, 0},
      {"1", 1, 1000},
      {"1.5", 2, 1500},
      {"-1.5", -2, -1500},
      {"1.1", 2, 1100},
      {"-1.1", -2, -1100},
      {"100m", 1, 100},
      {"1m", 1, 1},
      {"1n", 1, 1},
      {"-1n", -1, -1},
      {"1500u", 1, 2},
      {"1Ki", 1024, 1024000},
      {"1Gi", 1073741824, 1073741824000},
      {"1Ei", int64_t{1} << 60, kMostPositive},
      {"8Ei", kMostPositive, kMostPositive},
      {"9223372036854775807", kMostPositive, kMostPositive},
      {"-9223372036854775808", kMostNegative, kMostNegative},
      {"-9223372036854775809", kMostNegative, kMostNegative},
      {"1e30", kMostPositive, kMostPositive},
      {"-1e30", kMostNegative, kMostNegative},
      {"1e-1000", 1, 1},
      {"9223372036854775.807", 9223372036854776, kMostPositive},
      {"9223372036854775.806", 9223372036854776, 9223372036854775806},
  };
  for (const Case& c : cases) {
    Quantity q = Q(c.text);
    EXPECT_EQ(q.Value(), c.value) << c.text;
    EXPECT_EQ(q.MilliValue(), c.milli) << c.text;
  }
}

// apimachinery TestScaledValue: NewScaledQuantity(1, from).ScaledValue(to).
TEST(QuantityTest, ScaledValue) {
  struct Case {
    int32_t from;
    int32_t to;
    int64_t expect;
  };
  const Case cases[] = {
      {-9, -9, 1},          {-9, -6, 1},    {-9, -3, 1},   {-9, 0, 1},
      {-6, -9, 1000},       {-6, -6, 1},    {-6, -3, 1},   {-6, 0, 1},
      {-3, -9, 1000000},    {-3, -6, 1000}, {-3, -3, 1},   {-3, 0, 1},
      {0, -9, 1000000000},  {0, -6, 1000000}, {0, -3, 1000}, {0, 0, 1},
      {2, -2, 10000},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Quantity::FromScaled(1, c.from).ScaledValue(c.to), c.expect)
        << c.from << " -> " << c.to;
  }
}

// apimachinery TestQuantityRoundUp.
TEST(QuantityTest, RoundUp) {
  struct Case {
    const char* in;
    int32_t scale;
    Quantity expect;
    bool exact;
  };
  const Case cases[] = {
      {"9.01", -3, Quantity::FromScaled(901, -2), true},
      {"9.01", -2, Quantity::FromScaled(901, -2), true},
      {"9.01", -1, Quantity::FromScaled(91, -1), false},
      {"9.01", 0, Quantity::FromScaled(10, 0), false},
      {"9.01", 1, Quantity::FromScaled(10, 0), false},
      {"9.01", 2, Quantity::FromScaled(100, 0), false},
      {"-9.01", -3, Quantity::FromScaled(-901, -2), true},
      {"-9.01", -2, Quantity::FromScaled(-901, -2), true},
      {"-9.01", -1, Quantity::FromScaled(-91, -1), false},
      {"-9.01", 0, Quantity::FromScaled(-10, 0), false},
      {"-9.01", 1, Quantity::FromScaled(-10, 0), false},
      {"-9.01", 2, Quantity::FromScaled(-100, 0), false},
      {"1n", -3, Quantity::FromScaled(1, -3), false},
      {"1100u", -3, Quantity::FromScaled(2, -3), false},
      {"0", 5, Quantity(), true},
  };
  for (const Case& c : cases) {
    Quantity q = Q(c.in);
    EXPECT_EQ(q.RoundUp(c.scale), c.exact) << c.in << " @" << c.scale;
    EXPECT_EQ(q.Compare(c.expect), 0) << c.in << " @" << c.scale << ": " << q.ToString();
  }
  Quantity kept = Q("1.500k");
  EXPECT_TRUE(kept.RoundUp(-3));
  EXPECT_EQ(kept.ToString(), "1.500k");  // exact: the echoed text survives, as in Kubernetes
  Quantity cpu = Q("1n");
  cpu.RoundUp(-3);
  EXPECT_EQ(cpu.ToString(), "1m");
}

TEST(QuantityTest, SignAndIsZero) {
  EXPECT_TRUE(Quantity().IsZero());
  EXPECT_EQ(Quantity().Sign(), 0);
  EXPECT_EQ(Quantity().ToString(), "0");
  EXPECT_TRUE(Q("0Ki").IsZero());
  EXPECT_TRUE(Q("-0.0").IsZero());
  EXPECT_FALSE(Q("1n").IsZero());
  EXPECT_EQ(Q("1n").Sign(), 1);
  EXPECT_EQ(Q("-1n").Sign(), -1);
  EXPECT_EQ(Q("-0.0000000000001").Sign(), -1);  // rounds away from zero to -1n
  EXPECT_EQ(Q("-0.0000000000001").ToString(), "-1n");
}

}  // namespace
}  // namespace allot::api
