/**
 * Bounded, deterministic fuzzing inside `npm test` (the long run is `npm run fuzz -- --runs N`, scripts/fuzz.ts).
 *
 * For every case, detect/detectUnsupported must return, and probe/prepare must give a well-formed result or a
 * PixfitError (any code) whose cause is not a RangeError (see scripts/fuzz-harness.ts `runCase`). The cases:
 * 1. structured, exhaustive over a dozen small seeds (one or more per format): truncation at every chunk/segment/
 *    block boundary and one byte past it, every length field set to huge values, every dimension field set to extreme
 *    values, every known signature spliced onto every seed's body;
 * 2. a fast-check property over random mutation plans (fixed seed, so the same cases run every time);
 * 3. the regression fixtures in test/fixtures/fuzz/ (one per failure the fuzzer found), each with its expected outcome.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { applyPlan, loadSeeds, planArb, runCase, structureOf, type Seed } from "../scripts/fuzz-harness.js";
import { corpusFile, corpusHas } from "./corpus.js";

/** Small seeds present in both the shared corpus and the fixtures subset. */
const SEED_PATHS = [
  "png/pngsuite/basi3p04.png",
  "png/pngsuite/tbbn3p08.png",
  "png/pngsuite/basn6a16.png",
  "jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr_2x2_1x1_1x1_interleaved.jpg",
  "jpeg/jpegsuite/baseline/32x32x8_restarts.jpg",
  "gif/peterdn/animated_transparent_loop.gif",
  "gif/image-gif/beacon.gif",
  "bmp/bmpsuite/g/pal4rle.bmp",
  "bmp/bmpsuite/g/pal1.bmp",
  "webp/image-rs/extended_images/lossy_alpha.webp",
  "webp/image-rs/lossy_images/simple-rgb.webp",
  "webp/image-webp/regression/lossless_indexed_1bit_palette.webp",
];
const seeds: Seed[] = SEED_PATHS.filter(corpusHas).map((p) => ({ name: p, bytes: corpusFile(p) }));

async function check(bytes: Uint8Array, what: string): Promise<string> {
  const r = await runCase(bytes);
  if (!r.ok) assert.fail(`${what}: ${r.stage}: ${r.error}`);
  return r.outcome;
}

test("seeds cover every decodable format", () => {
  assert.equal(seeds.length, SEED_PATHS.length, "a seed file is missing from the corpus in use");
  const formats = new Set(seeds.map((s) => s.name.split("/")[0]));
  assert.deepEqual([...formats].sort(), ["bmp", "gif", "jpeg", "png", "webp"]);
  for (const s of seeds) assert.ok(structureOf(s.bytes).boundaries.length >= 3, `${s.name}: structure not parsed`);
});

test("the unmutated seeds decode (so the mutations start from valid files)", async () => {
  for (const s of seeds) assert.equal(await check(s.bytes, s.name), "probe:ok prepare:ok prepare16:ok", s.name);
});

test("truncation at every segment boundary, and one byte past it", { timeout: 120_000 }, async () => {
  let n = 0;
  const codes = new Set<string>();
  for (const s of seeds) {
    for (const at of structureOf(s.bytes).boundaries) {
      for (const cut of [at, at + 1]) {
        if (cut >= s.bytes.length) continue;
        codes.add(await check(s.bytes.subarray(0, cut), `${s.name} cut at ${cut}`));
        n++;
      }
    }
  }
  assert.ok(n >= 200, `only ${n} truncations`);
  // truncated files are refused with typed errors (not all passed through)
  assert.ok([...codes].some((c) => c.includes("CORRUPT_IMAGE")));
});

function withField(b: Uint8Array, at: number, size: number, le: boolean, v: number): Uint8Array {
  const c = b.slice();
  for (let i = 0; i < size; i++) c[le ? at + i : at + size - 1 - i] = Math.floor(v / 2 ** (8 * i)) & 0xff;
  return c;
}

test("every length field set to huge values", { timeout: 120_000 }, async () => {
  let n = 0;
  for (const s of seeds) {
    for (const f of structureOf(s.bytes).lengths) {
      for (const v of [0xffffffff, 0x7fffffff, 0x80000000, 0xfff0, 0]) {
        await check(withField(s.bytes, f.at, f.size, f.le, v % 2 ** (8 * f.size)), `${s.name} length@${f.at}=${v}`);
        n++;
      }
    }
  }
  assert.ok(n >= 150, `only ${n} cases`);
});

test("every dimension field set to extreme values", { timeout: 120_000 }, async () => {
  let n = 0;
  const codes = new Set<string>();
  for (const s of seeds) {
    for (const f of structureOf(s.bytes).dims) {
      for (const v of [0, 1, 16383, 65535, 0x7fffffff, 0xffffffff]) {
        codes.add(await check(withField(s.bytes, f.at, f.size, f.le, v % 2 ** (8 * f.size)), `${s.name} dim@${f.at}=${v}`));
        n++;
      }
    }
  }
  assert.ok(n >= 60, `only ${n} cases`);
  assert.ok([...codes].some((c) => c.includes("TOO_MANY_PIXELS")), "some huge dimension reaches the pixel limit");
});

test("every signature spliced onto every seed's body", { timeout: 120_000 }, async () => {
  let n = 0;
  for (const s of seeds) {
    for (let k = 0; k < 12; k++) {
      const { bytes } = applyPlan([s], { seed: 0, steps: [{ kind: "splice", a: k, b: 0, c: 0 }], fixCrc: false });
      await check(bytes, `${s.name} with signature ${k}`);
      n++;
    }
  }
  assert.ok(n >= 100);
});

test("fast-check: random mutation plans over corpus seeds (fixed seed)", { timeout: 120_000 }, async () => {
  // all corpus files up to 32 KiB (the long run uses up to 256 KiB and real photographs)
  const pool = loadSeeds(32 * 1024, ["test/fixtures/bombs"]);
  assert.ok(pool.length >= 100, `${pool.length} seed files`);
  await fc.assert(
    fc.asyncProperty(planArb, async (plan) => {
      const { seed, bytes } = applyPlan(pool, plan);
      const r = await runCase(bytes);
      if (!r.ok) throw new Error(`${seed.name}: ${r.stage}: ${r.error}`);
    }),
    { seed: 20261130, numRuns: 2000 },
  );
});

// ---- regressions -------------------------------------------------------------------------------------------------

const fuzzDir = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "fuzz");
interface Regression {
  file: string;
  /** How the fuzzer found it. */
  found: string;
  bug: string;
  /** The `runCase` outcome string it must give now. */
  outcome: string;
  /** Why it takes seconds; runs with PIXFIT_SLOW_TESTS=1. */
  slow?: string;
}
const regressions: Regression[] = JSON.parse(readFileSync(join(fuzzDir, "regressions.json"), "utf8"));

for (const r of regressions) {
  test(`regression ${r.file}`, async (t) => {
    if (r.slow && process.env.PIXFIT_SLOW_TESTS !== "1") return t.skip(`takes seconds (${r.slow}); PIXFIT_SLOW_TESTS=1 runs it`);
    const bytes = new Uint8Array(readFileSync(join(fuzzDir, r.file)));
    // "<TypeError>" notes which exception a CORRUPT_IMAGE wraps; the code is what is pinned
    assert.equal((await check(bytes, r.file)).replace(/<\w+>/g, ""), r.outcome);
  });
}
