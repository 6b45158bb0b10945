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

/// Op NAME of examples/FILE (which may define several), checked.
inline OpModel exampleOpNamed(const std::string &File,
                              const std::string &Name) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(File, readExample(File), Diags);
  for (OpModel &Op : Ops)
    if (Op.Name == Name)
      return std::move(Op);
  FAIL("no op " << Name << " in examples/" << File);
  return OpModel();
}

} // namespace kiln::test

#endif // KILN_TESTS_UNIT_EXAMPLEFILES_H
