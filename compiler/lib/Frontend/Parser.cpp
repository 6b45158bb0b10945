//===- Parser.cpp - Building the AST of a .kiln file ----------------------===//
//
// Recursive descent over the token vector. Each statement parser returns
// false after reporting an error; the enclosing block then skips to the next
// line (or the closing brace) and carries on.
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/Parser.h"

#include "kiln/Frontend/Lexer.h"

#include <algorithm>
#include <cassert>

namespace kiln {

namespace {

class Parser {
public:
  Parser(std::vector<Token> Tokens, DiagnosticEngine &Diags,
         std::vector<SourceLoc> LexErrors)
      : Toks(std::move(Tokens)), Diags(Diags), LexErrors(std::move(LexErrors)) {
  }

  void parseModule(Module &M);

private:
  // Token access.
  const Token &tok() const { return Toks[Pos]; }
  const Token &peekTok(size_t N = 1) const {
    return Toks[std::min(Pos + N, Toks.size() - 1)];
  }
  const Token &prevTok() const { return Toks[Pos ? Pos - 1 : 0]; }
  bool is(TokenKind K) const { return tok().Kind == K; }
  const Token &take() {
    const Token &T = Toks[Pos];
    if (!T.is(TokenKind::Eof))
      ++Pos;
    return T;
  }
  bool accept(TokenKind K) {
    if (!is(K))
      return false;
    take();
    return true;
  }

  // Errors.
  void error(SourceLoc Loc, std::string Msg, SourceRange Range = {});
  void errorExpected(const std::string &Msg);
  static std::string describe(const Token &T);
  void recover(size_t StmtStart);

  // Declarations.
  /// At the first token of a top-level item: `op`, or `layer NAME` at the
  /// start of a line.
  bool atItemStart() const {
    const Token &T = tok();
    if (!T.AtLineStart)
      return false;
    return T.is(TokenKind::KwOp) ||
           (T.is(TokenKind::Ident) && T.Text == "layer" &&
            peekTok().is(TokenKind::Ident));
  }
  void parseOp(Module &M);
  void parseLayer(Module &M);
  bool parseOpItem(OpDecl &Op);
  bool parseParam(OpDecl &Op);
  bool parseDim(ParamDecl &P);
  bool parseCompute(OpDecl &Op);
  bool parseMask(OpDecl &Op);
  bool parseVarlen(OpDecl &Op);
  bool parseTune(OpDecl &Op);
  bool parseKnob(TuneBlock &TB);
  bool parseTuneValue(KnobDecl &K);
  bool parseRequire(TuneBlock &TB);
  std::string sourceText(size_t FirstTok, size_t EndTok) const;

  // Expressions.
  ExprPtr parseExpr() { return parseBinary(0); }
  ExprPtr parseBinary(unsigned Level);
  ExprPtr parseUnary();
  ExprPtr parseSum();
  ExprPtr parsePostfix();
  bool parseArgList(Expr &E, TokenKind Close, const char *What);
  bool setHeight(Expr &E);

