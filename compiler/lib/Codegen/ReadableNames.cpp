//===- ReadableNames.cpp - Give emitted CUDA the user's names -------------===//
#include "kiln/Codegen/ReadableNames.h"

#include <cctype>
#include <set>

namespace kiln {

namespace {

/// Names already taken by the op's tensors; a generated name that collides
/// gets a trailing underscore.
std::string unique(std::string Name, const std::set<std::string> &Taken) {
  while (Taken.count(Name))
    Name += "_";
  return Name;
}

std::set<std::string> tensorNames(const OpModel &Op) {
  std::set<std::string> Names;
  for (const TensorParam &P : Op.Params)
    Names.insert(P.Name);
  return Names;
}

std::vector<std::string> operandNames(const OpModel &Op) {
  std::vector<std::string> Names;
  for (size_t I = 0; I < Op.Params.size(); ++I)
    if (int(I) != Op.A && int(I) != Op.B && int(I) != Op.D)
      Names.push_back(Op.Params[I].Name);
  return Names;
}

bool isIdentChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
}

} // namespace

std::vector<std::string> kernelParameterNames(const OpModel &Op, bool Sm90,
                                              bool SplitK, bool TmaStore) {
  std::set<std::string> Taken = tensorNames(Op);
  auto Fresh = [&](std::string Name) {
    Name = unique(std::move(Name), Taken);
    Taken.insert(Name);
    return Name;
  };
  if (Op.Route) { // (L, [bias,] w, ids, T, E, K): LowerRouteToEmitC's ABI
    std::vector<std::string> Names = {Op.Params[size_t(Op.A)].Name};
    if (Op.Route->Bias >= 0)
      Names.push_back(Op.Params[size_t(Op.Route->Bias)].Name);
    Names.push_back(Op.Params[size_t(Op.D)].Name);
    Names.push_back(Op.Params[size_t(Op.Route->Ids)].Name);
    for (const std::string &Sym : {Op.MSym, Op.KSym, Op.NSym})
      Names.push_back(Fresh(Sym));
    return Names;
  }
  if (Op.Attention) { // (q, k, v, o, [lse,] [sd0,] [sd1,] [vd,] [cu_q,
                      // [cu_k,]] B, H, HKV, S, T)
    const AttentionSpec &At = *Op.Attention;
    std::vector<std::string> Names;
    for (int I : {Op.A, Op.B, At.V, Op.D})
      Names.push_back(Op.Params[size_t(I)].Name);
    for (int I : {At.Lse, At.ScoreDescale[0], At.ScoreDescale[1],
                  At.ValueDescale, At.SeqQ, At.SeqK != At.SeqQ ? At.SeqK : -1})
      if (I >= 0)
        Names.push_back(Op.Params[size_t(I)].Name);
    for (const std::string &Sym :
         {At.BSym, At.HSym, At.HkvSym, At.SSym, At.TSym})
      Names.push_back(Fresh(Sym));
    return Names;
  }
  if (Op.Combine) { // (y, w, pos, out, T, K, M, H)
    std::vector<std::string> Names;
    for (int I : {Op.A, Op.Combine->Weights, Op.Combine->Pos, Op.D})
      Names.push_back(Op.Params[size_t(I)].Name);
    const std::string &M = Op.Params[size_t(Op.A)].Shape[0].Sym;
    for (const std::string &Sym : {Op.MSym, Op.KSym, M, Op.NSym})
      Names.push_back(Fresh(Sym));
    return Names;
  }
  if (Op.Permute) { // (x, ids, a, eid, pos, cnt, [sa,] T, K, E, M, H)
    const PermuteSpec &P = *Op.Permute;
    std::vector<std::string> Names;
    for (int I : {Op.A, P.Ids, Op.D, P.Eid, P.Pos, P.Cnt})
      Names.push_back(Op.Params[size_t(I)].Name);
    if (Op.Quant)
      Names.push_back(Op.Params[size_t(Op.Quant->Scale)].Name);
    const std::string &K = Op.Params[size_t(P.Ids)].Shape[1].Sym;
    const std::string &E = Op.Params[size_t(P.Cnt)].Shape[0].Sym;
    for (const std::string &Sym : {Op.KSym, K, E, Op.MSym, Op.NSym})
      Names.push_back(Fresh(Sym));
    return Names;
  }
  const std::string &A = Op.Params[Op.A].Name, &B = Op.Params[Op.B].Name;
  std::vector<std::string> Names;
  if (Sm90)
    Names = {Fresh("tma_" + A), Fresh("tma_" + B)};
  else
    Names = {A, B};
  Names.push_back(Op.Params[Op.D].Name);
  for (const std::string &Sym : {Op.MSym, Op.NSym, Op.KSym})
    Names.push_back(Fresh(Sym));
  for (std::string &N : operandNames(Op))
    Names.push_back(N);
  if (SplitK)
    Names.push_back(Fresh("workspace"));
  if (TmaStore)
    Names.push_back(Fresh("tma_" + Op.Params[Op.D].Name));
  if (Op.Up && Sm90) // the mma.sync kernel reads the up weight's pointer
    Names.push_back(Fresh("tma_" + Op.Params[Op.Up->Param].Name));
  if (Op.Group) // a grouped kernel's number of experts, its last parameter
    Names.push_back(Fresh(Op.Group->ESym));
  // The kernel's first two locals: the block scales of A's and B's side
  // (kiln::gemm::KScale or NoKScale), numbered right after the parameters;
  // a gated op's up-weight scale is the third.
  for (const char *Side : {"kscale_a", "kscale_b"})
    Names.push_back(Fresh(Side));
  if (Op.Up)
    Names.push_back(Fresh("kscale_" + Op.Params[Op.Up->Param].Name));
  // A quantized output's scales (kiln::gemm::RowQuant) come next; a gated
  // op has a kiln::gemm::NoQuant there when its output is not quantized.
  if (Op.Quant)
    Names.push_back(Fresh("quant_" + Op.Params[Op.Quant->Scale].Name));
  else if (Op.Up)
    Names.push_back(Fresh("no_quant"));
  if (Op.Group) // kiln::gemm::ContiguousGroups, after the scales
    Names.push_back(Fresh("groups"));
  return Names;
}

