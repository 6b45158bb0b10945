//===- BundleFormat.cpp - Writing and reading bundle files ----------------===//
//
// The version 1 format of Bundle.h. The reader checks the whole-file digest
// first (a tampered or truncated file fails there), then every manifest
// line, then each cubin's own hash; every message names the file and line.
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/Bundle.h"

#include "kiln/Runtime/Sha256.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace kiln {

namespace {

constexpr const char *Magic = "kiln-bundle 1";

const char *roleName(ParamRole R) {
  switch (R) {
  case ParamRole::A:
    return "a";
  case ParamRole::B:
    return "b";
  case ParamRole::D:
    return "d";
  case ParamRole::Operand:
    return "operand";
  }
  return "operand";
}

std::string dimText(const SignatureDim &D) {
  if (D.Sym.empty())
    return std::to_string(D.Constant);
  return D.Divisor == 1 ? D.Sym : D.Sym + "/" + std::to_string(D.Divisor);
}

/// The symbols line's order: the GEMM roles, then the op's other sizes.
std::vector<std::string> symbolLineOrder(const KernelSignature &S) {
  std::vector<std::string> Out = {S.MSym, S.NSym, S.KSym};
  for (const std::string &Sym : S.SizeSyms)
    if (Sym != S.MSym && Sym != S.NSym && Sym != S.KSym)
      Out.push_back(Sym);
  return Out;
}

void writeKernel(std::ostream &OS, const CompiledKernel &K) {
  const KernelSignature &S = K.Signature;
  const GemmKernelShape &Sh = K.Shape;
  const std::vector<std::string> Syms = symbolLineOrder(S);
  OS << "kernel " << S.OpName << '\n';
  // A GEMM's bundle has no family line, so kilns from before op families
  // read it; another family's names itself.
  if (K.Family != OpFamily::Gemm)
    OS << "family " << opFamilyName(K.Family) << '\n';
  OS << "symbols";
  for (const std::string &Sym : Syms)
    OS << ' ' << Sym;
  OS << '\n';
  for (const SignatureParam &P : S.Params) {
    OS << "param " << P.Name << ' ' << dtypeName(P.Type) << ' '
       << roleName(P.Role);
    if (P.Dims.empty())
      OS << " -";
    for (const SignatureDim &D : P.Dims)
      OS << ' ' << dimText(D);
    OS << '\n';
  }
  OS << "target " << K.Target << (K.Emulated ? " emu" : "") << '\n'
     << "config " << K.Config << '\n'
     << "config-source " << K.ConfigSource << '\n'
     << "tuned-for";
  for (const std::string &Sym : Syms)
    OS << ' ' << K.TunedFor.at(Sym);
  OS << '\n';
  if (K.Family != OpFamily::Gemm) {
    if (K.Family == OpFamily::Route) {
      const RouteKernelShape &R = K.Route;
      OS << "route block_m " << R.BlockTokens << " groups " << R.Groups
         << " keep " << R.KeepGroups << " bias " << R.BiasParam << " ids "
         << R.IdsParam << '\n';
    } else if (K.Family == OpFamily::Attention) {
      const AttentionKernelShape &A = K.Attention;
      OS << "attention block_m " << A.BlockM << " block_n " << A.BlockN
         << " stages " << A.Stages << " d " << A.HeadDim << " dv " << A.ValueDim
         << " v " << A.ValueParam << " lse " << A.LseParam;
      if (A.ElementBytes != 2)
        OS << " elem " << A.ElementBytes;
      const char *DescaleKeys[] = {"sd0", "sd1", "vd"};
      const int64_t Descales[] = {A.ScoreDescaleParams[0],
                                  A.ScoreDescaleParams[1], A.ValueDescaleParam};
      for (int I = 0; I < 3; ++I)
        if (Descales[I] >= 0)
          OS << ' ' << DescaleKeys[I] << ' ' << Descales[I];
      if (A.varlen())
        OS << " cu_q " << A.SeqQParam << " cu_k " << A.SeqKParam;
      OS << (A.Tma ? " tma 1" : "") << '\n';
    } else if (K.Family == OpFamily::Combine) {
      const CombineKernelShape &C = K.Combine;
      OS << "combine block_m " << C.BlockTokens << " weights " << C.WeightsParam
         << " pos " << C.PosParam << '\n';
    } else {
      const PermuteKernelShape &P = K.Permute;
      OS << "permute block_m " << P.BlockTokens << " align " << P.Align
         << " ids " << P.IdsParam << " eid " << P.EidParam << " pos "
         << P.PosParam << " cnt " << P.CntParam;
      if (P.ScalesParam >= 0)
        OS << " scales " << P.ScalesParam << " quant " << P.QuantBlock;
      OS << '\n';
    }
    OS << "entry " << K.Entry << '\n'
       << "cubin " << K.Cubin.size() << ' ' << sha256Hex(K.Cubin) << '\n'
       << "end\n";
    return;
  }
  OS << "shape tma " << (Sh.TmaWgmma ? 1 : 0) << " a " << dtypeName(Sh.A)
     << " b " << dtypeName(Sh.B) << " block " << Sh.BlockM << ' ' << Sh.BlockN
     << ' ' << Sh.BlockK << " cluster " << Sh.ClusterM << ' ' << Sh.ClusterN
     << " threads " << Sh.Threads << " smem " << Sh.SmemBytes
     << (Sh.Persistent ? " persistent 1" : "")
     << (Sh.SplitK > 1 ? " split_k " + std::to_string(Sh.SplitK) : "")
     << (Sh.TmaStore ? " tma_store " + std::string(dtypeName(Sh.D)) : "")
     << (Sh.UpOperand >= 0 ? " up_proj " + std::to_string(Sh.UpOperand) : "")
     << (!Sh.Grouped       ? ""
         : Sh.GroupMasked  ? " grouped 3"
         : Sh.GroupOffsets ? " grouped 2"
                           : " grouped 1")
     << '\n'
     << "entry " << K.Entry << '\n'
     << "cubin " << K.Cubin.size() << ' ' << sha256Hex(K.Cubin) << '\n'
     << "end\n";
}

/// Reads the manifest line by line with its line number for messages.
class ManifestReader {
public:
  ManifestReader(const std::string &Text, const std::string &Name)
      : In(Text), Name(Name) {}

