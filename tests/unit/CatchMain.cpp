//===- CatchMain.cpp - The unit-test runner's main ------------------------===//
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
