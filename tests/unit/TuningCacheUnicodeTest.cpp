//===- TuningCacheUnicodeTest.cpp - Non-ASCII text in tuning cache files --===//
//
// TOML++ 3.3's whitespace check is undefined behaviour for about 3000
// non-ASCII code points (tuner/lib/TomlHazard.h). Found by
// kiln-fuzz-tuning-cache: a damaged file starting with U+FB7F reached
// __builtin_unreachable() (UBSan: "execution reached an unreachable program
// point"). Such a file is refused as corrupt before TOML++ reads it, with
// its place; the same characters in strings and comments are read as
// before.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/TuningCache.h"

#include <catch2/catch.hpp>

#include <string>

using namespace kiln::tuner;
using FileState = TuningCacheContents::FileState;

namespace {
const std::string Header = "schema_version = 1\nentry_count = 0\n";

TuningCacheContents parse(const std::string &Text) {
  return parseTuningCache(Text, "t.toml");
}
} // namespace

TEST_CASE("tuning cache: the fuzzer's damaged file is corrupt, not undefined",
          "[tuning-cache]") {
  // libFuzzer's reproducer, crash-f82aaaa31b4c02cd1ca455dca05d61c6514c0d10.
  const char Raw[] = "\xef\xad\xbfiln -tunr (op fingerpr\0\0\0\0\0\0\0#/T";
  const std::string Found(Raw, sizeof(Raw) - 1);
  TuningCacheContents C = parse(Found);
  CHECK(C.State == FileState::Corrupt);
  REQUIRE(C.Problems.size() == 1);
  CHECK(C.Problems[0] == "t.toml:1:1: not valid TOML (U+FB7F outside a string "
                         "or comment): the file is damaged or truncated; "
                         "ignoring it");
}

TEST_CASE("tuning cache: unsafe characters outside strings are refused "
          "with their place",
          "[tuning-cache]") {
  struct Case {
    std::string Text, Expect;
  };
  const Case Cases[] = {
      // U+00A7 between a key and '=', line 3.
      {Header + "note \xc2\xa7 = 1\n", "t.toml:3:6: not valid TOML (U+00A7 "
                                       "outside a string or comment)"},
      // U+3001 after a comment and a string on the same line.
      {Header + "a = \"x\" # c\nb = 1 \xe3\x80\x81\n",
       "t.toml:4:7: not valid TOML (U+3001 outside"},
      // After a line-ending backslash in a multi-line basic string (TOML++
      // looks at the first character of the next line).
      {Header + "note = \"\"\"\\\n  \xc2\xa7\"\"\"\n",
       "t.toml:4:3: not valid TOML (U+00A7 after a backslash in a multi-line "
       "string)"},
      // As an escape character there.
      {Header + "note = \"\"\"a\\\xd0\x96\"\"\"\n",
       "t.toml:3:13: not valid TOML (U+0416 after a backslash"},
      // U+FEFE, the last one.
      {Header + "\xef\xbb\xbe", "t.toml:3:1: not valid TOML (U+FEFE outside"},
  };
  for (const Case &K : Cases) {
    INFO(K.Text);
    TuningCacheContents C = parse(K.Text);
    CHECK(C.State == FileState::Corrupt);
    REQUIRE(C.Problems.size() == 1);
    CHECK(C.Problems[0].rfind(K.Expect, 0) == 0);
  }
}

TEST_CASE("tuning cache: non-ASCII in strings and comments is read as before",
          "[tuning-cache]") {
  // In comments, in basic and literal strings (one line and multi-line,
  // also after a backslash in a literal one), after an escaped quote, and
  // a leading byte order mark.
  const std::string Text =
      "\xef\xbb\xbf" + Header +
      "# \xc2\xa7 \xe3\x80\x81 \xef\xad\xbf\n"
      "a = \"\xc5\x81\xc3\xb3\x64\xc5\xba \\\" \xc2\xa7\"\n"
      "b = '\xc2\xa7'\n"
      "c = \"\"\"\n\xc2\xa7 \"\" \xe3\x80\x81\"\"\"\n"
      "d = '''\\\n\xc2\xa7'''\n"
      "e = \"\"\"\\\n  x \xc2\xa7\"\"\"\n";
  TuningCacheContents C = parse(Text);
  INFO(Text);
  CHECK(C.State == FileState::Ok);
  // Five unknown keys, nothing else.
  REQUIRE(C.Problems.size() == 5);
  CHECK(C.Problems[0] == "t.toml:4:5: unknown key 'a' (ignored)");
}

TEST_CASE("tuning cache: other non-ASCII whitespace keeps TOML++'s message",
          "[tuning-cache]") {
  // U+00A0 and U+3000 are well defined in TOML++ (and not TOML whitespace).
  for (const char *Space : {"\xc2\xa0", "\xe3\x80\x80"}) {
    TuningCacheContents C = parse(Header + "a =" + Space + "1\n");
    CHECK(C.State == FileState::Corrupt);
    REQUIRE(C.Problems.size() == 1);
    CHECK(C.Problems[0].find("t.toml:3:4: not valid TOML (") == 0);
    CHECK(C.Problems[0].find("outside a string") == std::string::npos);
  }
}