  [[noreturn]] void fail(const std::string &What) const {
    throw BundleError(Name + ": line " + std::to_string(Line) + ": " + What);
  }

  /// The next line's words; its first word must be Key.
  std::vector<std::string> expect(const std::string &Key) {
    std::string Text;
    if (!std::getline(In, Text))
      fail("the manifest ends before '" + Key + "'");
    ++Line;
    std::vector<std::string> Words = split(Text);
    if (Words.empty() || Words[0] != Key)
      fail("expected '" + Key + "', found '" + Text + "'");
    LastText = Text;
    return Words;
  }
  /// The rest of the last line after its key.
  std::string rest() const {
    size_t Space = LastText.find(' ');
    return Space == std::string::npos ? "" : LastText.substr(Space + 1);
  }
  /// The next line's first word, without consuming it.
  std::string peek() {
    std::streampos Pos = In.tellg();
    std::string Text;
    std::getline(In, Text);
    In.clear();
    In.seekg(Pos);
    std::vector<std::string> Words = split(Text);
    return Words.empty() ? "" : Words[0];
  }

  int64_t integer(const std::string &Word, int64_t Min, int64_t Max) const {
    char *End = nullptr;
    errno = 0;
    long long V = std::strtoll(Word.c_str(), &End, 10);
    if (Word.empty() || *End || errno || V < Min || V > Max)
      fail("'" + Word + "' is not an integer in [" + std::to_string(Min) +
           ", " + std::to_string(Max) + "]");
    return V;
  }
  DType dtype(const std::string &Word) const {
    std::optional<DType> T = parseDType(Word);
    if (!T)
      fail("unknown dtype '" + Word + "'");
    return *T;
  }
  void count(const std::vector<std::string> &Words, size_t N) const {
    if (Words.size() != N)
      fail("'" + Words[0] + "' takes " + std::to_string(N - 1) +
           " fields, found " + std::to_string(Words.size() - 1));
  }

private:
  static std::vector<std::string> split(const std::string &Text) {
    std::istringstream S(Text);
    std::vector<std::string> Words;
    for (std::string W; S >> W;)
      Words.push_back(W);
    return Words;
  }

