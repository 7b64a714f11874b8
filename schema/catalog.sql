-- The kvcat catalog: one SQLite file built from records/ by `kvcat build`.
-- PRAGMA user_version holds the schema version (kvcat sets it; see catalog.cc).
-- Figures stated by a record keep their record's name; figures kvcat computes are
-- marked "derived" in column_info and in the README.

CREATE TABLE models (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    config_source     TEXT NOT NULL,
    config_verified   INTEGER NOT NULL,      -- 1 when read from the model's own config
    total_params_b    REAL NOT NULL,         -- billions
    active_params_b   REAL NOT NULL,         -- billions
    native_context    INTEGER NOT NULL,      -- tokens
    num_layers        INTEGER NOT NULL,
    attention_variant TEXT NOT NULL,
    attention_heads   INTEGER NOT NULL,
    kv_heads          INTEGER,
    head_dim          INTEGER,
    kv_layers         INTEGER NOT NULL,      -- layers that grow a KV cache (derived from kv_layers)
    kv_lora_rank      INTEGER,
    qk_rope_head_dim  INTEGER,
    indexer_bytes     INTEGER,               -- an indexer's key cache, bytes per token per layer (derived)
    sliding_window    INTEGER,               -- tokens
    sliding_layers    INTEGER,
    linear_kind       TEXT,
    linear_layers     INTEGER,
    fixed_state_bytes INTEGER NOT NULL,      -- bytes per sequence (derived)
    notes             TEXT,
    file              TEXT NOT NULL
) STRICT;

CREATE TABLE accelerators (
    id                    TEXT PRIMARY KEY,
    vendor                TEXT NOT NULL,
    name                  TEXT NOT NULL,
    memory_gb             REAL NOT NULL,     -- 10^9 bytes, as the vendor states it
    memory_type           TEXT NOT NULL,
    memory_bus_bits       INTEGER,
    memory_bandwidth_gb_s REAL NOT NULL,     -- 10^9 bytes per second
    notes                 TEXT,
    file                  TEXT NOT NULL
) STRICT;

