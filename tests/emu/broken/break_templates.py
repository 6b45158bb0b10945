#!/usr/bin/env python3
"""Copies kiln's templates/ to DEST and breaks them in one deliberate way.

usage: break_templates.py TEMPLATES DEST NAME

Each break is a textual substitution in one header; an anchor that is no
longer found is an error, so a template change that moves the code these
breaks target fails the suite loudly instead of testing nothing. The
emulator must catch every one of them (tests/lit/Emu/broken-templates.test).
"""
import shutil
import sys

BREAKS = {
    # A router keeping one group fewer than declared (the group-limited
    # top-k of DeepSeek-V3 then misses experts it had to consider).
    "route-keep-short": ("kiln/route/topk.cuh",
                         "for (int g = 0; g < Cfg::kKeep; ++g) {",
                         "for (int g = 1; g < Cfg::kKeep; ++g) {"),
    # A permutation whose ranks ignore the entries of earlier CTAs.
    "permute-no-before": ("kiln/permute/permute.cuh",
                          "  count(ids, 0, first, E, hist + warp * E, lane, warp);",
                          "  count(ids, 0, 0, E, hist + warp * E, lane, warp);"),
    # A permutation that does not round each expert's run up to the
    # alignment: runs overlap the GEMM's tiles.
    "permute-unaligned": ("kiln/permute/permute.cuh",
                          "e < E ? (total[e] + Cfg::kAlign - 1) / Cfg::kAlign * Cfg::kAlign : 0;",
                          "e < E ? total[e] : 0;"),
    # A quantizing permutation whose lanes keep their own block maxima (no
    # warp reduction): each lane scales its columns differently.
    "permute-quant-lane-amax": ("kiln/permute/permute.cuh",
                                "for (int o = 16; o > 0; o >>= 1)",
                                "for (int o = 16; o > 16; o >>= 1)"),
    # A combine that reads row pos = -1 (an empty slot).
    "combine-no-guard": ("kiln/combine/combine.cuh",
                         "if (p >= 0 && p < M)",
                         "if (p < M)"),
    # A combine that weights each token's first slot by 0.75 of its
    # router weight (the FP8 layer's gate must catch it, not only the
    # combine's own check).
    "combine-slot0-weight": ("kiln/combine/combine.cuh",
                             "acc = fmaf(w[t * K + j], to_float",
                             "acc = fmaf((j == 0 ? 0.75f : 1.0f) * w[t * K + j], to_float"),
    # A combine that drops each token's last slot.
    "combine-short": ("kiln/combine/combine.cuh",
                      "for (int j = 0; j < K; ++j) {",
                      "for (int j = 0; j < K - 1; ++j) {"),
    # A promotion inside the K-tile (1x64 scales) that reads the scales of
    # the K-tile's first interval for every interval.
    "promote-within-scales": ("kiln/gemm/promote_sm90.cuh",
                              "scales.load(sa, sb, su, wg, m0, n0, k0); // overlaps the MMAs in flight\n    arch::wgmma_wait<0>();\n    part.fence();\n    promote(out, part, scales, sb, su, n0, k0);",
                              "scales.load(sa, sb, su, wg, m0, n0, k_tile); // overlaps the MMAs in flight\n    arch::wgmma_wait<0>();\n    part.fence();\n    promote(out, part, scales, sb, su, n0, k0);"),
    # ... and one that promotes an interval past the end of K, reading the
    # scales past their tables.
    "promote-within-past-k": ("kiln/gemm/promote_sm90.cuh",
                              "if (G == 0 || k0 < K) {",
                              "if (true) {"),
    # The mma.sync kernel's promotion inside a K-tile with the scales of
    # the K-tile's first interval for every interval.
    "promote80-within-scales": ("kiln/gemm/promote_sm80.cuh",
                                "    if (k0 < K)\n      promote_at(part, k0);",
                                "    if (k0 < K)\n      promote_at(part, k0 - k0 % Cfg::kBK);"),
    # The wgmma descriptor's stride byte offset: 512 instead of the 1024
    # bytes between 8-row swizzle atoms.
    "wrong-sbo": ("kiln/arch/wgmma_desc_sm90.cuh",
                  "(uint64_t(1024 >> 4) << 32) |\n         uint64_t((smem_addr",
                  "(uint64_t(512 >> 4) << 32) |\n         uint64_t((smem_addr"),
    # A stage handed back to the producer right after its wgmma was issued,
    # before wgmma.wait_group retired it.
    "early-release": ("kiln/gemm/mainloop_sm90_tma_wgmma.cuh",
                      """    mma_stage<Cfg>(smem, acc, wg, pos.stage, kt > 0 ? 1u : 0u);
    arch::wgmma_wait<1>(); // K-tile kt-1 has retired: its stage may be refilled
    acc.fence();
    if (kt > 0)
      release_stage<Cfg>(smem.empty(prev_stage), multicast, peer);""",
                      """    mma_stage<Cfg>(smem, acc, wg, pos.stage, kt > 0 ? 1u : 0u);
    release_stage<Cfg>(smem.empty(pos.stage), multicast, peer);
    arch::wgmma_wait<1>(); // K-tile kt-1 has retired: its stage may be refilled
    acc.fence();
    if (false)
      release_stage<Cfg>(smem.empty(prev_stage), multicast, peer);"""),
    # The full barrier expects 16 more transaction bytes than TMA delivers.
    "wrong-expect-tx": ("kiln/gemm/mainloop_sm90_tma_wgmma.cuh",
                        "arch::mbar_arrive_expect_tx(full, Cfg::kStageBytes);",
                        "arch::mbar_arrive_expect_tx(full, Cfg::kStageBytes + 16);"),
    # The two accumulator registers of a column pair swapped in the epilogue.
    "swapped-fragment": ("kiln/gemm/gemm_sm90.cuh",
                         "acc.v[i][4 * j + 2 * h], acc.v[i][4 * j + 2 * h + 1]);",
                         "acc.v[i][4 * j + 2 * h + 1], acc.v[i][4 * j + 2 * h]);"),
    # The ragged-N predicate of the staged store off by one.
    "ragged-predicate": ("kiln/gemm/epilogue.cuh",
                         "if (lane >= width || n >= N)",
                         "if (lane >= width || n > N)"),
    # The empty barrier not doubled for the peer CTA's arrivals under
    # multicast.
    "multicast-count": ("kiln/gemm/mainloop_sm90_tma_wgmma.cuh",
                        "4 * Cfg::kConsumers * (doubled ? 2 : 1)",
                        "4 * Cfg::kConsumers"),
    # A consumer that spins forever instead of consuming (for the watchdog).
    "livelock": ("kiln/gemm/mainloop_sm90_tma_wgmma.cuh",
                 "  int prev_stage = 0;",
                 "  int prev_stage = 0;\n"
                 "  while (ktiles > 0)\n    arch::fence_proxy_async_shared();"),
    # Split-K: the last CTA sums its own partial first (and split 0 in its
    # place), so which CTA arrives last changes the rounding (a second
    # launch, in another order, differs).
    "split-k-arrival-order": ("kiln/gemm/split_k.cuh",
                              """const float *first = partials(0) + 4 * tid;
#pragma unroll
    for (int q = 0; q < Regs / 4; ++q)
      arch::ld_global_cg_v4(first + 4 * q * Threads, v + 4 * q);
#pragma unroll 1
    for (int s = 1; s < Splits; ++s) {
      const float *src = partials(s) + 4 * tid;""",
                              """const float *first = partials(split) + 4 * tid;
#pragma unroll
    for (int q = 0; q < Regs / 4; ++q)
      arch::ld_global_cg_v4(first + 4 * q * Threads, v + 4 * q);
#pragma unroll 1
    for (int s = 1; s < Splits; ++s) {
      const float *src = partials(s == split ? 0 : s) + 4 * tid;"""),
    # Split-K: the last CTA leaves the tile's counter at Splits, so in the
    # next launch no CTA is last and the tile is never written.
    "split-k-no-reset": ("kiln/gemm/split_k.cuh",
                         "arch::store_relaxed_gpu(counter(), 0u);",
                         "(void)0;"),
    # TMA stores: the box is handed to the TMA without fence.proxy.async
    # after the lanes wrote it.
    "tma-store-no-fence": ("kiln/gemm/epilogue.cuh",
                           "arch::fence_proxy_async_shared(); // this lane's",
                           "// no fence: this lane's"),
    # TMA stores: a box slot is rewritten without waiting for the store that
    # still reads it.
    "tma-store-no-wait": ("kiln/gemm/epilogue.cuh",
                          "arch::bulk_wait_group_read<kTmaStoreSlots<TOut> - 1>();",
                          "(void)0;"),
    # TMA stores: the slot wait one group short (a box rewritten while the
    # store issued kTmaStoreSlots blocks ago may still read it).
    "tma-store-slot-wait-short": (
        "kiln/gemm/epilogue.cuh",
        "arch::bulk_wait_group_read<kTmaStoreSlots<TOut> - 1>();",
        "arch::bulk_wait_group_read<kTmaStoreSlots<TOut>>();"),
    # TMA stores: the warp leaves without waiting for its last stores.
    "tma-store-no-drain": ("kiln/gemm/epilogue.cuh",
                           "arch::bulk_wait_group_read<0>();",
                           "(void)0;"),
    # TMA stores: the box's coordinates swapped (row for column).
    "tma-store-swapped": ("kiln/gemm/epilogue.cuh",
                          "arch::tma_store_2d(tma_d, out, n0, m0);",
                          "arch::tma_store_2d(tma_d, out, m0, n0);"),
    # Quantized outputs: a row's block max taken over two of the four lanes
    # that hold the row; the values left unscaled; every tile's scales
    # written to the first tile's columns of ds.
    "quant-half-row-max": ("kiln/gemm/gemm_sm90.cuh",
                           "amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 2));",
                           "(void)0;"),
    "quant-no-inverse": ("kiln/gemm/gemm_sm90.cuh",
                         "acc.v[i][4 * j + 2 * h] *= inv;\n          acc.v[i][4 * j + 2 * h + 1] *= inv;",
                         "(void)inv;"),
    # Quantized outputs: the amax never raised (it stays 0).
    "quant-no-amax": ("kiln/gemm/row_quant.cuh",
                      "if (threadIdx.x % 32 == 0) // |x| >= 0: its bits order",
                      "if (threadIdx.x % 32 == 32) // |x| >= 0: its bits order"),
    "quant-scale-column": ("kiln/gemm/gemm_sm90.cuh",
                           "col = n0 / kB + q;",
                           "col = q;"),
    # Gated ops: the up weight's rows loaded over the gate's in the stage;
    # the gate's column paired with the wrong up column; the up columns
    # promoted with the gate weight's scales.
    "gated-up-offset": ("kiln/gemm/mainloop_sm90_tma_wgmma.cuh",
                        "smem.b(pos.stage) + Cfg::kBN * 128, tma_u,",
                        "smem.b(pos.stage), tma_u,"),
    "gated-pair-column": ("kiln/gemm/gemm_sm90.cuh",
                          "Epi(v, acc.v[i][r + Cfg::kBN / 2], m, n, args...)",
                          "Epi(v, acc.v[i][Cfg::kMmaN / 2 - 1 - r], m, n, args...)"),
    "gated-up-scale": ("kiln/gemm/promote_sm90.cuh",
                       "s.up_col.at(su, n0, j - kGateBlocks, e, k0)",
                       "s.col.at(sb, n0, j - kGateBlocks, e, k0)"),
    # Gated ops on mma.sync: the up projection's n8 tiles read the gate's
    # rows of the stage instead of the up weight's.
    "gated80-up-rows": ("kiln/gemm/mainloop_sm80_cp_async_mma.cuh",
                        "j < kOutPairs ? 16 * j : Cfg::kBN + 16 * (j - kOutPairs)",
                        "j < kOutPairs ? 16 * j : 16 * (j - kOutPairs)"),
    # Quantized outputs on mma.sync: a block that spans two warp tiles takes
    # only the first warp's row maxima.
    "quant80-one-warp": ("kiln/gemm/quantize_sm80.cuh",
                         "for (int w = 0; w < kWarpsPerBlock; ++w)",
                         "for (int w = 0; w < 1; ++w)"),
    # Block scales: a tile whose columns span two 128-row scale blocks of B
    # uses the first block's scale for all of them.
    "scale-one-block": ("kiln/gemm/block_scale.cuh",
                        "        s = t == u ? v[u] : s;",
                        "        s = t == u ? v[0] : s;"),
    # Promotion: the first wgmma of a K block adds to the previous block's
    # partial sum (scale-d = 1) instead of overwriting it, so it is promoted
    # twice.
    "promote-no-restart": ("kiln/gemm/promote_sm90.cuh",
                           "mma_stage<Cfg>(smem, part, wg, pos.stage, in_block > 0 ? 1u : 0u);",
                           "mma_stage<Cfg>(smem, part, wg, pos.stage, kt > 0 ? 1u : 0u);"),
    # Promotion reads the wgmma accumulators before wait_group 0 retired the
    # block's last group.
    "promote-early-read": ("kiln/gemm/promote_sm90.cuh",
                           """      arch::wgmma_wait<0>();
      part.fence();
      if (held)
        release_stage<Cfg>(smem.empty(held_stage), multicast, peer);
      release_stage<Cfg>(smem.empty(pos.stage), multicast, peer);
      held = false;
      promote(out, part, scales, sb, su, n0, k0);""",
                           """      promote(out, part, scales, sb, su, n0, k0);
      arch::wgmma_wait<0>();
      part.fence();
      if (held)
        release_stage<Cfg>(smem.empty(held_stage), multicast, peer);
      release_stage<Cfg>(smem.empty(pos.stage), multicast, peer);
      held = false;"""),
    # sm80 promotion: the mma.sync partial sum is not restarted after it was
    # promoted, so every block is added again at each later promotion.
    "promote80-no-restart": ("kiln/gemm/promote_sm80.cuh",
                             "            p = 0.0f;\n",
                             ""),
    # Persistent kernel: the consumers restart the stage ring at every tile
    # instead of carrying it on, so they read stages out of order.
    "persistent-ring-reset": ("kiln/gemm/gemm_sm90.cuh",
                              "      Accum<Cfg> acc;\n      consume_tile(",
                              "      Accum<Cfg> acc;\n      pos = RingPos<Cfg::kStages>();\n"
                              "      consume_tile("),
    # Persistent kernel in a 2-CTA cluster: a tile that does not multicast
    # releases each stage once, though the empty barriers count two.
    "persistent-single-release": ("kiln/gemm/mainloop_sm90_tma_wgmma.cuh",
                                  "  else if (lane == 1 && kDoubleRelease<Cfg>)\n"
                                  "    arch::mbar_arrive(empty_bar);\n",
                                  ""),
    # Persistent kernel: the epilogue stages in the ring's stage 0 (as the
    # one-tile kernel may), where the next tile's TMA loads land meanwhile.
    "persistent-staging-in-ring": ("kiln/gemm/gemm_sm90.cuh",
                                   "smem.epilogue(wg, threadIdx.x % 128 / 32)",
                                   "smem.a(0) + wg * Cfg::kMmaM * 64 * 128 + "
                                   "threadIdx.x % 128 / 32 * 2048"),
    # sm80: the cp.async pipeline's wait leaves one group too many in flight.
    "cp-async-wait": ("kiln/gemm/mainloop_sm80_cp_async_mma.cuh",
                      "arch::cp_async_wait<S - 2>();",
                      "arch::cp_async_wait<S - 1>();"),
    # Attention (kiln/attention/attention_sm80.cuh): the online softmax
    # that does not rescale the running sum when the row max grows.
    "attention-no-correction": ("kiln/attention/attention_common.cuh",
                                "row_sum[half] = row_sum[half] * corr + sum;",
                                "row_sum[half] = row_sum[half] + sum;"),
    # ... whose row max is the lane's own, not its quad's (the four lanes
    # that hold one row then scale their P differently).
    "attention-lane-max": ("kiln/attention/attention_common.cuh",
                           "    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));\n"
                           "    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));\n",
                           ""),
    # ... that reads a K/V slot while its cp.async may be in flight.
    "attention-wait-short": ("kiln/attention/attention_sm80.cuh",
                             "arch::cp_async_wait<kStages - 2>();",
                             "arch::cp_async_wait<kStages - 1>();"),
    # ... that refills the slot of block it - 1 before every warp is done
    # reading it (no barrier).
    "attention-no-barrier": ("kiln/attention/attention_sm80.cuh",
                             "      __syncthreads(); // everyone's; everyone finished block it - 1\n",
                             ""),
    # ... that takes a block crossing the causal edge as whole (no mask).
    "attention-causal-whole": ("kiln/attention/attention_common.cuh",
                               "(Cfg::kRight < 0 || t0 + Cfg::kBN - 1 <= s0 + off + Cfg::kRight)",
                               "true"),
    # FP8 (the mma.sync kernel's e4m3 path): V's byte permutation that
    # gives each B fragment the other column of its pair ...
    "attention-fp8-value-columns": ("kiln/attention/attention_sm80.cuh",
                                    "    even[q] = __byte_perm(r[2 * q], r[2 * q + 1], 0x6420);\n"
                                    "    odd[q] = __byte_perm(r[2 * q], r[2 * q + 1], 0x7531);\n",
                                    "    even[q] = __byte_perm(r[2 * q], r[2 * q + 1], 0x7531);\n"
                                    "    odd[q] = __byte_perm(r[2 * q], r[2 * q + 1], 0x6420);\n"),
    # ... and P's A fragment with its two 8-key blocks the other way round
    # (its keys no longer in V's order).
    "attention-fp8-p-keys": ("kiln/attention/attention_common.cuh",
                             "          s[4 * c + 2 * q][2 * half], s[4 * c + 2 * q][2 * half + 1],\n"
                             "          s[4 * c + 2 * q + 1][2 * half], s[4 * c + 2 * q + 1][2 * half + 1]);\n",
                             "          s[4 * c + 2 * q + 1][2 * half], s[4 * c + 2 * q + 1][2 * half + 1],\n"
                             "          s[4 * c + 2 * q][2 * half], s[4 * c + 2 * q][2 * half + 1]);\n"),
    # The sm_90a kernel's FP8 path: V^T written by the producer's warps
    # and read by the P.V wgmma without fence.proxy.async ...
    "attention90-fp8-no-proxy-fence": ("kiln/attention/attention_sm90.cuh",
                                       "          arch::fence_proxy_async_shared(); // for the P.V wgmma's reads\n",
                                       ""),
    # ... and V^T's keys in their natural order, not P's.
    "attention90-fp8-vt-order": ("kiln/attention/attention_sm90.cuh",
                                 "    const int key0 = 32 * c + 16 * q + 2 * t;\n",
                                 "    const int key0 = k;\n"),
    # The sm_90a attention kernel (kiln/attention/attention_sm90.cuh):
    # a stage released before the P.V wgmma reading its V has retired.
    "attention90-early-release": ("kiln/attention/attention_sm90.cuh",
                                  "        arch::wgmma_wait<0>(); // P's registers and the stage are free\n"
                                  "      }\n"
                                  "      fence_accumulators(acc_o);\n"
                                  "      if (threadIdx.x % 128 == 0)\n"
                                  "        arch::mbar_arrive(kv_empty(slot));\n",
                                  "        if (threadIdx.x % 128 == 0)\n"
                                  "          arch::mbar_arrive(kv_empty(slot));\n"
                                  "        arch::wgmma_wait<0>();\n"
                                  "      }\n"
                                  "      fence_accumulators(acc_o);\n"),
    # ... V's panels read 64 rows apart instead of block_n.
    "attention90-v-lbo": ("kiln/attention/attention_sm90.cuh",
                          "              arch::wgmma_desc_mn128b(v_tile + 2048u * uint32_t(kk), kBN * 128)",
                          "              arch::wgmma_desc_mn128b(v_tile + 2048u * uint32_t(kk), 64 * 128)"),
    # ... a stage's barrier expecting K's bytes only.
    "attention90-expect-tx": ("kiln/attention/attention_sm90.cuh",
                              "arch::mbar_arrive_expect_tx(kv_full(slot), Cfg::kKBytes + Cfg::kVBytes);",
                              "arch::mbar_arrive_expect_tx(kv_full(slot), Cfg::kKBytes);"),
    # ... P written and O rescaled by the threads, then the P.V wgmma
    # without a wgmma.fence.
    "attention90-no-fence": ("kiln/attention/attention_sm90.cuh",
                             "(PTX).\n        fence_accumulators(acc_o);\n        arch::wgmma_fence();\n",
                             "(PTX).\n        fence_accumulators(acc_o);\n"),
    # Its intra-warpgroup overlap (overlap=intra): the softmax reading S
    # while its wgmma may be in flight (no wait for it) ...
    "attention90-overlap-no-wait": ("kiln/attention/attention_sm90.cuh",
                                    "        arch::wgmma_wait<1>(); // S is in; block it - 1's P.V runs on\n",
                                    ""),
    # ... O rescaled while block j - 1's P.V still adds into it ...
    "attention90-overlap-early-rescale": ("kiln/attention/attention_sm90.cuh",
                                          "        arch::wgmma_wait<0>(); // block it - 1's P.V: O and P are free\n"
                                          "        release(prev_slot);\n"
                                          "        rescale_rows(acc_o, corr);\n",
                                          "        rescale_rows(acc_o, corr);\n"
                                          "        arch::wgmma_wait<0>();\n"
                                          "        release(prev_slot);\n"),
    # ... and block j - 1's stage released before its P.V retired.
    "attention90-overlap-early-release": ("kiln/attention/attention_sm90.cuh",
                                          "        arch::wgmma_wait<0>(); // block it - 1's P.V: O and P are free\n"
                                          "        release(prev_slot);\n",
                                          "        release(prev_slot);\n"
                                          "        arch::wgmma_wait<0>();\n"),
    # Its ping-pong (overlap=pingpong) without the first warpgroup's first
    # turn: a deadlock.
    "attention90-pingpong-no-first-turn": ("kiln/attention/attention_sm90.cuh",
                                           "        hand_turn(0); // the first warpgroup goes first\n",
                                           ""),
    # For kiln tune's isolation (tests/lit/Emu/tune-isolation.test), breaks
    # that hit some configurations only: 64-row tiles write far out of
    # bounds (a fault), 64-column tiles spin forever (a hang that no
    # barrier or watchdog of the kernel's own can end).
    "fault-bm64-hang-bn64": ("kiln/gemm/gemm_sm90.cuh",
                             """#elif defined(__CUDA_ARCH__)
  if constexpr (Cfg::kClusterSize == 2) {""",
                             """#elif defined(__CUDA_ARCH__)
  if constexpr (Cfg::kBM == 64 && Cfg::kBN != 64)
    D[-(int64_t(1) << 30)] = TOut();
  if constexpr (Cfg::kBN == 64 && Cfg::kBM != 64) {
    // Never ends for a real M (>= 1), yet the code after it stays live.
    volatile int32_t spin = M;
    while (spin != -1)
      spin = M;
  }
  if constexpr (Cfg::kClusterSize == 2) {"""),
}


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in BREAKS:
        sys.exit("usage: break_templates.py TEMPLATES DEST {%s}" %
                 "|".join(sorted(BREAKS)))
    src, dest, name = sys.argv[1:]
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest)
    path, old, new = BREAKS[name]
    try:
        with open(dest + "/" + path) as f:
            text = f.read()
    except OSError:
        text = ""
    if text.count(old) != 1:
        sys.exit("break_templates.py: %s: the code to break was not found "
                 "exactly once in %s; update the break" % (name, path))
    with open(dest + "/" + path, "w") as f:
        f.write(text.replace(old, new))


if __name__ == "__main__":
    main()
