//===- Lexer.cpp - Turning .kiln text into tokens -------------------------===//
//
// A hand-written scanner: identifiers and keywords, integer and float
// literals, operators, '#' comments. Columns count bytes, starting at 1.
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/Lexer.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace kiln {

std::string_view tokenKindName(TokenKind K) {
  switch (K) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Unknown:
    return "unknown character";
  case TokenKind::Ident:
    return "identifier";
  case TokenKind::Int:
    return "integer";
  case TokenKind::Float:
    return "number";
  case TokenKind::KwOp:
    return "'op'";
  case TokenKind::KwIn:
    return "'in'";
  case TokenKind::KwOut:
    return "'out'";
  case TokenKind::KwTune:
    return "'tune'";
  case TokenKind::KwRequire:
    return "'require'";
  case TokenKind::KwSum:
    return "'sum'";
  case TokenKind::LBrace:
    return "'{'";
  case TokenKind::RBrace:
    return "'}'";
  case TokenKind::LBracket:
    return "'['";
  case TokenKind::RBracket:
    return "']'";
  case TokenKind::LParen:
    return "'('";
  case TokenKind::RParen:
    return "')'";
  case TokenKind::Comma:
    return "','";
  case TokenKind::Colon:
    return "':'";
  case TokenKind::Assign:
    return "'='";
  case TokenKind::Plus:
    return "'+'";
  case TokenKind::Minus:
    return "'-'";
  case TokenKind::Star:
    return "'*'";
  case TokenKind::Slash:
    return "'/'";
  case TokenKind::Percent:
    return "'%'";
  case TokenKind::Less:
    return "'<'";
  case TokenKind::LessEq:
    return "'<='";
  case TokenKind::Greater:
    return "'>'";
  case TokenKind::GreaterEq:
    return "'>='";
  case TokenKind::EqEq:
    return "'=='";
  case TokenKind::NotEq:
    return "'!='";
  case TokenKind::AmpAmp:
    return "'&&'";
  case TokenKind::PipePipe:
    return "'||'";
  case TokenKind::Bang:
    return "'!'";
  }
  return "token";
}

namespace {

bool isIdentStart(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_';
}
bool isDigit(char C) { return C >= '0' && C <= '9'; }
bool isIdentChar(char C) { return isIdentStart(C) || isDigit(C); }

TokenKind keywordKind(std::string_view Text) {
  if (Text == "op")
    return TokenKind::KwOp;
  if (Text == "in")
    return TokenKind::KwIn;
  if (Text == "out")
    return TokenKind::KwOut;
  if (Text == "tune")
    return TokenKind::KwTune;
  if (Text == "require")
    return TokenKind::KwRequire;
  if (Text == "sum")
    return TokenKind::KwSum;
  return TokenKind::Ident;
}

class Scanner {
public:
  Scanner(std::string_view Text, DiagnosticEngine &Diags)
      : Text(Text), Diags(Diags) {}

  std::vector<Token> run() {
    std::vector<Token> Tokens;
    SourceLoc LastEnd{1, 1};
    bool SawNewline = true;
    while (true) {
      SawNewline |= skipSpaceAndComments();
      if (Pos >= Text.size())
        break;
      Token T;
      scanToken(T);
      T.AtLineStart = SawNewline;
      SawNewline = false;
      LastEnd = T.Range.End;
      Tokens.push_back(T);
    }
    Token Eof;
    Eof.Kind = TokenKind::Eof;
    Eof.Range = {LastEnd, LastEnd};
    Eof.Offset = Text.size();
    Eof.AtLineStart = true;
    Tokens.push_back(Eof);
    return Tokens;
  }

private:
  SourceLoc here() const { return {Line, Col}; }

  void advance() {
    if (Text[Pos] == '\n') {
      ++Line;
      Col = 1;
    } else {
      ++Col;
    }
    ++Pos;
  }

  char peek(size_t Ahead = 0) const {
    return Pos + Ahead < Text.size() ? Text[Pos + Ahead] : '\0';
  }

  /// Skips blanks and comments; returns true if a newline was crossed.
  bool skipSpaceAndComments() {
    bool Newline = false;
    while (Pos < Text.size()) {
      char C = Text[Pos];
      if (C == '\n') {
        Newline = true;
        advance();
      } else if (C == ' ' || C == '\t' || C == '\r' || C == '\f' || C == '\v') {
        advance();
      } else if (C == '#') {
        while (Pos < Text.size() && Text[Pos] != '\n')
          advance();
      } else {
        break;
      }
    }
    return Newline;
  }

  void finish(Token &T, TokenKind K, size_t Start, SourceLoc Begin) {
    T.Kind = K;
    T.Offset = Start;
    T.Text = Text.substr(Start, Pos - Start);
    T.Range = {Begin, here()};
  }

