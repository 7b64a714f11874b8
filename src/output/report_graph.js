// kvcat report: llama.cpp's compute buffer, as kvcat fit gives it, for the planner.
//
// The same three steps as the C++ it mirrors, step for step, so the page and `kvcat fit` agree
// to the byte (the browser test holds them to it):
//   - a graph as ggml builds one: shapes, strides, views, sources and the depth-first order of
//     ggml_build_forward_expand (src/engines/llamacpp/ggml_graph_builder.cc);
//   - llama.cpp's layers for llama, qwen2, qwen3, qwen3moe, gpt-oss, glm4, gemma3, llama4, qwen35,
//     qwen35moe, qwen3next, granitehybrid and lfm2 at the pinned commit, and the part a GPU that runs every layer holds (src/engines/llamacpp/llamacpp_graph.cc);
//   - ggml-alloc placing it (src/engines/llamacpp/ggml_alloc.cc).
// Sizes are integers below 2^53, kept as Numbers; the result is a BigInt.
var kvcatLlamaGraph = (function () {
  'use strict';

  const F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, IQ4_NL = 20, I32 = 26, I64 = 27, BF16 = 30;
  // ggml_type_size (a block's bytes) and ggml_blck_size
  const BLOCK = { [Q4_0]: 18, [Q4_1]: 20, [Q5_0]: 22, [Q5_1]: 24, [Q8_0]: 34, [IQ4_NL]: 18 };
  const typeBytes = (t) => (BLOCK[t] !== undefined ? BLOCK[t] : t === F16 || t === BF16 ? 2 : t === I64 ? 8 : 4);
  const blockElements = (t) => (BLOCK[t] !== undefined ? 32 : 1);
  const rowBytes = (t, n) => typeBytes(t) * (n / blockElements(t));
  const INPLACE = new Set(['FILL', 'SCALE', 'DIAG_MASK_ZERO', 'DIAG_MASK_INF', 'ADD', 'ADD_ID', 'ADD1', 'SUB', 'MUL',
    'DIV', 'SQR', 'SQRT', 'LOG', 'UNARY', 'ROPE', 'ROPE_BACK', 'SILU_BACK', 'RMS_NORM', 'RMS_NORM_BACK', 'CLAMP',
    'SOFT_MAX', 'SOFT_MAX_BACK']);

  function contiguous(type, ne) {
    const nb = [typeBytes(type), rowBytes(type, ne[0]), 0, 0];
    for (let i = 2; i < 4; i++) nb[i] = nb[i - 1] * ne[i - 1];
    return nb;
  }
  function nbytes(t) {
    if (t.ne.some((n) => n <= 0)) return 0;
    const block = blockElements(t.type);
    let b = block === 1 ? typeBytes(t.type) : (t.ne[0] * t.nb[0]) / block;
    for (let i = block === 1 ? 0 : 1; i < 4; i++) b += (t.ne[i] - 1) * t.nb[i];
    return b;
  }

  // ---- ggml_graph_builder ----
  function Builder() {
    this.t = [];
    this.leafs = [];
    this.nodes = [];
    this.visited = [];
  }
  Builder.prototype.make = function (op, type, ne, src, viewOf) {
    const t = { op, type, ne: ne.slice(), nb: contiguous(type, ne), src: src.filter((s) => s !== undefined),
      viewSrc: -1, external: false, input: false, output: false };
    if (viewOf !== undefined && viewOf >= 0) t.viewSrc = this.t[viewOf].viewSrc >= 0 ? this.t[viewOf].viewSrc : viewOf;
    t.bytes = nbytes(t);
    this.t.push(t);
    this.visited.push(false);
    return this.t.length - 1;
  };
  Builder.prototype.fix = function (id) { this.t[id].bytes = nbytes(this.t[id]); return id; };
  Builder.prototype.external = function (type, ne) { const id = this.make('NONE', type, ne, []); this.t[id].external = true; return id; };
  Builder.prototype.input = function (type, ne) { const id = this.make('NONE', type, ne, []); this.t[id].input = true; return id; };
  Builder.prototype.same = function (op, a, src) { return this.make(op, this.t[a].type, this.t[a].ne, src); };
  Builder.prototype.getRows = function (a, b) {
    const A = this.t[a], B = this.t[b];
    return this.make('GET_ROWS', A.type === I32 ? I32 : F32, [A.ne[0], B.ne[0], B.ne[1], B.ne[2]], [a, b]);
  };
  Builder.prototype.mulMat = function (a, b) {
    const A = this.t[a], B = this.t[b];
    return this.make('MUL_MAT', F32, [A.ne[1], B.ne[1], B.ne[2], B.ne[3]], [a, b]);
  };
  Builder.prototype.mulMatId = function (as, b, ids) {
    return this.make('MUL_MAT_ID', F32, [this.t[as].ne[1], this.t[ids].ne[0], this.t[b].ne[2], 1], [as, b, ids]);
  };
  Builder.prototype.reshape = function (a, ne) { return this.make('RESHAPE', this.t[a].type, ne, [a], a); };
  Builder.prototype.view = function (a, ne, nb123) {
    const id = this.make('VIEW', this.t[a].type, ne, [a], a);
    this.t[id].nb = [typeBytes(this.t[a].type), nb123[0], nb123[1], nb123[2]];
    return this.fix(id);
  };
  Builder.prototype.permute = function (a, axes) {
    const id = this.make('PERMUTE', this.t[a].type, this.t[a].ne, [a], a);
    const s = this.t[a], p = this.t[id];
    for (let i = 0; i < 4; i++) { p.ne[axes[i]] = s.ne[i]; p.nb[axes[i]] = s.nb[i]; }
    return this.fix(id);
  };
  Builder.prototype.cont = function (a, ne) { return this.make('CONT', this.t[a].type, ne, [a]); };
  Builder.prototype.repeat = function (a, ne) { return this.make('REPEAT', this.t[a].type, ne, [a]); };
  Builder.prototype.setRows = function (a, b, c) {
    const id = this.make('SET_ROWS', this.t[a].type, this.t[a].ne, [b, c, a], a);
    this.t[id].nb = this.t[a].nb.slice();
    return this.fix(id);
  };
  Builder.prototype.flashAttn = function (q, k, v, mask, sinks) {
    const Q = this.t[q];
    return this.make('FLASH_ATTN_EXT', F32, [this.t[v].ne[0], Q.ne[2], Q.ne[1], Q.ne[3]], [q, k, v, mask, sinks]);
  };
  // ggml_view_tensor(of) as op's result: of's shape and strides, a view of its memory (cpy, scale_inplace)
  Builder.prototype.viewOf = function (op, of, src) {
    const id = this.make(op, this.t[of].type, this.t[of].ne, src, of);
    this.t[id].nb = this.t[of].nb.slice();
    return this.fix(id);
  };
  Builder.prototype.transpose = function (a) {
    const A = this.t[a];
    const id = this.make('TRANSPOSE', A.type, A.ne, [a], a);
    const t = this.t[id];
    t.nb = A.nb.slice();
    [t.ne[0], t.ne[1]] = [A.ne[1], A.ne[0]];
    [t.nb[0], t.nb[1]] = [A.nb[1], A.nb[0]];
    return this.fix(id);
  };
  // ggml_concat along the first dimension: the kept columns before the micro-batch's
  Builder.prototype.concat0 = function (a, b) {
    const A = this.t[a];
    return this.make('CONCAT', A.type, [A.ne[0] + this.t[b].ne[0], A.ne[1], A.ne[2], A.ne[3]], [a, b]);
  };
  Builder.prototype.argsort = function (a) { return this.make('ARGSORT', I32, this.t[a].ne, [a]); };
  Builder.prototype.sumRows = function (a) {
    const A = this.t[a];
    return this.make('SUM_ROWS', A.type, [1, A.ne[1], A.ne[2], A.ne[3]], [a]);
  };
  Builder.prototype.expand = function (id) {
    // ggml_visit_parents_graph, without recursion's depth limits
    const stack = [[id, 0]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [t, i] = top;
      if (i === 0) {
        if (this.visited[t]) { stack.pop(); continue; }
        this.visited[t] = true;
      }
      const src = this.t[t].src;
      if (i < src.length) {
        top[1] = i + 1;
        if (src[i] >= 0 && !this.visited[src[i]]) stack.push([src[i], 0]);
        continue;
      }
      stack.pop();
      (this.t[t].op === 'NONE' ? this.leafs : this.nodes).push(t);
    }
  };

  // ---- llamacpp_graph ----
  function build(d, s) {
    const b = new Builder();
    const streams = s.unified ? 1 : Math.max(1, s.seqs);
    const seqs = Math.max(1, s.seqs);
    const tokens0 = Math.max(1, s.tokens);
    const T = Math.ceil(tokens0 / seqs) * seqs;
    const outputs = s.outputs > 0 ? Math.min(s.outputs, tokens0) : tokens0;
    const cells = s.cells, flash = s.flashAttn, tk = s.cacheK, tv = s.cacheV;
    const gqaK = d.hd_k * d.n_head_kv, gqaV = d.hd_v * d.n_head_kv;
    const w = (ne) => b.external(F32, ne.map((n) => (n === 0 ? 1 : n)).concat([1, 1, 1, 1]).slice(0, 4));
    const norm = (x, wt) => { const r = b.same('RMS_NORM', x, [x]); return b.same('MUL', r, [r, wt]); };
    const view2d = (a, ne0, ne1, nb1) => b.view(a, [ne0, ne1, 1, 1], [nb1, nb1 * ne1, nb1 * ne1]);

    // build_inp_embd
    const tokEmbd = w([d.n_embd, d.n_vocab]);
    const inpTokens = b.input(I32, [T, 1, 1, 1]);
    const inpEmbd = b.input(F32, [d.n_embd, T, 1, 1]);
    let inp = b.getRows(tokEmbd, inpTokens);
    b.expand(inp);
    b.expand(inpEmbd);
    if (d.granite) {
      // Granite's embedding scale, materialized at once
      inp = b.same('SCALE', inp, [inp]);
      b.expand(inp);
    }
    // build_inp_mem_hybrid's recurrent rows (llamacpp_graph.cc's recurrent_inputs): one a sequence
    let sCopyMain = -1, sCopyExtra = -1;
    if (d.deltanet || d.granite || d.lfm2) {
      const sCopy = b.input(I32, [seqs, 1, 1, 1]);
      sCopyMain = b.view(sCopy, [seqs, 1, 1, 1], [4 * seqs, 4 * seqs, 4 * seqs]);
      sCopyExtra = b.view(sCopy, [0, 1, 1, 1], [0, 0, 0]);
    }
    // multi-section RoPE takes four positions a token; Qwen3-Next's plain RoPE one
    const pos = d.granite ? -1 : b.input(I32, [d.deltanet && !d.qwen3next ? 4 * T : T, 1, 1, 1]);
    // build_inp_attn_scale (llama4): the full layers' query temperature, one a token
    const attnScale = d.llama4 ? b.input(F32, [1, 1, T, 1]) : -1;
    const caches = d.swa_period > 0 ? 2 : 1;
    const slides = (il) => d.swa_period > 0 && il % d.swa_period < d.swa_period - 1;
    // build_attn_inp_kv, or build_attn_inp_kv_iswa: the full cache's, then the window's (gpt-oss)
    const kIdxs = [], vIdxs = [], masks = [];
    for (let c = 0; c < caches; c++) {
      kIdxs.push(b.input(I64, [T, 1, 1, 1]));
      vIdxs.push(b.input(I64, [flash ? T : T * gqaV, 1, 1, 1]));
      masks.push(b.input(flash ? F16 : F32, [c === 0 ? cells : s.swaCells, T / streams, 1, streams]));
    }
    let mask = masks[0];
    // a quantized K or V is rotated (llamacpp_graph.cc: rot_k_, rot_v_)
    let rotK = 0, rotV = 0;
    if (blockElements(tk) > 1 && d.hd_k % 64 === 0) { rotK = 64; while (d.hd_k % (rotK * 2) === 0) rotK *= 2; }
    if (blockElements(tv) > 1 && d.hd_v % 64 === 0) rotV = 64;
    const kRot = [], vRot = [];
    for (let c = 0; c < caches; c++) {
      kRot.push(rotK ? b.input(F32, [rotK, rotK, 1, 1]) : -1);
      vRot.push(rotV ? b.input(F32, [rotV, rotV, 1, 1]) : -1);
    }
    const isContiguous = (x) => contiguous(b.t[x].type, b.t[x].ne).every((n, i) => n === b.t[x].nb[i]);
    function hadamard(cur, rot) {
      const n = b.t[rot].ne[0];
      const ne = b.t[cur].ne.slice();
      const elements = ne[0] * ne[1] * ne[2] * ne[3];
      const flat = isContiguous(cur) ? b.reshape(cur, [n, elements / n, 1, 1]) : b.cont(cur, [n, elements / n, 1, 1]);
      return b.reshape(b.mulMat(rot, flat), ne);
    }
    const outIds = b.input(I32, [outputs, 1, 1, 1]);
    const ropeFreqs = d.rope_freqs ? w([d.hd_k / 2]) : -1;
    const sinks = () => (d.gpt_oss ? w([d.n_head]) : -1);

    function mha(q, k, v) {
      const ns = b.t[k].ne[3];
      const Qt = b.t[q];
      q = b.view(q, [Qt.ne[0], Qt.ne[1], Qt.ne[2] / ns, ns], [Qt.nb[1], Qt.nb[2], Qt.nb[3] / ns]);
      q = b.permute(q, [0, 2, 1, 3]);
      k = b.permute(k, [0, 2, 1, 3]);
      v = b.permute(v, [0, 2, 1, 3]);
      let cur;
      if (flash) {
        // flash attention takes an f32 K or V as an f16 copy (ggml_cast: a CPY whose second source is itself)
        const cast = (x) => { const c = b.make('CPY', F16, b.t[x].ne, [x]); b.t[c].src.push(c); return c; };
        if (tk === F32) k = cast(k);
        if (tv === F32) v = cast(v);
        cur = b.flashAttn(q, k, v, mask, sinks());
        const n = b.t[cur].ne;
        cur = b.reshape(cur, [n[0] * n[1], n[2] * n[3], 1, 1]);
      } else {
        const kq0 = b.mulMat(k, q);
        const kq = b.same('SOFT_MAX', kq0, [kq0, mask, sinks()]);
        const kqv = b.mulMat(v, kq);
        cur = b.permute(kqv, [0, 2, 1, 3]);
        const n = b.t[cur].ne;
        cur = b.cont(cur, [n[0] * n[1], n[2] * n[3], 1, 1]);
      }
      b.expand(cur);
      return cur;
    }

    function attention(q, k, v, swa) {
      const r = swa ? 1 : 0;
      if (kRot[r] >= 0) { q = hadamard(q, kRot[r]); k = hadamard(k, kRot[r]); }
      if (vRot[r] >= 0) v = hadamard(v, vRot[r]);
      b.expand(q);
      if (caches === 2) { b.expand(k); b.expand(v); } else { b.expand(v); b.expand(k); }
      const c = swa ? 1 : 0;
      const cells = swa ? s.swaCells : s.cells;
      mask = masks[c];
      const kc = b.external(tk, [gqaK, cells, streams, 1]);
      const vc = b.external(tv, [gqaV, cells, streams, 1]);
      const rk = (n) => rowBytes(tk, n), rv = (n) => rowBytes(tv, n);
      {
        const src = view2d(k, gqaK, T, b.t[k].nb[2]);
        const dst = streams > 1 ? b.reshape(kc, [gqaK, cells * streams, 1, 1]) : kc;
        b.expand(b.setRows(dst, src, kIdxs[c]));
      }
      if (flash) {
        const src = view2d(v, gqaV, T, b.t[v].nb[2]);
        const dst = streams > 1 ? b.reshape(vc, [gqaV, cells * streams, 1, 1]) : vc;
        b.expand(b.setRows(dst, src, vIdxs[c]));
      } else {
        let src = b.reshape(v, [gqaV, T, 1, 1]);
        const dst = b.reshape(vc, [1, gqaV * cells * streams, 1, 1]);
        src = b.reshape(src, [1, gqaV * T, 1, 1]);
        b.expand(b.setRows(dst, src, vIdxs[c]));
      }
      const kv = b.view(kc, [d.hd_k, d.n_head_kv, cells, streams], [rk(d.hd_k), rk(gqaK), rk(gqaK * cells)]);
      const vv = flash
        ? b.view(vc, [d.hd_v, d.n_head_kv, cells, streams], [rv(d.hd_v), rv(gqaV), rv(gqaV * cells)])
        : b.view(vc, [cells, d.n_head_kv, d.hd_v, streams], [rv(cells * d.hd_v), rv(cells), rv(cells * gqaV)]);
      const out = mha(q, kv, vv);
      return vRot[c] >= 0 ? hadamard(out, vRot[c]) : out;
    }

    function moe(cur) {
      const e = d.n_expert, k = d.n_expert_used, rows = b.t[cur].ne[1];
      let logits = b.mulMat(w([d.n_embd, e]), cur);
      if (d.gpt_oss) logits = b.same('ADD', logits, [logits, w([e])]);
      // gpt-oss's gating (SOFTMAX_WEIGHT) chooses on the logits themselves; llama4 weighs by their
      // sigmoids and chooses on the logits too
      const probs = d.gpt_oss ? logits : d.llama4 ? b.same('UNARY', logits, [logits])
        : b.same('SOFT_MAX', logits, [logits, -1]);
      const sorted = b.argsort(d.llama4 ? logits : probs);
      const S = b.t[sorted];
      const selected = b.view(sorted, [k, S.ne[1], S.ne[2], S.ne[3]], [S.nb[1], S.nb[2], S.nb[3]]);
      let weights = b.getRows(b.reshape(probs, [1, e, rows, 1]), selected);
      if (d.gpt_oss) {
        const w2 = b.reshape(weights, [k, rows, 1, 1]);
        weights = b.reshape(b.same('SOFT_MAX', w2, [w2, -1]), [1, k, rows, 1]);
      } else if (d.llama4) {
        // the sigmoids as they are
      } else {
        weights = b.reshape(weights, [k, rows, 1, 1]);
        const sr = b.sumRows(weights);
        const sum = b.same('CLAMP', sr, [sr]);
        weights = b.reshape(b.same('DIV', weights, [weights, sum]), [1, k, rows, 1]);
      }
      b.expand(weights);
      let x = b.reshape(cur, [d.n_embd, 1, rows, 1]);
      if (d.llama4) {
        // weight_before_ffn: the input repeated for each chosen expert and weighted
        const rep = b.make('REPEAT', b.t[x].type, [d.n_embd, k, rows, 1], [x]);
        x = b.same('MUL', rep, [rep, weights]);
      }
      const addId = (a, bias) => (d.gpt_oss ? b.same('ADD_ID', a, [a, bias, selected]) : a);
      const up = addId(b.mulMatId(w([d.n_embd, d.n_ff_exp, e]), x, selected), w([d.n_ff_exp, e]));
      const gate = addId(b.mulMatId(w([d.n_embd, d.n_ff_exp, e]), x, selected), w([d.n_ff_exp, e]));
      const act = b.same('GLU', gate, [gate, up]);
      let experts = addId(b.mulMatId(w([d.n_ff_exp, d.n_embd, e]), act, selected), w([d.n_embd, e]));
      if (!d.llama4) experts = b.same('MUL', experts, [experts, weights]);
      b.expand(experts);
      const views = [];
      for (let i = 0; i < k; i++) {
        const E = b.t[experts];
        views.push(b.view(experts, [d.n_embd, rows, 1, 1], [E.nb[2], E.nb[2] * rows, E.nb[2] * rows]));
        b.expand(views[views.length - 1]);
      }
      let out = views[0];
      for (let i = 1; i < views.length; i++) { out = b.same('ADD', out, [out, views[i]]); b.expand(out); }
      if (views.length === 1) out = b.cont(out, b.t[out].ne);
      return out;
    }

    // build_qkv's separate path: Q, K and V projected (with biases where the model has them) and
    // shaped into heads (llamacpp_graph.cc's qkv)
    function qkv(cur, bias) {
      const project = (width) => {
        const x = b.mulMat(w([d.n_embd, width]), cur);
        return bias ? b.same('ADD', x, [x, w([width])]) : x;
      };
      const q = project(d.n_head * d.hd_k), k = project(gqaK), v = project(gqaV);
      return [b.reshape(q, [d.hd_k, d.n_head, T, 1]), b.reshape(k, [d.hd_k, d.n_head_kv, T, 1]),
        b.reshape(v, [d.hd_v, d.n_head_kv, T, 1])];
    }

    // In the last layer (when take), only the output rows of the result and of its residual go on
    // (llamacpp_graph.cc's last_rows)
    function lastRows(il, cur, res, take = true) {
      if (take && il === d.n_layer - 1) return [b.getRows(cur, outIds), b.getRows(res, outIds)];
      return [cur, res];
    }

    // The attention's output projection (with its bias where the model has one), and in the last
    // layer only the output rows of it and of the residual (llamacpp_graph.cc's projected)
    function projected(il, cur, res, bias = false, rows = true) {
      cur = b.mulMat(w([d.n_head * d.hd_v, d.n_embd]), cur);
      if (bias) cur = b.same('ADD', cur, [cur, w([d.n_embd])]);
      return lastRows(il, cur, res, rows);
    }

    // build_ffn with a parallel gate (llamacpp_graph.cc's gated_ffn)
    function gatedFfn(cur, width) {
      const up = b.mulMat(w([d.n_embd, width]), cur);
      const gate = b.mulMat(w([d.n_embd, width]), cur);
      return b.mulMat(w([width, d.n_embd]), b.same('GLU', gate, [gate, up]));
    }

    // src/models/llama.cpp, qwen2.cpp, qwen3.cpp, qwen3moe.cpp, glm4.cpp (llamacpp_graph.cc's layer)
    function layer(il) {
      let cur = norm(inp, w([d.n_embd]));
      let [q, k, v] = qkv(cur, d.qkv_bias);
      if (d.qk_norm) q = norm(q, w([d.hd_k]));
      q = b.same('ROPE', q, [q, pos, ropeFreqs]);
      if (d.qk_norm) k = norm(k, w([d.hd_k]));
      k = b.same('ROPE', k, [k, pos, ropeFreqs]);
      let inpSA;
      [cur, inpSA] = projected(il, attention(q, k, v), inp);
      if (d.glm4) cur = norm(cur, w([d.n_embd]));
      const ffnInp = b.same('ADD', cur, [cur, inpSA]);
      cur = norm(ffnInp, w([d.n_embd]));
      if (d.glm4) {
        // glm4: SwiGLU of one projection's halves, then a norm after the feed-forward
        const up = b.mulMat(w([d.n_embd, 2 * d.n_ff]), cur);
        const U = b.t[up];
        const act = b.make('GLU', U.type, [U.ne[0] / 2, U.ne[1], U.ne[2], U.ne[3]], [up]);
        cur = norm(b.mulMat(w([d.n_ff, d.n_embd]), act), w([d.n_embd]));
      } else if (d.n_expert > 0) {
        cur = moe(cur);
      } else {
        cur = gatedFfn(cur, d.n_ff);
      }
      return b.same('ADD', cur, [cur, ffnInp]);
    }

    // src/models/openai-moe.cpp: a layer of gpt-oss (llamacpp_graph.cc's gpt_oss_layer)
    function gptOssLayer(il) {
      let cur = norm(inp, w([d.n_embd]));
      let [q, k, v] = qkv(cur, true);
      q = b.same('ROPE', q, [q, pos, -1]);
      k = b.same('ROPE', k, [k, pos, -1]);
      let res;
      [cur, res] = projected(il, attention(q, k, v, slides(il)), inp, true, false);
      const ffnInp = b.same('ADD', cur, [cur, res]);
      cur = moe(norm(ffnInp, w([d.n_embd])));
      return b.same('ADD', cur, [cur, ffnInp]);
    }

    // src/models/gemma3.cpp: a layer of Gemma 3 (llamacpp_graph.cc's gemma3_layer)
    function gemma3Layer(il) {
      let cur = norm(inp, w([d.n_embd]));
      let [q, k, v] = qkv(cur, false);
      q = norm(q, w([d.hd_k]));
      q = b.same('ROPE', q, [q, pos, -1]);
      k = norm(k, w([d.hd_k]));
      k = b.same('ROPE', k, [k, pos, -1]);
      q = b.same('SCALE', q, [q]);
      let res;
      [cur, res] = projected(il, attention(q, k, v, slides(il)), inp);
      cur = norm(cur, w([d.n_embd]));
      const saOut = b.same('ADD', cur, [cur, res]);
      cur = norm(gatedFfn(norm(saOut, w([d.n_embd])), d.n_ff), w([d.n_embd]));
      return b.same('ADD', cur, [cur, saOut]);
    }

    // src/models/llama4.cpp: a layer of Llama 4 (llamacpp_graph.cc's llama4_layer)
    function llama4Layer(il) {
      const useRope = (il + 1) % 4 !== 0;
      let cur = norm(inp, w([d.n_embd]));
      let [q, k, v] = qkv(cur, false);
      if (useRope) {
        q = b.same('ROPE', q, [q, pos, ropeFreqs]);
        k = b.same('ROPE', k, [k, pos, ropeFreqs]);
        if (d.qk_norm) { q = b.same('RMS_NORM', q, [q]); k = b.same('RMS_NORM', k, [k]); }
      } else {
        q = b.same('MUL', q, [q, attnScale]);
      }
      let inpSA;
      [cur, inpSA] = projected(il, attention(q, k, v, slides(il)), inp);
      const ffnInp = b.same('ADD', cur, [cur, inpSA]);
      const normed = norm(ffnInp, w([d.n_embd]));
      const moeOut = moe(normed);
      cur = b.same('ADD', moeOut, [moeOut, gatedFfn(normed, d.n_ff_exp)]);
      return b.same('ADD', cur, [cur, ffnInp]);
    }

    const cpy = (a, dst) => b.viewOf('CPY', dst, [a, dst]);
    // build_rs (llamacpp_graph.cc's states): one row zeroed in place, the sequences' rows gathered
    // reader reads the sequences' rows (llm_graph_get_rows_fn): get_rows, or Mamba-2's scan
    function states(all, size, reader) {
      const rows = b.t[all].ne[1];
      const st = b.reshape(all, [size, rows, 1, 1]);
      const zero = b.view(st, [size, 1, 1, 1], [4 * size, 4 * size, 4 * size]);
      b.expand(b.viewOf('SCALE', zero, [zero]));
      const out = reader ? reader(st) : b.getRows(st, sCopyMain);
      b.expand(out);
      const extra = b.getRows(st, sCopyExtra);
      b.expand(cpy(extra, view2d(all, size, rows - seqs, b.t[all].nb[1])));
      return out;
    }

    // build_conv_state (llamacpp_graph.cc's conv_state)
    function convState(all, mixed, channels) {
      const kept = d.ssm_conv - 1;
      const st = b.reshape(states(all, kept * channels), [kept, channels, seqs, 1]);
      const input = b.concat0(st, b.transpose(mixed));
      const I = b.t[input];
      const last = b.view(input, [kept, channels, seqs, 1], [I.nb[1], I.nb[2], I.nb[2] * seqs]);
      b.expand(cpy(last, view2d(all, kept * channels, seqs, b.t[all].nb[1])));
      return input;
    }

    // Qwen 3.5's beta and decay, one projection each (llamacpp_graph.cc's deltanet)
    function betaGate(cur, nst, ns) {
      const nv = d.ssm_heads;
      let beta = b.reshape(b.mulMat(w([d.n_embd, nv]), cur), [1, nv, nst, ns]);
      beta = b.same('UNARY', beta, [beta]);
      const alpha = b.reshape(b.mulMat(w([d.n_embd, nv]), cur), [nv, nst, ns, 1]);
      const biased = b.same('ADD', alpha, [alpha, w([nv])]);
      const softplus = b.same('UNARY', biased, [biased]);
      const gate = b.same('MUL', softplus, [softplus, w([nv])]);
      return [beta, b.reshape(gate, [1, nv, nst, ns])];
    }
    // Qwen3-Next's: one projection viewed per key head (llamacpp_graph.cc's next_beta_gate)
    function nextBetaGate(cur, nst, ns) {
      const nv = d.ssm_heads, nk = d.ssm_groups, per = nv / nk;
      const ba = b.reshape(b.mulMat(w([d.n_embd, 2 * nv]), cur), [2 * per, nk, nst, ns]);
      const nb = b.t[ba].nb;
      const bv = b.view(ba, [per, nk, nst, ns], [nb[1], nb[2], nb[3]]);
      const av = b.view(ba, [per, nk, nst, ns], [nb[1], nb[2], nb[3]]);
      const bc = b.cont(bv, [per, nk, nst, ns]);
      const beta = b.same('UNARY', bc, [bc]);
      const alpha = b.cont(av, [nv, nst, ns, 1]);
      const biased = b.same('ADD', alpha, [alpha, w([nv])]);
      const softplus = b.same('UNARY', biased, [biased]);
      const gate = b.same('MUL', softplus, [softplus, w([nv])]);
      return [b.reshape(beta, [1, nv, nst, ns]), b.reshape(gate, [1, nv, nst, ns])];
    }

    // build_layer_attn_linear with the fused Gated DeltaNet (llamacpp_graph.cc's deltanet)
    function deltanet(cur) {
      const hk = d.ssm_state, nk = d.ssm_groups, nv = d.ssm_heads, hv = d.ssm_head_v;
      const key = hk * nk, value = hv * nv, channels = 2 * key + value;
      const nst = T / seqs, ns = seqs;
      const mixed = b.reshape(b.mulMat(w([d.n_embd, channels]), cur), [channels, nst, ns, 1]);
      const z = b.mulMat(w([d.n_embd, value]), cur);
      const [beta, gate] = d.qwen3next ? nextBetaGate(cur, nst, ns) : betaGate(cur, nst, ns);
      const r = (d.ssm_conv - 1) * channels, sz = hk * value;
      const convAll = b.external(F32, [r, ns, 1, 1]);
      const ssmAll = b.external(F32, [sz, ns, 1, 1]);
      const convInput = convState(convAll, mixed, channels);
      const state = b.reshape(states(ssmAll, sz), [hv, hv, nv, ns]);
      const C = b.t[convInput];
      const conv0 = b.make('SSM_CONV', F32, [channels, C.ne[0] - d.ssm_conv + 1, C.ne[2], 1], [convInput, w([d.ssm_conv, channels])]);
      const conv = b.same('UNARY', conv0, [conv0]);
      const nb1 = 4 * channels;
      const qv = b.view(conv, [hk, nk, nst, ns], [4 * hk, nb1, nb1 * nst]);
      let q = b.same('L2_NORM', qv, [qv]);
      const kv = b.view(conv, [hk, nk, nst, ns], [4 * hk, nb1, nb1 * nst]);
      let k = b.same('L2_NORM', kv, [kv]);
      if (d.qwen3next && nk !== nv) {
        // Qwen3-Next repeats each key head's Q and K to its value heads
        const rep = (x) => b.reshape(b.repeat(b.reshape(x, [hk, 1, nk, nst * ns]), [hk, nv / nk, nk, nst * ns]),
          [hk, nv, nst, ns]);
        q = rep(q);
        k = rep(k);
      }
      const v = b.view(conv, [hv, nv, nst, ns], [4 * hv, nb1, nb1 * nst]);
      const result = b.make('GATED_DELTA_NET', F32, [hv * nv, nst * ns + hv * ns, 1, 1], [q, k, v, gate, beta, state]);
      const out = b.view(result, [hv, nv, nst, ns], [4 * hv, 4 * hv * nv, 4 * hv * nv * nst]);
      const last = b.view(result, [hv, hv, nv, ns], [4 * hv, 4 * hv * hv, 4 * hv * hv * nv]);
      b.expand(cpy(last, view2d(ssmAll, sz, ns, b.t[ssmAll].nb[1])));
      const normed = norm(out, w([hv]));
      const z4 = b.reshape(z, [hv, nv, nst, ns]);
      const zs = b.same('UNARY', z4, [z4]);
      const gated = b.same('MUL', normed, [normed, zs]);
      const proj = b.mulMat(w([value, d.n_embd]), b.reshape(gated, [value, nst, ns, 1]));
      return b.reshape(proj, [d.n_embd, nst * ns, 1, 1]);
    }

    // build_layer_attn: Q and the output's gate from one projection (llamacpp_graph.cc's gated_attention)
    function gatedAttention(cur) {
      const hd = d.hd_k, row = 8 * hd;
      const full = b.mulMat(w([d.n_embd, 2 * hd * d.n_head]), cur);
      const view3 = () => b.view(full, [hd, d.n_head, T, 1], [row, row * d.n_head, row * d.n_head * T]);
      let q = norm(view3(), w([hd]));
      let k = b.mulMat(w([d.n_embd, gqaK]), cur);
      let v = b.mulMat(w([d.n_embd, gqaV]), cur);
      k = norm(b.reshape(k, [hd, d.n_head_kv, T, 1]), w([hd]));
      const gate = b.cont(view3(), [hd * d.n_head, T, 1, 1]);
      v = b.reshape(v, [d.hd_v, d.n_head_kv, T, 1]);
      q = b.same('ROPE', q, [q, pos, -1]);
      k = b.same('ROPE', k, [k, pos, -1]);
      const att = attention(q, k, v, false);
      const sig = b.same('UNARY', gate, [gate]);
      cur = b.same('MUL', att, [att, sig]);
      return b.mulMat(w([d.n_head * d.hd_v, d.n_embd]), cur);
    }

    // Qwen3-Next's build_layer_attn: the Q and gate projection reshaped whole, then viewed twice
    // (llamacpp_graph.cc's next_attention)
    function nextAttention(cur) {
      const hd = d.hd_k;
      const full = b.reshape(b.mulMat(w([d.n_embd, 2 * hd * d.n_head]), cur), [2 * hd, d.n_head, T, 1]);
      const nb = b.t[full].nb;
      let q = b.view(full, [hd, d.n_head, T, 1], [nb[1], nb[2], nb[3]]);
      const gv = b.view(full, [hd, d.n_head, T, 1], [nb[1], nb[2], nb[3]]);
      let k = b.reshape(b.mulMat(w([d.n_embd, gqaK]), cur), [hd, d.n_head_kv, T, 1]);
      const v = b.reshape(b.mulMat(w([d.n_embd, gqaV]), cur), [d.hd_v, d.n_head_kv, T, 1]);
      q = norm(q, w([hd]));
      k = norm(k, w([hd]));
      q = b.same('ROPE', q, [q, pos, -1]);
      k = b.same('ROPE', k, [k, pos, -1]);
      const att = attention(q, k, v, false);
      const gc = b.cont(gv, [hd * d.n_head, T, 1, 1]);
      const sig = b.same('UNARY', gc, [gc]);
      return b.mulMat(w([d.n_head * d.hd_v, d.n_embd]), b.same('MUL', att, [att, sig]));
    }

    // src/models/qwen35.cpp and qwen35moe.cpp (llamacpp_graph.cc's qwen35_layer)
    function qwen35Layer(il) {
      let cur = norm(inp, w([d.n_embd]));
      b.expand(cur);
      cur = !d.attends[il] ? deltanet(cur) : d.qwen3next ? nextAttention(cur) : gatedAttention(cur);
      const ffnRes = b.same('ADD', cur, [cur, inp]);
      cur = norm(ffnRes, w([d.n_embd]));
      if (d.n_expert > 0) {
        const shared = gatedFfn(cur, d.n_ff_shexp);
        const g0 = b.mulMat(w([d.n_embd]), cur);
        const g = b.same('UNARY', g0, [g0]);
        const m = moe(cur);
        const sg = b.same('MUL', shared, [shared, g]);
        cur = b.same('ADD', m, [m, sg]);
      } else {
        cur = gatedFfn(cur, d.n_ff);
      }
      return b.same('ADD', cur, [cur, ffnRes]);
    }

    const view3d = (a, ne, nb1, nb2) => b.view(a, ne, [nb1, nb2, nb2 * ne[2]]);

    // build_mamba2_layer (llamacpp_graph.cc's mamba2)
    function mamba2(cur) {
      const hd = d.ssm_head_v, nh = d.ssm_heads, ng = d.ssm_groups, ds = d.ssm_state;
      const inner = hd * nh, channels = inner + 2 * ng * ds, kept = d.ssm_conv - 1;
      const nst = T / seqs, ns = seqs, r = kept * channels, sz = ds * inner;
      const convAll = b.external(F32, [r, ns, 1, 1]);
      const ssmAll = b.external(F32, [sz, ns, 1, 1]);
      let zx = b.mulMat(w([d.n_embd, 2 * inner + 2 * ng * ds + nh]), cur);
      zx = b.reshape(zx, [b.t[zx].ne[0], nst, ns, 1]);
      const nb = b.t[zx].nb;
      const z = b.view(zx, [hd, nh, nst, ns], [4 * hd, nb[1], nb[2]]);
      const xbc0 = view3d(zx, [channels, nst, ns, 1], nb[1], nb[2]);
      let dt = view3d(zx, [nh, nst, ns, 1], nb[1], nb[2]);
      // the kept columns are read before in_proj enters the graph, which the copy back does
      const convX = convState(convAll, xbc0, channels);
      const CX = b.t[convX];
      const sc = b.make('SSM_CONV', F32, [channels, CX.ne[0] - d.ssm_conv + 1, CX.ne[2], 1], [convX, w([d.ssm_conv, channels])]);
      const biased = b.same('ADD', sc, [sc, w([channels])]);
      const xbc = b.same('UNARY', biased, [biased]);
      const xnb = b.t[xbc].nb;
      const x = b.view(xbc, [hd, nh, nst, ns], [4 * hd, xnb[1], xnb[2]]);
      const bm = b.view(xbc, [ds, ng, nst, ns], [4 * ds, xnb[1], xnb[2]]);
      const cm = b.view(xbc, [ds, ng, nst, ns], [4 * ds, xnb[1], xnb[2]]);
      const dtc = b.cont(dt, b.t[dt].ne);
      dt = b.same('ADD', dtc, [dtc, w([nh])]);
      const a = w([1, nh]);
      const rows = b.t[ssmAll].ne[1];
      const elements = hd * nh * nst * ns;
      const yssm = states(ssmAll, sz, (st) => b.make('SSM_SCAN', F32, [elements + ds * hd * nh * ns, 1, 1, 1],
        [b.reshape(st, [ds, hd, nh, rows]), x, dt, a, bm, cm, sCopyMain]));
      b.expand(cpy(view3d(yssm, [sz, ns, 1, 1], 4 * sz, 4 * sz * ns),
        view3d(ssmAll, [sz, ns, 1, 1], b.t[ssmAll].nb[1], b.t[ssmAll].nb[1] * rows)));
      let y = b.view(yssm, [hd, nh, nst, ns], [4 * hd, 4 * hd * nh, 4 * hd * nh * nst]);
      const dx = b.same('MUL', x, [x, w([1, nh])]);
      y = b.same('ADD', y, [y, dx]);
      const zc = b.cont(z, b.t[z].ne);
      y = b.same('GLU', zc, [zc, y]);
      y = norm(b.reshape(y, [inner / ng, ng, nst, ns]), w([inner / ng, ng]));
      return b.mulMat(w([inner, d.n_embd]), b.reshape(y, [inner, nst * ns, 1, 1]));
    }

    // src/models/granite-hybrid.cpp (llamacpp_graph.cc's granite_layer)
    function graniteLayer(il) {
      let cur = norm(inp, w([d.n_embd]));
      let res;
      if (d.attends[il]) {
        const [q, k, v] = qkv(cur, false);
        [cur, res] = projected(il, attention(q, k, v, false), inp);
      } else {
        [cur, res] = lastRows(il, mamba2(cur), inp);
      }
      const scaled = b.same('SCALE', cur, [cur]);
      const ffnInp = b.same('ADD', scaled, [scaled, res]);
      cur = gatedFfn(norm(ffnInp, w([d.n_embd])), d.n_ff);
      const s2 = b.same('SCALE', cur, [cur]);
      return b.same('ADD', s2, [s2, ffnInp]);
    }

    // LFM2's gated short convolution (llamacpp_graph.cc's shortconv)
    function shortconv(cur) {
      const e = d.n_embd, nst = T / seqs, ns = seqs;
      cur = b.reshape(cur, [e, nst, ns, 1]);
      const bcx = b.mulMat(w([e, 3 * e]), cur);
      const nb = b.t[bcx].nb;
      const bm = view3d(bcx, [e, nst, ns, 1], nb[1], nb[2]);
      const cm = view3d(bcx, [e, nst, ns, 1], nb[1], nb[2]);
      const x = view3d(bcx, [e, nst, ns, 1], nb[1], nb[2]);
      const all = b.external(F32, [(d.ssm_conv - 1) * e, ns, 1, 1]);
      const bx = convState(all, b.same('MUL', bm, [bm, x]), e);
      const X = b.t[bx];
      const conv = b.make('SSM_CONV', F32, [e, X.ne[0] - d.ssm_conv + 1, X.ne[2], 1], [bx, w([d.ssm_conv, e])]);
      const y = b.mulMat(w([e, e]), b.same('MUL', cm, [cm, conv]));
      return b.reshape(y, [e, nst * ns, 1, 1]);
    }

    // src/models/lfm2.cpp (llamacpp_graph.cc's lfm2_layer)
    function lfm2Layer(il) {
      let cur = norm(inp, w([d.n_embd]));
      let res = inp;
      if (d.attends[il]) {
        let [q, k, v] = qkv(cur, false);
        q = norm(q, w([d.hd_k]));
        k = norm(k, w([d.hd_k]));
        q = b.same('ROPE', q, [q, pos, -1]);
        k = b.same('ROPE', k, [k, pos, -1]);
        [cur, res] = projected(il, attention(q, k, v, false), res, false, false);
      } else {
        cur = shortconv(cur);
      }
      [cur, res] = lastRows(il, cur, res);
      cur = b.same('ADD', res, [res, cur]);
      const ffn = gatedFfn(norm(cur, w([d.n_embd])), d.n_ff);
      return b.same('ADD', cur, [cur, ffn]);
    }

    const layerOf = d.gpt_oss ? gptOssLayer : d.gemma3 ? gemma3Layer : d.llama4 ? llama4Layer
      : d.deltanet ? qwen35Layer : d.granite ? graniteLayer : d.lfm2 ? lfm2Layer : layer;
    if (d.gemma3) inp = b.same('SCALE', inp, [inp]);
    for (let il = 0; il < d.n_layer; il++) inp = layerOf(il);
    if (d.gpt_oss) {
      // t_h_nextn: the last hidden state is an output; the rows kept are taken after it
      b.t[inp].output = true;
      inp = b.getRows(inp, outIds);
    }
    let result = norm(inp, w([d.n_embd]));
    if (d.deltanet) {
      // Qwen 3.5's t_h_nextn: the normed state is an output; the rows are taken after it
      b.t[result].output = true;
      result = b.getRows(result, outIds);
    }
    let logits = b.mulMat(w([d.n_embd, d.n_vocab]), result);
    if (d.granite) logits = b.same('SCALE', logits, [logits]);  // by 1 / f_logit_scale
    b.expand(logits);
    b.t[logits].output = true;
    b.t[result].output = true;
    return b;
  }

  // llamacpp_graph.cc's on_device: the host keeps the inputs and the token lookup.
  function onDevice(b) {
    const lookup = b.nodes.length ? b.nodes[0] : -1;
    const host = [], nodes = [];
    for (const n of b.nodes) {
      if (n === lookup) continue;
      for (const s of b.t[n].src) {
        if (s >= 0 && (s === lookup || b.t[s].input) && !host.includes(s)) host.push(s);
      }
      nodes.push(n);
    }
    for (const h of host) Object.assign(b.t[h], { input: false, op: 'NONE', src: [] });
    for (const l of b.leafs) if (b.t[l].input && !host.includes(l)) b.t[l].external = true;
    b.leafs = [];
    b.nodes = host.concat(nodes);
    return b;
  }

  // ---- ggml_alloc ----
  function allocate(g, alignment) {
    const t = g.t;
    const aligned = (n) => Math.ceil(n / alignment) * alignment;
    const OPEN = Number.MAX_SAFE_INTEGER;
    let blocks = [];
    let maxSize = 0;
    function dynAlloc(size) {
      size = aligned(size);
      if (!blocks.length) blocks.push({ offset: 0, size: OPEN });
      let best = -1, bestSize = Infinity;
      for (let i = 0; i + 1 < blocks.length; i++) {
        if (blocks[i].size >= size && blocks[i].size <= bestSize) { best = i; bestSize = blocks[i].size; }
      }
      if (best === -1) best = blocks.length - 1;
      const blk = blocks[best];
      const at = blk.offset;
      blk.offset += size;
      blk.size -= size;
      if (blk.size === 0) blocks.splice(best, 1);
      maxSize = Math.max(maxSize, at + size);
      return at;
    }
    function freeBytes(offset, size) {
      size = aligned(size);
      for (let i = 0; i < blocks.length; i++) {
        const blk = blocks[i];
        if (blk.offset + blk.size === offset) {
          blk.size += size;
          if (i + 1 < blocks.length && blk.offset + blk.size === blocks[i + 1].offset) {
            blk.size += blocks[i + 1].size;
            blocks.splice(i + 1, 1);
          }
          return;
        }
        if (offset + size === blk.offset) {
          blk.offset = offset;
          blk.size += size;
          if (i > 0 && blocks[i - 1].offset + blocks[i - 1].size === blk.offset) {
            blocks[i - 1].size += blk.size;
            blocks.splice(i, 1);
          }
          return;
        }
      }
      let at = 0;
      while (at < blocks.length && blocks[at].offset < offset) at++;
      blocks.splice(at, 0, { offset, size });
    }
    const slot = t.map(() => ({ children: 0, views: 0, allocated: false, offset: 0 }));
    const sameLayout = (a, b) => a.type === b.type && a.ne.every((n, i) => n === b.ne[i]) && a.nb.every((n, i) => n === b.nb[i]);
    function alloc(i) {
      const node = t[i];
      if (node.external || slot[i].allocated || node.viewSrc >= 0) return;
      slot[i].allocated = true;
      if (INPLACE.has(node.op)) {
        for (const p of node.src) {
          if (p < 0 || !slot[p].allocated) continue;
          const parent = t[p];
          if (parent.output || (parent.viewSrc >= 0 && t[parent.viewSrc].output)) continue;
          if (!sameLayout(node, parent)) continue;
          if (slot[p].children !== 1 || slot[p].views !== 0) continue;
          slot[i].offset = slot[p].offset;
          slot[p].allocated = false;
          const ps = aligned(parent.bytes), ns = aligned(node.bytes);
          if (ps > ns) freeBytes(slot[p].offset + ns, ps - ns);
          return;
        }
      }
      slot[i].offset = dynAlloc(node.bytes);
    }
    function free(i) {
      if (t[i].output) return;
      freeBytes(slot[i].offset, t[i].bytes);
      slot[i].allocated = false;
    }
    for (const l of g.leafs) alloc(l);
    for (const n of g.nodes) {
      const node = t[n];
      if (node.viewSrc >= 0 && node.op !== 'NONE') slot[node.viewSrc].views++;
      if (node.input) alloc(n);
      for (const s of node.src) {
        if (s < 0) continue;
        slot[s].children++;
        if (t[s].input) alloc(s);
      }
    }
    for (const n of g.nodes) {
      const node = t[n];
      for (const s of node.src) if (s >= 0) alloc(s);
      alloc(n);
      for (const p of node.src) {
        if (p < 0) continue;
        const ph = slot[p];
        ph.children--;
        if (ph.children !== 0 || ph.views !== 0) continue;
        const parent = t[p];
        if (parent.viewSrc >= 0) {
          const vh = slot[parent.viewSrc];
          vh.views--;
          if (vh.views === 0 && vh.children === 0 && vh.allocated) free(parent.viewSrc);
        } else if (ph.allocated) {
          free(p);
        }
      }
    }
    return maxSize;
  }

  const cacheTypes = { f32: F32, fp32: F32, f16: F16, fp16: F16, bf16: BF16, q8_0: Q8_0, q4_0: Q4_0, q4_1: Q4_1, q5_0: Q5_0, q5_1: Q5_1, iq4_nl: IQ4_NL };
  const memo = new Map();
  // The buffer a GPU that runs every layer allocates (llamacpp_compute_buffer with the graph), or
  // null where the model's graph or the cache type is not built.
  return function gpuBuffer(spec, setting) {
    const tk = cacheTypes[setting.cacheK], tv = cacheTypes[setting.cacheV];
    if (!spec || tk === undefined || tv === undefined || setting.cells <= 0) return null;
    const key = JSON.stringify([spec, setting]);
    if (memo.has(key)) return memo.get(key);
    const g = onDevice(build(spec, Object.assign({}, setting, { cacheK: tk, cacheV: tv })));
    const bytes = { bytes: BigInt(allocate(g, 128)), nodes: g.nodes.length };
    memo.set(key, bytes);
    return bytes;
  };
})();
