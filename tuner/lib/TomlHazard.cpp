//===- TomlHazard.cpp - Text that TOML++ 3.3 cannot read safely -----------===//
#include "TomlHazard.h"

namespace kiln::tuner {

bool isTomlHazardCodePoint(char32_t C) {
  // TOML++ 3.3's is_non_ascii_horizontal_whitespace: code points from U+00A0
  // to U+FEFF in buckets of 0x3FA; a set bit means "none here"; buckets 5
  // and 7 are looked at; U+00A0, U+3000 and U+FEFF are whitespace. Any other
  // bucket reaches TOML_UNREACHABLE.
  if (C <= 0xA0 || C >= 0xFEFF || C == 0x3000)
    return false;
  uint64_t Bucket = (uint64_t(C) - 0xA0) / 0x3FA;
  return !((uint64_t(1) << Bucket) & 0x7FFFFFFFFFFFF75Eull) && Bucket != 5 &&
         Bucket != 7;
}

namespace {

/// Walks Text one UTF-8 code point at a time, counting lines and columns.
class Cursor {
public:
  explicit Cursor(std::string_view Text) : Text(Text) {}

  /// The code point at the cursor; false at the end or at bytes that are
  /// not UTF-8.
  bool peek(char32_t &C) {
    if (At >= Text.size())
      return false;
    unsigned char B = Text[At];
    size_t N = 0;
    if (B < 0x80)
      N = 1;
    else if (B >= 0xC2 && B < 0xE0)
      N = 2;
    else if (B >= 0xE0 && B < 0xF0)
      N = 3;
    else if (B >= 0xF0 && B < 0xF5)
      N = 4;
    if (N == 0 || At + N > Text.size())
      return false;
    C = N == 1 ? B : B & (0x7F >> N);
    for (size_t I = 1; I < N; ++I) {
      unsigned char Next = Text[At + I];
      if ((Next & 0xC0) != 0x80)
        return false;
      C = (C << 6) | (Next & 0x3F);
    }
    Length = N;
    return true;
  }
  void advance(char32_t C) {
    At += Length;
    Length = 1;
    if (C == U'\n')
      ++Line, Column = 1;
    else
      ++Column;
  }
  /// Whether the text at the cursor starts with S (ASCII).
  bool at(std::string_view S) const { return Text.substr(At, S.size()) == S; }
  /// Steps over a closing """ or ''' and the up to two quotes before it
  /// that belong to the string.
  void closeMultiLine(char Quote) {
    for (int I = 0; I < 5 && At < Text.size() && Text[At] == Quote; ++I)
      advance(char32_t(Quote));
  }
  TomlHazard hazard(char32_t C, bool AfterBackslash) const {
    return {Line, Column, C, AfterBackslash};
  }

private:
  std::string_view Text;
  size_t At = 0, Length = 1;
  uint32_t Line = 1, Column = 1;
};

enum class Context { Plain, Comment, Basic, Literal, MultiBasic, MultiLiteral };

} // namespace

std::optional<TomlHazard> findTomlHazard(std::string_view Text) {
  Cursor Cur(Text);
  Context In = Context::Plain;
  for (char32_t C; Cur.peek(C);) {
    switch (In) {
    case Context::Plain:
      if (Cur.at("\"\"\"") || Cur.at("'''")) {
        In = C == U'"' ? Context::MultiBasic : Context::MultiLiteral;
        for (int I = 0; I < 3; ++I)
          Cur.advance(C);
        continue;
      }
      if (C == U'#')
        In = Context::Comment;
      else if (C == U'"')
        In = Context::Basic;
      else if (C == U'\'')
        In = Context::Literal;
      else if (isTomlHazardCodePoint(C))
        return Cur.hazard(C, false);
      break;
    case Context::Comment:
      if (C == U'\n')
        In = Context::Plain;
      break;
    case Context::Basic:
      if (C == U'\\') { // the escaped character is not looked at
        Cur.advance(C);
        if (!Cur.peek(C))
          return std::nullopt;
      } else if (C == U'"' || C == U'\n') {
        In = Context::Plain;
      }
      break;
    case Context::Literal:
      if (C == U'\'' || C == U'\n')
        In = Context::Plain;
      break;
    case Context::MultiBasic:
      if (C == U'\\') {
        // An escape, or a line-ending backslash: whitespace and line
        // breaks are skipped, and the next character is looked at.
        Cur.advance(C);
        bool Skipped = false;
        while (Cur.peek(C) &&
               (C == U' ' || C == U'\t' || C == U'\r' || C == U'\n'))
          Cur.advance(C), Skipped = true;
        if (!Cur.peek(C))
          return std::nullopt;
        if (isTomlHazardCodePoint(C))
          return Cur.hazard(C, true);
        if (Skipped) // C starts the string's next content
          continue;
      } else if (Cur.at("\"\"\"")) {
        Cur.closeMultiLine('"');
        In = Context::Plain;
        continue;
      }
      break;
    case Context::MultiLiteral:
      if (Cur.at("'''")) {
        Cur.closeMultiLine('\'');
        In = Context::Plain;
        continue;
      }
      break;
    }
    Cur.advance(C);
  }
  return std::nullopt;
}

} // namespace kiln::tuner