  std::istringstream In;
  const std::string &Name;
  std::string LastText;
  int Line = 0;
};

ParamRole parseRole(const ManifestReader &R, const std::string &Word) {
  if (Word == "a")
    return ParamRole::A;
  if (Word == "b")
    return ParamRole::B;
  if (Word == "d")
    return ParamRole::D;
  if (Word == "operand")
    return ParamRole::Operand;
  R.fail("unknown parameter role '" + Word + "'");
}

SignatureDim parseDim(const ManifestReader &R, const KernelSignature &S,
                      const std::string &Word) {
  SignatureDim D;
  if (!Word.empty() && std::isdigit(static_cast<unsigned char>(Word[0]))) {
    D.Constant = R.integer(Word, 0, int64_t(1) << 31);
    return D;
  }
  size_t Slash = Word.find('/');
  D.Sym = Word.substr(0, Slash);
  if (std::find(S.SizeSyms.begin(), S.SizeSyms.end(), D.Sym) ==
      S.SizeSyms.end())
    R.fail("dimension '" + Word + "' names no problem-size symbol");
  if (Slash != std::string::npos)
    D.Divisor = R.integer(Word.substr(Slash + 1), 1, int64_t(1) << 31);
  return D;
}

/// "route block_m B groups G keep KEEP bias P ids P": a router's launch
/// shape (RouteKernelShape; bias -1 when it has none).
void readRouteShape(ManifestReader &R, CompiledKernel &K) {
  std::vector<std::string> W = R.expect("route");
  R.count(W, 11);
  const char *Keys[] = {"block_m", "groups", "keep", "bias", "ids"};
  for (size_t I = 0; I < 5; ++I)
    if (W[1 + 2 * I] != Keys[I])
      R.fail(std::string("expected '") + Keys[I] + "' in 'route', found '" +
             W[1 + 2 * I] + "'");
  const int64_t Params = int64_t(K.Signature.Params.size());
  RouteKernelShape &Sh = K.Route;
  Sh.BlockTokens = R.integer(W[2], 4, 1024);
  Sh.Groups = R.integer(W[4], 0, 32);
  Sh.KeepGroups = R.integer(W[6], 0, Sh.Groups);
  Sh.BiasParam = R.integer(W[8], -1, Params - 1);
  Sh.IdsParam = R.integer(W[10], 0, Params - 1);
  if (Sh.BlockTokens % 4 != 0 || (Sh.Groups > 0) != (Sh.KeepGroups > 0))
    R.fail("'route' has block_m " + W[2] + ", groups " + W[4] + ", keep " +
           W[6] +
           ": block_m must be a multiple of 4 and keep >= 1 exactly "
           "when there are groups");
}

/// "permute block_m B align A ids P eid P pos P cnt P [scales P quant Q]":
/// a permutation's launch shape (PermuteKernelShape; the last two for a
/// quantizing one).
void readPermuteShape(ManifestReader &R, CompiledKernel &K) {
  std::vector<std::string> W = R.expect("permute");
  R.count(W, W.size() == 17 ? 17 : 13);
  const char *Keys[] = {"block_m", "align", "ids",    "eid",
                        "pos",     "cnt",   "scales", "quant"};
  for (size_t I = 0; 1 + 2 * I < W.size(); ++I)
    if (W[1 + 2 * I] != Keys[I])
      R.fail(std::string("expected '") + Keys[I] + "' in 'permute', found '" +
             W[1 + 2 * I] + "'");
  const int64_t Last = int64_t(K.Signature.Params.size()) - 1;
  PermuteKernelShape &Sh = K.Permute;
  Sh.BlockTokens = R.integer(W[2], 1, 1024);
  Sh.Align = R.integer(W[4], 1, int64_t(1) << 20);
  Sh.IdsParam = R.integer(W[6], 0, Last);
  Sh.EidParam = R.integer(W[8], 0, Last);
  Sh.PosParam = R.integer(W[10], 0, Last);
  Sh.CntParam = R.integer(W[12], 0, Last);
  if (W.size() == 17) {
    Sh.ScalesParam = R.integer(W[14], 0, Last);
    Sh.QuantBlock = R.integer(W[16], 1, int64_t(1) << 20);
    if (K.Signature.Params[size_t(Sh.ScalesParam)].Dims.size() != 2)
      R.fail("'permute' names a scales parameter of rank 2");
  }
  if ((Sh.Align & (Sh.Align - 1)) != 0)
    R.fail("'permute' has align " + W[4] + ": it must be a power of two");
  const SignatureParam &Ids = K.Signature.Params[size_t(Sh.IdsParam)];
  const SignatureParam &Cnt = K.Signature.Params[size_t(Sh.CntParam)];
  if (Ids.Dims.size() != 2 || Cnt.Dims.size() != 1)
    R.fail("'permute' names ids and cnt parameters of ranks 2 and 1");
}

/// "combine block_m B weights P pos P": a combine's launch shape
/// (CombineKernelShape).
void readCombineShape(ManifestReader &R, CompiledKernel &K) {
  std::vector<std::string> W = R.expect("combine");
  R.count(W, 7);
  const char *Keys[] = {"block_m", "weights", "pos"};
  for (size_t I = 0; I < 3; ++I)
    if (W[1 + 2 * I] != Keys[I])
      R.fail(std::string("expected '") + Keys[I] + "' in 'combine', found '" +
             W[1 + 2 * I] + "'");
  const int64_t Last = int64_t(K.Signature.Params.size()) - 1;
  CombineKernelShape &Sh = K.Combine;
  Sh.BlockTokens = R.integer(W[2], 1, 1024);
  Sh.WeightsParam = R.integer(W[4], 0, Last);
  Sh.PosParam = R.integer(W[6], 0, Last);
}

/// "attention block_m M block_n N stages S d D dv DV v P lse P [elem 1]
/// [sd0 P] [sd1 P] [vd P] [cu_q P cu_k P] [tma 1]": an attention kernel's
/// launch shape (AttentionKernelShape; lse -1: none; elem 1 for FP8
/// inputs; the descales' parameters where the op has them; the varlen
/// form's offsets; "tma 1" for the sm_90a kernel). Earlier bundles' lines
/// have no optional field but tma.
void readAttentionShape(ManifestReader &R, CompiledKernel &K) {
  std::vector<std::string> W = R.expect("attention");
  if (W.size() < 15 || W.size() % 2 == 0)
    R.count(W, 15);
  const char *Keys[] = {"block_m", "block_n", "stages", "d", "dv", "v", "lse"};
  for (size_t I = 0; I < 7; ++I)
    if (W[1 + 2 * I] != Keys[I])
      R.fail(std::string("expected '") + Keys[I] + "' in 'attention', found '" +
             W[1 + 2 * I] + "'");
  const int64_t Last = int64_t(K.Signature.Params.size()) - 1;
  AttentionKernelShape &Sh = K.Attention;
  Sh.BlockM = R.integer(W[2], 16, 256);
  Sh.BlockN = R.integer(W[4], 16, 256);
  Sh.Stages = R.integer(W[6], 1, 4);
  Sh.HeadDim = R.integer(W[8], 16, 256);
  Sh.ValueDim = R.integer(W[10], 16, 256);
  Sh.ValueParam = R.integer(W[12], 0, Last);
  Sh.LseParam = R.integer(W[14], -1, Last);
  // The optional fields, each at most once, in this order.
  const char *Optional[] = {"elem", "sd0", "sd1", "vd", "cu_q", "cu_k", "tma"};
  constexpr size_t Fields = 7;
  size_t Next = 0;
  for (size_t I = 15; I + 1 < W.size(); I += 2) {
    size_t Key = Next;
    while (Key < Fields && W[I] != Optional[Key])
      ++Key;
    if (Key == Fields)
      R.fail("unexpected '" + W[I] +
             "' in 'attention' (the optional fields are elem, sd0, sd1, vd, "
             "cu_q, cu_k and tma, in that order)");
    Next = Key + 1;
    if (Key == 0)
      Sh.ElementBytes = R.integer(W[I + 1], 1, 2);
    else if (Key == 1)
      Sh.ScoreDescaleParams[0] = R.integer(W[I + 1], 0, Last);
    else if (Key == 2)
      Sh.ScoreDescaleParams[1] = R.integer(W[I + 1], 0, Last);
    else if (Key == 3)
      Sh.ValueDescaleParam = R.integer(W[I + 1], 0, Last);
    else if (Key == 4)
      Sh.SeqQParam = R.integer(W[I + 1], 0, Last);
    else if (Key == 5)
      Sh.SeqKParam = R.integer(W[I + 1], 0, Last);
    else
      Sh.Tma = R.integer(W[I + 1], 1, 1) == 1;
  }
  if (Sh.BlockM % 16 != 0)
    R.fail("'attention' block_m must be a multiple of 16 (one warp's rows)");
  if ((Sh.SeqQParam >= 0) != (Sh.SeqKParam >= 0))
    R.fail("'attention' has cu_q and cu_k together (the varlen form)");
}

/// "shape tma ...": a GEMM's launch shape (GemmKernelShape).
void readGemmShape(ManifestReader &R, CompiledKernel &K) {
  std::vector<std::string> W = R.expect("shape");
  // Optional trailing fields after the 18 every bundle has: "persistent 1"
  // for a persistent kernel, "split_k S" for a split-K one, "tma_store T"
  // (D's dtype) for a TMA-store one, "up_proj I" (the up weight's operand
  // index) for a gated one, "grouped 1" for a grouped GEMM ("grouped 2" in
  // the offsets form, "grouped 3" in the masked layout; earlier bundles'
  // lines have none).
  size_t Fields = 18;
  bool Persistent = false, TmaStore = false, Grouped = false,
       GroupOffsets = false, GroupMasked = false;
  int64_t SplitK = 1, UpOperand = -1;
  DType D = DType::BF16;
  while (W.size() >= Fields + 2 &&
         (W[Fields] == "persistent" || W[Fields] == "split_k" ||
          W[Fields] == "tma_store" || W[Fields] == "up_proj" ||
          W[Fields] == "grouped")) {
    if (W[Fields] == "persistent") {
      Persistent = R.integer(W[Fields + 1], 0, 1) == 1;
    } else if (W[Fields] == "grouped") {
      // 1: ids (contiguous layout), 2: offsets, 3: masked.
      const int64_t Form = R.integer(W[Fields + 1], 0, 3);
      Grouped = Form >= 1;
      GroupOffsets = Form == 2;
      GroupMasked = Form == 3;
    } else if (W[Fields] == "split_k") {
      SplitK = R.integer(W[Fields + 1], 1, 16);
    } else if (W[Fields] == "up_proj") {
      UpOperand = R.integer(W[Fields + 1], 0, 1 << 20);
    } else {
      TmaStore = true;
      D = R.dtype(W[Fields + 1]);
    }
    Fields += 2;
  }
  R.count(W, Fields);
  const char *Keys[] = {"tma", "a", "b", "block", "cluster", "threads", "smem"};
  const size_t At[] = {1, 3, 5, 7, 11, 14, 16};
  for (size_t I = 0; I < 7; ++I)
    if (W[At[I]] != Keys[I])
      R.fail(std::string("expected '") + Keys[I] + "' in 'shape', found '" +
             W[At[I]] + "'");
  GemmKernelShape &Sh = K.Shape;
  Sh.TmaWgmma = R.integer(W[2], 0, 1) == 1;
  Sh.A = R.dtype(W[4]);
  Sh.B = R.dtype(W[6]);
  Sh.BlockM = R.integer(W[8], 1, 1024);
  Sh.BlockN = R.integer(W[9], 1, 1024);
  Sh.BlockK = R.integer(W[10], 1, 1024);
  Sh.ClusterM = R.integer(W[12], 1, 2);
  Sh.ClusterN = R.integer(W[13], 1, 2);
  Sh.Threads = R.integer(W[15], 32, 1024);
  Sh.SmemBytes = R.integer(W[17], 0, 1 << 20);
  Sh.Persistent = Persistent;
  Sh.SplitK = SplitK;
  Sh.TmaStore = TmaStore;
  Sh.UpOperand = UpOperand;
  Sh.Grouped = Grouped;
  Sh.GroupOffsets = GroupOffsets;
  Sh.GroupMasked = GroupMasked;
  Sh.D = D;
}

CompiledKernel readKernel(ManifestReader &R, size_t &CubinBytes,
                          std::string &CubinHash) {
  CompiledKernel K;
  KernelSignature &S = K.Signature;
  std::vector<std::string> W = R.expect("kernel");
  R.count(W, 2);
  S.OpName = W[1];
  // "family gemm" (bundles before op families have none: all are GEMMs).
  if (R.peek() == "family") {
    W = R.expect("family");
    R.count(W, 2);
    std::optional<OpFamily> F = parseOpFamily(W[1]);
    if (!F)
      R.fail("unknown op family '" + W[1] + "'");
    K.Family = *F;
  }
  // "symbols M N K [OTHER...]": the GEMM roles, then the op's other sizes
  // (bundles before named sizes have only the roles).
  W = R.expect("symbols");
  if (W.size() < 4 || W.size() > 12)
    R.fail("'symbols' takes the M, N and K symbols and at most 8 others");
  S.MSym = W[1], S.NSym = W[2], S.KSym = W[3];
  const std::vector<std::string> Syms(W.begin() + 1, W.end());
  S.SizeSyms.assign(Syms.begin() + 3, Syms.end());
  S.SizeSyms.insert(S.SizeSyms.end(), Syms.begin(), Syms.begin() + 3);
  for (size_t I = 0; I < Syms.size(); ++I)
    if (std::find(Syms.begin(), Syms.begin() + I, Syms[I]) != Syms.begin() + I)
      R.fail("size symbol '" + Syms[I] + "' listed twice");
  while (R.peek() == "param") {
    W = R.expect("param");
    if (W.size() < 5)
      R.fail("'param' takes a name, a dtype, a role and dimensions");
    SignatureParam P;
    P.Name = W[1];
    P.Type = R.dtype(W[2]);
    P.Role = parseRole(R, W[3]);
    if (!(W.size() == 5 && W[4] == "-")) {
      if (W.size() - 4 > 4)
        R.fail("a parameter has at most 4 dimensions");
      for (size_t I = 4; I < W.size(); ++I)
        P.Dims.push_back(parseDim(R, S, W[I]));
    }
    S.Params.push_back(std::move(P));
  }
  // The token families have no B (their inputs are A, their outputs D);
  // attention's K is its B.
  const bool NoB =
      K.Family != OpFamily::Gemm && K.Family != OpFamily::Attention;
  for (ParamRole Role : {ParamRole::A, ParamRole::B, ParamRole::D}) {
    int N = 0;
    for (const SignatureParam &P : S.Params)
      N += P.Role == Role;
    const int Want = NoB && Role == ParamRole::B ? 0 : 1;
    if (N != Want)
      R.fail("kernel '" + S.OpName + "' needs " +
             (Want ? "exactly one" : "no") + " '" + roleName(Role) +
             "' parameter");
  }
  W = R.expect("target");
  // "target sm_90a", or "target sm_90a emu" for kiln's emulator.
  if (W.size() == 3 && W[2] == "emu")
    K.Emulated = true;
  else
    R.count(W, 2);
  K.Target = W[1];
  W = R.expect("config");
  R.count(W, 2);
  K.Config = W[1];
  R.expect("config-source");
  K.ConfigSource = R.rest();
  W = R.expect("tuned-for");
  R.count(W, Syms.size() + 1);
  ProblemSize Tuned;
  for (size_t I = 0; I < Syms.size(); ++I)
    Tuned.set(Syms[I],
              R.integer(W[I + 1], Syms[I] == S.KSym ? 0 : 1, INT32_MAX));
  for (const std::string &Sym : S.SizeSyms)
    K.TunedFor.set(Sym, Tuned.at(Sym));
  if (K.Family == OpFamily::Route) {
    readRouteShape(R, K);
  } else if (K.Family == OpFamily::Permute) {
    readPermuteShape(R, K);
  } else if (K.Family == OpFamily::Combine) {
    readCombineShape(R, K);
  } else if (K.Family == OpFamily::Attention) {
    readAttentionShape(R, K);
  } else {
    readGemmShape(R, K);
  }
  W = R.expect("entry");
  R.count(W, 2);
  K.Entry = W[1];
  W = R.expect("cubin");
  R.count(W, 3);
  CubinBytes = size_t(R.integer(W[1], 1, int64_t(1) << 30));
  CubinHash = W[2];
  R.expect("end");
  return K;
}

} // namespace

