//===- Diagnostics.h - User-facing errors and notes -------------*- C++ -*-===//
//
// The DiagnosticEngine collects the errors and notes the front end reports
// about a user's .kiln file and renders them the way compilers do:
//
//   gemm.kiln:9:14: error: unknown tensor 'Bx'; did you mean 'B'?
//     D[m, n] = sum(k) A[m, k] * Bx[n, k]
//                                ^~
//   gemm.kiln:5:7: note: 'B' is declared here
//
// These are errors in the user's input; internal invariant failures are
// asserts, never diagnostics.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_DIAGNOSTICS_H
#define KILN_FRONTEND_DIAGNOSTICS_H

#include "kiln/Frontend/SourceLoc.h"
#include "kiln/Frontend/SourceRange.h"

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

enum class DiagSeverity { Error, Warning, Note };

/// One reported message. Notes belong to the error or warning before them.
struct Diagnostic {
  DiagSeverity Severity = DiagSeverity::Error;
  unsigned File = 0; ///< Index of the source buffer (see setSource).
  SourceLoc Loc;     ///< Where the caret goes; invalid = no position.
  SourceRange Range; ///< Optional span underlined with '~'.
  std::string Message;
};

/// Collects diagnostics for one or more source buffers and prints them.
class DiagnosticEngine {
public:
  DiagnosticEngine();

  /// Registers a source buffer; diagnostics reported from now on refer to it.
  /// The text is copied so that source lines can be shown later.
  void setSource(std::string FileName, std::string Text);

  /// Reports an error at Loc, optionally underlining Range.
  void error(SourceLoc Loc, std::string Message, SourceRange Range = {});
  void error(SourceRange Range, std::string Message) {
    error(Range.Begin, std::move(Message), Range);
  }
  /// Reports a warning (does not make hasErrors() true).
  void warning(SourceLoc Loc, std::string Message, SourceRange Range = {});
  /// Attaches a note to the last error or warning.
  void note(SourceLoc Loc, std::string Message, SourceRange Range = {});
  void note(SourceRange Range, std::string Message) {
    note(Range.Begin, std::move(Message), Range);
  }

  bool hasErrors() const { return NumErrors != 0; }
  unsigned errorCount() const { return NumErrors; }
  unsigned warningCount() const { return NumWarnings; }

  /// After this many errors further ones are dropped and a single
  /// "too many errors" error is recorded. 0 = no limit. Default 20.
  void setErrorLimit(unsigned Limit) { ErrorLimit = Limit; }

  /// When set, every diagnostic is also printed to OS as it is reported.
  void setStream(std::ostream *OS) { Stream = OS; }

  const std::vector<Diagnostic> &diagnostics() const { return Diags; }

  /// Prints one diagnostic: the "file:line:col: kind: message" line and, when
  /// it has a position, the source line and a caret line.
  void print(const Diagnostic &D, std::ostream &OS) const;
  /// Prints every collected diagnostic in order.
  void printAll(std::ostream &OS) const;
  /// All diagnostics as printAll would write them.
  std::string str() const;

  /// The name of the buffer a diagnostic refers to ("<input>" if none).
  std::string_view fileName(const Diagnostic &D) const;

private:
  struct Buffer {
    std::string Name;
    std::string Text;
    std::vector<size_t> LineStarts;
  };
  void report(DiagSeverity Severity, SourceLoc Loc, std::string Message,
              SourceRange Range);
  std::string_view lineText(const Buffer &B, unsigned Line) const;

  std::vector<Buffer> Buffers;
  std::vector<Diagnostic> Diags;
  unsigned NumErrors = 0;
  unsigned NumWarnings = 0;
  unsigned ErrorLimit = 20;
  bool Suppressing = false; ///< Drop notes of a dropped error.
  bool LimitReported = false;
  std::ostream *Stream = nullptr;
};

} // namespace kiln

#endif // KILN_FRONTEND_DIAGNOSTICS_H
