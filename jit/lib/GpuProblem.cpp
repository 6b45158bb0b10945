//===- GpuProblem.cpp - Seeded inputs on the GPU and the check of D -------===//
#include "kiln/Jit/GpuProblem.h"

#include <cmath>
#include <stdexcept>

namespace kiln {

GpuProblem::GpuProblem(const CudaDriver &Driver, const OpModel &TheOp,
                       const ProblemSize &Named, uint64_t Seed,
                       RowRouting Routing)
    : Op(TheOp), Size(gemmDims(TheOp, Named)) {
  std::string Error;
  if (!makeParams(Op, Named, Seed, Params, Error, Routing))
    throw std::invalid_argument(Op.Name + ": " + Error);
  Buffers.reserve(Params.size());
  for (size_t I = 0; I < Params.size(); ++I) {
    Buffers.emplace_back(Driver, Params[I].Bytes.size());
    if (!Op.Params[I].IsOutput)
      Buffers.back().upload(Params[I].Bytes.data(), Params[I].Bytes.size());
    TensorArg A;
    A.Data = Buffers.back().get();
    A.Type = Params[I].Type;
    A.Rank = int(Params[I].Shape.size());
    for (int D = 0; D < A.Rank && D < MaxTensorRank; ++D)
      A.Shape[D] = Params[I].Shape[size_t(D)];
    Args.push_back(A);
  }
  Rows = checkedRows(Op, Params, Size);
  // Pageable uploads may return before their DMA completes.
  KILN_CU_CHECK(Driver, cuCtxSynchronize);
}

void GpuProblem::poisonOutput() {
  for (size_t I = 0; I < Params.size(); ++I)
    if (Op.Params[I].IsOutput) // D, and a quantized output's scales
      Buffers[I].fill(0xFF);
  // An amax output is raised to every |value|: it starts from 0.
  if (Op.Quant && Op.Quant->Amax >= 0)
    Buffers[size_t(Op.Quant->Amax)].fill(0);
}

void GpuProblem::prepareReference() {
  if (Reference.empty())
    Reference = referenceGemmRows(Op, Params, Size, Rows);
}

void GpuProblem::downloadOutputs() {
  for (size_t I = 0; I < Params.size(); ++I)
    if (Op.Params[I].IsOutput)
      Buffers[I].download(Params[I].Bytes.data(), Params[I].Bytes.size());
}

GpuCheck GpuProblem::check(const AccumulationModel &Acc) {
  HostTensor &D = Params[size_t(Op.D)];
  Buffers[size_t(Op.D)].download(D.Bytes.data(), D.Bytes.size());
  prepareReference();
  GpuCheck R;
  // A grouped op's padding rows keep poisonOutput's NaN bytes.
  for (int64_t I = 0, E = D.numElements(); I < E; ++I)
    if (rowExpert(Op, Params, I / Size.N) >= 0)
      R.NonFinite += !std::isfinite(D.get(I));
  const PaddingCheck Pad = checkPaddingRows(Op, Params, D, Size);
  R.PaddingRows = Pad.Rows;
  R.PaddingWritten = Pad.Written;
  R.RowsChecked = Rows.size();
  const bool All = int64_t(Rows.size()) == Size.M;
  if (Op.Quant) {
    HostTensor &Ds = Params[size_t(Op.Quant->Scale)];
    Buffers[size_t(Op.Quant->Scale)].download(Ds.Bytes.data(), Ds.Bytes.size());
    // A grouped op's padding rows of the scales keep their NaN bytes too.
    const int64_t Blocks = Ds.Shape.back();
    for (int64_t I = 0, E = Ds.numElements(); I < E; ++I)
      if (rowExpert(Op, Params, I / Blocks) >= 0)
        R.NonFinite += !std::isfinite(Ds.get(I));
    const PaddingCheck DsPad = checkPaddingRows(Op, Params, Ds, Size);
    R.PaddingWritten += DsPad.Written;
    // The amax is exact when every computed row is checked.
    const bool AllComputed =
        !Op.Group || Rows.size() == computedRows(Op, Params, Size.M).size();
    const HostTensor *Amax = nullptr;
    if (Op.Quant->Amax >= 0) {
      HostTensor &A = Params[size_t(Op.Quant->Amax)];
      Buffers[size_t(Op.Quant->Amax)].download(A.Bytes.data(), A.Bytes.size());
      R.NonFinite += !std::isfinite(A.get(0));
      Amax = &A;
    }
    QuantComparison Q =
        All ? compareQuantized(Op, D, Ds, Reference, Acc, Amax)
            : compareQuantized(Op, selectRows(D, Rows), selectRows(Ds, Rows),
                               Reference, Acc, Amax, AllComputed);
    R.C = Q.Values;
    R.Scales = Q.Scales;
    R.Amax = Q.Amax;
  } else {
    R.C = All ? compareWithReference(D, Reference, Acc)
              : compareWithReference(selectRows(D, Rows), Reference, Acc);
  }
  R.Pass = R.C.Pass && (!R.Scales || R.Scales->Pass) &&
           (!R.Amax || R.Amax->Pass) && R.NonFinite == 0 &&
           R.PaddingWritten == 0;
  return R;
}

} // namespace kiln
