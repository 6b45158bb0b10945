//===- RouteMLIRGen.h - A route-family OpModel -> kiln.route ----*- C++ -*-===//
#ifndef KILN_CODEGEN_ROUTE_ROUTEMLIRGEN_H
#define KILN_CODEGEN_ROUTE_ROUTEMLIRGEN_H

#include "kiln/Frontend/OpModel.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln {

/// The module of a route-family Op (its dialects already loaded in Ctx): one
/// func.func over the op's tensors holding one kiln.route.
mlir::OwningOpRef<mlir::ModuleOp>
generateRouteModule(mlir::MLIRContext &Ctx, const OpModel &Op,
                    const std::string &FileName);

} // namespace kiln

#endif // KILN_CODEGEN_ROUTE_ROUTEMLIRGEN_H
