#!/usr/bin/env python3
"""Record an in-situ truth for `joules attribute` on one NVIDIA GPU.

A Qwen3-8B-shaped decode loop (512 sequences, paged KV pool, eager PyTorch
with fused Triton kernels, every op under a torch.profiler.record_function
span named layerN.norm/.qkv/.kv_write/.attention/.o_proj/.mlp, embed,
final_norm, lm_head, sample, decode_step) is run

  (a) under torch.profiler (schedule wait/warm-up/active, >= 20 s window,
      Kineto JSON export, device-side events kept),
  (b) unmodified ("base") and, for each op class, with that class executed
      twice per call site (same shapes, the second result discarded), each
      steady for --steady-s seconds, base runs interleaved between the classes,
  (c) as isolated loops, one per class (the class's calls of one iteration
      captured in a CUDA graph and replayed back to back after 1 s idle),

while nvml_sampler.py, in a process of its own, samples NVML (total energy
counter, instant power field, 1-s average field, plain power reading)
through ctypes on libnvidia-ml.so.1. truth(class) = energy per iteration
(doubled) - energy per iteration (base), from the counter. The analysis is done offline
(tests/device/README.md); this script only records.

Outputs under --out: samples.csv.gz (every NVML poll), phases.json (shapes,
versions, every iteration's start and end, the profiler's clocks and window,
the isolated loops), profile-gpu.json.gz (the Kineto export, device-side
events kept), and the log printed to stdout.
Not run by ctest (it needs a GPU, ~70 GiB of device memory, minutes).
"""
import argparse
import gc
import gzip
import json
import math
import os
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from nvml_sampler import Nvml  # noqa: E402

# ---- shapes (Qwen3-8B) --------------------------------------------------------
HID, NQ, NKV, HD, INTER, VOCAB, NLAYER = 4096, 32, 8, 128, 12288, 151936, 36
PAGE = 16
CLASSES = ["norm", "qkv", "kv_write", "attention", "o_proj", "mlp", "embed", "final_norm",
           "lm_head", "sample"]
ISO_CLASSES = ["attention", "kv_write", "lm_head", "mlp", "norm", "o_proj", "qkv", "sample"]


class Sampler:
    """nvml_sampler.py in a process of its own (a thread of this process was
    stalled for seconds while the profiler stopped: the GIL)."""

    def __init__(self, path, period, index=0, cpus=None):
        self.path = path
        # --sampler-cpus: the sampler on cores of its own, away from the recorder's
        pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "nvml_sampler.py"), path,
                                      str(period), "--index", str(index)],
                                     stdin=subprocess.PIPE, preexec_fn=pin)

    def stop(self):
        self.proc.stdin.close()
        if self.proc.wait(timeout=60) != 0:
            raise RuntimeError(f"nvml_sampler.py exited with {self.proc.returncode}")


# ---- fused Triton kernels ------------------------------------------------------
@triton.jit
def add_rmsnorm_kernel(x_ptr, res_in_ptr, res_out_ptr, out_ptr, w_ptr, eps, N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + cols).to(tl.float32)
    r = tl.load(res_in_ptr + row * N + cols).to(tl.float32)
    h = x + r
    tl.store(res_out_ptr + row * N + cols, h.to(tl.bfloat16))
    var = tl.sum(h * h, axis=0) / N
    w = tl.load(w_ptr + cols).to(tl.float32)
    y = h * tl.rsqrt(var + eps) * w
    tl.store(out_ptr + row * N + cols, y.to(tl.bfloat16))


@triton.jit
def qknorm_rope_kernel(qkv_ptr, q_out_ptr, k_out_ptr, qw_ptr, kw_ptr, cos_ptr, sin_ptr, pos_ptr,
                       eps, NQH: tl.constexpr, NKVH: tl.constexpr, D: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)  # 0..NQH+NKVH-1
    half: tl.constexpr = D // 2
    i = tl.arange(0, half)
    row = qkv_ptr + b * (NQH + 2 * NKVH) * D + h * D
    x1 = tl.load(row + i).to(tl.float32)
    x2 = tl.load(row + half + i).to(tl.float32)
    var = (tl.sum(x1 * x1, axis=0) + tl.sum(x2 * x2, axis=0)) / D
    r = tl.rsqrt(var + eps)
    is_q = h < NQH
    w1 = tl.where(is_q, tl.load(qw_ptr + i), tl.load(kw_ptr + i)).to(tl.float32)
    w2 = tl.where(is_q, tl.load(qw_ptr + half + i), tl.load(kw_ptr + half + i)).to(tl.float32)
    x1 = x1 * r * w1
    x2 = x2 * r * w2
    p = tl.load(pos_ptr + b)
    c = tl.load(cos_ptr + p * half + i)
    s = tl.load(sin_ptr + p * half + i)
    y1 = x1 * c - x2 * s
    y2 = x2 * c + x1 * s
    if h < NQH:
        dst = q_out_ptr + b * NQH * D + h * D
    else:
        dst = k_out_ptr + b * NKVH * D + (h - NQH) * D
    tl.store(dst + i, y1.to(tl.bfloat16))
    tl.store(dst + half + i, y2.to(tl.bfloat16))


