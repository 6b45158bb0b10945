//===- ExampleFiles.h - Read examples/ from unit tests ----------*- C++ -*-===//
#ifndef KILN_TESTS_UNIT_EXAMPLEFILES_H
#define KILN_TESTS_UNIT_EXAMPLEFILES_H

#include <catch2/catch.hpp>

#include "kiln/Frontend/Frontend.h"

#include <fstream>
#include <sstream>
#include <string>

namespace kiln::test {

/// The text of examples/NAME, found relative to this header.
inline std::string readExample(const std::string &Name) {
  std::string Here = __FILE__;
  std::string Root = Here.substr(0, Here.rfind("tests/unit/"));
  std::ifstream In(Root + "examples/" + Name);
  INFO("reading " << Root << "examples/" << Name);
  REQUIRE(In.good());
  std::ostringstream OS;
  OS << In.rdbuf();
  return OS.str();
}

/// The one op of examples/NAME, checked (the test fails otherwise).
inline OpModel exampleOp(const std::string &Name) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(Name, readExample(Name), Diags);
  REQUIRE(Ops.size() == 1);
  return std::move(Ops.front());
}

} // namespace kiln::test

#endif // KILN_TESTS_UNIT_EXAMPLEFILES_H