-- One row per measured point: a record in the single-point form gives one row whose id is
-- the record's; a record with `measurements:` gives one row per point, with the id
-- "<record id>@<context>" ("@32k", "@0"), plus "-c<N>" for a concurrency other than 1.
CREATE TABLE kv_efficiency (
    id                       TEXT PRIMARY KEY,
    record_id                TEXT NOT NULL,     -- the record the row comes from
    model                    TEXT NOT NULL REFERENCES models(id),
    accelerator              TEXT REFERENCES accelerators(id),
    accelerator_named        TEXT,              -- the card as the source names it when no one accelerator record applies
    engine                   TEXT NOT NULL,
    engine_version           TEXT,
    kv_cache_dtype           TEXT NOT NULL,
    v_cache_dtype            TEXT,              -- V's type when it differs from K's (kv_cache_dtype)
    weight_quant             TEXT,
    attention_variant        TEXT NOT NULL,
    context_length           INTEGER NOT NULL,  -- tokens
    kv_bytes_per_token       ANY NOT NULL,      -- bytes; an integer, or a real when the exact value is a fraction
    kv_bytes_per_token_exact TEXT NOT NULL,     -- the exact value, "65536" or "1088/1"
    bytes_per_element        TEXT NOT NULL,     -- exact, "2" or "17/16"
    basis_statement          TEXT NOT NULL,
    kv_bytes_at_context      ANY NOT NULL,      -- bytes for one sequence at context_length (derived)
    fixed_state_bytes        INTEGER NOT NULL,  -- bytes per sequence of the fixed-state layers (derived)
    gqa_baseline_bytes_per_token ANY,          -- every layer caching as GQA at the model's KV heads (derived)
    mha_baseline_bytes_per_token ANY,          -- every layer caching as MHA at its query heads (derived)
    gqa_reduction            REAL,              -- gqa baseline / kv_bytes_per_token (derived)
    mha_reduction            REAL,              -- mha baseline / kv_bytes_per_token (derived)
    weight_bytes             INTEGER,           -- resident weights: the record's weight_bytes, else derived from weight_quant; NULL when neither
    weight_bytes_source      TEXT,              -- "stated" or "derived", NULL with weight_bytes
    roofline_tps             REAL,              -- bandwidth / bytes read per token, one sequence (derived)
    roofline_fraction        REAL,              -- measured_tps_at_ctx / roofline_tps (derived)
    measured_tps_at_ctx      REAL,              -- tokens/s; NULL when the source did not report it
    measured_ttft_ms_at_ctx  REAL,              -- ms; NULL when the source did not report it
    measured_prefill_tps_at_ctx REAL,           -- tokens/s of prompt processing; NULL when the source did not report it
    measured_total_tps_at_ctx REAL,             -- tokens/s summed over the concurrency requests; NULL when not reported
    concurrency              INTEGER NOT NULL,  -- requests in flight while measuring
    prompt_tokens            INTEGER,           -- the prompt length of the prefill test
    gen_tokens               INTEGER,           -- tokens generated in the decode test
    tps_stddev               REAL,              -- as printed beside the decode speed
    prefill_tps_stddev       REAL,              -- as printed beside the prefill speed
    provenance               TEXT,
    measured_on_model        TEXT REFERENCES models(id),
    context_extension        TEXT,
    offload                  TEXT,
    gpus                     INTEGER,           -- cards of `accelerator` the run used; NULL when the source does not say (unstated.gpus)
    parallelism              TEXT,              -- the split over them as stated: "tensor 4", "tensor 2 x pipeline 2"
    speculative_decoding     TEXT,              -- the method used; "off" when the source says none, NULL when unsaid
    throughput_side          TEXT,              -- server or client: where the speeds were counted; NULL when unsaid
    prefix_cached            INTEGER,           -- 1: the prompt's prefix was cached; 0: it was not; NULL when unsaid
    warm                     INTEGER,           -- 1: measured after warm-up runs; 0: a cold first run; NULL when unsaid
    cached_prefix_ttft_ms    REAL,              -- ms; a TTFT taken with a cached prefix, kept out of measured_ttft_ms_at_ctx
    cached_prefix_prefill_tps REAL,             -- tokens/s; a prefill speed over a cached prefix, kept out of measured_prefill_tps_at_ctx
    derived_tps_at_ctx       REAL,              -- tokens/s; a derived record's (a fit's) decode speed, kept out of measured_tps_at_ctx
    derived_ttft_ms_at_ctx   REAL,              -- ms; a derived record's TTFT
    derived_prefill_tps_at_ctx REAL,            -- tokens/s; a derived record's prefill speed
    derived_total_tps_at_ctx REAL,              -- tokens/s; a derived record's total decode speed
    written_kv_cache_dtype TEXT NOT NULL,    -- the record's (the engine's) spelling; kv_cache_dtype is the catalog's name
    methodology              TEXT NOT NULL,
    notes                    TEXT NOT NULL,
    file                     TEXT NOT NULL
) STRICT;

-- Quality results of a record's cache dtype (perplexity, KL divergence, long-context recovery),
-- alone or against a run at a baseline dtype, one row per item of the record's `quality:` list.
CREATE TABLE quality (
    record_id               TEXT NOT NULL,
    position                INTEGER NOT NULL,
    benchmark               TEXT NOT NULL,
    metric                  TEXT NOT NULL,
    value                   REAL NOT NULL,
    unit                    TEXT NOT NULL,
    higher_is_better        INTEGER NOT NULL,
    comparison              TEXT NOT NULL,  -- score: no baseline run; beside-baseline: the baseline's score printed beside; against-baseline: measured against that run
    baseline_kv_cache_dtype TEXT,           -- the baseline run's cache dtype; NULL for a plain score
    baseline_value          REAL,
    context_length          INTEGER,
    recovery_percent        REAL,     -- value / baseline_value x 100: as stated, else derived when both are given
    file                    TEXT NOT NULL,
    PRIMARY KEY (record_id, position)
) STRICT;