  std::vector<Token> Toks;
  DiagnosticEngine &Diags;
  std::vector<SourceLoc> LexErrors;
  size_t Pos = 0;
  unsigned Depth = 0;
  OpDecl *CurOp = nullptr;
  bool EofReported = false;
};

/// "op 'name'", or "the op" while it has none.
std::string opLabel(const OpDecl &Op) {
  return Op.Name.empty() ? "the op" : "op '" + Op.Name + "'";
}

bool before(SourceLoc A, SourceLoc B) {
  return A.Line < B.Line || (A.Line == B.Line && A.Col < B.Col);
}

ExprPtr makeExpr(Expr::Kind K, SourceLoc Loc, SourceRange Range) {
  auto E = std::make_unique<Expr>();
  E->K = K;
  E->Loc = Loc;
  E->Range = Range;
  return E;
}

//===----------------------------------------------------------------------===//
// Errors and recovery
//===----------------------------------------------------------------------===//

void Parser::error(SourceLoc Loc, std::string Msg, SourceRange Range) {
  if (CurOp)
    CurOp->HasSyntaxErrors = true;
  // The lexer has reported the bad character the parser is stuck on.
  if (is(TokenKind::Unknown))
    return;
  Diags.error(Loc, std::move(Msg), Range);
}

std::string Parser::describe(const Token &T) {
  switch (T.Kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Ident:
  case TokenKind::Int:
  case TokenKind::Float:
    return "'" + std::string(T.Text) + "'";
  default:
    return std::string(tokenKindName(T.Kind));
  }
}

/// Reports that something is missing. When the next token is on a later line
/// (or there is none), the error points just past the previous token, where
/// the missing text belongs; otherwise at the unexpected token.
void Parser::errorExpected(const std::string &Msg) {
  const Token &T = tok();
  if (Pos > 0 &&
      (T.is(TokenKind::Eof) || T.loc().Line != prevTok().Range.End.Line)) {
    error(prevTok().Range.End, Msg);
    return;
  }
  error(T.loc(), Msg + ", found " + describe(T), T.Range);
}

/// Skips the rest of a broken statement: up to the first token that starts a
/// line (other than the statement's own first token), a '}' closing the
/// enclosing block, or a new op. Braces opened on the way are skipped whole.
void Parser::recover(size_t StmtStart) {
  int Nesting = 0;
  while (!is(TokenKind::Eof)) {
    const Token &T = tok();
    if (Nesting == 0 && Pos != StmtStart && T.AtLineStart)
      return;
    if (atItemStart() && Pos != StmtStart)
      return;
    if (T.is(TokenKind::RBrace)) {
      if (Nesting == 0)
        return;
      --Nesting;
    } else if (T.is(TokenKind::LBrace)) {
      ++Nesting;
    }
    ++Pos;
  }
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

void Parser::parseModule(Module &M) {
  while (!is(TokenKind::Eof)) {
    if (is(TokenKind::KwOp)) {
      parseOp(M);
      continue;
    }
    if (atItemStart()) {
      parseLayer(M);
      continue;
    }
    error(tok().loc(), "expected 'op' or 'layer', found " + describe(tok()),
          tok().Range);
    ++Pos;
    while (!is(TokenKind::Eof) && !atItemStart())
      ++Pos;
  }
}

void Parser::parseLayer(Module &M) {
  M.Layers.emplace_back();
  LayerDecl &L = M.Layers.back();
  take(); // `layer`
  const Token &Name = take();
  L.Name = std::string(Name.Text);
  L.NameRange = Name.Range;
  if (!is(TokenKind::LBrace)) {
    errorExpected("expected '{' to begin layer '" + L.Name + "'");
    L.HasSyntaxErrors = true;
    while (!is(TokenKind::Eof) && !atItemStart())
      ++Pos;
    return;
  }
  const Token &Open = take();
  while (!accept(TokenKind::RBrace)) {
    if (is(TokenKind::Eof) || atItemStart()) {
      errorExpected("expected '}' at end of layer '" + L.Name + "'");
      Diags.note(Open.loc(), "to match this '{'", Open.Range);
      L.HasSyntaxErrors = true;
      return;
    }
    if (!is(TokenKind::Ident)) {
      errorExpected("expected the name of an op, one stage of layer '" +
                    L.Name + "'");
      L.HasSyntaxErrors = true;
      take();
      continue;
    }
    const Token &Stage = take();
    L.Stages.push_back({std::string(Stage.Text), Stage.Range});
  }
}

void Parser::parseOp(Module &M) {
  M.Ops.emplace_back();
  OpDecl &Op = M.Ops.back();
  CurOp = &Op;
  const Token &Kw = take();
  Op.KeywordRange = Kw.Range;
  size_t FirstTok = Pos - 1;

  if (is(TokenKind::Ident)) {
    const Token &Name = take();
    Op.Name = std::string(Name.Text);
    Op.NameRange = Name.Range;
  } else {
    errorExpected("expected the op's name after 'op'");
    Op.NameRange = Kw.Range;
    // One error for one mistake: a keyword or other single token in the
    // name's place (`op sum {`) is the name's error only; go on at '{'.
    if (!is(TokenKind::LBrace) && !is(TokenKind::Eof) &&
        Pos + 1 < Toks.size() && Toks[Pos + 1].is(TokenKind::LBrace))
      ++Pos;
  }

  if (!is(TokenKind::LBrace)) {
    errorExpected("expected '{' to begin " + opLabel(Op));
    while (!is(TokenKind::Eof) && !atItemStart())
      ++Pos;
  } else {
    const Token &Open = take();
    while (true) {
      if (accept(TokenKind::RBrace))
        break;
      if (is(TokenKind::Eof) || atItemStart()) {
        if (!(is(TokenKind::Eof) && EofReported)) {
          errorExpected("expected '}' at end of " + opLabel(Op));
          Diags.note(Open.loc(), "to match this '{'", Open.Range);
        }
        break;
      }
      size_t Start = Pos;
      if (!parseOpItem(Op))
        recover(Start);
      if (Pos == Start)
        take();
    }
  }

  // A bad character inside the op (reported by the lexer) also spoils it.
  SourceLoc Begin = Toks[FirstTok].loc();
  SourceLoc End = prevTok().Range.End;
  for (SourceLoc L : LexErrors)
    if (!before(L, Begin) && before(L, End))
      Op.HasSyntaxErrors = true;
  CurOp = nullptr;
}

bool Parser::parseOpItem(OpDecl &Op) {
  switch (tok().Kind) {
  case TokenKind::KwIn:
  case TokenKind::KwOut:
    return parseParam(Op);
  case TokenKind::KwTune:
    return parseTune(Op);
  case TokenKind::Ident:
    if (peekTok().is(TokenKind::KwIn)) {
      error(tok().loc(),
            "tuning parameter '" + std::string(tok().Text) +
                "' must be declared inside a 'tune { ... }' block",
            tok().Range);
      return false;
    }
    // `mask causal`: a contextual word (a statement `mask[...] = ...`
    // assigns a tensor of that name).
    if (tok().Text == "mask" && peekTok().is(TokenKind::Ident))
      return parseMask(Op);
    if (tok().Text == "varlen" && peekTok().is(TokenKind::Ident))
      return parseVarlen(Op);
    return parseCompute(Op);
  case TokenKind::KwRequire:
    error(tok().loc(), "'require' must be inside a 'tune { ... }' block",
          tok().Range);
    return false;
  default:
    error(tok().loc(),
          "expected a parameter ('in' or 'out'), the computation or 'tune', "
          "found " +
              describe(tok()),
          tok().Range);
    return false;
  }
}

bool Parser::parseParam(OpDecl &Op) {
  ParamDecl P;
  const Token &Kw = take();
  P.IsOutput = Kw.is(TokenKind::KwOut);
  const char *Dir = P.IsOutput ? "'out'" : "'in'";
  if (!is(TokenKind::Ident)) {
    errorExpected(std::string("expected a parameter name after ") + Dir);
    return false;
  }
  const Token &Name = take();
  P.Name = std::string(Name.Text);
  P.NameRange = Name.Range;
  if (!accept(TokenKind::Colon)) {
    errorExpected("expected ':' and a dtype after '" + P.Name + "'");
    return false;
  }
  if (!is(TokenKind::Ident)) {
    errorExpected("expected a dtype for '" + P.Name + "'");
    return false;
  }
  const Token &Type = take();
  P.TypeName = std::string(Type.Text);
  P.TypeRange = Type.Range;
  if (is(TokenKind::LBracket)) {
    const Token &Open = take();
    if (is(TokenKind::RBracket)) {
      error(Open.loc(),
            "empty shape for '" + P.Name +
                "'; a rank-0 tensor is declared without brackets",
            {Open.loc(), tok().Range.End});
      return false;
    }
    while (true) {
      if (!parseDim(P))
        return false;
      if (accept(TokenKind::Comma))
        continue;
      if (accept(TokenKind::RBracket))
        break;
      errorExpected("expected ',' or ']' in the shape of '" + P.Name + "'");
      return false;
    }
  }
  // `grouped G`, `offsets` or `masked`: contextual words (a statement
  // `grouped[...] = ...` or `offsets = ...` assigns a tensor of that name).
  auto IsWord = [&](const char *W) {
    return is(TokenKind::Ident) && tok().Text == W &&
           !peekTok().is(TokenKind::LBracket) &&
           !peekTok().is(TokenKind::Assign);
  };
  if (IsWord("offsets") || IsWord("masked")) {
    const Token &Word = take();
    (Word.Text == "offsets" ? P.GroupOffsets : P.GroupMasked) = true;
    P.GroupRange = Word.Range;
    // `masked expect T`: T names the expected valid rows per expert.
    if (P.GroupMasked && IsWord("expect")) {
      take();
      if (!is(TokenKind::Ident)) {
        errorExpected("expected the size symbol of the expected valid rows "
                      "per expert after 'expect', like 'masked expect T'");
        return false;
      }
      const Token &Sym = take();
      P.GroupExpect = Sym.Text;
      P.ExpectRange = Sym.Range;
    }
  } else if (is(TokenKind::Ident) && tok().Text == "grouped" &&
             !peekTok().is(TokenKind::LBracket) &&
             !peekTok().is(TokenKind::Assign)) {
    const Token &Word = take();
    if (!is(TokenKind::Int)) {
      errorExpected("expected the group alignment (an integer number of "
                    "rows) after 'grouped'");
      return false;
    }
    const Token &Align = take();
    P.GroupAlign = Align.IntValue;
    P.GroupRange = {Word.loc(), Align.Range.End};
  }
  // `... topk TK` after any group form: the experts each token chose.
  if ((P.GroupOffsets || P.GroupAlign || P.GroupMasked) && IsWord("topk")) {
    take();
    if (!is(TokenKind::Ident)) {
      errorExpected("expected the size symbol of the experts each token is "
                    "routed to after 'topk', like 'grouped 128 topk TK'");
      return false;
    }
    const Token &Sym = take();
    P.GroupTopK = Sym.Text;
    P.TopKRange = Sym.Range;
  }
  if ((P.GroupOffsets || P.GroupAlign) && IsWord("expect")) {
    error(tok().loc(),
          "'expect' gives the expected valid rows per expert of a masked "
          "layout's counts ('in cnt : i32[E] masked expect T'); '" +
              P.Name + "' is not declared masked",
          tok().Range);
    return false;
  }
  if ((P.GroupOffsets || P.GroupAlign || P.GroupMasked) &&
      is(TokenKind::Ident) &&
      (tok().Text == "grouped" || tok().Text == "offsets" ||
       tok().Text == "masked")) {
    error(tok().loc(),
          "an index tensor holds an expert per row ('grouped G'), "
          "each expert's end row ('offsets') or each expert's "
          "valid rows ('masked'): one of them",
          tok().Range);
    return false;
  }
  P.Range = {Kw.loc(), prevTok().Range.End};
  Op.Params.push_back(std::move(P));
  return true;
}

bool Parser::parseDim(ParamDecl &P) {
  ShapeDimDecl D;
  if (is(TokenKind::Int)) {
    const Token &T = take();
    D.Constant = T.IntValue;
    D.Range = T.Range;
  } else if (is(TokenKind::Ident)) {
    const Token &T = take();
    D.Sym = std::string(T.Text);
    D.Range = T.Range;
    if (accept(TokenKind::Slash)) {
      if (!is(TokenKind::Int)) {
        errorExpected("expected an integer block size after '/'");
        return false;
      }
      const Token &Div = take();
      D.Divisor = Div.IntValue;
      D.Range.End = Div.Range.End;
    }
  } else {
    errorExpected("expected a dimension (a symbol such as 'M', an integer, "
                  "or 'K / 128')");
    return false;
  }
  P.Shape.push_back(D);
  return true;
}

bool Parser::parseCompute(OpDecl &Op) {
  ComputeStmt S;
  ExprPtr Lhs = parsePostfix();
  if (!Lhs)
    return false;
  if (!is(TokenKind::Assign)) {
    errorExpected("expected '=' after '" + exprToString(*Lhs) + "'");
    return false;
  }
  S.AssignLoc = take().loc();
  ExprPtr Rhs = parseExpr();
  if (!Rhs)
    return false;
  S.Range = {Lhs->Range.Begin, Rhs->Range.End};
  S.Lhs = std::move(Lhs);
  S.Rhs = std::move(Rhs);
  Op.Computes.push_back(std::move(S));
  return true;
}

bool Parser::parseMask(OpDecl &Op) {
  MaskDecl Mk;
  const Token &Kw = take();
  const Token &Kind = take();
  Mk.KindRange = Kind.Range;
  Mk.Range = {Kw.loc(), Kind.Range.End};
  if (Kind.Text == "causal") {
    Mk.K = MaskDecl::Kind::Causal;
  } else if (Kind.Text == "window") {
    Mk.K = MaskDecl::Kind::Window;
    int64_t *Sides[] = {&Mk.Left, &Mk.Right};
    for (int I = 0; I < 2; ++I) {
      if (I == 1 && !accept(TokenKind::Comma))
        break;
      if (!is(TokenKind::Int)) {
        errorExpected(I == 0 ? "expected the keys a query sees before its "
                               "diagonal after 'window', like 'mask window "
                               "256' or 'mask window 256, 0'"
                             : "expected the keys a query sees after its "
                               "diagonal after ',', like 'mask window 256, "
                               "0'");
        return false;
      }
      const Token &N = take();
      *Sides[I] = N.IntValue;
      Mk.Range.End = N.Range.End;
    }
    if (Mk.Right < 0)
      Mk.Right = 0;
  } else {
    error(Kind.loc(),
          "unknown mask '" + std::string(Kind.Text) +
              "'; an attention op's mask is 'causal', 'window L' (causal, "
              "the last L + 1 keys) or 'window L, R'",
          Kind.Range);
    return false;
  }
  Op.Masks.push_back(Mk);
  return true;
}

bool Parser::parseVarlen(OpDecl &Op) {
  VarlenDecl V;
  const Token &Kw = take();
  const Token &Queries = take();
  V.Queries = std::string(Queries.Text);
  V.QueriesRange = Queries.Range;
  if (!accept(TokenKind::Comma) || !is(TokenKind::Ident)) {
    errorExpected("expected ',' and the keys' offsets after the queries', "
                  "like 'varlen cu_q, cu_k'");
    return false;
  }
  const Token &Keys = take();
  V.Keys = std::string(Keys.Text);
  V.KeysRange = Keys.Range;
  V.Range = {Kw.loc(), Keys.Range.End};
  Op.Varlens.push_back(V);
  return true;
}

bool Parser::parseTune(OpDecl &Op) {
  TuneBlock TB;
  const Token &Kw = take();
  TB.KeywordRange = Kw.Range;
  if (!is(TokenKind::LBrace)) {
    errorExpected("expected '{' after 'tune'");
    return false;
  }
  const Token &Open = take();
  while (true) {
    if (accept(TokenKind::RBrace))
      break;
    if (is(TokenKind::Eof) || (is(TokenKind::KwOp) && tok().AtLineStart)) {
      errorExpected("expected '}' at end of the tune block");
      Diags.note(Open.loc(), "to match this '{'", Open.Range);
      EofReported = is(TokenKind::Eof);
      Op.Tunes.push_back(std::move(TB));
      return true; // Nothing left to skip.
    }
    size_t Start = Pos;
    bool Ok;
    if (is(TokenKind::KwRequire)) {
      Ok = parseRequire(TB);
    } else if (is(TokenKind::Ident)) {
      Ok = parseKnob(TB);
    } else {
      error(tok().loc(),
            "expected a tuning parameter ('name in [...]' or 'name = value') "
            "or 'require', found " +
                describe(tok()),
            tok().Range);
      Ok = false;
    }
    if (!Ok)
      recover(Start);
    if (Pos == Start)
      take();
  }
  Op.Tunes.push_back(std::move(TB));
  return true;
}

bool Parser::parseKnob(TuneBlock &TB) {
  KnobDecl K;
  const Token &Name = take();
  K.Name = std::string(Name.Text);
  K.NameRange = Name.Range;
  if (accept(TokenKind::KwIn)) {
    if (!is(TokenKind::LBracket)) {
      errorExpected("expected '[' to begin the values of '" + K.Name + "'");
      return false;
    }
    const Token &Open = take();
    if (!is(TokenKind::RBracket)) {
      while (true) {
        if (!parseTuneValue(K))
          return false;
        if (accept(TokenKind::Comma))
          continue;
        if (is(TokenKind::RBracket))
          break;
        errorExpected("expected ',' or ']' in the values of '" + K.Name + "'");
        return false;
      }
    }
    const Token &Close = take();
    K.ValuesRange = {Open.loc(), Close.Range.End};
  } else if (accept(TokenKind::Assign)) {
    K.IsFixed = true;
    if (!parseTuneValue(K))
      return false;
    K.ValuesRange = K.Values.back().Range;
  } else {
    errorExpected("expected 'in [...]' or '= value' after '" + K.Name + "'");
    return false;
  }
  TB.Knobs.push_back(std::move(K));
  return true;
}

bool Parser::parseTuneValue(KnobDecl &K) {
  TuneValueDecl V;
  if (is(TokenKind::Minus) && peekTok().is(TokenKind::Int)) {
    SourceLoc Begin = take().loc();
    const Token &T = take();
    V.Value = -T.IntValue;
    V.Range = {Begin, T.Range.End};
  } else if (is(TokenKind::Int)) {
    const Token &T = take();
    V.Value = T.IntValue;
    V.Range = T.Range;
  } else if (is(TokenKind::Ident)) {
    const Token &T = take();
    V.Value = std::string(T.Text);
    V.Range = T.Range;
  } else {
    errorExpected("expected an integer or an identifier as a value of '" +
                  K.Name + "'");
    return false;
  }
  K.Values.push_back(std::move(V));
  return true;
}

/// The source of tokens [FirstTok, EndTok) with every gap (blanks, comments,
/// newlines) collapsed to one space.
std::string Parser::sourceText(size_t FirstTok, size_t EndTok) const {
  std::string Out;
  for (size_t I = FirstTok; I < EndTok; ++I) {
    if (I != FirstTok &&
        Toks[I].Offset != Toks[I - 1].Offset + Toks[I - 1].Text.size())
      Out += ' ';
    Out += Toks[I].Text;
  }
  return Out;
}

bool Parser::parseRequire(TuneBlock &TB) {
  RequireDecl R;
  const Token &Kw = take();
  size_t First = Pos;
  ExprPtr E = parseExpr();
  if (!E)
    return false;
  R.Text = sourceText(First, Pos);
  R.Range = {Kw.loc(), E->Range.End};
  R.Cond = std::move(E);
  TB.Requires.push_back(std::move(R));
  return true;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Binary operators by level, loosest first.
Expr::OpKind binaryOp(TokenKind K, unsigned Level) {
  using OK = Expr::OpKind;
  switch (Level) {
  case 0:
    return K == TokenKind::PipePipe ? OK::Or : OK::None;
  case 1:
    return K == TokenKind::AmpAmp ? OK::And : OK::None;
  case 2:
    return K == TokenKind::EqEq    ? OK::Eq
           : K == TokenKind::NotEq ? OK::Ne
                                   : OK::None;
  case 3:
    return K == TokenKind::Less        ? OK::Lt
           : K == TokenKind::LessEq    ? OK::Le
           : K == TokenKind::Greater   ? OK::Gt
           : K == TokenKind::GreaterEq ? OK::Ge
                                       : OK::None;
  case 4:
    return K == TokenKind::Plus    ? OK::Add
           : K == TokenKind::Minus ? OK::Sub
                                   : OK::None;
  case 5:
    return K == TokenKind::Star      ? OK::Mul
           : K == TokenKind::Slash   ? OK::Div
           : K == TokenKind::Percent ? OK::Mod
                                     : OK::None;
  default:
    return OK::None;
  }
}
constexpr unsigned UnaryLevel = 6;

ExprPtr Parser::parseBinary(unsigned Level) {
  if (Level == UnaryLevel)
    return parseUnary();
  ExprPtr L = parseBinary(Level + 1);
  if (!L)
    return nullptr;
  while (true) {
    Expr::OpKind Op = binaryOp(tok().Kind, Level);
    if (Op == Expr::OpKind::None)
      return L;
    SourceLoc OpLoc = take().loc();
    ExprPtr R = parseBinary(Level + 1);
    if (!R)
      return nullptr;
    ExprPtr B =
        makeExpr(Expr::Kind::Binary, OpLoc, {L->Range.Begin, R->Range.End});
    B->Op = Op;
    B->Args.push_back(std::move(L));
    B->Args.push_back(std::move(R));
    if (!setHeight(*B))
      return nullptr;
    L = std::move(B);
  }
}

namespace {
/// Counts nesting depth for the lifetime of a parse call.
struct DepthGuard {
  unsigned &D;
  explicit DepthGuard(unsigned &D) : D(D) { ++D; }
  ~DepthGuard() { --D; }
};
} // namespace

/// Sets E.Height from its operands; false after an error when the tree
/// would be taller than MaxExprHeight.
bool Parser::setHeight(Expr &E) {
  unsigned Below = 0;
  for (const ExprPtr &A : E.Args)
    Below = std::max(Below, A->Height);
  E.Height = Below + 1;
  if (E.Height <= MaxExprHeight)
    return true;
  error(E.Loc, "expression is too large: more than " +
                   std::to_string(MaxExprHeight) +
                   " operations nested (each operator of a chain such as "
                   "'a + b + c' nests one more)");
  return false;
}

ExprPtr Parser::parseUnary() {
  DepthGuard G(Depth);
  if (Depth > MaxExprDepth) {
    error(tok().loc(), "expression is nested too deeply", tok().Range);
    return nullptr;
  }
  if (is(TokenKind::Minus) || is(TokenKind::Bang)) {
    const Token &OpTok = take();
    ExprPtr Operand = parseUnary();
    if (!Operand)
      return nullptr;
    ExprPtr U = makeExpr(Expr::Kind::Unary, OpTok.loc(),
                         {OpTok.loc(), Operand->Range.End});
    U->Op = OpTok.is(TokenKind::Minus) ? Expr::OpKind::Neg : Expr::OpKind::Not;
    U->Args.push_back(std::move(Operand));
    return setHeight(*U) ? std::move(U) : nullptr;
  }
  if (is(TokenKind::KwSum))
    return parseSum();
  return parsePostfix();
}

/// `sum(k) term`: the body is a multiplicative expression, so
/// `sum(k) a * b + c` is `(sum(k) a * b) + c`.
ExprPtr Parser::parseSum() {
  const Token &Kw = take();
  if (!accept(TokenKind::LParen)) {
    errorExpected("expected '(' after 'sum'");
    return nullptr;
  }
  if (!is(TokenKind::Ident)) {
    errorExpected("expected the reduction index after 'sum('");
    return nullptr;
  }
  const Token &Index = take();
  if (is(TokenKind::Comma)) {
    error(tok().loc(), "sum(...) reduces over exactly one index", tok().Range);
    return nullptr;
  }
  if (!accept(TokenKind::RParen)) {
    errorExpected("expected ')' after the reduction index");
    return nullptr;
  }
  ExprPtr Body = parseBinary(UnaryLevel - 1);
  if (!Body)
    return nullptr;
  ExprPtr S = makeExpr(Expr::Kind::Sum, Kw.loc(), {Kw.loc(), Body->Range.End});
  S->Name = std::string(Index.Text);
  S->NameRange = Index.Range;
  S->Args.push_back(std::move(Body));
  return setHeight(*S) ? std::move(S) : nullptr;
}

bool Parser::parseArgList(Expr &E, TokenKind Close, const char *What) {
  const Token &Open = prevTok();
  if (accept(Close)) {
    E.Range.End = prevTok().Range.End;
    return true;
  }
  while (true) {
    ExprPtr Arg = parseExpr();
    if (!Arg)
      return false;
    E.Args.push_back(std::move(Arg));
    if (accept(TokenKind::Comma))
      continue;
    if (accept(Close)) {
      E.Range.End = prevTok().Range.End;
      return true;
    }
    errorExpected(std::string("expected ',' or ") +
                  std::string(tokenKindName(Close)) + " after " + What);
    Diags.note(Open.loc(),
               "to match this " + std::string(tokenKindName(Open.Kind)),
               Open.Range);
    return false;
  }
}

ExprPtr Parser::parsePostfix() {
  const Token &T = tok();
  switch (T.Kind) {
  case TokenKind::Int: {
    take();
    ExprPtr E = makeExpr(Expr::Kind::Int, T.loc(), T.Range);
    E->IntValue = T.IntValue;
    return E;
  }
  case TokenKind::Float: {
    take();
    ExprPtr E = makeExpr(Expr::Kind::Float, T.loc(), T.Range);
    E->FloatValue = T.FloatValue;
    return E;
  }
  case TokenKind::Ident: {
    take();
    ExprPtr E = makeExpr(Expr::Kind::Name, T.loc(), T.Range);
    E->Name = std::string(T.Text);
    E->NameRange = T.Range;
    if (accept(TokenKind::LBracket)) {
      E->K = Expr::Kind::Subscript;
      if (is(TokenKind::RBracket)) {
        error(tok().loc(), "expected an index inside '[]'", tok().Range);
        return nullptr;
      }
      if (!parseArgList(*E, TokenKind::RBracket, "the index"))
        return nullptr;
    } else if (accept(TokenKind::LParen)) {
      E->K = Expr::Kind::Call;
      if (!parseArgList(*E, TokenKind::RParen, "the argument"))
        return nullptr;
    }
    return setHeight(*E) ? std::move(E) : nullptr;
  }
  case TokenKind::LParen: {
    const Token &Open = take();
    ExprPtr Inner = parseExpr();
    if (!Inner)
      return nullptr;
    if (!accept(TokenKind::RParen)) {
      errorExpected("expected ')'");
      Diags.note(Open.loc(), "to match this '('", Open.Range);
      return nullptr;
    }
    Inner->Range = {Open.loc(), prevTok().Range.End};
    return Inner;
  }
  default:
    errorExpected("expected an expression");
    return nullptr;
  }
}

} // namespace

std::unique_ptr<Module> parseModule(std::string_view FileName,
                                    std::string_view Text,
                                    DiagnosticEngine &Diags) {
  Diags.setSource(std::string(FileName), std::string(Text));
  size_t Before = Diags.diagnostics().size();
  std::vector<Token> Tokens = lex(Text, Diags);
  std::vector<SourceLoc> LexErrors;
  const auto &All = Diags.diagnostics();
  for (size_t I = Before; I < All.size(); ++I)
    if (All[I].Severity == DiagSeverity::Error)
      LexErrors.push_back(All[I].Loc);

  auto M = std::make_unique<Module>();
  M->FileName = std::string(FileName);
  Parser(std::move(Tokens), Diags, std::move(LexErrors)).parseModule(*M);
  return M;
}

} // namespace kiln
