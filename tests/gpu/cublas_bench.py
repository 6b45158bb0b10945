#!/usr/bin/env python3
"""Times cuBLAS(Lt) through PyTorch on kiln's GPU-suite shapes.

For each "M,N,K": FP8 e4m3 x e4m3 -> bf16 with per-tensor scales
(torch._scaled_mm; B is stored [N, K] as kiln's B, so B.t() is passed) and
bf16 (torch.matmul(A, B.t())). Each is timed with CUDA events around single
launches after warm-ups; the median is reported. One JSON object per line:
{"op": "gemm_fp8", "M": .., "N": .., "K": .., "median_us": .., "tflops": ..}
or, when PyTorch refuses a shape, {"op": .., "M": .., "error": "..."}.
With --grouped "E,R,N,K ...": a bf16 grouped GEMM of E experts with R rows
each (offsets form, as kiln's moe_gemm_bf16_offsets with --routing
uniform), through torch._grouped_mm (op "moe_gemm_bf16_offsets", M = E*R)
and a torch loop of one matmul per expert (op "moe_bf16_loop").
Without PyTorch or CUDA it says so and exits 0 with no results.
"""
import argparse
import json
import statistics
import sys


def parse_shapes(text):
    shapes = []
    for part in text.split():
        m, n, k = (int(x) for x in part.split(","))
        shapes.append((m, n, k))
    return shapes


def time_launches(torch, fn, warmup, reps):
    for _ in range(warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for s, e in zip(starts, ends):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def bench(torch, op, m, n, k, warmup, reps):
    dev = "cuda"
    if op == "gemm_fp8":
        a = (torch.rand(m, k, device=dev) * 4 - 2).to(torch.float8_e4m3fn)
        b = (torch.rand(n, k, device=dev) * 4 - 2).to(torch.float8_e4m3fn)
        sa = torch.tensor(1.25, device=dev, dtype=torch.float32)
        sb = torch.tensor(0.75, device=dev, dtype=torch.float32)

        def fn():
            return torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb,
                                    out_dtype=torch.bfloat16)
    elif op == "gemm_fp8_block":
        # Blockwise scales (1x128 for A, 128x128 for B), where the installed
        # torch's _scaled_mm takes them (recent releases on Hopper); any
        # refusal is recorded as this row's error. A's scales are MN-major,
        # as cuBLASLt's blockwise mode wants them. Untested here: no GPU.
        a = (torch.rand(m, k, device=dev) * 4 - 2).to(torch.float8_e4m3fn)
        b = (torch.rand(n, k, device=dev) * 4 - 2).to(torch.float8_e4m3fn)
        kb, nb = (k + 127) // 128, (n + 127) // 128
        sa = torch.rand(kb, m, device=dev, dtype=torch.float32).t()
        sb = torch.rand(nb, kb, device=dev, dtype=torch.float32).t()

        def fn():
            return torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb,
                                    out_dtype=torch.bfloat16)
    else:
        a = torch.rand(m, k, device=dev, dtype=torch.bfloat16) * 4 - 2
        b = torch.rand(n, k, device=dev, dtype=torch.bfloat16) * 4 - 2

        def fn():
            return torch.matmul(a, b.t())
    ms = time_launches(torch, fn, warmup, reps)
    return {"median_us": ms * 1e3, "tflops": 2.0 * m * n * k / (ms * 1e-3) / 1e12}


def bench_grouped(torch, op, e, r, n, k, warmup, reps):
    dev = "cuda"
    a = torch.rand(e * r, k, device=dev, dtype=torch.bfloat16) * 4 - 2
    # kiln's B is [E, N, K]; torch._grouped_mm takes [E, K, N] (a transposed
    # view: each expert's weight K-contiguous, as kiln stores it).
    b = torch.rand(e, n, k, device=dev, dtype=torch.bfloat16) * 4 - 2
    offs = torch.arange(1, e + 1, device=dev, dtype=torch.int32) * r
    if op == "moe_gemm_bf16_offsets":
        def fn():
            return torch._grouped_mm(a, b.transpose(-2, -1), offs=offs,
                                     out_dtype=torch.bfloat16)
    else:
        def fn():
            return [torch.matmul(a[i * r:(i + 1) * r], b[i].t())
                    for i in range(e)]
    ms = time_launches(torch, fn, warmup, reps)
    return {"median_us": ms * 1e3,
            "tflops": 2.0 * e * r * n * k / (ms * 1e-3) / 1e12}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", required=True, help='"M,N,K M,N,K ..."')
    ap.add_argument("--grouped", default="", help='"E,R,N,K ..." (optional)')
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--out", required=True, help="JSON lines file to write")
    args = ap.parse_args()
    shapes = parse_shapes(args.shapes)
    with open(args.out, "w") as out:
        try:
            import torch
        except ImportError as e:
            print(f"cublas_bench: PyTorch is not installed ({e}); no cuBLAS numbers")
            return 0
        if not torch.cuda.is_available():
            print("cublas_bench: torch.cuda is not available; no cuBLAS numbers")
            return 0
        print(f"cublas_bench: torch {torch.__version__}, "
              f"{torch.cuda.get_device_name(0)}")
        for op in ("gemm_fp8", "gemm_fp8_block", "gemm_bf16"):
            for m, n, k in shapes:
                rec = {"op": op, "M": m, "N": n, "K": k}
                try:
                    rec.update(bench(torch, op, m, n, k, args.warmup, args.reps))
                except Exception as e:  # a shape cuBLAS/PyTorch refuses
                    rec["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
                out.write(json.dumps(rec) + "\n")
                out.flush()
                torch.cuda.empty_cache()
        for part in args.grouped.split():
            e, r, n, k = (int(x) for x in part.split(","))
            for op in ("moe_gemm_bf16_offsets", "moe_bf16_loop"):
                rec = {"op": op, "M": e * r, "N": n, "K": k, "E": e}
                try:
                    rec.update(bench_grouped(torch, op, e, r, n, k,
                                             args.warmup, args.reps))
                except Exception as ex:  # no _grouped_mm in this torch, etc.
                    rec["error"] = (f"{type(ex).__name__}: "
                                    f"{str(ex).splitlines()[0][:120]}")
                out.write(json.dumps(rec) + "\n")
                out.flush()
                torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