-- The engines the catalog knows (src/vocab/vocabulary.cc): a fork names its upstream, so
-- "llama.cpp and its forks" is one join.
CREATE TABLE engines (
    name        TEXT PRIMARY KEY,
    upstream    TEXT,
    description TEXT NOT NULL
) STRICT;

CREATE TABLE sources (
    record_id TEXT NOT NULL,
    position  INTEGER NOT NULL,
    name      TEXT NOT NULL,
    detail    TEXT,
    url       TEXT,
    date      TEXT,
    PRIMARY KEY (record_id, position)
) STRICT;

-- What each column of kv_rows means, its unit, and whether kvcat derived it.
CREATE TABLE column_info (
    name        TEXT PRIMARY KEY,
    type        TEXT NOT NULL,     -- text, integer, number
    unit        TEXT,
    derived     INTEGER NOT NULL,  -- 1 when kvcat computed it rather than a record stating it
    description TEXT NOT NULL
) STRICT;

CREATE INDEX kv_efficiency_variant ON kv_efficiency(attention_variant);
CREATE INDEX kv_efficiency_context ON kv_efficiency(context_length);
CREATE INDEX kv_efficiency_model ON kv_efficiency(model);
CREATE INDEX kv_efficiency_accelerator ON kv_efficiency(accelerator);
CREATE INDEX kv_efficiency_dtype ON kv_efficiency(kv_cache_dtype);
CREATE INDEX kv_efficiency_engine ON kv_efficiency(engine);
CREATE INDEX kv_efficiency_bytes ON kv_efficiency(kv_bytes_per_token);
CREATE INDEX kv_efficiency_record ON kv_efficiency(record_id);

-- One row per measured point, joined with its model and accelerator.
CREATE VIEW kv_rows AS
SELECT
    k.id,
    k.record_id,
    k.model,
    m.name                 AS model_name,
    k.accelerator,
    a.name                 AS accelerator_name,
    coalesce(a.name, k.accelerator_named) AS card,
    k.accelerator_named,
    k.engine,
    k.engine_version,
    k.kv_cache_dtype,
    k.v_cache_dtype,
    k.weight_quant,
    k.attention_variant,
    k.context_length,
    m.native_context,
    k.kv_bytes_per_token,
    k.bytes_per_element,
    k.kv_bytes_at_context,
    k.fixed_state_bytes,
    k.gqa_baseline_bytes_per_token,
    k.mha_baseline_bytes_per_token,
    k.gqa_reduction,
    k.mha_reduction,
    k.weight_bytes,
    k.roofline_tps,
    k.roofline_fraction,
    k.measured_tps_at_ctx,
    k.measured_ttft_ms_at_ctx,
    k.measured_prefill_tps_at_ctx,
    k.measured_total_tps_at_ctx,
    k.concurrency,
    k.prompt_tokens,
    k.gen_tokens,
    k.tps_stddev,
    k.prefill_tps_stddev,
    k.weight_bytes_source,
    k.provenance,
    k.measured_on_model,
    k.context_extension,
    k.offload,
    k.gpus,
    k.parallelism,
    k.speculative_decoding,
    CASE WHEN k.speculative_decoding IS NULL THEN NULL
         WHEN k.speculative_decoding = 'off' THEN 'off'
         ELSE 'on' END AS speculative,
    k.throughput_side,
    k.prefix_cached,
    k.warm,
    k.cached_prefix_ttft_ms,
    k.cached_prefix_prefill_tps,
    k.derived_tps_at_ctx,
    k.derived_ttft_ms_at_ctx,
    k.derived_prefill_tps_at_ctx,
    k.derived_total_tps_at_ctx,
    k.written_kv_cache_dtype,
    m.total_params_b,
    m.active_params_b,
    a.memory_gb,
    a.memory_bandwidth_gb_s,
    k.file
