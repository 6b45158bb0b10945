//===- Suggest.h - "did you mean" for misspelled names ----------*- C++ -*-===//
//
// Finds the likely intended name for a typo (edit distance with adjacent
// transpositions), for messages such as "unknown tensor 'Bx'; did you mean
// 'B'?".
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_SUGGEST_H
#define KILN_FRONTEND_SUGGEST_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

/// Edit distance between A and B (insert, delete, substitute and swap of
/// adjacent characters each cost 1), ignoring case.
unsigned editDistance(std::string_view A, std::string_view B);

/// The candidate Name most likely is a typo of, or nullopt when none is
/// close enough. Ties go to the earlier candidate.
std::optional<std::string>
closestName(std::string_view Name, const std::vector<std::string> &Candidates);

/// "; did you mean 'X'?" when closestName finds one, else "".
std::string didYouMean(std::string_view Name,
                       const std::vector<std::string> &Candidates);

} // namespace kiln

#endif // KILN_FRONTEND_SUGGEST_H