std::string serializeBundle(const std::vector<CompiledKernel> &Kernels) {
  std::ostringstream OS;
  OS << Magic << '\n' << "kernels " << Kernels.size() << '\n';
  for (const CompiledKernel &K : Kernels)
    writeKernel(OS, K);
  OS << "payload\n";
  for (const CompiledKernel &K : Kernels)
    OS << K.Cubin;
  std::string Body = OS.str();
  return Body + "digest " + sha256Hex(Body) + "\n";
}

std::vector<CompiledKernel> parseBundle(const std::string &Bytes,
                                        const std::string &Name) {
  if (Bytes.compare(0, 13, Magic) != 0)
    throw BundleError(Name + ": not a kiln bundle (it does not start with '" +
                      Magic + "')");
  // "digest " + 64 hex digits + "\n" closes the file.
  const size_t Trailer = 7 + 64 + 1;
  if (Bytes.size() < Trailer ||
      Bytes.compare(Bytes.size() - Trailer, 7, "digest ") != 0) {
    // A whole, valid bundle followed by more bytes was appended to, not
    // truncated: find its digest line (checked, so a match inside a cubin
    // does not count).
    for (size_t At = Bytes.rfind("digest "); At != std::string::npos;
         At = At ? Bytes.rfind("digest ", At - 1) : std::string::npos) {
      size_t End = At + Trailer;
      if (End <= Bytes.size() && Bytes[End - 1] == '\n' &&
          sha256Hex(Bytes.substr(0, At)) == Bytes.substr(At + 7, 64))
        throw BundleError(Name + ": " + std::to_string(Bytes.size() - End) +
                          " bytes after the digest line (the file was "
                          "appended to)");
    }
    throw BundleError(Name + ": truncated (no digest line at the end)");
  }
  std::string Body = Bytes.substr(0, Bytes.size() - Trailer);
  if (sha256Hex(Body) != Bytes.substr(Bytes.size() - Trailer + 7, 64))
    throw BundleError(Name + ": the content does not match its digest (the "
                             "file was changed or damaged)");
  size_t PayloadAt = Body.find("\npayload\n");
  if (PayloadAt == std::string::npos)
    throw BundleError(Name + ": no 'payload' line");
  ManifestReader R(Body.substr(0, PayloadAt + 1), Name);
  std::vector<std::string> Version = R.expect("kiln-bundle");
  if (Version.size() != 2 || Version[1] != "1")
    R.fail("unsupported bundle version '" + R.rest() +
           "' (this kiln reads version 1)");
  std::vector<std::string> W = R.expect("kernels");
  R.count(W, 2);
  size_t Count = size_t(R.integer(W[1], 0, 1 << 16));
  std::vector<CompiledKernel> Kernels;
  size_t Offset = PayloadAt + 9;
  for (size_t I = 0; I < Count; ++I) {
    size_t Bytes = 0;
    std::string Hash;
    Kernels.push_back(readKernel(R, Bytes, Hash));
    if (Offset + Bytes > Body.size())
      R.fail("the cubin of '" + Kernels.back().Signature.OpName +
             "' runs past the end of the payload");
    Kernels.back().Cubin = Body.substr(Offset, Bytes);
    if (sha256Hex(Kernels.back().Cubin) != Hash)
      R.fail("the cubin of '" + Kernels.back().Signature.OpName +
             "' does not match its hash");
    Offset += Bytes;
  }
  if (Offset != Body.size())
    throw BundleError(Name + ": " + std::to_string(Body.size() - Offset) +
                      " unexplained bytes after the last cubin");
  return Kernels;
}

} // namespace kiln