std::vector<std::string> epilogueParameterNames(const OpModel &Op) {
  // Sizes first: the user's names win over kiln's (acc, m, n).
  std::set<std::string> Taken = tensorNames(Op);
  auto Fresh = [&](std::string Name) {
    Name = unique(std::move(Name), Taken);
    Taken.insert(Name);
    return Name;
  };
  std::string M = Fresh(Op.MSym), N = Fresh(Op.NSym);
  std::vector<std::string> Names = {Fresh("acc"), Fresh("m"), Fresh("n"), M, N};
  if (Op.Up) // a gated op's epilogue takes (acc, up, m, n, ...)
    Names.insert(Names.begin() + 1, Fresh("up"));
  for (std::string &Operand : operandNames(Op))
    Names.push_back(Operand);
  if (Op.Group && Op.Group->Masked) // the masked layout's E, last
    Names.push_back(Fresh(Op.Group->ESym));
  if (Op.Group && Op.Group->Offsets) // the offsets form's tile expert
    Names.push_back(Fresh("expert"));
  return Names;
}

std::string renameParameters(const std::string &Cuda,
                             const std::string &Function,
                             const std::vector<std::string> &Names) {
  size_t Start = Cuda.find(" " + Function + "(");
  if (Start == std::string::npos)
    return Cuda;
  size_t End = Cuda.find("\n}", Start);
  if (End == std::string::npos)
    End = Cuda.size();
  std::string Out = Cuda.substr(0, Start);
  for (size_t I = Start; I < End;) {
    bool Boundary = I == 0 || !isIdentChar(Cuda[I - 1]);
    if (Boundary && Cuda[I] == 'v' && I + 1 < End &&
        std::isdigit(static_cast<unsigned char>(Cuda[I + 1]))) {
      size_t J = I + 1;
      while (J < End && std::isdigit(static_cast<unsigned char>(Cuda[J])))
        ++J;
      size_t Index = std::stoul(Cuda.substr(I + 1, J - I - 1));
      if (!isIdentChar(Cuda[J]) && Index >= 1 && Index <= Names.size()) {
        Out += Names[Index - 1];
        I = J;
        continue;
      }
      Out.append(Cuda, I, J - I);
      I = J;
      continue;
    }
    Out += Cuda[I++];
  }
  Out.append(Cuda, End, std::string::npos);
  return Out;
}

} // namespace kiln
