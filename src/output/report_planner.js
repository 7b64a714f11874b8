// kvcat report planner: pick a model, a card and how many, an engine, the weights, the KV
// dtype, a context and a batch; read whether it fits, the largest context, the KV bytes and
// the decode ceiling, beside the measured points nearest to the choice.
//
// Nothing here is estimated. kvcat exported, for every model, KV dtype, card count and
// engine, the exact terms `kvcat fit` works with (src/output/report_planner.h), as strings holding
// integers or fractions. This script only multiplies, subtracts, compares and divides them
// with BigInt fractions, in the order fit_context() (src/model/physics.cc) does, so the page and
// `kvcat fit --format json` agree to the byte. The choice lives in the address's fragment.
(function () {
  'use strict';

  // ---- exact fractions over BigInt ----
  function gcd(a, b) {
    if (a < 0n) a = -a;
    if (b < 0n) b = -b;
    while (b) [a, b] = [b, a % b];
    return a;
  }
  function Q(n, d) {
    n = BigInt(n);
    d = d === undefined ? 1n : BigInt(d);
    if (d === 0n) throw new Error('a fraction with denominator 0');
    if (d < 0n) { n = -n; d = -d; }
    const g = gcd(n, d) || 1n;
    return { n: n / g, d: d / g };
  }
  const parseQ = (text) => {
    const [n, d] = String(text).split('/');
    return Q(n, d === undefined ? 1n : d);
  };
  const add = (a, b) => Q(a.n * b.d + b.n * a.d, a.d * b.d);
  const sub = (a, b) => Q(a.n * b.d - b.n * a.d, a.d * b.d);
  const mul = (a, b) => Q(a.n * b.n, a.d * b.d);
  const div = (a, b) => Q(a.n * b.d, a.d * b.n);
  const cmp = (a, b) => { const x = a.n * b.d - b.n * a.d; return x < 0n ? -1 : x > 0n ? 1 : 0; };
  const isZero = (a) => a.n === 0n;
  const floorQ = (a) => (a.n >= 0n ? a.n / a.d : -((-a.n + a.d - 1n) / a.d));
  const ceilQ = (a) => -floorQ(Q(-a.n, a.d));
  const exactText = (a) => (a.d === 1n ? String(a.n) : a.n + '/' + a.d);
  // An exact fraction as a reader writes it: 9/2 is 4.5 and 17/16 is 1.0625, every digit exact
  // (a denominator of twos and fives ends); any other fraction stays a fraction.
  function decimalText(text) {
    const a = parseQ(String(text));
    let d = a.d, places = 0;
    while (d % 2n === 0n || d % 5n === 0n) { d /= d % 2n === 0n ? 2n : 5n; places++; }
    if (d !== 1n) return exactText(a);
    const scale = 10n ** BigInt(places);
    const n = a.n * scale / a.d, neg = n < 0n, m = neg ? -n : n;
    const whole = String(m / scale), frac = places ? '.' + String(m % scale).padStart(places, '0').replace(/0+$/, '') : '';
    return (neg ? '-' : '') + whole + (frac === '.' ? '' : frac);
  }
  // A measured speed as the catalog's table on a terminal shows it: four significant digits
  // (133.47814333534475 is 133.5), whole from 1,000 up; the exact figure is the row's.
  const speedText = (v) => (Math.abs(v) >= 1000 ? grouped(BigInt(Math.round(v))) : String(Number(Number(v).toPrecision(4))));

  function grouped(big) {
    const s = (big < 0n ? -big : big).toString();
    return (big < 0n ? '-' : '') + s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }
  // Two decimals, half away from zero, as kvcat's two_decimals() writes them.
  function twoDecimals(a) {
    const neg = a.n < 0n;
    const n = (neg ? -a.n : a.n) * 100n;
    const q = (2n * n + a.d) / (2n * a.d);
    return (neg && q !== 0n ? '-' : '') + grouped(q / 100n) + '.' + String(q % 100n).padStart(2, '0');
  }
  const GIB = Q(1n << 30n);
  const gib = (a) => twoDecimals(div(a, GIB)) + ' GiB';
  // "1,234 bytes", or "1,234 bytes (9873/8)" when the figure is a fraction.
  const bytesText = (a) => grouped(floorQ(a)) + (a.d === 1n ? '' : ' (' + exactText(a) + ')') + ' bytes';
  const plural = (n, one, many) => grouped(BigInt(n)) + ' ' + (BigInt(n) === 1n ? one : many);

  const cdiv = (a, b) => (a + b - 1n) / b;
  const padTo = (n, to) => cdiv(n, to) * to;
  const minB = (a, b) => (a < b ? a : b);
  const maxB = (a, b) => (a > b ? a : b);
  // "0.88" or "5.01" as an exact fraction, as kvcat's Rational::parse reads a decimal; null otherwise.
  function decimalQ(text) {
    const m = /^\s*([0-9]+)(?:\.([0-9]+))?\s*$/.exec(String(text));
    if (!m) return null;
    const frac = m[2] || '';
    return Q(BigInt(m[1] + frac), 10n ** BigInt(frac.length));
  }

  // ---- each engine's figures, from the coefficients kvcat exported ----
  // llama.cpp (llamacpp_coefficients, src/engines/llamacpp/llamacpp_allocation.h): -c context x batch and -np batch
  // give n_ctx padded to 256, each of the batch's streams pad(n_ctx / batch, 256) cells, the
  // SWA cache pad(min(cells, window + ubatch), 256) cells; the bytes are linear in the cells.
  function llamacppFigures(e, engine, context, batch) {
    const pad = BigInt(engine.cell_pad);
    const nCtx = padTo(context * batch, pad);
    const cells = batch <= 1n ? nCtx : padTo(nCtx / batch, pad);
    const window = BigInt(e.swa_window);
    const swaCells = window > 0n ? padTo(minB(cells, window + BigInt(engine.ubatch)), pad) : 0n;
    return {
      kv: add(mul(parseQ(e.base_per_cell), Q(cells * batch)), mul(parseQ(e.swa_per_cell), Q(swaCells * batch))),
      state: mul(parseQ(e.state_per_sequence), Q(batch)), cells, swaCells, tokens: cells * batch,
    };
  }
  // What llama.cpp's start takes on the card beside its weights, cache and state (llamacpp_runtime,
  // src/engines/llamacpp/llamacpp_fit.cc): the compute buffer (llamacpp_compute_buffer: the pinned
  // release's graph where kvcat builds it, else the bound of llamacpp_compute_coefficients: the
  // larger of the output stage, one output a slot, and the feed-forward stage with its f16 mask,
  // plus the tokens' positions) and what the card holds before llama.cpp starts (llamacpp_card_held);
  // the reserve where either is not known, or the compute buffer where it is above the reserve.
  function llamacppRuntime(compute, engine, card, llama, batch, reserve) {
    if (!compute) {
      return { bytes: reserve, how: gib(reserve) + ' runtime reserve (kvcat fit\'s default: the model record gives no compute buffer)' };
    }
    const tokens = maxB(1n, minB(BigInt(engine.ubatch), llama.tokens));
    // llama.cpp's own graph where kvcat builds it (report_graph.js), placed as ggml-alloc does: the
    // buffer itself; elsewhere the larger stage, a bound.
    const graph = compute.graph ? kvcatLlamaGraph(compute.graph, {
      tokens: Number(tokens), seqs: Number(maxB(1n, batch)), unified: llama.tokens === llama.cells,
      cells: Number(llama.cells), swaCells: Number(llama.swaCells), outputs: Number(maxB(1n, batch)), flashAttn: true,
      cacheK: compute.graph.cache, cacheV: compute.graph.cache,
    }) : null;
    const bound = () => {
      let stage = BigInt(compute.output_per_output) * minB(maxB(1n, batch), tokens);
      if (compute.ff_per_token !== null) {
        const ff = BigInt(compute.ff_per_token) * tokens + 2n * (llama.cells + llama.swaCells) * tokens;
        if (ff > stage) stage = ff;
      }
      return stage + 4n * tokens;
    };
    const buffer = Q(graph ? graph.bytes : bound());
    const least = graph ? ' (llama.cpp\'s own graph of ' + grouped(BigInt(graph.nodes)) + ' nodes, placed as ggml-alloc places it)' : ' (at least)';
    if (card.llama_held === null) {
      return cmp(buffer, reserve) > 0
        ? { bytes: buffer, how: bytesText(buffer) + ': llama.cpp\'s compute buffer' + least + ', above the 1 GiB reserve' }
        : { bytes: reserve, how: gib(reserve) + ' runtime reserve (kvcat fit\'s default, with the compute buffer in it)' };
    }
    const held = parseQ(card.llama_held);
    return { bytes: add(buffer, held), held, how: bytesText(add(buffer, held)) + ': llama.cpp\'s compute buffer, ' + bytesText(buffer) +
      least + ', and ' + bytesText(held) + ' the card holds before it starts (' + card.llama_held_how + ')' };
  }

  // A whole start on one card (engine_start_bytes, src/engines/engine_verdict.cc): the weights on
  // the card, the state, the runtime, the cache, what the card's terms add, and what llama.cpp's
  // --fit keeps free (none for the textbook, which keeps nothing on the host either). The verdict
  // at a context and llama.cpp's largest context both sum it here.
  function llamacppStart(r, state, runtime, kv) {
    return add(add(add(add(add(sub(r.weights, r.hostBytes), state), runtime), r.overhead), kv), r.fitTarget);
  }

  // kvcat plan's max_context with llama.cpp (engine_max_context, src/engines/engine_verdict.cc): the
  // largest context a sequence, up to the model's native one, at which llama.cpp's whole start (the
  // weights on the card, its runtime, cache and state, and what --fit keeps free) is within the card;
  // 0 when none is, null without a native context. The same halving as largest_holding
  // (src/support/bisect.h).
  function llamacppLargest(r, e, engine, batch, reserve) {
    if (r.native <= 0n) return null;
    if (!r.fitsAtAll) return 0n;  // the weights, state and reserve alone do not fit
    const holds = (c) => {
      const l = llamacppFigures(e, engine, c, batch);
      const runtime = llamacppRuntime(e.compute, engine, r.card, l, batch, reserve);
      return !(cmp(llamacppStart(r, l.state, runtime.bytes, l.kv), r.memory) > 0);
    };
    let low = 1n, high = r.native, best = 0n;
    while (low <= high) {
      const mid = low + (high - low) / 2n;
      if (holds(mid)) {
        best = mid;
        low = mid + 1n;
      } else {
        high = mid - 1n;
      }
    }
    return best;
  }

  // The largest context does not depend on the context field: it is kept per choice without it, so
  // that typing a context does not halve over the native context again at every keystroke.
  const largestCache = new Map();
  function largestFor(choice, compute) {
    const text = (v) => (v !== null && typeof v === 'object' ? v.n + '/' + v.d : String(v));  // a fraction, or as it is
    const key = Object.keys(choice).filter((k) => k !== 'context').sort().map((k) => k + '=' + text(choice[k])).join('&');
    if (!largestCache.has(key)) largestCache.set(key, compute());
    return largestCache.get(key);
  }

  // The held memory that would turn a llama.cpp verdict leaving `spare` bytes free, when the starts
  // the card's figure is fitted to reach it (llamacpp_held_edge, src/engines/llamacpp/llamacpp_card_held.cc):
  // the same sentence kvcat fit prints as "on the edge:", or null.
  function llamacppHeldEdge(card, held, spare) {
    if (card.llama_held_least === null || card.llama_held_most === null) return null;
    const mib = (q) => String(floorQ(div(q, Q(1048576n))));
    const edge = add(held, spare);
    const fitted = 'kvcat takes ' + mib(held) + ' MiB; the starts it is fitted to held ' + mib(parseQ(card.llama_held_least)) +
      ' to ' + mib(parseQ(card.llama_held_most));
    const negative = spare.n < 0n;
    if (!negative && cmp(edge, parseQ(card.llama_held_most)) < 0) {
      return 'a card that holds more than ' + mib(edge) + ' MiB before llama.cpp starts would not fit it (' + fitted + ')';
    }
    if (negative && cmp(edge, parseQ(card.llama_held_least)) > 0) {
      return 'a card that holds at most ' + mib(edge) + ' MiB before llama.cpp starts would fit it (' + fitted + ')';
    }
    return null;
  }

  // vLLM (vllm_pool_rule and vllm_pool, src/engines/vllm/vllm_allocation.cc): the pool holds available // divisor
  // blocks; one request of max_model_len takes, per term, cdiv(len, block) blocks of a full layer,
  // cdiv(min(window - 1 + batched, len), block) + 1 of a sliding one, cdiv(min(chunk + batched,
  // len), block) of a chunked one and one state page; "GPU KV cache size" is
  // int(blocks / per-request blocks x len), computed in doubles as vLLM and kvcat compute it.
  // A request of max_model_len that does not fit the memory left is refused before any pool is
  // made (check_enough_kv_cache_memory, src/engines/vllm/vllm_allocation.cc): every layer's pages for one
  // request, summed, against the memory; the estimate is the longest length that fits.
  function vllmFigures(e, engine, available, context, maxNumSeqs, batched) {
    const block = BigInt(e.block_size), divisor = BigInt(e.divisor);
    const blocksOf = (kind, w, len) => (kind === 'full' ? cdiv(len, block)
      : kind === 'sliding' ? cdiv(minB(w - 1n + batched, len), block) + 1n
        : kind === 'chunked' ? cdiv(minB(w + batched, len), block) : 1n);
    const requestBytes = (len) => e.terms.reduce((sum, [kind, page, layers, , window]) =>
      sum + BigInt(page) * blocksOf(kind, BigInt(window), len) * BigInt(layers), 0n);
    let kv = 0n, need = 0n;
    for (const [kind, page, layers, weight, window] of e.terms) {
      const n = blocksOf(kind, BigInt(window), context);
      if (kind !== 'state') kv += BigInt(page) * n * BigInt(layers);
      need += BigInt(weight) * BigInt(page) * n;
    }
    const out = { kv: Q(kv), state: parseQ(e.state), perRequest: cdiv(need, divisor), block, divisor,
      blocks: null, tokens: null, concurrency: null, refusal: null, estimated: null };
    // vLLM's words come from kvcat's engine model (engine.refusal_words, ...), filled as fit fills them.
    const fill = (words, values) => words.replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
    if (available !== null && requestBytes(context) > available) {
      let estimated = 0n;
      if (requestBytes(1n) <= available) {
        let left = 1n, right = context;
        estimated = 1n;
        while (left <= right) {
          const mid = (left + right) / 2n;
          if (requestBytes(mid) <= available) { estimated = mid; left = mid + 1n; } else { right = mid - 1n; }
        }
      }
      out.estimated = estimated;
      const gibText = (b) => (Number(b) / 1073741824).toFixed(2).replace(/(\.\d)0$/, '$1');
      out.refusal = fill(engine.refusal_words, {
        max_model_len: context, needed_gib: gibText(requestBytes(context)), available_gib: gibText(available),
        estimate: estimated > 0n ? fill(engine.estimate_words, { estimated: estimated }) : '',
      }).trim();
      return out;
    }
    if (available !== null) {
      out.blocks = available / divisor;
      out.concurrency = Number(out.blocks) / Number(out.perRequest);
      out.tokens = BigInt(Math.trunc(out.concurrency * Number(context)));
      // A model with Mamba layers needs a block a sequence: vLLM refuses more sequences than blocks
      // (kVllmMambaBlocksWords, src/engines/vllm/vllm_allocation.h), as kvcat fit says.
      if (e.terms.some(([kind]) => kind === 'state') && maxNumSeqs > out.blocks) {
        out.mambaRefusal = 'ValueError: ' + fill(engine.mamba_words, { max_num_seqs: maxNumSeqs, blocks: out.blocks });
        out.maxNumSeqs = maxNumSeqs;
      }
    }
    return out;
  }
  // SGLang (sglang_allocation, src/engines/sglang/sglang_allocation.cc): the pool is floor(memory / cell) tokens in
  // whole pages, plus one page of padding slots; a pool for n tokens is (n + page) x cell.
  function sglangFigures(e, engine, available, want) {
    const cell = parseQ(e.cell), page = BigInt(engine.page_size);
    const out = { cell, page, kv: mul(Q(want + page), cell), tokens: null };
    if (available !== null) {
      const tokens = floorQ(div(available, cell)) / page * page;
      if (tokens > 0n) out.tokens = tokens;
    }
    return out;
  }

  // ---- the predicted speed, step for step as src/predict/speed_predictor.cc ----
  // Time per token is what it works in: one over a speed, or a first token's time over the context.
  function toSeconds(measure, value, context) { return measure === 'ttft' ? value / 1000 / context : 1 / value; }
  function fromSeconds(measure, seconds, context) { return measure === 'ttft' ? seconds * 1000 * context : 1 / seconds; }
  function geometricMean(v) { return Math.exp(v.reduce((a, x) => a + Math.log(x), 0) / v.length); }
  function median(v) {
    const s = v.slice().sort((a, b) => a - b), n = s.length;
    return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }
  // Points as [context, value], repeated contexts averaged, by context.
  function mergedLine(pairs) {
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const out = [];
    for (let i = 0; i < pairs.length;) {
      let j = i, sum = 0;
      for (; j < pairs.length && pairs[j][0] === pairs[i][0]; j++) sum += pairs[j][1];
      out.push([pairs[i][0], sum / (j - i)]);
      i = j;
    }
    return out;
  }
  function interpolateLine(line, x) {
    if (!line.length || x < line[0][0] || x > line[line.length - 1][0]) return null;
    for (let i = 0; i + 1 < line.length; i++) {
      const [x0, y0] = line[i], [x1, y1] = line[i + 1];
      if (x >= x0 && x <= x1) return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    }
    return line[0][1];
  }
  function extrapolateLine(line, x) {
    const nearest = x < line[0][0] ? line[0] : line[line.length - 1];
    if (line.length < 2) return nearest[1];
    const n = line.length;
    let mx = 0, my = 0;
    for (const [px, py] of line) { mx += px / n; my += py / n; }
    let sxx = 0, sxy = 0;
    for (const [px, py] of line) { sxx += (px - mx) * (px - mx); sxy += (px - mx) * (py - my); }
    const slope = sxx > 0 ? sxy / sxx : NaN;
    if (!(slope > 0)) return nearest[1];
    return nearest[1] + slope * (x - nearest[0]);
  }
  const MEASURE_COLUMN = { decode: 1, prefill: 3, ttft: 4 };
  function estimateFrom(seconds, measure, context, basis, records, how) {
    const values = seconds.map((s) => fromSeconds(measure, s, context));
    return { value: fromSeconds(measure, geometricMean(seconds), context), basis, records, how,
      low: Math.min(...values), high: Math.max(...values) };
  }
  function sameSetup(speeds, setup, measure, context) {
    const found = [];
    for (const c of speeds.curves) {
      if (!sameKey(c, setup)) continue;
      const line = mergedLine(c.points.filter((p) => p[MEASURE_COLUMN[measure]] !== null)
        .map((p) => [p[0], toSeconds(measure, p[MEASURE_COLUMN[measure]], p[0])]));
      if (!line.length) continue;
      const inside = interpolateLine(line, context);
      const seconds = inside !== null ? inside : extrapolateLine(line, context);
      if (seconds > 0) found.push({ record: c.record, seconds, inside: inside !== null });
    }
    if (!found.length) return null;
    const anyInside = found.some((f) => f.inside);
    const used = found.filter((f) => f.inside === anyInside);
    return estimateFrom(used.map((f) => f.seconds), measure, context, anyInside ? 'curve-inside' : 'curve-outside',
      used.map((f) => f.record), (anyInside ? 'interpolated between the two nearest contexts' : 'extended beyond its contexts') + ' on the measured curve');
  }
  function sameKey(c, s) {
    return c.model === s.model && c.card === s.card && c.gpus === s.gpus && c.engine === s.engine && c.weights === s.weights &&
      c.kv === s.kv && c.v_kv === '' && c.concurrency === s.concurrency && !c.speculative && c.offload === '';
  }
  function scaledSpeed(speeds, setup, context, floor) {
    const candidates = [];
    for (const c of speeds.curves) {
      if (c.model !== setup.model || sameKey(c, setup) || c.speculative || c.offload !== '') continue;
      const line = mergedLine(c.points.filter((p) => p[1] !== null && p[2] !== null).map((p) => [p[0], p[2]]));
      if (!line.length) continue;
      let share = interpolateLine(line, context);
      if (share === null) share = context < line[0][0] ? line[0][1] : line[line.length - 1][1];
      // The nearest setups first: the same card and count, then concurrency, engine, weights, cache.
      const rank = [c.card === setup.card && c.gpus === setup.gpus, c.concurrency === setup.concurrency,
        c.engine === setup.engine, c.weights === setup.weights, c.kv === setup.kv && c.v_kv === '']
        .reduce((a, same) => a * 2 + (same ? 0 : 1), 0);
      candidates.push({ share, record: c.record, rank });
    }
    if (!candidates.length) return null;
    const best = Math.min(...candidates.map((x) => x.rank));
    const chosen = candidates.filter((x) => x.rank === best);
    return estimateFrom(chosen.map((x) => x.share * floor), 'decode', context, best < 16 ? 'same-card' : 'other-card',
      chosen.map((x) => x.record), 'the roofline here x the share of its roofline the measured curve reached at this context');
  }
  // Decode, prefill and the first token's time at the choice, each with its 80% interval; the
  // roofline (tokens/s) is the page's own, as kvcat fit works it out.
  function predictSpeeds(data, choice, engineName, ceiling) {
    const speeds = data.speeds;
    if (!speeds || engineName === null) return {};
    const renamed = (speeds.dtype_names[engineName] || {})[choice.kv];  // vLLM's fp8 is fp8_e4m3
    const setup = { model: choice.model, card: choice.accelerator, gpus: choice.gpus, engine: engineName,
      weights: choice.weights, kv: renamed || choice.kv, concurrency: Number(choice.batch) };
    const context = Number(choice.context);
    const out = {};
    for (const measure of ['decode', 'prefill', 'ttft']) {
      let e = sameSetup(speeds, setup, measure, context);
      if (!e && measure === 'decode' && ceiling) {
        const floor = 1 / ceiling;
        e = scaledSpeed(speeds, setup, context, floor);
        if (!e) {
          const vendor = speeds.vendors[choice.accelerator];
          const key = [engineName + '|' + vendor, engineName, ''].find((k) => speeds.efficiency[k] !== undefined);
          if (key !== undefined) {
            const v = 1 / (speeds.efficiency[key] * floor);
            e = { value: v, low: v, high: v, basis: 'engine-efficiency', records: [],
              how: 'the roofline here x the median share of the roofline of the measured curves of ' + (key === '' ? 'every engine' : key.replace('|', ' on ') + (key.includes('|') ? ' cards' : '')) };
          }
        }
      }
      if (!e) continue;
      const [below, above] = speeds.widths[measure][e.basis];
      e.low = Math.min(e.value * below, e.low);
      e.high = Math.max(e.value * above, e.high);
      if (measure === 'decode' && ceiling) e.high = Math.min(e.high, Math.max(ceiling, e.value));  // the roofline bounds it
      out[measure] = e;
    }
    return out;
  }

  // ---- the fit, step for step as fit_context() ----
  // Returns { error } when kvcat could not work this choice out, else the terms and answers.
  function fit(data, choice) {
    const model = data.models.find((m) => m.id === choice.model);
    const card = data.accelerators.find((a) => a.id === choice.accelerator);
    if (!model || !card) return { error: 'choose a model and a card' };
    const engine = data.engines.find((e) => e.id === choice.engine);
    if (!engine) return { error: 'no ' + choice.engine + ' figures in this page' };
    // The largest context is the textbook's, as kvcat fit's max_context is with --engine too.
    const t = (model.terms.textbook[choice.kv] || {})[String(choice.gpus)];
    if (!t) return { error: 'no figures for ' + choice.kv + ' on ' + choice.gpus + ' cards' };
    if (t.error) return { error: t.error };
    const cards = Q(choice.gpus);
    const batch = Q(choice.batch);
    let weightsTotal, activeTotal, weightsHow;
    let hostBytes = Q(0), hostHow = '';
    if (choice.weightBytes !== null) {
      weightsTotal = Q(choice.weightBytes);
      activeTotal = model.active_share ? mul(weightsTotal, parseQ(model.active_share)) : null;
      weightsHow = 'as given: ' + grouped(choice.weightBytes) + ' bytes';
    } else {
      // A GGUF mix of a model whose record lists its tensors: llama-quantize's own bytes, as kvcat
      // fit takes them (without an engine or with llama.cpp; F16 and BF16 with llama.cpp only).
      const gguf = model.gguf_weights[choice.weights];
      const format = data.weight_formats.find((f) => f.name === choice.weights);
      const byEngine = (model.loaded_weights[choice.engine] || {})[choice.weights];
      // With --enable-expert-parallel the experts are divided whole: their own entry ("8+ep").
      const loaded = byEngine ? byEngine[String(choice.gpus) + (choice.expertParallel ? '+ep' : '')] : undefined;
      if (gguf && (choice.engine === 'llama.cpp' || (choice.engine === 'textbook' && !gguf.float))) {
        weightsTotal = parseQ(gguf.bytes);
        activeTotal = model.active_share ? mul(weightsTotal, parseQ(model.active_share)) : null;
        weightsHow = gguf.how;
        // llama.cpp keeps its input layer in host memory (llamacpp_off_card_bytes): on one card, as kvcat
        // fit --engine llama.cpp takes it.
        if (choice.engine === 'llama.cpp' && choice.gpus === 1 && gguf.off_card_bytes !== '0') {
          hostBytes = parseQ(gguf.off_card_bytes);
          hostHow = gguf.host_how;
        }
      } else if (loaded) {
        // The engine's own layers for this format (EngineRules::loaded_weights), each card's, as kvcat fit takes them.
        if (loaded.refused) {
          const name = (data.engines.find((e) => e.id === choice.engine) || { name: choice.engine }).name;
          return { error: name + ' refuses to load ' + choice.weights + ' weights on ' + choice.gpus + (choice.gpus === 1 ? ' card' : ' cards') +
            ', in its words: ' + loaded.refused, engineRefusal: true };
        }
        weightsTotal = mul(parseQ(loaded.bytes), cards);
        activeTotal = model.active_share ? mul(weightsTotal, parseQ(model.active_share)) : null;
        weightsHow = loaded.how;
      } else {
        // A mix with no single base type (MXFP4_MOE) has only llama-quantize's plan, as in kvcat fit.
        if (!format.base) {
          return { error: choice.weights + ' is sized only from llama-quantize\'s plan, which needs the model record\'s ' +
            'tensors mapping (and the llama.cpp family of engines): give the weights as bytes' };
        }
        if (!model.weights[choice.weights]) return { error: model.name + ' has no parameter count: give the weights as bytes' };
        weightsTotal = parseQ(model.weights[choice.weights]);
        activeTotal = model.active_weights[choice.weights] ? parseQ(model.active_weights[choice.weights]) : null;
        weightsHow = 'all parameters x ' + decimalText(format.bits_per_weight) + ' bits / 8';
        if (format.mix) weightsHow = 'at least: ' + weightsHow + ', ' + format.base + ' throughout (a llama.cpp mix the model record cannot place)';
      }
    }
    const r = { model, card, t, choice, engine };
    r.memory = parseQ(card.memory);
    r.weights = div(weightsTotal, cards);
    r.weightsHow = weightsHow + (choice.gpus > 1 ? ', split over ' + choice.gpus + ' cards' : '');
    r.hostBytes = hostBytes;
    r.hostHow = hostHow;
    r.fitTarget = Q(0);
    r.fixed = mul(parseQ(t.fixed), batch);
    r.reserve = parseQ(data.reserve);
    r.overhead = parseQ(t.overhead || '0');
    r.available = sub(sub(sub(sub(r.memory, r.weights), r.fixed), r.reserve), r.overhead);
    r.room = sub(sub(sub(r.memory, r.weights), r.reserve), r.overhead);  // for the cache and state
    r.fitsAtAll = cmp(r.available, Q(0)) > 0;
    r.growing = mul(parseQ(t.growing), batch);
    r.sliding = mul(parseQ(t.sliding), batch);
    r.window = BigInt(t.window);
    r.native = BigInt(model.native_context);
    r.bounded = false;
    r.maxContext = null;
    if (r.fitsAtAll) {
      if (isZero(r.growing)) {
        if (isZero(r.sliding) || !(cmp(mul(r.sliding, Q(r.window)), r.available) > 0)) {
          r.maxContext = r.native;
          r.bounded = true;
        } else {
          r.maxContext = floorQ(div(r.available, r.sliding));
        }
      } else {
        const pastWindow = div(sub(r.available, mul(r.sliding, Q(r.window))), r.growing);
        if (r.window > 0n && cmp(pastWindow, Q(r.window)) < 0) {
          r.maxContext = floorQ(div(r.available, add(r.growing, r.sliding)));
        } else {
          r.maxContext = floorQ(pastWindow);
        }
        if (r.maxContext < 0n) r.maxContext = 0n;
      }
    }
    const context = BigInt(choice.context);
    r.kv = add(mul(r.growing, Q(context)), mul(r.sliding, Q(r.window > 0n ? (context < r.window ? context : r.window) : 0n)));
    // The decode ceiling reads what the design holds at the context, whatever an engine allocates:
    // the active weights once and every sequence's KV and state, all of it, at the bandwidth of
    // every card together (batch_roofline() in src/model/physics.cc). That is a perfect split's
    // ceiling; a split that keeps KV heads or an MLA latent on several cards reads more.
    // (One card's terms never fail where these did not.)
    const whole = model.terms.textbook[choice.kv]['1'];
    const wholeKv = add(mul(parseQ(whole.growing), Q(context)),
      mul(parseQ(whole.sliding), Q(r.window > 0n ? (context < r.window ? context : r.window) : 0n)));
    const readPerStep = add(activeTotal || Q(0), mul(batch, add(wholeKv, parseQ(whole.fixed))));
    const error = engineFigures(data, r, choice, context);
    if (error) return { error };
    if (r.pool === undefined) {
      // llama.cpp: the weights on the card, and the memory its --fit keeps free beside the start.
      r.total = llamacppStart(r, r.fixed, r.reserve, r.kv);
      r.fits = !(cmp(r.total, r.memory) > 0);
      r.free = sub(r.memory, r.total);
      r.heldEdge = r.held ? llamacppHeldEdge(card, r.held, r.free) : null;
    }
    r.ceiling = null;
    if (card.bandwidth && activeTotal && !isZero(readPerStep)) {
      r.ceiling = div(mul(parseQ(card.bandwidth), cards), readPerStep);
    }
    return r;
  }

  // vLLM's defaults for the card, as vllm_card_defaults gives them (planner_content's card entries).
  const vllmMaxNumSeqs = (r) => BigInt(r.card.vllm_max_num_seqs);
  const vllmBatchedTokens = (r) => BigInt(r.card.vllm_max_num_batched_tokens);

  // The chosen engine's figures in place of the textbook cache and state; an error text when the
  // engine cannot hold this choice. A pool engine (vLLM, SGLang) sets r.pool: the bytes it takes,
  // r.used: the part the batch's requests take, and decides r.fits by its own rule.
  function engineFigures(data, r, choice, context) {
    const engine = r.engine;
    if (engine.id === 'textbook') return null;
    if (!engine.cards.includes(choice.gpus)) {
      return engine.name + ' is worked out here for one card: kvcat does not model how it spreads a model\'s ' +
        'layers over cards (vLLM and SGLang split over 2, 4 or 8)';
    }
    let e = ((r.model.engines || {})[engine.id] || {})[choice.kv];
    if (e && engine.id !== 'llama.cpp') e = e[String(choice.gpus)];
    if (!e) return 'no ' + engine.name + ' figures for ' + r.model.name;
    if (e.error) return engine.name + ': ' + e.error;
    const batch = BigInt(choice.batch);
    r.textbookKv = r.kv;
    if (engine.id === 'llama.cpp') {
      r.llama = llamacppFigures(e, engine, context, batch);
      r.fitTarget = parseQ(engine.fit_target);
      const runtime = llamacppRuntime(e.compute, engine, r.card, r.llama, batch, r.reserve);
      r.engineMax = largestFor(choice, () => llamacppLargest(r, e, engine, batch, r.reserve));
      r.reserve = runtime.bytes;
      r.reserveHow = runtime.how;
      r.held = runtime.held || null;
      r.kv = r.llama.kv;
      r.fixed = r.llama.state;
      r.engineTokens = r.llama.tokens;
      return null;
    }
    // The memory a pool engine is given, as kvcat fit works it out: what the reader gave, else the
    // card less this card's weights and the reserve.
    let given = null;
    if (engine.id === 'vllm' && choice.kvGib !== null) {
      given = mul(choice.kvGib, GIB);
      r.poolHow = 'the Available KV cache memory given, ' + twoDecimals(choice.kvGib) + ' GiB';
    } else if (engine.id === 'sglang' && choice.memFraction !== null) {
      // sglang_budget (src/engines/sglang/sglang_rules.cc): the share of CUDA's total (runtime_total)
      // less the weights, the CUDA context (kTorchContextBytes, fitted) and, over several cards,
      // NCCL's memory (kTensorParallelNonTorchBytes, fitted).
      r.context = parseQ(engine.context);
      given = sub(sub(mul(parseQ(r.card.runtime_total), choice.memFraction), r.weights), r.context);
      if (choice.gpus > 1) {
        r.nccl = parseQ(engine.tensor_parallel_non_torch);
        given = sub(given, r.nccl);
      }
      r.poolHow = r.card.runtime_total_how + ' x --mem-fraction-static ' + choice.memFractionText + ', less the weights, ' +
        (r.nccl ? gib(r.nccl) + ' for NCCL on each card (fitted to real starts) ' : '') +
        'and ' + gib(r.context) + ' for the CUDA context (fitted)';
    } else if (engine.id === 'vllm') {
      // vllm_budget (src/engines/vllm/vllm_budget.cc): CUDA's total x gpu_memory_utilization, less
      // the weights, the rotary table, the sampler's peak its profiling run reaches (vllm_sampler_peak,
      // for n = min(max_num_seqs, max_num_batched_tokens) requests; model_entry gives its two parts),
      // a mixture of experts' workspace, NCCL's memory, the CUDA graphs' estimate and the allowance.
      const share = parseQ(engine.gpu_memory_utilization);
      const format = choice.weightBytes === null ? data.weight_formats.find((f) => f.name === choice.weights) : null;
      const wide = Boolean(format && format.model_dtype === 'float32');
      const s = wide ? r.model.vllm_sampler_f32 : r.model.vllm_sampler;
      // The share is of CUDA's total (runtime_total); beside a derived sampler peak the rest is
      // kvcat's fitted allowance (kVllmAllowanceBytes), else the reserve stands for all of it.
      r.allowance = s ? parseQ(engine.allowance) : r.reserve;
      given = sub(sub(mul(parseQ(r.card.runtime_total), share), r.weights), r.allowance);
      // The rotary table vLLM loads beside the weights (vllm_rotary_table), where kvcat sizes it,
      // and the sampler, in the model's dtype: float32 for an f32 checkpoint (checkpoint_float_dtype).
      const rotary = wide ? r.model.vllm_rotary_f32 : r.model.vllm_rotary;
      if (rotary) {
        r.rotary = parseQ(rotary);
        given = sub(given, r.rotary);
      }
      if (s) {
        const batched = vllmBatchedTokens(r);
        const n = minB(vllmMaxNumSeqs(r), batched);
        r.sampler = add(mul(parseQ(s.per_token), Q(batched)), mul(parseQ(s.per_request), Q(n)));
        given = sub(given, r.sampler);
        // A mixture of experts' fused-experts workspace, held beside the sampler (vllm_moe_workspace).
        const byCards = format ? (r.model.vllm_moe_workspace[format.name] || {})[String(choice.gpus) + (choice.expertParallel ? '+ep' : '')] : null;
        if (byCards && byCards[String(batched)]) {
          r.workspace = parseQ(byCards[String(batched)]);
          given = sub(given, r.workspace);
        }
        // Over several cards, NCCL's memory outside torch (kTensorParallelNonTorchBytes, fitted).
        if (choice.gpus > 1) {
          r.nccl = parseQ(engine.tensor_parallel_non_torch);
          given = sub(given, r.nccl);
        }
        // The CUDA graphs' estimate the newest rules take off (vllm_cuda_graph_estimate, fitted).
        r.graphs = parseQ(r.card.vllm_cuda_graphs);
        given = sub(given, r.graphs);
      }
      r.poolHow = r.card.runtime_total_how + ' x --gpu-memory-utilization ' + decimalText(engine.gpu_memory_utilization) +
        ' (vLLM\'s default), less the weights' + (r.rotary ? ' with the ' + gib(r.rotary) + ' rotary table vLLM loads beside them' : '') + ', ' +
        (s ? gib(r.sampler) + ' for the sampler\'s peak in its profiling run (derived), ' +
             (r.workspace ? gib(r.workspace) + ' for the experts\' workspace held beside it (derived), ' : '') +
             (r.nccl ? gib(r.nccl) + ' for NCCL on each card (fitted to real starts), ' : '') +
             gib(r.graphs) + ' for the CUDA graphs\' estimate (fitted), ' + gib(r.allowance) + ' for the rest (fitted)'
           : gib(r.allowance) + ' for its activations (kvcat fit\'s default)');
    } else {
      given = sub(sub(r.memory, r.weights), r.reserve);
      r.poolHow = 'the card less the weights and 1 GiB (kvcat fit\'s default)';
    }
    const positiveGiven = cmp(given, Q(0)) > 0 ? given : null;
    if (engine.id === 'vllm') {
      const v = vllmFigures(e, engine, positiveGiven && floorQ(positiveGiven), context, vllmMaxNumSeqs(r),
        vllmBatchedTokens(r));
      r.vllm = v;
      r.kv = mul(v.kv, Q(batch));
      r.fixed = mul(v.state, Q(batch));
      r.engineTokens = v.tokens;
      r.concurrency = v.concurrency;
      r.pool = Q((v.blocks || 0n) * v.divisor);
      r.used = Q(batch * v.perRequest * v.divisor);
      r.fits = v.blocks !== null && v.blocks >= batch * v.perRequest && !v.mambaRefusal;
    } else {
      const want = context * batch;
      const g = sglangFigures(e, engine, positiveGiven, want);
      r.sglang = g;
      r.kv = g.kv;
      r.fixed = Q(0);
      r.engineTokens = g.tokens;
      r.pool = g.tokens === null ? Q(0) : mul(Q(g.tokens + g.page), g.cell);
      r.used = g.kv;
      r.fits = g.tokens !== null && want <= g.tokens;
    }
    r.outside = sub(sub(r.memory, r.weights), r.pool);  // what the card keeps beside the weights and the pool
    r.total = add(add(r.weights, r.fits ? r.pool : r.used), cmp(r.outside, Q(0)) > 0 ? r.outside : Q(0));
    r.free = sub(r.memory, r.total);
    return null;
  }
  // ---- the choice and the address's fragment ----
  // The last three are written only with their engine (ep also only where it is offered), and only when given.
  const KEYS = ['model', 'accelerator', 'gpus', 'engine', 'weights', 'kv', 'context', 'batch', 'kvgib', 'memfrac', 'ep'];

  function readFragment() {
    const out = {};
    const text = location.hash.replace(/^#/, '');
    for (const part of text.split('&')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      let key, value;
      try {
        key = decodeURIComponent(part.slice(0, eq));
        value = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
      } catch (e) {
        continue;  // a malformed escape: that key keeps its default
      }
      if (KEYS.includes(key)) out[key] = value;
    }
    return out;
  }

  function fragmentOf(choice) {
    const values = {
      model: choice.model, accelerator: choice.accelerator, gpus: choice.gpus, engine: choice.engine,
      weights: choice.weightBytes !== null ? String(choice.weightBytes) : choice.weights,
      kv: choice.kv, context: choice.context, batch: choice.batch,
      kvgib: choice.engine === 'vllm' && choice.kvGib !== null ? choice.kvGibText : undefined,
      memfrac: choice.engine === 'sglang' && choice.memFraction !== null ? choice.memFractionText : undefined,
      ep: choice.expertParallel ? 'on' : undefined,
    };
    return KEYS.filter((k) => values[k] !== undefined)
      .map((k) => k + '=' + encodeURIComponent(values[k]).replace(/%2F/g, '/')).join('&');
  }

  const positive = (text) => (/^[0-9]+$/.test(String(text)) && BigInt(text) > 0n ? BigInt(text) : null);

  // ---- the page ----
  function mount(data, table, parent, helpers) {
    const { el, safeHref } = helpers;
    // A text with options and commands in it (--max-model-len, kvcat fit --engine llama.cpp), each
    // option kept on one line: a phone would otherwise break "--engine" after its dashes.
    function withOptions(tag, attrs, text) {
      const node = el(tag, attrs);
      const t = String(text);
      let at = 0;
      for (const m of t.matchAll(/--[a-z][a-z0-9-]*/g)) {
        node.append(t.slice(at, m.index), el('span', { class: 'option' }, m[0]));
        at = m.index + m[0].length;
      }
      node.append(t.slice(at));
      return node;
    }

    const listeners = [];
    const section = el('section', { id: 'planner', 'aria-labelledby': 'planner-title' });
    section.append(el('h2', { id: 'planner-title' }, 'Will it fit? Pick a model and a card'));
    section.append(el('p', { class: 'lede' },
      'Every figure below is kvcat\'s own arithmetic (kvcat fit), carried in this page as exact ' +
      'numbers, on the assumptions named beside each term (a flat runtime reserve, or with llama.cpp its ' +
      'compute buffer and what the card holds before it starts; a llama.cpp mix ' +
      'as llama-quantize writes it where the model record lists its tensors, else at its base type, a ' +
      'lower bound). Measured speeds come from the catalog\'s records.'));

    const form = el('form', { class: 'pickers', autocomplete: 'off' });
    form.addEventListener('submit', (e) => e.preventDefault());
    // A wide picker takes a whole row on a phone, so that its longest option is never cut.
    function field(name, label, control, wide) {
      const wrap = el('div', { class: wide ? 'picker wide' : 'picker' });
      control.id = 'pick-' + name;
      control.name = name;
      wrap.append(el('label', { for: control.id }, label), control);
      form.append(wrap);
      return control;
    }
    function select(options) {
      const s = el('select');
      for (const [value, text] of options) s.append(el('option', { value }, text));
      return s;
    }
    const byName = (a, b) => a.name.localeCompare(b.name);
    const pick = {
      model: field('model', 'Model', select(data.models.slice().sort(byName).map((m) => [m.id, m.name])), true),
      // A card by its name alone, so that the longest fits a phone; its memory is written under it.
      accelerator: field('accelerator', 'Card', select(data.accelerators.slice().sort(byName).map((a) =>
        [a.id, a.name.split(/ \(|,/)[0]])), true),
      gpus: field('gpus', 'Cards', select(data.card_counts.map((n) => [String(n), String(n)]))),
      engine: field('engine', 'Engine', select(data.engines.map((e) => [e.id, e.name]))),
      weights: field('weights', 'Weights', select(data.weight_formats.map((f) => [f.name, f.name + (f.mix ? ' (mix)' : ' (' + decimalText(f.bits_per_weight) + ' bits)')])
        .concat([['bytes', 'size in bytes…']]))),
      weightBytes: field('weight-bytes', 'Weight bytes (all cards)', el('input', { type: 'number', min: '1', step: '1', inputmode: 'numeric' })),
      kv: field('kv', 'KV cache dtype', select(data.dtypes.map((d) => [d.name, d.name + ' (' + decimalText(d.bytes_per_element) + ' B)']))),
      context: field('context', 'Context (tokens)', el('input', { type: 'number', min: '1', step: '1', inputmode: 'numeric', list: 'planner-contexts' })),
      batch: field('batch', 'Batch (sequences)', el('input', { type: 'number', min: '1', step: '1', inputmode: 'numeric' })),
      // Blank, the pool is vllm_budget's: the card x vLLM's default share, less the weights, the
      // sampler's peak where kvcat derives it, and the reserve; the answer names each term (the
      // whole sum does not fit the field).
      kvGib: field('kv-gib', 'vLLM\'s Available KV cache memory, GiB', el('input', { type: 'text', inputmode: 'decimal',
        placeholder: 'blank: card × ' + decimalText(data.engines.find((x) => x.id === 'vllm').gpu_memory_utilization) +
          ' less the rest' }), true),
      memFraction: field('mem-fraction', 'SGLang --mem-fraction-static', el('input', { type: 'text', inputmode: 'decimal',
        placeholder: 'blank: card − weights − 1 GiB' }), true),
      // A mixture of experts over several cards in vLLM: every expert's width split (vLLM's default),
      // or the experts divided whole among the cards.
      expertParallel: field('expert-parallel', 'vLLM --enable-expert-parallel', select([['off', 'off'], ['on', 'on']])),
    };
    const cardHint = el('span', { class: 'hint' });
    pick.accelerator.parentNode.append(cardHint);
    const decimalGB = (bytes) => twoDecimals(div(bytes, Q(1000000000n))).replace(/\.00$/, '');
    function describeCard() {
      const a = data.accelerators.find((x) => x.id === pick.accelerator.value);
      // The total vLLM and SGLang take their share of, where the card's record gives it.
      cardHint.textContent = a ? decimalGB(parseQ(a.memory)) + ' GB (' + a.memory_how + ')' +
        (a.runtime_total_recorded ? '; ' + a.runtime_total_how + ' for vLLM and SGLang' : '') +
        (a.bandwidth ? ', ' + decimalGB(parseQ(a.bandwidth)) + ' GB/s' : '') : '';
    }
    const presets = el('datalist', { id: 'planner-contexts' });
    for (const c of [4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576]) presets.append(el('option', { value: String(c) }));
    form.append(presets);
    section.append(form);

    const notice = el('p', { class: 'notice', role: 'status' });
    const answer = el('div', { class: 'answer', 'aria-live': 'polite' });
    const side = el('div', { class: 'beside' });
    const grid = el('div', { class: 'planner-grid' });
    grid.append(answer, side);
    section.append(notice, grid);
    parent.append(section);

    function setDefaults() {
      const has = (list, id) => list.some((x) => x.id === id);
      pick.model.value = has(data.models, 'models/qwen3.5-27b') ? 'models/qwen3.5-27b' : (data.models[0] || {}).id || '';
      pick.accelerator.value = has(data.accelerators, 'accelerators/nvidia-rtx-4090') ? 'accelerators/nvidia-rtx-4090'
        : (data.accelerators[0] || {}).id || '';
      pick.gpus.value = '1';
      pick.engine.value = data.engines[0].id;
      pick.weights.value = 'Q4_K';
      pick.kv.value = data.dtypes.some((d) => d.name === 'q8_0') ? 'q8_0' : data.dtypes[0].name;
      pick.context.value = '65536';
      pick.batch.value = '1';
      pick.weightBytes.value = '';
      pick.kvGib.value = '';
      pick.memFraction.value = '';
      pick.expertParallel.value = 'off';
    }

    // The fragment's values where the pickers offer them; what it names that the page lacks is said.
    function applyFragment() {
      const f = readFragment();
      const unknown = [];
      const choose = (control, value, what) => {
        if (value === undefined) return;
        if (Array.from(control.options).some((o) => o.value === value)) control.value = value;
        else unknown.push(what + ' ' + value);
      };
      choose(pick.model, f.model, 'model');
      choose(pick.accelerator, f.accelerator, 'card');
      choose(pick.gpus, f.gpus, 'card count');
      choose(pick.engine, f.engine, 'engine');
      choose(pick.kv, f.kv, 'KV dtype');
      choose(pick.expertParallel, f.ep, 'expert parallel');
      if (f.weights !== undefined) {
        if (positive(f.weights) !== null) {
          pick.weights.value = 'bytes';
          pick.weightBytes.value = String(positive(f.weights));
        } else {
          choose(pick.weights, f.weights, 'weight format');
        }
      }
      if (f.context !== undefined) {
        if (positive(f.context) !== null) pick.context.value = String(positive(f.context));
        else unknown.push('context ' + f.context);
      }
      for (const [key, control, what, ok] of [['kvgib', pick.kvGib, 'available KV GiB', (q) => q.n > 0n],
        ['memfrac', pick.memFraction, 'mem-fraction-static', (q) => q.n > 0n && q.n <= q.d]]) {
        if (f[key] === undefined) continue;
        const q = decimalQ(f[key]);
        if (q && ok(q)) control.value = f[key].trim();
        else unknown.push(what + ' ' + f[key]);
      }
      if (f.batch !== undefined) {
        if (positive(f.batch) !== null) pick.batch.value = String(positive(f.batch));
        else unknown.push('batch ' + f.batch);
      }
      return unknown;
    }

    // vLLM's --enable-expert-parallel, for a mixture of experts whose record lists its tensors, over several cards.
    function expertParallelOffered() {
      const m = data.models.find((x) => x.id === pick.model.value);
      return pick.engine.value === 'vllm' && Number(pick.gpus.value) > 1 && Boolean(m && m.expert_parallel);
    }

    function readChoice() {
      const bytes = pick.weights.value === 'bytes' ? positive(pick.weightBytes.value) : null;
      const kvGibText = pick.kvGib.value.trim(), memFractionText = pick.memFraction.value.trim();
      const memFraction = memFractionText === '' ? null : decimalQ(memFractionText);
      const kvGib = kvGibText === '' ? null : decimalQ(kvGibText);
      return {
        kvGibText, memFractionText,
        kvGib: pick.engine.value === 'vllm' ? kvGib : null,
        memFraction: pick.engine.value === 'sglang' ? memFraction : null,
        expertParallel: expertParallelOffered() && pick.expertParallel.value === 'on',
        kvGibBad: pick.engine.value === 'vllm' && kvGibText !== '' && !(kvGib && kvGib.n > 0n),
        memFractionBad: pick.engine.value === 'sglang' && memFractionText !== '' && !(memFraction && memFraction.n > 0n && memFraction.n <= memFraction.d),
        model: pick.model.value, accelerator: pick.accelerator.value, gpus: Number(pick.gpus.value),
        engine: pick.engine.value, weights: pick.weights.value, weightBytes: bytes, kv: pick.kv.value,
        context: positive(pick.context.value), batch: positive(pick.batch.value),
      };
    }

    function output(name, value, text) {
      return el('output', { 'data-kvcat': name, 'data-value': value }, text);
    }

    function segment(cls, label, bytes, scale) {
      const width = Math.max(0, Number(floorQ(div(mul(bytes, Q(100000n)), scale)))) / 1000;
      const s = el('span', { class: 'seg ' + cls, title: label + ': ' + gib(bytes) + ' (' + bytesText(bytes) + ')' });
      s.style.width = width + '%';
      return s;
    }

    function renderAnswer(r, choice) {
      answer.replaceChildren();
      if (r.error) {
        // The engine's own refusal is a verdict (kvcat fit exits 1 with it); anything else is kvcat's.
        answer.append(el('p', { class: 'verdict no' }, r.engineRefusal ? 'Does not fit: ' + r.error
          : 'kvcat cannot work this choice out: ' + r.error + '.'));
        // Each figure in a line of its own, as a reader reads it ("none", then "no"), not run together.
        const line = (label, node) => {
          const p = el('p', {}, label);
          p.append(node);
          return p;
        };
        answer.append(line('Largest context: ', output('max-context', 'none', 'none')));
        answer.append(line('Fits at this context: ', output('fits', 'no', 'no')), output('kv-bytes', '', ''));
        return;
      }
      const engine = r.engine;
      const pooled = r.pool !== undefined;
      const cardName = r.card.name.split(/ \(|,/)[0];
      const where = (choice.gpus > 1 ? choice.gpus + ' × ' : '') + cardName;
      const context = BigInt(choice.context), batch = BigInt(choice.batch);
      const ctxText = grouped(context);
      const verdict = el('p', { class: 'verdict ' + (r.fits ? 'yes' : 'no') });
      verdict.append(el('strong', {}, r.fits ? 'Fits. ' : 'Does not fit. '),
        r.model.name + ' with ' + (choice.weightBytes !== null ? 'weights of ' + gib(Q(choice.weightBytes)) : choice.weights + ' weights') +
        (/^[fi]/.test(choice.kv) ? ' and an ' : ' and a ') + choice.kv + ' cache, ' + plural(choice.context, 'token', 'tokens') + ' × ' + plural(choice.batch, 'sequence', 'sequences') +
        ', on ' + where + (engine.id === 'textbook' ? '' : ' in ' + engine.name) + '.');
      answer.append(verdict);

      const facts = el('dl', { class: 'facts' });
      const fact = (term, ...nodes) => {
        const dd = el('dd');
        dd.append(...nodes);
        facts.append(el('dt', {}, term), dd);
      };
      const maxText = r.maxContext === null ? 'none' : grouped(r.maxContext);
      fact(engine.id === 'textbook' ? 'Largest context' : 'Largest context (textbook)', output('max-context', r.maxContext === null ? 'none' : String(r.maxContext), maxText),
        r.maxContext === null ? ' (the weights, state and reserve alone do not fit)'
          : ' tokens' + (r.bounded ? ' (no layer grows past its window: any context fits; the native one is shown)'
            : r.native > 0n && r.maxContext > r.native ? ' (above the native ' + grouped(r.native) + '; the model itself stops there)' : '') +
          (engine.id === 'textbook' ? '' : ' (kvcat fit\'s max_context: the design\'s figure; what ' + engine.name +
            ' holds and decides at this context is below)'));
      if (engine.id === 'llama.cpp' && r.engineMax !== null) {
        fact('Largest context llama.cpp starts with', output('engine-max-context', String(r.engineMax), grouped(r.engineMax)),
          r.engineMax === 0n ? ' (not even one token: its start does not fit this card)'
            : ' tokens a sequence, -c ' + grouped(r.engineMax * batch) + (batch > 1n ? ' -np ' + choice.batch : '') +
              ' (kvcat plan --engine llama.cpp\'s max_context: its whole start within the card' +
              (isZero(r.fitTarget) ? '' : ', with the ' + gib(r.fitTarget) + ' its --fit keeps free') + ')');
      }
      const kvHow = {
        textbook: '',
        'llama.cpp': r.llama && ': what llama.cpp allocates for -c ' + grouped(context * batch) + ' -np ' + choice.batch + ', ' +
          plural(batch, 'stream', 'streams') + ' of ' + grouped(r.llama.cells) + ' cells' +
          (r.llama.swaCells > 0n ? ' (sliding layers ' + grouped(r.llama.swaCells) + ')' : ''),
        vllm: r.vllm && ': ' + (batch > 1n ? choice.batch + ' × ' : '') + 'a request of max-model-len ' + ctxText +
          ' in blocks of ' + r.vllm.block + ' tokens' + (choice.gpus > 1 ? ', on each card' : ''),
        sglang: r.sglang && ': SGLang\'s pool for ' + grouped(context * batch) + ' tokens and ' + plural(r.sglang.page, 'padding slot', 'padding slots') +
          (choice.gpus > 1 ? ', on each card' : ''),
      }[engine.id] || '';
      fact('KV cache at ' + ctxText + (batch > 1n ? ' × ' + choice.batch : ''), output('kv-bytes', exactText(r.kv), bytesText(r.kv)), ' (' + gib(r.kv) + ')' + kvHow);
      if (engine.id === 'llama.cpp') {
        fact('Cells llama.cpp holds', output('engine-tokens', String(r.engineTokens), grouped(r.engineTokens)),
          batch > 1n ? ' (' + choice.batch + ' streams × ' + grouped(r.llama.cells) + '; no sequence holds more than ' + grouped(r.llama.cells) + ' tokens)'
            : ' (one stream: -c padded to a multiple of 256)');
      } else if (engine.id === 'vllm') {
        fact('vLLM\'s pool', r.engineTokens === null ? output('engine-tokens', 'none', 'none')
          : output('engine-tokens', String(r.engineTokens), grouped(r.engineTokens)),
        r.vllm.refusal ? ' (vLLM refuses to start: ' + r.vllm.refusal + ')'
          : r.vllm.mambaRefusal ? ' tokens, ' + grouped(r.vllm.blocks) + ' blocks, in ' + r.poolHow + ' (vLLM refuses to start: ' +
            r.vllm.mambaRefusal + ')'
          : r.engineTokens === null ? ' (the weights and reserve leave it no memory)'
            : ' tokens ("GPU KV cache size"), ' + grouped(r.vllm.blocks) + ' blocks, in ' + r.poolHow);
        if (r.concurrency !== null) {
          fact('Maximum concurrency', output('engine-concurrency', String(r.concurrency), r.concurrency.toFixed(2) + 'x'),
            ' for ' + ctxText + ' tokens per request (' + grouped(r.vllm.blocks) + ' blocks / ' + grouped(r.vllm.perRequest) + ' a request)');
        }
      } else if (engine.id === 'sglang') {
        fact('SGLang\'s pool', r.engineTokens === null ? output('engine-tokens', 'none', 'none')
          : output('engine-tokens', String(r.engineTokens), grouped(r.engineTokens)),
        r.engineTokens === null ? ' (' + r.poolHow + ' leaves it no memory)' : ' tokens (#tokens), in ' + r.poolHow);
      }
      let fitsHow;
      if (!pooled) {
        const beyond = isZero(r.fitTarget) ? '' : ' beside the ' + gib(r.fitTarget) + ' llama.cpp\'s --fit keeps';
        const moved = isZero(r.fitTarget) ? '' : ', counting the ' + gib(r.fitTarget) + ' llama.cpp\'s --fit keeps free: ' +
          'it would start with layers on the CPU, every token slower';
        fitsHow = r.fits ? ', ' + gib(r.free) + ' free on each card' + beyond
          : ', over by ' + gib(Q(-r.free.n, r.free.d)) + ' on each card' + moved;
      } else if (engine.id === 'vllm') {
        fitsHow = r.vllm.refusal ? ': vLLM refuses to start with this --max-model-len (the longest it estimates would fit: ' +
          grouped(r.vllm.estimated) + ' tokens)' : r.vllm.mambaRefusal ? ': vLLM refuses to start: its default --max-num-seqs on ' +
          'this card (' + r.vllm.maxNumSeqs + ') is more than the pool\'s ' + grouped(r.vllm.blocks) + ' blocks, one of which each ' +
          'sequence keeps its state in (kvcat fit --max-num-seqs N says which start)' : r.concurrency === null ? ': no pool' : r.fits
          ? ': the pool holds ' + plural(batch, 'request', 'requests') + ' of ' + ctxText + ' tokens at once'
          : ': the pool holds ' + r.concurrency.toFixed(2) + ' requests of ' + ctxText + ' tokens, fewer than ' + choice.batch +
            (batch === 1n ? ' (vLLM refuses to start with this --max-model-len)' : '');
      } else {
        fitsHow = r.engineTokens === null ? ': no pool' : (r.fits ? ': ' : ': more than the pool: ') + grouped(context * batch) +
          ' tokens of ' + grouped(r.engineTokens);
      }
      fact('Fits at this context', output('fits', r.fits ? 'yes' : 'no', r.fits ? 'yes' : 'no'), fitsHow);
      if (r.heldEdge) {
        // A sentence, read as one: not set in bold as a figure is.
        const sentence = output('held-edge', r.heldEdge, r.heldEdge);
        sentence.classList.add('sentence');
        fact('On the edge', sentence);
      }
      fact('Decode ceiling at ' + ctxText,
        r.ceiling ? output('ceiling-tps', exactText(r.ceiling), twoDecimals(r.ceiling)) : output('ceiling-tps', 'none', 'not known'),
        r.ceiling ? ' tokens/s per sequence at most (memory bandwidth' +
          (choice.gpus > 1 ? ' of the ' + choice.gpus + ' cards together' : '') + ' / bytes read per step' +
          (engine.id === 'textbook' ? ')' : ': the weights and the design\'s KV and state, whatever the engine holds)')
          : ' (the card states no bandwidth, or the model no active parameters)');
      const engineName = engine.id === 'textbook' ? null : engine.name;
      const ceilingNumber = r.ceiling ? Number(r.ceiling.n) / Number(r.ceiling.d) : null;
      const predicted = predictSpeeds(data, choice, engineName, ceilingNumber);
      const fixed2 = (x) => x.toFixed(2);
      const speedLabels = { decode: ['Predicted decode at ', ' tokens/s per sequence'], prefill: ['Predicted prefill at ', ' tokens/s'],
        ttft: ['Predicted first token at ', ' ms'] };
      if (engineName === null) {
        fact('Predicted decode', output('predicted-decode', 'none', 'choose an engine'), ': a measured speed belongs to one engine');
      } else if (!predicted.decode) {
        fact('Predicted decode at ' + ctxText, output('predicted-decode', 'none', 'none'), ': no measured point reaches this choice');
      }
      for (const measure of ['decode', 'prefill', 'ttft']) {
        const e = predicted[measure];
        if (!e) continue;
        const sources = e.records.length ? '; from ' + e.records.map((id) => id.replace('kv-efficiency/', '')).join(', ') : '';
        fact(speedLabels[measure][0] + ctxText, output('predicted-' + measure, fixed2(e.value), fixed2(e.value)),
          speedLabels[measure][1] + ', 80% interval ', output('predicted-' + measure + '-low', fixed2(e.low), fixed2(e.low)), ' to ',
          output('predicted-' + measure + '-high', fixed2(e.high), fixed2(e.high)),
          ' (predicted, not measured: ', output('predicted-' + measure + '-basis', e.basis, e.basis), ', ' + e.how + sources + ')');
      }
      answer.append(facts);

      // One bar per card: each holds its share of the weights, the KV cache and the state.
      const zero = Q(0);
      const positive = (a) => (cmp(a, zero) > 0 ? a : zero);
      const parts = [];  // [class, name, bytes, how]
      parts.push(['weights', 'weights', sub(r.weights, r.hostBytes), r.weightsHow +
        (isZero(r.hostBytes) ? '' : '; less ' + bytesText(r.hostBytes) + ' kept in host memory: ' + r.hostHow)]);
      if (!pooled) {
        parts.push(['kv', 'KV cache', r.kv, bytesText(r.kv) + (engine.id === 'llama.cpp' ? ' (kvcat fit --engine llama.cpp)' : ': ' +
          exactText(parseQ(r.t.growing)) + ' B/token' + (r.window > 0n ? ' + sliding layers ' + exactText(parseQ(r.t.sliding)) + ' B/token up to ' + grouped(r.window) : '') +
          (batch > 1n ? ', x ' + choice.batch + ' sequences' : '') + (r.t.kv_split ? '; ' + r.t.kv_split : ''))]);
        parts.push(['state', 'fixed state', r.fixed, bytesText(r.fixed) + (engine.id === 'llama.cpp' ? ' (llama.cpp\'s recurrent state in f32, all sequences)' : ' (linear-attention layers, per sequence x batch)')]);
        parts.push(['reserve', engine.id === 'llama.cpp' ? 'runtime' : 'reserve', add(r.reserve, r.overhead),
          r.reserveHow || gib(r.reserve) + ' runtime reserve (kvcat fit\'s default)']);
        if (!isZero(r.fitTarget)) {
          parts.push(['reserve', 'kept free by --fit', r.fitTarget, gib(r.fitTarget) + ': llama.cpp\'s --fit-target; with less left ' +
            'beside the start it moves layers off the card, and every token is slower']);
        }
        if (r.fits) parts.push(['free', 'free', r.free, 'of ' + gib(r.memory) + ' (' + bytesText(r.memory) + ') per card']);
      } else {
        const used = engine.id === 'vllm'
          ? bytesText(r.used) + ': ' + choice.batch + ' × ' + grouped(r.vllm.perRequest) + ' blocks of ' + grouped(r.vllm.divisor) +
            ' bytes (every layer group); the KV cache ' + gib(r.kv) + ' and the state ' + gib(r.fixed) + ' in whole blocks'
          : bytesText(r.used) + ': ' + grouped(context * batch) + ' tokens + ' + plural(r.sglang.page, 'padding slot', 'padding slots') + ' × ' + exactText(r.sglang.cell) + ' bytes a token';
        parts.push(['kv', 'this batch', r.used, used]);
        if (r.fits) parts.push(['pool', 'rest of the pool', sub(r.pool, r.used), 'kept by ' + engine.name + ' for more requests: it takes all of ' + r.poolHow]);
        const outsideHow = cmp(r.outside, zero) < 0
          ? 'none: the pool is ' + bytesText(Q(-r.outside.n, r.outside.d)) + ' larger than the card less the weights'
          : bytesText(r.outside) + (engine.id === 'vllm' && choice.kvGib !== null ? ': vLLM\'s activations, CUDA graphs and what it leaves free'
            : engine.id === 'sglang' && choice.memFraction !== null ? ': outside --mem-fraction-static of CUDA\'s total, the CUDA context, ' + (r.nccl ? 'NCCL\'s memory, ' : '') + 'and the pool\'s rounding'
              : engine.id === 'vllm' ? ': the card beyond --gpu-memory-utilization of CUDA\'s total, ' + (r.rotary ? 'the rotary table, ' : '') + (r.sampler ? 'the sampler\'s peak, ' : '') +
                (r.workspace ? 'the experts\' workspace, ' : '') + (r.nccl ? 'NCCL\'s memory, ' : '') + (r.graphs ? 'the CUDA graphs\' estimate, ' : '') +
                'the ' + gib(r.allowance) + ' for the rest and the bytes short of a whole block'
                : ': the 1 GiB reserve less what the pool takes of it, or with the bytes short of a whole token');
        parts.push(['reserve', 'beside the pool', positive(r.outside), outsideHow]);
      }
      if (!r.fits) parts.push(['over', 'over by', sub(r.total, r.memory), 'past the card\'s ' + gib(r.memory) + ' (' + bytesText(r.memory) + ')']);
      const barParts = parts.filter((p) => p[0] !== 'over');
      const bars = el('div', { class: 'bars', role: 'img', 'aria-label': 'Memory of each card: ' +
        parts.map((p) => p[1] + ' ' + gib(p[2])).join(', ') + ', of ' + gib(r.memory) });
      const scale = cmp(r.total, r.memory) > 0 ? r.total : r.memory;
      bars.append(el('p', { class: 'bar-caption' }, (choice.gpus > 1 ? 'Each of ' + choice.gpus + ' cards: ' : '') + cardName + ', ' +
        gib(r.memory) + ' (the black mark)' + (r.fits ? '' : '; the red border: past it')));
      for (let i = 0; i < choice.gpus; i++) {
        const row = el('div', { class: 'bar-row' });
        if (choice.gpus > 1) row.append(el('span', { class: 'bar-label' }, 'card ' + (i + 1)));
        const track = el('div', { class: 'bar' + (r.fits ? '' : ' over') });
        for (const [cls, name, bytes] of barParts) track.append(segment(cls, name, bytes, scale));
        const edge = el('span', { class: 'edge', title: 'the card\'s memory: ' + gib(r.memory) });
        edge.style.left = Number(floorQ(div(mul(r.memory, Q(100000n)), scale))) / 1000 + '%';
        track.append(edge);
        row.append(track);
        bars.append(row);
      }
      answer.append(bars);

      const legend = el('table', { class: 'terms' });
      for (const [cls, name, bytes, how] of parts) {
        const tr = el('tr');
        const key = el('td');
        key.append(el('span', { class: 'swatch ' + cls }), name);
        tr.append(key, el('td', { class: 'num' }, gib(bytes)), withOptions('td', { class: 'how' }, how));
        legend.append(tr);
      }
      const wrap = el('div', { class: 'terms-wrap' });
      wrap.append(legend);
      answer.append(wrap);
      answer.append(withOptions('p', { class: 'engine-how' }, (engine.id === 'textbook' ? 'Textbook: ' : engine.name + ', as kvcat models it: ') + engine.how + '.'));
    }

    // The measured rows of this model nearest to the choice: the same card, engine and dtype
    // first, then the context closest on a log scale. Ordering only: every figure is the record's.
    function renderNear(choice) {
      side.replaceChildren();
      side.append(el('h3', {}, 'Measured near this choice'));
      const col = (name) => table.columns.indexOf(name);
      const c = {
        model: col('model'), acc: col('accelerator'), accName: col('accelerator_name'), card: col('card'), engine: col('engine'),
        speculative: col('speculative'),
        kv: col('kv_cache_dtype'), ctx: col('context_length'), decode: col('measured_tps_at_ctx'),
        prefill: col('measured_prefill_tps_at_ctx'), conc: col('concurrency'), id: col('id'), record: col('record_id'),
      };
      const at = (row, i) => (i < 0 ? null : row[i]);
      const engineId = String(choice.engine).toLowerCase();
      const target = Math.log2(Number(choice.context) + 1);
      const found = [];
      table.rows.forEach((row, i) => {
        if (at(row, c.model) !== choice.model) return;
        if (at(row, c.decode) === null && at(row, c.prefill) === null) return;
        const ctx = Number(at(row, c.ctx) || 0);
        found.push({
          row, i,
          same: [at(row, c.acc) === choice.accelerator, String(at(row, c.engine) || '').toLowerCase() === engineId, at(row, c.kv) === choice.kv],
          distance: Math.abs(Math.log2(ctx + 1) - target),
        });
      });
      found.sort((a, b) => {
        for (let k = 0; k < 3; k++) if (a.same[k] !== b.same[k]) return a.same[k] ? -1 : 1;
        return a.distance - b.distance;
      });
      if (found.length === 0) {
        side.append(el('p', { class: 'none' }, 'The catalog has no measured speed of this model.'));
      } else {
        side.append(el('p', { class: 'count' }, plural(found.length, 'measured point', 'measured points') + ' of this model; the nearest:'));
        const list = el('ol', { class: 'near' });
        for (const f of found.slice(0, 6)) {
          const li = el('li');
          const label = [at(f.row, c.card) || at(f.row, c.accName) || at(f.row, c.acc), at(f.row, c.engine), at(f.row, c.kv),
            grouped(BigInt(at(f.row, c.ctx) || 0)) + ' tokens'].join(' · ');
          const href = safeHref(table.links[f.i]);
          li.append(href ? el('a', { href }, label) : el('span', {}, label));
          const speeds = [];
          if (at(f.row, c.decode) !== null) speeds.push(speedText(at(f.row, c.decode)) + ' tokens/s decode');
          if (at(f.row, c.prefill) !== null) speeds.push(speedText(at(f.row, c.prefill)) + ' prefill');
          const conc = at(f.row, c.conc);
          // A draft model or MTP head emits several tokens a step: not plain decoding.
          const drafted = at(f.row, c.speculative) === 'on' ? ', speculative decoding' : '';
          li.append(el('span', { class: 'speeds' }, ': ' + speeds.join(', ') + (conc && conc > 1 ? ', ' + conc + ' at once' : '') + drafted));
          const record = at(f.row, c.record) || at(f.row, c.id);
          const source = data.sources[record];
          if (source) {
            const url = safeHref(source.url);
            const s = el('span', { class: 'source' }, ' · ');
            s.append(url ? el('a', { href: url }, source.name) : document.createTextNode(source.name));
            li.append(s);
          }
          const same = ['card', 'engine', 'dtype'].filter((_, k) => f.same[k]);
          if (same.length) li.append(el('span', { class: 'match' }, 'same ' + same.join(', ')));
          list.append(li);
        }
        side.append(list);
      }
      side.append(el('h3', {}, 'Quality of this model\'s KV dtypes'));
      const quality = data.quality.filter((q) => q.model === choice.model);
      if (quality.length === 0) {
        side.append(el('p', { class: 'none' }, 'The catalog holds no quality result for this model.'));
        return;
      }
      // What the value is compared with: the catalog's comparison column says whether a
      // baseline run was made at all.
      function baselineText(q, unit) {
        if (q.comparison === 'score' || !q.baseline_kv_cache_dtype) return 'none (a plain score)';
        if (q.baseline_value !== null) return q.baseline_value + unit + ' at ' + q.baseline_kv_cache_dtype;
        return 'measured against ' + q.baseline_kv_cache_dtype;
      }
      const qt = el('table', { class: 'quality' });
      const head = el('tr');
      for (const h of ['dtype', 'benchmark', 'value', 'baseline']) head.append(el('th', {}, h));
      qt.append(head);
      for (const q of quality) {
        const tr = el('tr', q.kv_cache_dtype === choice.kv ? { class: 'chosen' } : {});
        const href = safeHref(q.link);
        const dtypeCell = el('td');
        dtypeCell.append(href ? el('a', { href }, q.kv_cache_dtype) : q.kv_cache_dtype);
        const unit = q.unit ? ' ' + q.unit : '';
        tr.append(dtypeCell, el('td', {}, q.benchmark + (q.metric ? ' · ' + q.metric : '')),
          el('td', { class: 'num' }, q.value + unit + (q.recovery_percent !== null ? ' (' + Number(q.recovery_percent).toFixed(1) + '%)' : '')),
          el('td', {}, baselineText(q, unit)));
        qt.append(tr);
      }
      const wrap = el('div', { class: 'terms-wrap' });
      wrap.append(qt);
      side.append(wrap);
    }

    let last = null;
    function update(writeAddress) {
      pick.weightBytes.parentNode.hidden = pick.weights.value !== 'bytes';
      pick.kvGib.parentNode.hidden = pick.engine.value !== 'vllm';
      describeCard();
      pick.memFraction.parentNode.hidden = pick.engine.value !== 'sglang';
      pick.expertParallel.parentNode.hidden = !expertParallelOffered();
      const choice = readChoice();
      if (choice.context === null || choice.batch === null || (choice.weights === 'bytes' && choice.weightBytes === null)) {
        notice.dataset.kind = 'input';
        notice.textContent = 'Give the context, the batch' + (choice.weights === 'bytes' ? ' and the weights\' bytes' : '') + ' as whole numbers above zero.';
        return;
      }
      if (choice.kvGibBad || choice.memFractionBad) {
        notice.dataset.kind = 'input';
        notice.textContent = choice.kvGibBad ? 'Give vLLM\'s available KV cache memory as a number of GiB above zero, such as 10.12, or leave it blank.'
          : 'Give --mem-fraction-static as a decimal above 0 and at most 1, such as 0.88, or leave it blank.';
        return;
      }
      if (notice.dataset.kind === 'input') notice.textContent = '';
      const r = fit(data, choice);
      renderAnswer(r, choice);
      renderNear(choice);
      if (writeAddress) {
        const fragment = '#' + fragmentOf(choice);
        if (location.hash !== fragment) history.replaceState(null, '', fragment);
      }
      last = { choice, result: r };
      for (const f of listeners) f(choice, r);
    }

    setDefaults();
    const unknown = applyFragment();
    const say = (list) => { notice.dataset.kind = 'address'; notice.textContent = list.length ? 'The address names what this page does not have: ' + list.join(', ') + '; the default is shown.' : ''; };
    say(unknown);
    for (const control of Object.values(pick)) {
      control.addEventListener('change', () => { notice.textContent = ''; update(true); });
      if (control.tagName === 'INPUT') control.addEventListener('input', () => update(true));
    }
    // A fragment is a whole view: what it leaves out takes the default, not what was picked before.
    window.addEventListener('hashchange', () => { setDefaults(); say(applyFragment()); update(false); });
    update(location.hash === '');
    return {
      onChange(f) { listeners.push(f); if (last) f(last.choice, last.result); },
      current: () => last,
      fit: (choice) => fit(data, choice),
    };
  }

  window.kvcatPlanner = { mount, fit, Q, parseQ, decimalQ, add, sub, mul, div, twoDecimals, decimalText, speedText };
})();
