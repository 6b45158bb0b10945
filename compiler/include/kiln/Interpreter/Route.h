//===- Route.h - A router's top-k on the CPU, and its check -----*- C++ -*-===//
//
// The route family's interpreter and float64 check (OpFamily::Route,
// RouteSpec). interpretRoute follows templates/kiln/route/topk.cuh step by
// step in fp32 (the same sums in the same order, the same tie rule).
// checkRoute judges a router's outputs against float64 scores: a choice
// passes when it is a top-k of the float64 keys to within fp32's error (two
// experts whose keys are that close may come in either order, or either be
// chosen), and each weight is then compared with the float64 weight of the
// experts it chose.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_ROUTE_H
#define KILN_INTERPRETER_ROUTE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/HostTensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// Fills Params[Op.D] (weights) and Params[Op.Route->Ids] from the inputs,
/// as the kernel does. T, E, K: gemmDims(Op, Size).M, .K, .N.
void interpretRoute(const OpModel &Op, std::vector<HostTensor> &Params);

/// The outcome of checkRoute.
struct RouteCheck {
  bool Pass = true;
  int64_t Tokens = 0;        ///< Tokens checked (every one).
  int64_t BadChoices = 0;    ///< Tokens whose ids are not a float64 top-k.
  int64_t BadWeights = 0;    ///< Weights outside the tolerance.
  int64_t NonFinite = 0;     ///< Weights that are NaN or infinite.
  double MaxWeightError = 0; ///< The largest |w - ref| / (its tolerance).
  /// The largest tolerance of one key: two keys closer than the sum of
  /// theirs count as a tie.
  double KeyTolerance = 0;
  /// The first failure, in words ("token 17: slot 2 holds expert 9, but
  /// expert 4's key ... is larger"); empty when it passes.
  std::string FirstFailure;
};

/// The float64 weights of the experts Params[Op.Route->Ids] holds (0 for
/// a slot outside [0, E)): what w is for that choice, unrounded. A layer's
/// reference routes with the kernel's (checked) choice.
std::vector<double> routeWeights(const OpModel &Op,
                                 const std::vector<HostTensor> &Params);

/// Checks Params[Op.D] and Params[Op.Route->Ids] against the float64
/// scores of the inputs.
RouteCheck checkRoute(const OpModel &Op, const std::vector<HostTensor> &Params);

} // namespace kiln

#endif // KILN_INTERPRETER_ROUTE_H
