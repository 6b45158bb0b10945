//===- TomlHazard.h - Text that TOML++ 3.3 cannot read safely ---*- C++ -*-===//
//
// Internal to tuner/lib. TOML++ 3.3.0 (Debian bookworm's) asks whether a
// character is horizontal whitespace wherever whitespace may appear, and for
// about 3000 non-ASCII code points (U+00A1-U+0499, U+2C5E-U+3057 but
// U+3000, U+FB26-U+FEFE) that question reaches __builtin_unreachable():
// undefined behaviour, on a damaged file (upstream marzer/tomlplusplus#190,
// #295, fixed by #305 after 3.3.0). Such a character is read safely only
// inside a string or a comment, except right after a backslash in a
// multi-line basic string (optionally after whitespace and line breaks).
// findTomlHazard finds the first one elsewhere, following TOML's strings and
// comments, so the reader can refuse the file before TOML++ sees it. Bytes
// that are not UTF-8 end the scan: TOML++ stops there with an error itself.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_LIB_TOMLHAZARD_H
#define KILN_TUNER_LIB_TOMLHAZARD_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln::tuner {

struct TomlHazard {
  uint32_t Line = 1, Column = 1; ///< 1-based; columns count code points
  char32_t CodePoint = 0;
  bool AfterBackslash = false; ///< in a multi-line string, after a '\'
};

/// Whether TOML++ 3.3's whitespace check is undefined for C.
bool isTomlHazardCodePoint(char32_t C);

/// The first character of Text that TOML++ 3.3 would mishandle.
std::optional<TomlHazard> findTomlHazard(std::string_view Text);

} // namespace kiln::tuner

#endif // KILN_TUNER_LIB_TOMLHAZARD_H