@triton.jit
def silu_mul_kernel(gu_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    blk = tl.program_id(1)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    g = tl.load(gu_ptr + b * 2 * N + cols).to(tl.float32)
    u = tl.load(gu_ptr + b * 2 * N + N + cols).to(tl.float32)
    y = g / (1.0 + tl.exp(-g)) * u
    tl.store(out_ptr + b * N + cols, y.to(tl.bfloat16))


@triton.jit
def paged_decode_attn_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, len_ptr, out_ptr, scale, max_pages,
                             NQH: tl.constexpr, NKVH: tl.constexpr, D: tl.constexpr,
                             PAGE_SZ: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    G: tl.constexpr = NQH // NKVH
    m = tl.arange(0, BLOCK_M)
    d = tl.arange(0, D)
    qmask = m < G
    q = tl.load(q_ptr + b * NQH * D + (kvh * G + m)[:, None] * D + d[None, :],
                mask=qmask[:, None], other=0.0)
    L = tl.load(len_ptr + b)
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    n = tl.arange(0, BLOCK_N)
    for start in range(0, L, BLOCK_N):
        tok = start + n
        tmask = tok < L
        page = tl.load(bt_ptr + b * max_pages + tok // PAGE_SZ, mask=tmask, other=0)
        slot = page.to(tl.int64) * PAGE_SZ + tok % PAGE_SZ
        off = (slot * NKVH + kvh)[:, None] * D + d[None, :]
        k = tl.load(k_ptr + off, mask=tmask[:, None], other=0.0)
        v = tl.load(v_ptr + off, mask=tmask[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        s = tl.where(tmask[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(out_ptr + b * NQH * D + (kvh * G + m)[:, None] * D + d[None, :],
             o.to(tl.bfloat16), mask=qmask[:, None])


# ---- the model ------------------------------------------------------------------
class Model:
    """shape "decode": every step decodes `batch` sequences (the shared run's shape).
    "mixed": every `prefill_every`-th step also runs `prefill_chunks` prompt chunks of
    `prefill_len` tokens (fresh prompts: causal attention within the chunk, their K/V
    written to the pool, the logits of each chunk's last token sampled).
    "cpu": decode with `host_ms` of host work per step before its spans (a serving
    engine's scheduling and detokenisation), for a small batch: the GPU idles between
    kernels."""

    def __init__(self, batch, seed, pool_tokens, context_tokens=389507, shape="decode",
                 prefill_chunks=0, prefill_len=0, prefill_every=1, host_ms=0.0, max_len=2312,
                 double_fresh=False):
        dev = torch.device("cuda")
        g = torch.Generator(device="cpu").manual_seed(seed)
        self.B = batch
        self.shape = shape
        self.C = prefill_chunks if shape == "mixed" else 0
        self.P = prefill_len if self.C else 0
        self.every = prefill_every if self.C else 1
        self.host_s = host_ms / 1e3
        self.it = 0
        T = batch + self.C * self.P
        self.T_max = T

        def w(*shape, std=0.02):
            t = torch.empty(*shape, dtype=torch.bfloat16, device=dev)
            t.normal_(0.0, std)
            return t

        torch.manual_seed(seed)
        self.layers = []
        for _ in range(NLAYER):
            self.layers.append(dict(
                in_norm=1.0 + w(HID, std=0.05), post_norm=1.0 + w(HID, std=0.05),
                qkv=w((NQ + 2 * NKV) * HD, HID), q_norm=1.0 + w(HD, std=0.05),
                k_norm=1.0 + w(HD, std=0.05), o=w(HID, NQ * HD), gu=w(2 * INTER, HID),
                down=w(HID, INTER)))
        self.embed_w = w(VOCAB, HID)
        self.final_norm_w = 1.0 + w(HID, std=0.05)
        self.lm_w = w(VOCAB, HID)
        # the doubled GEMM classes' second call on a copy of the weights (--double-fresh):
        # it streams them from HBM as the first call does, instead of reading what the
        # first call left in L2 (a layer's o_proj is 32 MiB, qkv 48 MiB; L2 50 MiB);
        # the class names CLS_l2 keep the old doubling on the same weights
        self.fresh = double_fresh
        self.layers2 = [dict(L, qkv=L["qkv"].clone(), o=L["o"].clone(), gu=L["gu"].clone(),
                             down=L["down"].clone()) for L in self.layers] if double_fresh \
            else self.layers
        self.lm_w2 = self.lm_w.clone() if double_fresh else self.lm_w
        # context lengths: min 91, max max_len (2312: the shared run's chat task, mean ~761)
        u = torch.rand(batch, generator=g, dtype=torch.float64)
        x = u.pow(2.315)
        x[0], x[1] = 0.0, 1.0
        # scaled so that the lengths sum to context_tokens (the shared run's 389,507)
        x[2:] *= (context_tokens - 91 * batch - (max_len - 91)) / ((max_len - 91) * float(x[2:].sum()))
        lens = (91 + (max_len - 91) * x.clamp(max=1.0)).round().long()
        self.lens_cpu = lens
        chunk_pages = (self.P + PAGE - 1) // PAGE
        pages_needed = int(((lens + PAGE - 1) // PAGE).sum()) + self.C * chunk_pages
        self.n_pages = max(pool_tokens // PAGE, pages_needed)
        perm = torch.randperm(self.n_pages, generator=g)
        self.max_pages = int(((lens.max() + PAGE - 1) // PAGE))
        bt = torch.zeros(batch, self.max_pages, dtype=torch.int32)
        k = 0
        for b in range(batch):
            np_ = int((lens[b] + PAGE - 1) // PAGE)
            bt[b, :np_] = perm[k:k + np_].to(torch.int32)
            k += np_
        self.block_table = bt.to(dev)
        self.lens = lens.to(torch.int32).to(dev)
        pos = (lens - 1)
        self.pos_cpu = pos.to(torch.int32)
        slot = bt[torch.arange(batch), (pos // PAGE)].long() * PAGE + pos % PAGE
        # prefill chunks: positions 0..P-1 in pages of their own, after the decode rows
        for c in range(self.C):
            cp = perm[k:k + chunk_pages].long()
            k += chunk_pages
            ppos = torch.arange(self.P)
            pos = torch.cat([pos, ppos])
            slot = torch.cat([slot, cp[ppos // PAGE] * PAGE + ppos % PAGE])
        self.pos_cpu = pos.to(torch.int32)
        # the rows whose logits are sampled on a prefill step: the decode rows and
        # each chunk's last token
        self.last_idx = torch.cat([torch.arange(batch), batch + self.P * torch.arange(self.C) +
                                   self.P - 1]).to(dev)
        # decode_step's metadata: positions and KV slots, copied host -> device each step
        self.meta_host = torch.cat([self.pos_cpu.long(), slot]).pin_memory()
        self.meta_dev = torch.empty_like(self.meta_host, device=dev)
        self.pos = self.meta_dev[:T]
        self.slot = self.meta_dev[T:]
        self.meta_dev.copy_(self.meta_host)
        # KV pool: [layer][k|v] each [pages*PAGE, NKV, HD]
        self.k_pool, self.v_pool = [], []
        for _ in range(NLAYER):
            kp = torch.empty(self.n_pages * PAGE, NKV, HD, dtype=torch.bfloat16, device=dev)
            vp = torch.empty_like(kp)
            kp.normal_(0.0, 1.0)
            vp.normal_(0.0, 1.0)
            self.k_pool.append(kp)
            self.v_pool.append(vp)
        inv = 1.0 / (1e6 ** (torch.arange(0, HD // 2, dtype=torch.float64) * 2 / HD))
        ang = torch.arange(max(int(lens.max()), self.P) + 1,
                           dtype=torch.float64)[:, None] * inv[None, :]
        self.cos = ang.cos().float().to(dev).contiguous()
        self.sin = ang.sin().float().to(dev).contiguous()
        self.tok = torch.randint(0, VOCAB, (T,), device=dev)
        self.seq_idx = torch.arange(T, device=dev)
        NS = batch + self.C
        self.tok_host = torch.empty(NS, dtype=torch.long).pin_memory()
        self.tok_host2 = torch.empty(NS, dtype=torch.long).pin_memory()
        self.scale = 1.0 / math.sqrt(HD)
        e = dict(device=dev, dtype=torch.bfloat16)
        self.zero_res_full = torch.zeros(T, HID, **e)
        # buffers (reused every step) and scratch buffers for discarded results
        full_b, full_s = {}, {}
        for d in (full_b, full_s):
            d.update(h=torch.empty(T, HID, **e), res=torch.empty(T, HID, **e),
                     xn=torch.empty(T, HID, **e),
                     qkv=torch.empty(T, (NQ + 2 * NKV) * HD, **e),
                     q=torch.empty(T, NQ, HD, **e), k=torch.empty(T, NKV, HD, **e),
                     attn=torch.empty(T, NQ, HD, **e), o=torch.empty(T, HID, **e),
                     gu=torch.empty(T, 2 * INTER, **e), act=torch.empty(T, INTER, **e),
                     mlp=torch.empty(T, HID, **e), xsel=torch.empty(NS, HID, **e),
                     logits=torch.empty(NS, VOCAB, **e),
                     tok=torch.empty(NS, dtype=torch.long, device=dev))
        # per step kind (0: decode only; 1: with the prefill chunks) the leading rows
        self.kinds = {}
        for kind, rows, ns in ((0, batch, batch), (1, T, NS)):
            v = []
            for d in (full_b, full_s):
                v.append({key: (t[:ns] if key in ("xsel", "logits", "tok") else t[:rows])
                          for key, t in d.items()})
            self.kinds[kind] = (v[0], v[1], rows, ns)
        self.set_kind(0)

    def set_kind(self, kind):
        self.kind = kind
        self.buf, self.scr, self.rows, self.ns = self.kinds[kind]
        self.zero_res = self.zero_res_full[:self.rows]

    def period_kinds(self):
        """The step kinds of one period (decode-only steps, then one with prefill)."""
        return [0] * (self.every - 1) + [1] if self.C else [0]

    # ---- ops; out = the buffer set the results go to ----
    def op_embed(self, out):
        t = self.tok[self.seq_idx[:self.rows]]
        torch.index_select(self.embed_w, 0, t, out=out["h"])

    def op_norm(self, x, res_in, res_out, y, w):
        add_rmsnorm_kernel[(x.shape[0],)](x, res_in, res_out, y, w, 1e-6, N=HID, num_warps=8)

    def op_qkv(self, L, xn, out):
        torch.matmul(xn, L["qkv"].t(), out=out["qkv"])
        qknorm_rope_kernel[(xn.shape[0], NQ + NKV)](out["qkv"], out["q"], out["k"], L["q_norm"],
                                                L["k_norm"], self.cos, self.sin, self.pos,
                                                1e-6, NQH=NQ, NKVH=NKV, D=HD, num_warps=1)

    def op_kv_write(self, li, k, qkv):
        n = k.shape[0]
        v = qkv.view(n, NQ + 2 * NKV, HD)[:, NQ + NKV:]
        self.k_pool[li].index_copy_(0, self.slot[:n], k)
        self.v_pool[li].index_copy_(0, self.slot[:n], v)

    def op_attention(self, li, q, out):
        paged_decode_attn_kernel[(self.B, NKV)](
            q, self.k_pool[li], self.v_pool[li], self.block_table, self.lens, out["attn"],
            self.scale, self.max_pages, NQH=NQ, NKVH=NKV, D=HD, PAGE_SZ=PAGE, BLOCK_N=64,
            BLOCK_M=16, num_warps=4, num_stages=2)
        if self.kind == 1:
            self.op_prefill_attention(q, out)

    def op_prefill_attention(self, q, out):
        """Causal attention within each prompt chunk (its K/V: this step's k and v)."""
        G = NQ // NKV
        qkv = out["qkv"] if out is self.buf else self.buf["qkv"]
        kk = self.buf["k"]
        for c in range(self.C):
            r0 = self.B + c * self.P
            r1 = r0 + self.P
            qc = q[r0:r1].transpose(0, 1).unsqueeze(0).contiguous()
            kc = kk[r0:r1].transpose(0, 1).unsqueeze(0)
            vc = qkv.view(self.rows, NQ + 2 * NKV, HD)[r0:r1, NQ + NKV:].transpose(0, 1)
            vc = vc.unsqueeze(0)
            kc = kc[:, :, None].expand(1, NKV, G, self.P, HD).reshape(1, NQ, self.P, HD)
            vc = vc[:, :, None].expand(1, NKV, G, self.P, HD).reshape(1, NQ, self.P, HD)
            o = F.scaled_dot_product_attention(qc, kc, vc, is_causal=True, scale=self.scale)
            out["attn"][r0:r1].copy_(o[0].transpose(0, 1))

    def op_o_proj(self, L, attn, out):
        torch.matmul(attn.view(attn.shape[0], HID), L["o"].t(), out=out["o"])

    def op_mlp(self, L, xn, out):
        torch.matmul(xn, L["gu"].t(), out=out["gu"])
        silu_mul_kernel[(xn.shape[0], INTER // 1024)](out["gu"], out["act"], N=INTER, BLOCK=1024,
                                                  num_warps=4)
        torch.matmul(out["act"], L["down"].t(), out=out["mlp"])

    def op_lm_head(self, xn, out, w=None):
        if self.kind == 1:
            torch.index_select(xn, 0, self.last_idx, out=out["xsel"])
            xn = out["xsel"]
        torch.matmul(xn, (self.lm_w if w is None else w).t(), out=out["logits"])

    def op_sample(self, logits, out, host):
        torch.argmax(logits, dim=-1, out=out["tok"])
        if out is self.buf:
            self.tok[:self.ns].copy_(out["tok"])
        host[:self.ns].copy_(out["tok"], non_blocking=True)

    def step(self, dbl=None):
        """One decode step; dbl: the class executed twice (second result discarded;
        with --double-fresh on a copy of the weights, unless dbl is CLS_l2)."""
        rf = torch.profiler.record_function
        fresh = self.fresh
        if dbl and dbl.endswith("_l2"):
            dbl, fresh = dbl[:-3], False
        kinds = self.period_kinds()
        self.set_kind(kinds[self.it % len(kinds)])
        self.it += 1
        if self.host_s > 0:
            t_host = time.perf_counter() + self.host_s
            while time.perf_counter() < t_host:
                pass
        b, s = self.buf, self.scr
        with rf("decode_step"):
            self.meta_dev.copy_(self.meta_host, non_blocking=True)
            with rf("embed"):
                self.op_embed(b)
                if dbl == "embed":
                    self.op_embed(s)
            x, res_in = b["h"], self.zero_res
            for li, L in enumerate(self.layers):
                L2 = self.layers2[li] if fresh else L
                with rf(f"layer{li}.norm"):
                    self.op_norm(x, res_in, b["res"], b["xn"], L["in_norm"])
                    if dbl == "norm":
                        self.op_norm(x, res_in, s["res"], s["xn"], L["in_norm"])
                with rf(f"layer{li}.qkv"):
                    self.op_qkv(L, b["xn"], b)
                    if dbl == "qkv":
                        self.op_qkv(L2, b["xn"], s)
                with rf(f"layer{li}.kv_write"):
                    self.op_kv_write(li, b["k"], b["qkv"])
                    if dbl == "kv_write":
                        self.op_kv_write(li, b["k"], b["qkv"])
                with rf(f"layer{li}.attention"):
                    self.op_attention(li, b["q"], b)
                    if dbl == "attention":
                        self.op_attention(li, b["q"], s)
                with rf(f"layer{li}.o_proj"):
                    self.op_o_proj(L, b["attn"], b)
                    if dbl == "o_proj":
                        self.op_o_proj(L2, b["attn"], s)
                with rf(f"layer{li}.norm"):
                    self.op_norm(b["o"], b["res"], b["res"], b["xn"], L["post_norm"])
                    if dbl == "norm":
                        # the first call updated res in place: the copy reads the same inputs
                        self.op_norm(b["o"], b["res"], s["res"], s["xn"], L["post_norm"])
                with rf(f"layer{li}.mlp"):
                    self.op_mlp(L, b["xn"], b)
                    if dbl == "mlp":
                        self.op_mlp(L2, b["xn"], s)
                x, res_in = b["mlp"], b["res"]
            with rf("final_norm"):
                self.op_norm(x, res_in, b["res"], b["xn"], self.final_norm_w)
                if dbl == "final_norm":
                    self.op_norm(x, res_in, s["res"], s["xn"], self.final_norm_w)
            with rf("lm_head"):
                self.op_lm_head(b["xn"], b)
                if dbl == "lm_head":
                    self.op_lm_head(b["xn"], s, self.lm_w2 if fresh else self.lm_w)
            with rf("sample"):
                self.op_sample(b["logits"], b, self.tok_host)
                if dbl == "sample":
                    self.op_sample(b["logits"], s, self.tok_host2)
        torch.cuda.synchronize()

    # ---- one class's calls of one period of iterations (isolated loops) ----
    def class_calls(self, cls):
        n = 0
        for kind in self.period_kinds():
            self.set_kind(kind)
            n += self.class_calls_kind(cls)
        return n

    def class_calls_kind(self, cls):
        b, s = self.buf, self.scr
        if cls == "norm":
            for L in self.layers:
                self.op_norm(b["o"], b["h"], s["res"], s["xn"], L["in_norm"])
                self.op_norm(b["o"], b["h"], s["res"], s["xn"], L["post_norm"])
            return 2 * NLAYER
        if cls == "qkv":
            for L in self.layers:
                self.op_qkv(L, b["xn"], s)
            return NLAYER
        if cls == "kv_write":
            for li in range(NLAYER):
                self.op_kv_write(li, b["k"], b["qkv"])
            return NLAYER
        if cls == "attention":
            for li in range(NLAYER):
                self.op_attention(li, b["q"], s)
            return NLAYER
        if cls == "o_proj":
            for L in self.layers:
                self.op_o_proj(L, b["attn"], s)
            return NLAYER
        if cls == "mlp":
            for L in self.layers:
                self.op_mlp(L, b["xn"], s)
            return NLAYER
        if cls == "lm_head":
            self.op_lm_head(b["xn"], s)
            return 1
        if cls == "sample":  # without the host copy (not capturable)
            torch.argmax(b["logits"], dim=-1, out=s["tok"])
            return 1
        raise ValueError(cls)


# ---- checks (probe) ---------------------------------------------------------------
def check_kernels(m):
    """Compare the fused kernels with float32 PyTorch on the first layer's inputs."""
    m.step()
    b = m.buf
    L = m.layers[0]
    res = {}
    # attention for 4 sequences (shortest, longest, two others)
    for bi in (0, 1, 7, 300):
        n = int(m.lens_cpu[bi])
        pages = m.block_table[bi, :(n + PAGE - 1) // PAGE].long()
        slots = (pages[:, None] * PAGE + torch.arange(PAGE, device="cuda")[None, :]).reshape(-1)[:n]
        li = NLAYER - 1
        k = m.k_pool[li][slots].float()
        v = m.v_pool[li][slots].float()
        q = b["q"][bi].float().view(NKV, NQ // NKV, HD)
        sc = torch.einsum("hgd,nhd->hgn", q, k) * m.scale
        ref = torch.einsum("hgn,nhd->hgd", sc.softmax(-1), v).reshape(NQ, HD)
        out = b["attn"][bi].float()
        res[f"attn_{bi}"] = float((out - ref).norm() / ref.norm())
    # add + rmsnorm on fresh inputs
    x = torch.randn(m.B, HID, device="cuda", dtype=torch.bfloat16)
    r = torch.randn(m.B, HID, device="cuda", dtype=torch.bfloat16)
    ro, y = torch.empty_like(x), torch.empty_like(x)
    m.op_norm(x, r, ro, y, L["in_norm"])
    h = x.float() + r.float()
    ref = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * L["in_norm"].float()
    res["norm"] = float((y.float() - ref).norm() / ref.norm())
    # qk-norm + rope
    xn = torch.randn(m.B, HID, device="cuda", dtype=torch.bfloat16)
    m.op_qkv(L, xn, m.scr)
    qkv = (xn.float() @ L["qkv"].float().t()).view(m.B, NQ + 2 * NKV, HD)

    def nr(t, wt):
        t = t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + 1e-6) * wt.float()
        c = m.cos[m.pos.long()][:, None, :]
        s_ = m.sin[m.pos.long()][:, None, :]
        t1, t2 = t[..., :HD // 2], t[..., HD // 2:]
        return torch.cat([t1 * c - t2 * s_, t2 * c + t1 * s_], -1)

    rq = nr(qkv[:, :NQ], L["q_norm"])
    rk = nr(qkv[:, NQ:NQ + NKV], L["k_norm"])
    res["q"] = float((m.scr["q"].float() - rq).norm() / rq.norm())
    res["k"] = float((m.scr["k"].float() - rk).norm() / rk.norm())
    gu = torch.randn(m.B, 2 * INTER, device="cuda", dtype=torch.bfloat16)
    act = torch.empty(m.B, INTER, device="cuda", dtype=torch.bfloat16)
    silu_mul_kernel[(m.B, INTER // 1024)](gu, act, N=INTER, BLOCK=1024, num_warps=4)
    g, u = gu.float()[:, :INTER], gu.float()[:, INTER:]
    ref = F.silu(g) * u
    res["silu_mul"] = float((act.float() - ref).norm() / ref.norm())
    torch.cuda.synchronize()
    return res


# ---- phases ---------------------------------------------------------------------
def log(*a):
    print(f"[{time.perf_counter():10.3f}]", *a, flush=True)


def run_loop(m, dbl, warm_s, steady_s, label, quiet=False):
    """Warm up, then run steady_s seconds (whole periods of step kinds); iteration
    start/end (perf_counter). quiet: no garbage collection inside the steady part
    (--steady-host: one collection before the warm-up instead)."""
    period = len(m.period_kinds())
    if quiet:
        gc.collect()
    t_end = time.perf_counter() + warm_s
    nw = 0
    while time.perf_counter() < t_end:
        m.step(dbl)
        nw += 1
    while m.it % period:
        m.step(dbl)
        nw += 1
    starts, ends, kinds = [], [], []
    if quiet:
        gc.disable()
    t_end = time.perf_counter() + steady_s
    while True:
        a = time.perf_counter()
        m.step(dbl)
        z = time.perf_counter()
        starts.append(a)
        ends.append(z)
        kinds.append(m.kind)
        if z >= t_end and len(starts) % period == 0:
            break
    if quiet:
        gc.enable()
    it = (ends[-1] - starts[0]) / len(starts)
    log(f"{label}: dbl={dbl} warm {nw} it, {len(starts)} it in {ends[-1]-starts[0]:.2f} s, "
        f"{it*1e3:.2f} ms/it")
    return dict(label=label, doubled=dbl, warm_iterations=nw, start=starts, end=ends, kinds=kinds)


def idle(seconds):
    torch.cuda.synchronize()
    a = time.perf_counter()
    time.sleep(seconds)
    return [a, time.perf_counter()]


def profiled_run(m, args, out):
    from torch.profiler import ProfilerActivity, profile, schedule
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    # a throw-away profile initialises the profiler (CUPTI) outside the window
    with profile(activities=acts) as p0:
        for _ in range(2):
            m.step()
    del p0
    it_s = []
    for _ in range(20):
        a = time.perf_counter()
        m.step()
        it_s.append(time.perf_counter() - a)
    it_s.sort()
    unprof = it_s[len(it_s) // 2]
    period = len(m.period_kinds())
    active = max(10, int(math.ceil(args.profile_s / (unprof * 1.05))))
    active += (-active) % period
    # the window starts on a period's first step
    while (m.it + 1 + 3) % period:
        m.step()
    wait, warm = 1, 3
    idle_win = idle(args.idle_before_s)
    info = dict(schedule=f"wait={wait},warmup={warm},active={active},repeat=1",
                activities="CPU,CUDA", idle_before=idle_win,
                iteration_s_unprofiled=unprof)
    starts, ends, flags, kinds = [], [], [], []
    state = {}

    def on_ready(prof):
        state["stop_perf"] = time.perf_counter()
        path = "/tmp/insitu-profile.json"
        a = time.perf_counter()
        prof.export_chrome_trace(path)
        state["export_s"] = time.perf_counter() - a
        state["path"] = path

    total = wait + warm + active
    with profile(activities=acts, schedule=schedule(wait=wait, warmup=warm, active=active,
                                                     repeat=1), on_trace_ready=on_ready) as prof:
        for i in range(total + 1):
            a = time.perf_counter()
            if i == wait + warm:
                w0, p0_ = time.time_ns(), time.perf_counter_ns()
            m.step()
            z = time.perf_counter()
            if i == total - 1:
                w1, p1_ = time.time_ns(), time.perf_counter_ns()
            starts.append(a)
            ends.append(z)
            kinds.append(m.kind)
            flags.append(1 if wait + warm <= i < total else (2 if wait <= i < total else 0))
            prof.step()
    t_after = time.perf_counter()
    # the unprofiled loop after the profile, for iteration time outside the window
    post = run_loop(m, None, 1.0, args.after_s, "after-profile")
    info.update(start=starts, end=ends, profiled=flags, kinds=kinds, wall_ns_start=w0,
                perf_counter_ns_start=p0_, wall_ns_end=w1, perf_counter_ns_end=p1_,
                stop_returned_perf=t_after, after=post)
    rec = [i for i, f in enumerate(flags) if f == 1]
    info["iteration_s_profiled"] = (ends[rec[-1]] - starts[rec[0]]) / len(rec)
    info["window_perf"] = [starts[rec[0]], ends[rec[-1]]]
    info["stop_stall_s"] = state["stop_perf"] - ends[rec[-1]]
    info["export_s"] = state["export_s"]
    # keep the device-side events only (the CPU side is too large to bring back)
    a = time.perf_counter()
    with open(state["path"]) as f:
        doc = json.load(f)
    info["json_bytes"] = os.path.getsize(state["path"])
    keep_cat = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}
    ev = doc.get("traceEvents", [])
    kept = [e for e in ev if e.get("ph") == "M" or e.get("cat") in keep_cat
            or e.get("name") == "Trace" or e.get("cat") == "Trace"]
    info["events_raw"], info["events_kept"] = len(ev), len(kept)
    doc["traceEvents"] = kept
    info["baseTimeNanoseconds"] = doc.get("baseTimeNanoseconds")
    with gzip.open(os.path.join(out, "profile-gpu.json.gz"), "wt", compresslevel=6) as f:
        json.dump(doc, f)
    if args.keep_cpu:  # the host's side: annotations and launches (their correlation ids)
        keep_cpu = {"user_annotation", "cuda_runtime", "cuda_driver"}
        doc["traceEvents"] = [e for e in ev if e.get("ph") == "M" or e.get("cat") in keep_cpu]
        info["events_cpu_kept"] = len(doc["traceEvents"])
        with gzip.open(os.path.join(out, "profile-cpu.json.gz"), "wt", compresslevel=6) as f:
            json.dump(doc, f)
    os.remove(state["path"])
    info["filter_s"] = time.perf_counter() - a
    log(f"profile: {len(rec)} recorded it, window {info['window_perf'][1]-info['window_perf'][0]:.2f} s, "
        f"{info['iteration_s_profiled']*1e3:.2f} ms/it profiled vs {unprof*1e3:.2f} unprofiled, "
        f"stop stall {info['stop_stall_s']:.2f} s, export {info['export_s']:.1f} s, "
        f"{info['events_raw']} -> {info['events_kept']} events, filter {info['filter_s']:.1f} s")
    return info


def iso_loops(m, args, duty=1.0):
    """One isolated loop per class. duty 1: the class's graph replayed back to
    back (at the card's power cap for the GEMMs, so at lower clocks than a
    profiled run that waits for its host); duty < 1: bursts of about
    --iso-burst-s of replays, each followed by a sleep so that the GPU works
    that share of the time (the 1-s power average stays under the cap and the
    clocks near those of a profiled run). Device time is measured twice: over
    5 replays before the loop (device_s_per_call) and by CUDA events around
    every burst of the loop itself (busy_s_loop)."""
    res = []
    for cls in ISO_CLASSES:
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                m.class_calls(cls)
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        reps = args.iso_reps
        with torch.cuda.graph(g):
            calls = 0
            for _ in range(reps):
                calls += m.class_calls(cls)
        # device time per call (CUDA events, 5 replays)
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        g.replay()
        e0.record()
        for _ in range(5):
            g.replay()
        e1.record()
        torch.cuda.synchronize()
        dev_per_call = e0.elapsed_time(e1) / 1e3 / (5 * calls)
        idle_win = idle(args.iso_idle_s)
        busy = 0.0
        if duty >= 1:
            # as many replays as fill iso_s of device time, queued back to back
            n = max(1, int(round(args.iso_s / (dev_per_call * calls))))
            a = time.perf_counter()
            e0.record()
            for _ in range(n):
                g.replay()
            e1.record()
            torch.cuda.synchronize()
            z = time.perf_counter()
            busy = e0.elapsed_time(e1) / 1e3
        else:
            k = max(1, int(round(args.iso_burst_s / (dev_per_call * calls))))
            n = 0
            a = time.perf_counter()
            t_end = a + args.iso_s / duty
            while True:
                b0 = time.perf_counter()
                e0.record()
                for _ in range(k):
                    g.replay()
                e1.record()
                torch.cuda.synchronize()
                b1 = time.perf_counter()
                busy += e0.elapsed_time(e1) / 1e3
                n += k
                if b1 >= t_end:
                    break
                time.sleep((b1 - b0) * (1 - duty) / duty)
            z = time.perf_counter()
        res.append(dict(cls=cls, idle=idle_win, start=a, end=z, replays=n,
                         calls=n * calls, calls_per_replay=calls, duty=duty,
                         device_s_per_call=dev_per_call, busy_s_loop=busy))
        log(f"iso {cls} (duty {duty:g}): {n} replays x {calls} calls, {z-a:.2f} s, "
            f"{dev_per_call*1e6:.1f} us/call before, {busy/(n*calls)*1e6:.1f} us/call in the loop")
        del g
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--phases", default="profile,iso,truth")
    ap.add_argument("--classes", default=",".join(CLASSES))
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--pool-tokens", type=int, default=393856)
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--poll-s", type=float, default=0.01)
    ap.add_argument("--profile-s", type=float, default=21.0)
    ap.add_argument("--idle-before-s", type=float, default=3.0)
    ap.add_argument("--warm-s", type=float, default=2.0)
    ap.add_argument("--steady-s", type=float, default=15.0)
    ap.add_argument("--iso-s", type=float, default=3.5)
    ap.add_argument("--iso-idle-s", type=float, default=1.0)
    ap.add_argument("--iso-reps", type=int, default=4)
    ap.add_argument("--iso-duty", type=float, default=0.0,
                    help="also record the loops at this duty cycle (0 < D < 1: bursts and "
                    "sleeps, the clocks of a run below the power cap); 0: back to back only")
    ap.add_argument("--iso-burst-s", type=float, default=0.05)
    ap.add_argument("--after-s", type=float, default=5.0,
                    help="unprofiled loop after the profile (iteration time outside it)")
    ap.add_argument("--shape", choices=["decode", "mixed", "cpu"], default="decode",
                    help="decode: the shared run's; mixed: prefill chunks every "
                    "--prefill-every steps; cpu: --host-ms of host work per step")
    ap.add_argument("--context-tokens", type=int, default=389507,
                    help="the decode sequences' context lengths sum to about this")
    ap.add_argument("--prefill-chunks", type=int, default=2)
    ap.add_argument("--prefill-len", type=int, default=384)
    ap.add_argument("--prefill-every", type=int, default=2)
    ap.add_argument("--host-ms", type=float, default=0.0)
    ap.add_argument("--max-len", type=int, default=2312,
                    help="the longest context (default 2312, the shared run's)")
    ap.add_argument("--double-fresh", action="store_true",
                    help="truth: the doubled GEMM call (qkv, o_proj, mlp, lm_head) on a copy of "
                    "the weights, so it does not read what the first left in L2; CLS_l2 in "
                    "--classes doubles on the same weights")
    ap.add_argument("--keep-cpu", action="store_true",
                    help="also keep the profile's host side (annotations, runtime launches) "
                    "in profile-cpu.json.gz")
    ap.add_argument("--repeats", type=int, default=1,
                    help="truth: the cycle of classes (each doubled run followed by a base "
                    "run) this many times over; with short runs, a paired design: every "
                    "doubled run has a base run seconds before and after it")
    ap.add_argument("--pin", help="run the recorder on these CPUs (e.g. 2,3): "
                    "os.sched_setaffinity, so the host's speed moves less between runs")
    ap.add_argument("--sampler-cpus", help="run the NVML sampler on these CPUs (e.g. 6)")
    ap.add_argument("--steady-host", action="store_true",
                    help="no garbage collection inside the truth runs' steady parts")
    ap.add_argument("--run", help="the run's name in the traces (default b%%04d of --batch)")
    ap.add_argument("--check", action="store_true", help="compare the kernels with PyTorch")
    args = ap.parse_args()
    if args.shape == "mixed" and args.check:
        ap.error("--check compares the decode rows only: use it with --shape decode or cpu")
    os.makedirs(args.out, exist_ok=True)
    cpus = lambda v: {int(x) for x in v.split(",")} if v else None  # noqa: E731
    if args.pin:
        os.sched_setaffinity(0, cpus(args.pin))
        torch.set_num_threads(len(cpus(args.pin)))
    nvml = Nvml(0)
    log(f"GPU {nvml.name}, driver {nvml.driver}, power limit {nvml.power_limit_w} W, "
        f"torch {torch.__version__}, triton {triton.__version__}")
    samp = Sampler(os.path.join(args.out, "samples.csv"), args.poll_s,
                   cpus=cpus(args.sampler_cpus))
    log(f"recorder on CPUs {sorted(os.sched_getaffinity(0))}, sampler on "
        f"{args.sampler_cpus or 'any'}, {os.cpu_count()} CPUs")
    t_setup = time.perf_counter()
    m = Model(args.batch, args.seed, args.pool_tokens, args.context_tokens, args.shape,
              args.prefill_chunks, args.prefill_len, args.prefill_every,
              args.host_ms if args.shape == "cpu" else 0.0, args.max_len, args.double_fresh)
    torch.cuda.synchronize()
    log(f"model built in {time.perf_counter()-t_setup:.1f} s; pages {m.n_pages}, "
        f"tokens {int(m.lens_cpu.sum())}, mean len {float(m.lens_cpu.float().mean()):.1f}, "
        f"mem {torch.cuda.memory_allocated()/2**30:.1f} GiB")
    for _ in range(3):
        for c in [None] + CLASSES:
            m.step(c)
    log("compiled and warmed")
    meta = dict(gpu=nvml.name, driver=nvml.driver, power_limit_w=nvml.power_limit_w,
                torch=torch.__version__, triton=triton.__version__,
                cuda=torch.version.cuda, python=sys.version.split()[0],
                batch=args.batch, lens=[int(x) for x in m.lens_cpu],
                pages=m.n_pages, page_size=PAGE, seed=args.seed,
                shapes=dict(hidden=HID, q_heads=NQ, kv_heads=NKV, head_dim=HD,
                            intermediate=INTER, vocab=VOCAB, layers=NLAYER),
                shape=args.shape, run=args.run or "b%04d" % args.batch,
                prefill=dict(chunks=m.C, tokens=m.P, every=m.every), host_ms=m.host_s * 1e3,
                period_kinds=m.period_kinds(),
                tokens_per_kind=dict(processed=[m.kinds[k][2] for k in (0, 1)],
                                     sampled=[m.kinds[k][3] for k in (0, 1)]),
                args=vars(args), poll_s=args.poll_s, start_time_unix=time.time(),
                start_perf=time.perf_counter())
    phases = dict(meta=meta)
    if args.check:
        phases["check"] = check_kernels(m)
        log("check (rel. error vs float32):", json.dumps(phases["check"]))
    todo = args.phases.split(",")

    def save():
        """After every phase, so a run stopped at its time limit keeps what it did
        (the sampler writes samples.csv as it goes)."""
        with open(os.path.join(args.out, "phases.json"), "w") as f:
            json.dump(phases, f)

    try:
        if "profile" in todo:
            phases["profile"] = profiled_run(m, args, args.out)
            save()
        if "iso" in todo:
            phases["iso"] = iso_loops(m, args)
            save()
            if 0 < args.iso_duty < 1:
                try:  # a failure here must not cost the truth runs
                    phases["iso_duty"] = iso_loops(m, args, args.iso_duty)
                except Exception as exc:  # noqa: BLE001
                    log(f"iso (duty {args.iso_duty}) failed: {exc!r}")
                save()
        if "truth" in todo:
            q = args.steady_host
            runs = phases["truth"] = [run_loop(m, None, args.warm_s, args.steady_s, "base", q)]
            for rep in range(args.repeats):
                for c in args.classes.split(","):
                    runs.append(run_loop(m, c, args.warm_s, args.steady_s, f"dbl-{c}", q))
                    runs.append(run_loop(m, None, args.warm_s, args.steady_s, "base", q))
                    runs[-2]["repeat"] = runs[-1]["repeat"] = rep
                save()
    finally:
        time.sleep(0.5)
        samp.stop()
        save()
        src = os.path.join(args.out, "samples.csv")
        with open(src) as f, gzip.open(src + ".gz", "wt") as g:
            text = f.read()
            g.write(text)
        os.remove(src)
        log(f"{text.count(chr(10)) - 1} NVML samples")


if __name__ == "__main__":
    main()