FROM kv_efficiency AS k
JOIN models AS m ON m.id = k.model
LEFT JOIN accelerators AS a ON a.id = k.accelerator;

-- Quality results beside the row they belong to: its model, engine, accelerator and dtypes.
-- kv_cache_dtype is K's type and v_cache_dtype V's, always written (the same as K's unless the
-- record quantises one of them only), so a K-only quantisation is never read as both.
CREATE VIEW quality_rows AS
SELECT
    q.record_id,
    q.position,
    r.model,
    m.name AS model_name,
    r.accelerator,
    r.engine,
    r.weight_quant,
    r.kv_cache_dtype,
    r.v_cache_dtype,
    q.comparison,
    q.baseline_kv_cache_dtype,
    q.benchmark,
    q.metric,
    q.value,
    q.baseline_value,
    q.unit,
    q.higher_is_better,
    q.recovery_percent,
    q.context_length,
    q.file
FROM quality AS q
JOIN (SELECT record_id, min(model) AS model, min(accelerator) AS accelerator, min(engine) AS engine,
             min(weight_quant) AS weight_quant, min(kv_cache_dtype) AS kv_cache_dtype,
             coalesce(min(v_cache_dtype), min(kv_cache_dtype)) AS v_cache_dtype
      FROM kv_efficiency GROUP BY record_id) AS r ON r.record_id = q.record_id
JOIN models AS m ON m.id = r.model;

-- Each model's KV cost per cache dtype, worked out from its architecture, so that a curve
-- need not be derived again by hand. The bytes of one sequence at context C are
--   kv_bytes_per_token x C + sliding_kv_bytes_per_token x min(C, sliding_window)
-- plus fixed_state_bytes once. kv_bytes_per_token counts the layers that keep growing: an
-- MLA layer caches its latent once (kv_lora_rank + qk_rope_head_dim), any other layer K and
-- V (kv_heads x head_dim x 2); an indexer's key cache (DeepSeek-V3.2) adds indexer_bytes per
-- layer in its own dtype, whatever the cache dtype. The models table holds one kv_heads x head_dim per model, so
-- a model whose growing layers differ in shape (kv_groups in its record) is beyond this
-- view: `kvcat curve` works from the record and is exact for it, and a test compares this
-- view with kvcat's own arithmetic for every shipped model. The dtypes and their exact
-- sizes are src/vocab/dtype.cc's (a test keeps the lists equal); bytes_per_element is exact
-- ("17/16" for q8_0), and a byte figure that is not whole is a real.
CREATE VIEW model_kv AS
WITH dtypes(kv_cache_dtype, bytes_num, bytes_den) AS (VALUES
    ('f32', 4, 1), ('fp32', 4, 1), ('f16', 2, 1), ('fp16', 2, 1), ('bf16', 2, 1),
    ('fp8', 1, 1), ('fp8_e4m3', 1, 1), ('fp8_e5m2', 1, 1),
    ('q8_0', 17, 16), ('q5_1', 3, 4), ('q5_0', 11, 16), ('q4_1', 5, 8), ('q4_0', 9, 16),
    ('iq4_nl', 9, 16)
),
sized AS (
    SELECT
        m.id AS model,
        d.kv_cache_dtype,
        m.attention_variant,
        d.bytes_num,
        d.bytes_den,
        d.bytes_num * CASE WHEN m.attention_variant = 'mla'
                           THEN m.kv_layers * (m.kv_lora_rank + m.qk_rope_head_dim)
                           ELSE m.kv_layers * m.kv_heads * m.head_dim * 2 END
            + d.bytes_den * m.kv_layers * coalesce(m.indexer_bytes, 0) AS growing_num,
        d.bytes_num * coalesce(m.sliding_layers * m.kv_heads * m.head_dim * 2, 0)
            + d.bytes_den * coalesce(m.sliding_layers * m.indexer_bytes, 0) AS sliding_num,
        m.sliding_window,
        m.fixed_state_bytes
    FROM models AS m CROSS JOIN dtypes AS d
)
SELECT
    model,
    kv_cache_dtype,
    attention_variant,
    CASE WHEN bytes_den = 1 THEN CAST(bytes_num AS TEXT) ELSE bytes_num || '/' || bytes_den END
        AS bytes_per_element,
    CASE WHEN growing_num % bytes_den = 0 THEN growing_num / bytes_den ELSE growing_num * 1.0 / bytes_den END
        AS kv_bytes_per_token,
    CASE WHEN sliding_num % bytes_den = 0 THEN sliding_num / bytes_den ELSE sliding_num * 1.0 / bytes_den END
        AS sliding_kv_bytes_per_token,
    sliding_window,
    fixed_state_bytes
