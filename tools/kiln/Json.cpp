//===- Json.cpp - The JSON the CLI prints ---------------------------------===//
#include "Json.h"

#include "kiln/Support/QuotedString.h"

#include <cmath>
#include <cstdio>
#include <iostream>

namespace kiln::cli {

std::string shapeJson(const ProblemSize &Size) {
  std::string Out = "{";
  for (const ProblemSize::Entry &E : Size.entries())
    Out += (Out.size() > 1 ? ", " : "") + jsonString(E.Sym) + ": " +
           std::to_string(E.Extent);
  return Out + "}";
}

std::string jsonString(const std::string &S) { return quotedString(S); }

std::string textNumber(double V) {
  if (std::isnan(V))
    return "nan";
  if (std::isinf(V))
    return V > 0 ? "inf" : "-inf";
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

std::string jsonNumber(double V) {
  return std::isfinite(V) ? textNumber(V) : "\"" + textNumber(V) + "\"";
}

std::string countText(size_t N, const std::string &One,
                      const std::string &Many) {
  return std::to_string(N) + " " + (N == 1 ? One : Many);
}

std::string flopRateText(double Tflops) {
  if (!std::isfinite(Tflops))
    return textNumber(Tflops) + " TFLOP/s";
  const char *Unit = "TFLOP/s";
  double V = Tflops;
  if (std::fabs(V) < 1e-3) {
    V *= 1e6;
    Unit = "MFLOP/s";
  } else if (std::fabs(V) < 1) {
    V *= 1e3;
    Unit = "GFLOP/s";
  }
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.4g %s", V, Unit);
  return Buf;
}

std::string byteRateText(double BytesPerSec) {
  char Buf[64];
  if (!std::isfinite(BytesPerSec))
    return textNumber(BytesPerSec) + " GB/s";
  if (BytesPerSec >= 1e12)
    std::snprintf(Buf, sizeof(Buf), "%.4g TB/s", BytesPerSec / 1e12);
  else
    std::snprintf(Buf, sizeof(Buf), "%.4g GB/s", BytesPerSec / 1e9);
  return Buf;
}

std::string speedupText(double DefaultSeconds, double TunedSeconds) {
  double Ratio = DefaultSeconds / TunedSeconds;
  if (!std::isfinite(Ratio))
    return "not comparable with the default";
  if (std::fabs(Ratio - 1) < 0.005)
    return "as fast as the default";
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.2fx as fast as the default", Ratio);
  return Buf;
}

void printJsonError(const std::string &Kind, const std::string &Message) {
  std::cout << "{\"error\": {\"kind\": " << jsonString(Kind)
            << ", \"message\": " << jsonString(Message) << "}}\n";
}

} // namespace kiln::cli
