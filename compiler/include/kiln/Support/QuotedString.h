//===- QuotedString.h - A string literal valid in JSON and TOML -*- C++ -*-===//
#ifndef KILN_SUPPORT_QUOTEDSTRING_H
#define KILN_SUPPORT_QUOTEDSTRING_H

#include <cstdio>
#include <string>
#include <string_view>

namespace kiln {

/// S in double quotes, readable as a JSON string and as a TOML basic string:
/// `"` and `\` escaped, \n \t \r by name, other control characters and DEL
/// as \u00XX; everything else (UTF-8 included) as is.
inline std::string quotedString(std::string_view S) {
  std::string Out = "\"";
  for (unsigned char C : S) {
    switch (C) {
    case '"':
      Out += "\\\"";
      break;
    case '\\':
      Out += "\\\\";
      break;
    case '\n':
      Out += "\\n";
      break;
    case '\t':
      Out += "\\t";
      break;
    case '\r':
      Out += "\\r";
      break;
    default:
      if (C < 0x20 || C == 0x7f) {
        char Buf[8];
        std::snprintf(Buf, sizeof(Buf), "\\u%04X", C);
        Out += Buf;
      } else {
        Out += char(C);
      }
    }
  }
  return Out + "\"";
}

} // namespace kiln

#endif // KILN_SUPPORT_QUOTEDSTRING_H
