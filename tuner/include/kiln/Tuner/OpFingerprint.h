//===- OpFingerprint.h - The identity of an op in the tuning cache -*- C++
//-*-=//
//
// A tuned result is only valid for the op it was measured on, compiled by
// the kiln that measured it. The fingerprint is a SHA-256 over a canonical
// text of the checked op (name, parameters with types and shapes, the
// contraction's operands, the epilogue tree) and the kiln version: what
// determines the kernel and its numerics. The tune block, comments, layout
// and the file's path do not enter it (a stored configuration must still
// be in the op's current space to be used).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_OPFINGERPRINT_H
#define KILN_TUNER_OPFINGERPRINT_H

#include "kiln/Frontend/OpModel.h"

#include <string>
#include <string_view>

namespace kiln {

/// The canonical text of Op: one line per fact, expressions fully
/// parenthesized in prefix form, numbers in one spelling. Two ops with the
/// same text compile to the same kernels.
std::string canonicalOpText(const OpModel &Op);

/// SHA-256 (64 lower-case hex digits) of "kiln-op-fingerprint 2", the kiln
/// version and canonicalOpText(Op).
std::string opFingerprint(const OpModel &Op, std::string_view KilnVersion);

/// opFingerprint with this build's version (kilnVersion()).
std::string opFingerprint(const OpModel &Op);

} // namespace kiln

#endif // KILN_TUNER_OPFINGERPRINT_H
