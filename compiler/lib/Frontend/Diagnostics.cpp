//===- Diagnostics.cpp - User-facing errors and notes ---------------------===//
//
// Collecting diagnostics, the error limit, and rendering a diagnostic with its
// source line and caret/range markers.
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/Diagnostics.h"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <tuple>

namespace kiln {

DiagnosticEngine::DiagnosticEngine() = default;

void DiagnosticEngine::setSource(std::string FileName, std::string Text) {
  if (!Buffers.empty() && Buffers.back().Name == FileName &&
      Buffers.back().Text == Text)
    return; // Already the current buffer.
  Buffer B;
  B.Name = std::move(FileName);
  B.Text = std::move(Text);
  B.LineStarts.push_back(0);
  for (size_t I = 0; I < B.Text.size(); ++I)
    if (B.Text[I] == '\n')
      B.LineStarts.push_back(I + 1);
  Buffers.push_back(std::move(B));
}

void DiagnosticEngine::error(SourceLoc Loc, std::string Message,
                             SourceRange Range) {
  report(DiagSeverity::Error, Loc, std::move(Message), Range);
}

void DiagnosticEngine::warning(SourceLoc Loc, std::string Message,
                               SourceRange Range) {
  report(DiagSeverity::Warning, Loc, std::move(Message), Range);
}

void DiagnosticEngine::note(SourceLoc Loc, std::string Message,
                            SourceRange Range) {
  report(DiagSeverity::Note, Loc, std::move(Message), Range);
}

static const char *const ErrorLimitMessage =
    "too many errors emitted, stopping now";

void DiagnosticEngine::report(DiagSeverity Severity, SourceLoc Loc,
                              std::string Message, SourceRange Range) {
  if (Severity == DiagSeverity::Note) {
    if (Suppressing)
      return;
  } else if (Severity == DiagSeverity::Error && ErrorLimit != 0 &&
             NumErrors >= ErrorLimit) {
    Suppressing = true;
    if (LimitReported)
      return;
    LimitReported = true;
    Severity = DiagSeverity::Error;
    Loc = SourceLoc();
    Range = SourceRange();
    Message = ErrorLimitMessage;
  } else {
    Suppressing = false;
  }

  Diagnostic D;
  D.Severity = Severity;
  D.File = Buffers.empty() ? 0 : unsigned(Buffers.size() - 1);
  D.Loc = Loc;
  D.Range = Range;
  D.Message = std::move(Message);
  if (Severity == DiagSeverity::Error)
    ++NumErrors;
  else if (Severity == DiagSeverity::Warning)
    ++NumWarnings;
  Diags.push_back(std::move(D));
  if (Stream)
    print(Diags.back(), *Stream);
}

std::string_view DiagnosticEngine::fileName(const Diagnostic &D) const {
  if (D.File < Buffers.size())
    return Buffers[D.File].Name;
  return "<input>";
}

std::string_view DiagnosticEngine::lineText(const Buffer &B,
                                            unsigned Line) const {
  if (Line == 0 || Line > B.LineStarts.size())
    return {};
  size_t Start = B.LineStarts[Line - 1];
  size_t End = B.Text.find('\n', Start);
  if (End == std::string::npos)
    End = B.Text.size();
  std::string_view Text(B.Text.data() + Start, End - Start);
  if (!Text.empty() && Text.back() == '\r')
    Text.remove_suffix(1);
  return Text;
}

static const char *severityName(DiagSeverity S) {
  switch (S) {
  case DiagSeverity::Error:
    return "error";
  case DiagSeverity::Warning:
    return "warning";
  case DiagSeverity::Note:
    return "note";
  }
  return "error";
}

/// Lines longer than this are shown as a window around the caret.
static constexpr size_t MaxShownLine = 160;

/// Replaces characters a terminal would misrender with '?' (the caret line
/// stays aligned because every byte maps to one column).
static std::string printable(std::string_view Line) {
  std::string Out(Line);
  for (char &C : Out) {
    unsigned char U = static_cast<unsigned char>(C);
    if (C != '\t' && (U < 0x20 || U == 0x7f))
      C = '?';
  }
  return Out;
}

void DiagnosticEngine::print(const Diagnostic &D, std::ostream &OS) const {
  OS << fileName(D) << ':';
  if (D.Loc.isValid())
    OS << D.Loc.Line << ':' << D.Loc.Col << ':';
  OS << ' ' << severityName(D.Severity) << ": " << D.Message << '\n';
  if (!D.Loc.isValid() || D.File >= Buffers.size())
    return;
  const Buffer &B = Buffers[D.File];
  if (D.Loc.Line > B.LineStarts.size())
    return;
  std::string_view Full = lineText(B, D.Loc.Line);

  // Columns [RangeBegin, RangeEnd) of this line get '~', the caret '^'.
  unsigned L = D.Loc.Line;
  unsigned Caret = D.Loc.Col;
  unsigned RangeBegin = 0, RangeEnd = 0;
  if (D.Range.isValid() && D.Range.Begin.Line <= L && D.Range.End.Line >= L) {
    RangeBegin = D.Range.Begin.Line < L ? 1 : D.Range.Begin.Col;
    RangeEnd = D.Range.End.Line > L ? unsigned(Full.size()) + 1
                                    : D.Range.End.Col;
  }
  // A very long line is shown as a window around the caret, "..." marking
  // what is cut, so one diagnostic never prints a whole huge line.
  std::string Shown;
  std::string_view Line = Full;
  if (Full.size() > MaxShownLine) {
    size_t From = Caret > MaxShownLine / 2 ? Caret - MaxShownLine / 2 : 0;
    while (From < Full.size() &&
           (static_cast<unsigned char>(Full[From]) & 0xC0) == 0x80)
      ++From;
    size_t To = std::min(Full.size(), From + MaxShownLine);
    while (To < Full.size() &&
           (static_cast<unsigned char>(Full[To]) & 0xC0) == 0x80)
      ++To;
    std::string Prefix = From > 0 ? "..." : "";
    Shown = Prefix + std::string(Full.substr(From, To - From)) +
            (To < Full.size() ? "..." : "");
    Line = Shown;
    auto Shift = [&](unsigned Col) {
      if (Col == 0)
        return 0u;
      long C = long(Col) - long(From) + long(Prefix.size());
      return unsigned(std::clamp(C, 1L, long(Line.size()) + 1));
    };
    Caret = Shift(Caret);
    RangeBegin = Shift(RangeBegin);
    RangeEnd = Shift(RangeEnd);
  }
  OS << printable(Line) << '\n';
  unsigned Width = std::max(Caret, RangeEnd > 0 ? RangeEnd - 1 : 0u);
  std::string Marks;
  for (unsigned Col = 1; Col <= Width; ++Col) {
    // One mark per character: UTF-8 continuation bytes take no column.
    if (Col <= Line.size() &&
        (static_cast<unsigned char>(Line[Col - 1]) & 0xC0) == 0x80)
      continue;
    char C = ' ';
    if (Col == Caret)
      C = '^';
    else if (Col >= RangeBegin && Col < RangeEnd)
      C = '~';
    else if (Col <= Line.size() && Line[Col - 1] == '\t')
      C = '\t';
    Marks += C;
  }
  while (!Marks.empty() && (Marks.back() == ' ' || Marks.back() == '\t'))
    Marks.pop_back();
  OS << Marks << '\n';
}

void DiagnosticEngine::printAll(std::ostream &OS) const {
  // In source order (file, line, column), each error or warning with the
  // notes that follow it; equal places keep the order they were reported.
  std::vector<std::pair<size_t, size_t>> Groups; // [begin, end) in Diags
  for (size_t I = 0; I < Diags.size(); ++I)
    if (Groups.empty() || Diags[I].Severity != DiagSeverity::Note)
      Groups.push_back({I, I + 1});
    else
      Groups.back().second = I + 1;
  auto Key = [&](const std::pair<size_t, size_t> &G) {
    const Diagnostic &D = Diags[G.first];
    // Whole-file problems first, then by place; the error limit's message
    // last of all.
    int Rank = D.Message == ErrorLimitMessage ? 2 : D.Loc.isValid() ? 1 : 0;
    return std::make_tuple(Rank == 2, D.File, Rank, D.Loc.Line, D.Loc.Col);
  };
  std::stable_sort(Groups.begin(), Groups.end(),
                   [&](const auto &L, const auto &R) { return Key(L) < Key(R); });
  for (const auto &[Begin, End] : Groups)
    for (size_t I = Begin; I < End; ++I)
      print(Diags[I], OS);
}

std::string DiagnosticEngine::str() const {
  std::ostringstream OS;
  printAll(OS);
  return OS.str();
}

} // namespace kiln