  void scanToken(Token &T) {
    size_t Start = Pos;
    SourceLoc Begin = here();
    char C = Text[Pos];
    if (isIdentStart(C)) {
      while (Pos < Text.size() && isIdentChar(Text[Pos]))
        advance();
      finish(T, keywordKind(Text.substr(Start, Pos - Start)), Start, Begin);
      return;
    }
    if (isDigit(C) || (C == '.' && isDigit(peek(1)))) {
      scanNumber(T, Start, Begin);
      return;
    }

    TokenKind K;
    auto Two = [&](char Next, TokenKind IfTwo, TokenKind IfOne) {
      advance();
      if (peek() == Next) {
        advance();
        return IfTwo;
      }
      return IfOne;
    };
    switch (C) {
    case '{':
      K = TokenKind::LBrace;
      advance();
      break;
    case '}':
      K = TokenKind::RBrace;
      advance();
      break;
    case '[':
      K = TokenKind::LBracket;
      advance();
      break;
    case ']':
      K = TokenKind::RBracket;
      advance();
      break;
    case '(':
      K = TokenKind::LParen;
      advance();
      break;
    case ')':
      K = TokenKind::RParen;
      advance();
      break;
    case ',':
      K = TokenKind::Comma;
      advance();
      break;
    case ':':
      K = TokenKind::Colon;
      advance();
      break;
    case '+':
      K = TokenKind::Plus;
      advance();
      break;
    case '-':
      K = TokenKind::Minus;
      advance();
      break;
    case '*':
      K = TokenKind::Star;
      advance();
      break;
    case '/':
      K = TokenKind::Slash;
      advance();
      break;
    case '%':
      K = TokenKind::Percent;
      advance();
      break;
    case '=':
      K = Two('=', TokenKind::EqEq, TokenKind::Assign);
      break;
    case '<':
      K = Two('=', TokenKind::LessEq, TokenKind::Less);
      break;
    case '>':
      K = Two('=', TokenKind::GreaterEq, TokenKind::Greater);
      break;
    case '!':
      K = Two('=', TokenKind::NotEq, TokenKind::Bang);
      break;
    case '&':
    case '|':
      if (peek(1) == C) {
        advance();
        advance();
        K = C == '&' ? TokenKind::AmpAmp : TokenKind::PipePipe;
        break;
      }
      advance();
      Diags.error(Begin,
                  std::string("unexpected character '") + C +
                      "'; did you mean '" + C + C + "'?",
                  {Begin, here()});
      K = TokenKind::Unknown;
      break;
    default:
      badCharacters(Begin);
      K = TokenKind::Unknown;
      break;
    }
    finish(T, K, Start, Begin);
  }

  static bool isBad(unsigned char U) {
    return U >= 0x80 ||
           (U < 0x20 && U != '\n' && U != '\t' && U != '\r' && U != '\f' &&
            U != '\v') ||
           U == 0x7f || U == '@' || U == '$' || U == '`' || U == '\\' ||
           U == '"' || U == '\'' || U == '?' || U == '~' || U == '^' ||
           U == ';';
  }

  /// Reports a run of characters the DSL does not use as one error, named
  /// after its first character.
  void badCharacters(SourceLoc Begin) {
    unsigned char U = static_cast<unsigned char>(Text[Pos]);
    std::string Msg;
    if (U >= 0x80) {
      Msg = "unexpected non-ASCII character (kiln source is ASCII)";
    } else if (U < 0x20 || U == 0x7f) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\x%02x", U);
      Msg = std::string("unexpected character '") + Buf + "'";
    } else {
      Msg = std::string("unexpected character '") + char(U) + "'";
    }
    advance();
    while (Pos < Text.size() && isBad(static_cast<unsigned char>(Text[Pos])))
      advance();
    Diags.error(Begin, Msg, {Begin, here()});
  }

  void scanNumber(Token &T, size_t Start, SourceLoc Begin) {
    bool IsFloat = false;
    while (isDigit(peek()))
      advance();
    if (peek() == '.' && isDigit(peek(1))) {
      IsFloat = true;
      advance();
      while (isDigit(peek()))
        advance();
    } else if (peek() == '.' && !isIdentStart(peek(1))) {
      IsFloat = true; // "2." is 2.0
      advance();
    }
    bool Malformed = false;
    if (peek() == 'e' || peek() == 'E') {
      size_t Ahead = 1;
      if (peek(1) == '+' || peek(1) == '-')
        Ahead = 2;
      if (isDigit(peek(Ahead))) {
        IsFloat = true;
        for (size_t I = 0; I < Ahead; ++I)
          advance();
        while (isDigit(peek()))
          advance();
      }
    }
    if (isIdentChar(peek()) || peek() == '.') {
      // "128k", "1.5.2": one bad token, not two good ones.
      while (isIdentChar(peek()) || peek() == '.')
        advance();
      Malformed = true;
    }
    finish(T, IsFloat ? TokenKind::Float : TokenKind::Int, Start, Begin);
    std::string Spelling(T.Text);
    if (Malformed) {
      Diags.error(Begin, "malformed number '" + Spelling + "'", T.Range);
      return; // Keep the token (value 0) so the parser stays in sync.
    }
    if (IsFloat) {
      T.FloatValue = std::strtod(Spelling.c_str(), nullptr);
      // Epilogue math is fp32: a literal must survive the conversion.
      double Mag = std::fabs(T.FloatValue);
      if (Mag > double(FLT_MAX) ||
          (Mag != 0 && static_cast<float>(Mag) == 0.0f)) {
        Diags.error(Begin,
                    "floating-point literal '" + Spelling +
                        "' is out of range for f32 (epilogues compute in f32)",
                    T.Range);
        T.FloatValue = 0;
      }
      return;
    }
    int64_t V = 0;
    for (char D : Spelling) {
      int Digit = D - '0';
      if (V > (INT64_MAX - Digit) / 10) {
        Diags.error(Begin, "integer literal '" + Spelling + "' is too large",
                    T.Range);
        V = 0;
        break;
      }
      V = V * 10 + Digit;
    }
    T.IntValue = V;
  }

  std::string_view Text;
  DiagnosticEngine &Diags;
  size_t Pos = 0;
  unsigned Line = 1;
  unsigned Col = 1;
};

} // namespace

std::vector<Token> lex(std::string_view Text, DiagnosticEngine &Diags) {
  return Scanner(Text, Diags).run();
}

} // namespace kiln