FROM sized;

-- What an engine printed at start-up about its cache (records/allocations/, written by
-- kvcat import-log), one row per record. `parts` holds the record's engine sections
-- (kv_cache, swa_cache, recurrent, vllm, sglang) as JSON, every figure as the text it was
-- printed as, so json_extract(parts, '$.kv_cache.size_mib') reads a cell exactly; the lint's
-- engine-allocation rule has checked each figure against the engine models. The columns
-- before `parts` are what `kvcat query --allocations` shows and filters: the settings a
-- reader compares, the engine's headline figure as printed and kvcat's for the same.
CREATE TABLE allocations (
    id             TEXT PRIMARY KEY,
    model          TEXT NOT NULL,
    engine         TEXT NOT NULL,
    engine_version TEXT,
    kv_cache_dtype TEXT,              -- K's type (llama.cpp), kv_cache_dtype with auto read as the model's
    v_cache_dtype  TEXT,              -- V's type when it differs from K's
    context        INTEGER,           -- cells per stream (llama.cpp), max_model_len (vLLM)
    seqs           INTEGER,           -- sequences the cache was sized for (llama.cpp)
    tokens         INTEGER,           -- tokens the cache holds: cells x streams, GPU KV cache size, #tokens
    tensor_parallel INTEGER,          -- cards (vLLM, SGLang)
    printed        TEXT,              -- the headline figure as printed: "102.00 + 3.19 MiB", "93,872 tokens"
    computed       TEXT,              -- kvcat's figure for the same, or NULL when it was not recomputed
    parts          TEXT NOT NULL,     -- JSON object of the engine sections
    log_lines      TEXT NOT NULL,     -- the lines read, one a line
    url            TEXT,
    notes          TEXT NOT NULL,
    file           TEXT NOT NULL
) STRICT;

-- Every record file of the build, for incremental rebuilds: a file whose size and
-- modification time are unchanged is not read again; one whose bytes hash the same is
-- not checked again.
CREATE TABLE files (
    path      TEXT PRIMARY KEY,   -- as shown in findings
    id        TEXT NOT NULL,
    kind      TEXT NOT NULL,      -- model, accelerator, kv-efficiency, allocation
    size      INTEGER NOT NULL,   -- bytes
    mtime_ns  INTEGER NOT NULL,   -- nanoseconds since the epoch
    hash      TEXT NOT NULL,      -- FNV-1a 64 of the bytes, hex
    id_line   INTEGER NOT NULL,
    id_column INTEGER NOT NULL
) STRICT;

-- Warnings (and silenced findings) of the build, so an incremental build reports the
-- findings of files it did not read again.
CREATE TABLE lint_findings (
    file      TEXT NOT NULL,
    line      INTEGER NOT NULL,
    "column"  INTEGER NOT NULL,
    severity  TEXT NOT NULL,      -- warning, or note for a finding silenced by lint_ignore
    rule      TEXT NOT NULL,
    message   TEXT NOT NULL,
    stated    TEXT,
    computed  TEXT
) STRICT;

CREATE TABLE build_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
