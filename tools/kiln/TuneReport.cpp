//===- TuneReport.cpp - What kiln tune prints -----------------------------===//
#include "TuneReport.h"

#include "Json.h"
#include "TuneProgress.h"

#include "kiln/Target/TuningSpace.h"

namespace kiln::cli {

namespace {

void printJson(const TuneOutcome &O, std::ostream &OS) {
  size_t Failed = 0;
  for (const auto &[Kind, N] : O.Failures)
    Failed += N;
  OS << "{\"op\": " << jsonString(O.Op->Name)
     << ", \"shape\": " << shapeJson(O.Size);
  if (O.Op->Group)
    OS << ", \"routing\": \"" << rowRoutingName(O.Routing) << "\"";
  OS << ", \"device\": " << jsonString(O.DeviceName) << ", \"arch\": \""
     << O.ArchName << "\", \"backend\": \"" << O.Backend
     << "\", \"emulated\": " << (O.Emulated ? "true" : "false")
     << ", \"strategy\": " << jsonString(O.Search.Strategy)
     << ", \"seed\": " << O.Search.Seed
     << ", \"space\": {\"declared\": " << O.Declared
     << ", \"constrained\": " << O.Constrained << ", \"valid\": " << O.Valid
     << "}, \"evaluations\": " << O.Evaluations << ", \"failed\": " << Failed
     << ", \"wall_s\": " << jsonNumber(O.WallSeconds)
     << ", \"best\": {\"config\": " << jsonString(opConfigString(*O.Op, O.Best))
     << ", \"median_us\": " << jsonNumber(O.BestSeconds * 1e6)
     << ", \"tflops\": " << jsonNumber(O.BestTflops);
  if (O.BestBytes > 0)
    OS << ", \"gbps\": " << jsonNumber(O.BestBytes / O.BestSeconds / 1e9);
  OS << ", \"model_rank\": " << O.ModelRank;
  if (O.RelError)
    OS << ", \"rel_error\": " << jsonNumber(*O.RelError);
  OS << "}, \"default\": ";
  if (O.Untuned)
    OS << "{\"config\": "
       << jsonString(opConfigString(*O.Op, O.Untuned->Config))
       << ", \"source\": " << jsonString(O.Untuned->Source)
       << ", \"median_us\": "
       << (O.UntunedSeconds ? jsonNumber(*O.UntunedSeconds * 1e6) : "null")
       << "}";
  else
    OS << "null";
  OS << ", \"stored\": "
     << (O.StoredPath.empty() ? std::string("null") : jsonString(O.StoredPath))
     << "}\n";
}

void printText(const TuneOutcome &O, std::ostream &OS) {
  const OpModel &Op = *O.Op;
  OS << "op        " << Op.Name << " " << O.Size.str()
     << (Op.Group && O.Backend == "gpu"
             ? std::string(" (routing ") + rowRoutingName(O.Routing) + ")"
             : std::string())
     << " on " << O.DeviceName << " (" << O.ArchName << ")\n"
     << "space     " << O.Declared << " declared, " << O.Constrained
     << " satisfy the constraints, " << O.Valid << " run on " << O.ArchName
     << "\n"
     << "search    " << O.Search.Strategy << " (seed " << O.Search.Seed << "), "
     << countText(O.Evaluations, "evaluation", "evaluations");
  std::string Failed = describeFailures(O.Failures);
  if (!Failed.empty())
    OS << " (" << Failed << ")";
  OS << " in " << formatSeconds(O.WallSeconds) << ", backend " << O.Backend
     << "\n"
     << "best      " << opConfigString(Op, O.Best) << "\n"
     << "          " << formatSeconds(O.BestSeconds) << ", "
     << (O.BestBytes > 0 ? byteRateText(O.BestBytes / O.BestSeconds)
                         : flopRateText(O.BestTflops))
     << (O.Predicted ? " (predicted)" : "")
     << (O.Emulated ? " (emulated: host time, not GPU time)" : "");
  if (O.RelError)
    OS << ", relative error " << jsonNumber(*O.RelError);
  OS << "\n"
     << "model     the cost model ranked the winner #" << O.ModelRank << " of "
     << O.Valid << "\n";
  if (O.Untuned) {
    OS << "default   " << opConfigString(Op, O.Untuned->Config) << " ("
       << O.Untuned->Source << ")\n          ";
    if (O.UntunedSeconds)
      OS << formatSeconds(*O.UntunedSeconds) << ": the tuned configuration is "
         << speedupText(*O.UntunedSeconds, O.BestSeconds)
         << (O.Emulated ? " (emulated: not meaningful)" : "") << "\n";
    else
      OS << "not measured"
         << (O.UntunedFailure.empty() ? "" : ": " + O.UntunedFailure) << "\n";
  }
  if (!O.StoredPath.empty())
    OS << "stored    " << O.StoredPath << "\n";
  else if (O.Emulated)
    OS << "stored    nothing: the emulator's times are not GPU times (every "
          "candidate above was checked on it)\n";
}

} // namespace

void printTuneOutcome(const TuneOutcome &O, std::ostream &OS) {
  if (O.Search.Json)
    printJson(O, OS);
  else
    printText(O, OS);
}

} // namespace kiln::cli
