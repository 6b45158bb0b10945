//===- KernelConfig.cpp - A point of the tuning space ---------------------===//
#include "kiln/Target/Gemm/KernelConfig.h"

#include <cctype>
#include <sstream>

namespace kiln {

bool KernelConfig::operator==(const KernelConfig &O) const {
  return BlockM == O.BlockM && BlockN == O.BlockN && BlockK == O.BlockK &&
         Stages == O.Stages && ClusterM == O.ClusterM &&
         ClusterN == O.ClusterN && RasterOrder == O.RasterOrder &&
         Group == O.Group && Promote == O.Promote && Sched == O.Sched &&
         SplitK == O.SplitK && Store == O.Store &&
         SoftmaxOverlap == O.SoftmaxOverlap;
}

std::string KernelConfig::str() const {
  std::ostringstream OS;
  OS << "block_m=" << BlockM << ",block_n=" << BlockN;
  if (knobIsWritten(*this, "block_k"))
    OS << ",block_k=" << BlockK;
  OS << ",stages=" << Stages << ",cluster_m=" << ClusterM
     << ",cluster_n=" << ClusterN
     << ",raster=" << (RasterOrder == Raster::AlongN ? "n" : "m")
     << ",group=" << Group;
  if (knobIsWritten(*this, "promote"))
    OS << ",promote=" << Promote;
  if (knobIsWritten(*this, "schedule"))
    OS << ",schedule=persistent";
  if (knobIsWritten(*this, "split_k"))
    OS << ",split_k=" << SplitK;
  if (knobIsWritten(*this, "store"))
    OS << ",store=tma";
  if (knobIsWritten(*this, "overlap"))
    OS << ",overlap=" << overlapName(SoftmaxOverlap);
  return OS.str();
}

const char *overlapName(Overlap O) {
  return O == Overlap::Intra      ? "intra"
         : O == Overlap::Pingpong ? "pingpong"
                                  : "none";
}

const std::vector<KnobInfo> &knownKnobs() {
  static const std::vector<KnobInfo> Knobs = {
      {"block_m", "CTA tile rows (M)", false},
      {"block_n", "CTA tile columns (N)", false},
      {"block_k", "K depth of one pipeline stage", false},
      {"stages", "shared-memory pipeline depth", false},
      {"cluster_m", "CTAs per cluster along M (sm_90a; share B)", false},
      {"cluster_n", "CTAs per cluster along N (sm_90a; share A)", false},
      {"raster", "tile order: m (down M first) or n (across N first)", true},
      {"group", "tiles per raster group, for L2 reuse (1 = none)", false},
      {"promote",
       "K elements per FP32 promotion of the tensor-core sum (0 = default: "
       "none, or the block scales' block)",
       false, /*ZeroAllowed=*/true},
      {"schedule",
       "grid (one CTA per tile) or persistent (one CTA per SM looping over "
       "tiles; sm_90a)",
       true},
      {"split_k",
       "CTAs per output tile, each over a range of K, summed in a fixed "
       "order (1 = none; up to 16)",
       false},
      {"store",
       "how the epilogue writes D: direct (staged stores) or tma (full "
       "32-column blocks through TMA stores; sm_90a)",
       true},
      {"overlap",
       "attention: none, intra (a warpgroup's softmax of key block j "
       "while its P.V of block j - 1 runs; sm_90a, 16-bit inputs) or "
       "pingpong (intra, the consumer warpgroups' MMAs taking turns)",
       true},
  };
  return Knobs;
}

const KnobInfo *findKnob(std::string_view Name) {
  for (const KnobInfo &K : knownKnobs())
    if (K.Name == Name)
      return &K;
  return nullptr;
}

static bool setInt(std::string_view Name, const TuneValue &V, int64_t &Slot,
                   std::string &Error) {
  if (!std::holds_alternative<int64_t>(V)) {
    Error = std::string(Name) + " takes an integer, not '" +
            std::get<std::string>(V) + "'";
    return false;
  }
  int64_t I = std::get<int64_t>(V);
  if (I <= 0) {
    Error = std::string(Name) + " must be positive, got " + std::to_string(I);
    return false;
  }
  if (I > MaxKnobValue) {
    Error = std::string(Name) + " must be at most " +
            std::to_string(MaxKnobValue) + ", got " + std::to_string(I);
    return false;
  }
  Slot = I;
  return true;
}

bool applyKnobs(const KnobAssignment &Assignment, KernelConfig &C,
                std::string &Error) {
  for (const auto &[Name, V] : Assignment) {
    bool Ok = true;
    if (Name == "block_m")
      Ok = setInt(Name, V, C.BlockM, Error);
    else if (Name == "block_n")
      Ok = setInt(Name, V, C.BlockN, Error);
    else if (Name == "block_k")
      Ok = setInt(Name, V, C.BlockK, Error);
    else if (Name == "stages")
      Ok = setInt(Name, V, C.Stages, Error);
    else if (Name == "cluster_m")
      Ok = setInt(Name, V, C.ClusterM, Error);
    else if (Name == "cluster_n")
      Ok = setInt(Name, V, C.ClusterN, Error);
    else if (Name == "group")
      Ok = setInt(Name, V, C.Group, Error);
    else if (Name == "split_k")
      Ok = setInt(Name, V, C.SplitK, Error);
    else if (Name == "promote") {
      // 0 is meaningful here (the default), so setInt's positivity rule
      // does not apply.
      const int64_t *I = std::get_if<int64_t>(&V);
      if (!I || *I < 0 || *I > MaxKnobValue) {
        Error = "promote takes an integer from 0 to " +
                std::to_string(MaxKnobValue);
        return false;
      }
      C.Promote = *I;
    } else if (Name == "raster") {
      const std::string *S = std::get_if<std::string>(&V);
      if (!S || (*S != "m" && *S != "n")) {
        Error = "raster must be m or n";
        return false;
      }
      C.RasterOrder = *S == "n" ? Raster::AlongN : Raster::AlongM;
    } else if (Name == "schedule") {
      const std::string *S = std::get_if<std::string>(&V);
      if (!S || (*S != "grid" && *S != "persistent")) {
        Error = "schedule must be grid or persistent";
        return false;
      }
      C.Sched = *S == "persistent" ? Schedule::Persistent : Schedule::Grid;
    } else if (Name == "store") {
      const std::string *S = std::get_if<std::string>(&V);
      if (!S || (*S != "direct" && *S != "tma")) {
        Error = "store must be direct or tma";
        return false;
      }
      C.Store = *S == "tma" ? OutputStore::Tma : OutputStore::Direct;
    } else if (Name == "overlap") {
      const std::string *S = std::get_if<std::string>(&V);
      if (!S || (*S != "none" && *S != "intra" && *S != "pingpong")) {
        Error = "overlap must be none, intra or pingpong";
        return false;
      }
      C.SoftmaxOverlap = *S == "intra"      ? Overlap::Intra
                         : *S == "pingpong" ? Overlap::Pingpong
                                            : Overlap::None;
    } else {
      Error = "unknown tuning parameter '" + Name + "'";
      return false;
    }
    if (!Ok)
      return false;
  }
  return true;
}

static std::string_view trim(std::string_view S) {
  while (!S.empty() && std::isspace(static_cast<unsigned char>(S.front())))
    S.remove_prefix(1);
  while (!S.empty() && std::isspace(static_cast<unsigned char>(S.back())))
    S.remove_suffix(1);
  return S;
}

bool parseKnobList(std::string_view Text, KnobAssignment &Out,
                   std::string &Error) {
  while (!Text.empty()) {
    size_t Comma = Text.find(',');
    std::string_view Part = trim(Text.substr(0, Comma));
    Text = Comma == std::string_view::npos ? std::string_view()
                                           : Text.substr(Comma + 1);
    size_t Eq = Part.find('=');
    if (Eq == std::string_view::npos) {
      Error = "expected k=v, got '" + std::string(Part) + "'";
      return false;
    }
    std::string Key(trim(Part.substr(0, Eq)));
    std::string_view Val = trim(Part.substr(Eq + 1));
    if (Key.empty() || Val.empty()) {
      Error = "expected k=v, got '" + std::string(Part) + "'";
      return false;
    }
    if (!findKnob(Key)) {
      Error = "unknown tuning parameter '" + Key + "'";
      return false;
    }
    bool Numeric = true;
    for (char Ch : Val)
      Numeric &= std::isdigit(static_cast<unsigned char>(Ch)) != 0;
    if (Out.count(Key)) {
      Error = "'" + Key + "' given twice";
      return false;
    }
    if (Numeric && Val.size() < 18)
      Out[Key] = static_cast<int64_t>(std::stoll(std::string(Val)));
    else
      Out[Key] = std::string(Val);
  }
  return true;
}

bool knobIsWritten(const KernelConfig &C, std::string_view Knob) {
  if (Knob == "block_k") // 0: the op's default (a token family's: none)
    return C.BlockK != 0;
  if (Knob == "promote")
    return C.Promote != 0;
  if (Knob == "schedule")
    return C.Sched != Schedule::Grid;
  if (Knob == "split_k")
    return C.SplitK != 1;
  if (Knob == "store")
    return C.Store != OutputStore::Direct;
  if (Knob == "overlap")
    return C.SoftmaxOverlap != Overlap::None;
  return true;
}

TuneValue knobValue(const KernelConfig &C, std::string_view Knob) {
  if (Knob == "block_m")
    return C.BlockM;
  if (Knob == "block_n")
    return C.BlockN;
  if (Knob == "block_k")
    return C.BlockK;
  if (Knob == "stages")
    return C.Stages;
  if (Knob == "cluster_m")
    return C.ClusterM;
  if (Knob == "cluster_n")
    return C.ClusterN;
  if (Knob == "group")
    return C.Group;
  if (Knob == "split_k")
    return C.SplitK;
  if (Knob == "promote")
    return C.Promote;
  if (Knob == "raster")
    return std::string(C.RasterOrder == Raster::AlongN ? "n" : "m");
  if (Knob == "schedule")
    return std::string(C.Sched == Schedule::Persistent ? "persistent" : "grid");
  if (Knob == "store")
    return std::string(C.Store == OutputStore::Tma ? "tma" : "direct");
  if (Knob == "overlap")
    return std::string(overlapName(C.SoftmaxOverlap));
  return int64_t(0);
}

} // namespace kiln
