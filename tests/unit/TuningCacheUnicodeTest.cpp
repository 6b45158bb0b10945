//===- TuningCacheUnicodeTest.cpp - Non-ASCII text in tuning cache files --===//
//
// TOML++ 3.3's whitespace check reached __builtin_unreachable() for about
// 3000 non-ASCII code points (tuner/lib/Toml.h), wherever it looked for
// whitespace or the end of a value. kiln-fuzz-tuning-cache found it twice:
// a damaged file starting with U+FB7F, and a U+01DF inside a value that
// starts like a number and goes on with a quote. kiln reads TOML++ with the
// classifier made total (upstream's fix), so such files are TOML++'s
// ordinary parse errors, with their place, and those characters in
// strings and comments are read as they are. The unit tests run under
// UBSan in scripts/test-sanitized.sh, which fails on the old behaviour.
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

/// Text is refused as a whole, the problem at Place ("t.toml:L:C").
void checkCorruptAt(const std::string &Text, const std::string &Place) {
  INFO(Text);
  TuningCacheContents C = parse(Text);
  CHECK(C.State == FileState::Corrupt);
  REQUIRE(C.Problems.size() == 1);
  INFO(C.Problems[0]);
  CHECK(C.Problems[0].rfind(Place + ": not valid TOML (", 0) == 0);
  CHECK(C.Problems[0].find("the file is damaged or truncated") !=
        std::string::npos);
}
} // namespace

TEST_CASE("tuning cache: the fuzzer's damaged files are corrupt, not "
          "undefined",
          "[tuning-cache]") {
  // crash-f82aaaa31b4c02cd1ca455dca05d61c6514c0d10: U+FB7F first.
  const char Raw[] = "\xef\xad\xbfiln -tunr (op fingerpr\0\0\0\0\0\0\0#/T";
  checkCorruptAt(std::string(Raw, sizeof(Raw) - 1), "t.toml:1:1");
  // crash-7fb7f14122df91445e07a51b94efb1042708292c, cut to its point: a
  // value `1"...` whose quote is no string's, U+01DF inside it.
  checkCorruptAt(Header + "[[entry]]\nop_fingerprint = 1\"0123\xc7\x9f"
                          "abc\"\n",
                 "t.toml:4:19");
}

TEST_CASE("tuning cache: non-whitespace characters where whitespace may be "
          "are errors with their place",
          "[tuning-cache]") {
  // U+00A7 between a key and '=', line 3.
  checkCorruptAt(Header + "note \xc2\xa7 = 1\n", "t.toml:3:6");
  // U+3001 after a value.
  checkCorruptAt(Header + "a = \"x\" # c\nb = 1 \xe3\x80\x81\n", "t.toml:4:7");
  // U+0416 as an escape in a basic string.
  checkCorruptAt(Header + "note = \"\"\"a\\\xd0\x96\"\"\"\n", "t.toml:3:13");
  // U+FEFE, the last of the ranges, alone on a line.
  checkCorruptAt(Header + "\xef\xbb\xbe", "t.toml:3:1");
  // U+00A0 and U+3000 are whitespace to TOML++ 3.3 but not to TOML.
  for (const char *Space : {"\xc2\xa0", "\xe3\x80\x80"})
    checkCorruptAt(Header + "a =" + Space + "1\n", "t.toml:3:4");
}

TEST_CASE("tuning cache: non-ASCII in strings and comments is read as it is",
          "[tuning-cache]") {
  // In comments, in basic and literal strings (one line and multi-line,
  // after a line-ending backslash in a basic one, after a backslash in a
  // literal one), after an escaped quote, and a leading byte order mark.
  const std::string Text =
      "\xef\xbb\xbf" + Header +
      "# \xc2\xa7 \xe3\x80\x81 \xef\xad\xbf\n"
      "a = \"\xc5\x81\xc3\xb3\x64\xc5\xba \\\" \xc2\xa7\"\n"
      "b = '\xc2\xa7'\n"
      "c = \"\"\"\n\xc2\xa7 \"\" \xe3\x80\x81\"\"\"\n"
      "d = '''\\\n\xc2\xa7'''\n"
      "e = \"\"\"\\\n  x \xc2\xa7\"\"\"\n"
      "f = \"\"\"\\\n  \xc2\xa7\"\"\"\n";
  TuningCacheContents C = parse(Text);
  INFO(Text);
  CHECK(C.State == FileState::Ok);
  // Six unknown keys, nothing else.
  REQUIRE(C.Problems.size() == 6);
  CHECK(C.Problems[0] == "t.toml:4:5: unknown key 'a' (ignored)");
  CHECK(C.Problems[5] == "t.toml:12:5: unknown key 'f' (ignored)");
}
