/**
 * Conformance report: `npm run conformance`.
 *
 * Runs every image and PDF file of the corpus (../shared/corpus when present, else test/fixtures/corpus) through
 * `prepare()` (defaults) and through its codec's `decode` (what `prepare` runs when it cannot pass a file through, and
 * what `toParts` runs to verify a pass-through), and prints one line per file: path, expectation from MANIFEST.tsv,
 * prepare outcome, decode outcome, pixel difference against the reference decoder, verdict.
 *
 * Expectation (from the manifest note's "expected: ..."):
 * - valid: no expectation, "valid", "decodes ..." or a pixel description → must decode, with parity;
 * - invalid: "error", "decode error", "rejected", "no frames", ... → must be a typed error (PixfitError);
 * - limit: "rejected by pixel limit" → TOO_MANY_PIXELS;
 * - either: "may be unsupported", "error or partial decode", "graceful handling", ... (BMP Suite q/ files and the
 *   like) → a typed error or a decode, never a crash.
 * Any exception that is not a PixfitError, from prepare or decode, is a violation whatever the expectation.
 *
 * Reference decoder, first available: a reference rendering the manifest names or the suite ships beside the file
 * (ref/*.png, frames/*.png, pygif *.rgba; for PNG, pngjs, since ImageMagick applies gAMA and pixfit does no colour
 * management), else ImageMagick 6 (/usr/bin/convert; GIF coalesced). Difference: max
 * absolute channel difference over RGBA (colour of fully transparent pixels ignored) for lossless formats and WEBP,
 * PSNR (dB, RGB) for JPEG. Bars: max ≤ 1 (ImageMagick rounds 5/6-bit BMP channels one level off), WEBP max 0 against
 * suite refs (libwebp is bit-exact) and ≤ 1 against ImageMagick, JPEG PSNR ≥ 38 dB (IDCT/upsampling differences;
 * test/jpeg.test.ts).
 *
 * Files where pixfit deliberately differs from the manifest are listed in POLICY with the reason and the test that
 * pins the behaviour; they are reported as "policy", not as violations. Exit code 1 on any violation. Writes
 * docs/conformance.md (totals, per-format counts, every policy deviation and violation).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PNG } from "pngjs";
import { codecFor } from "../codecs/index.js";
import { isPixfitError } from "../src/errors.js";
import { prepare } from "../src/prepare.js";
import type { Raster } from "../src/types.js";
import { corpusFile, corpusHas, corpusRoot, corpusRows, fullCorpus, type CorpusRow } from "../test/corpus.js";
import { compareRasters, dwebpMd5, imagemagick, imagemagickRGBA, pamMd5 } from "../test/reference.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const FORMATS = new Set(["png", "jpeg", "gif", "bmp", "webp", "pdf"]);
const MAX_PIXELS = 100e6;

type Expect = "valid" | "invalid" | "limit" | "either";

/** Manifest expectation → class (see module comment). */
function expectation(r: CorpusRow): Expect {
  const e = r.expected;
  if (/rejected by pixel limit/.test(e)) return "limit";
  if (/may be unsupported|error or |or partial|graceful|error when reading later frames|rejected or bounded|unsupported by ordinary/.test(e)) return "either";
  if (/^(decode )?error|^rejected|^no frames|terminates with error|cannot render|^error/.test(e)) return "invalid";
  return "valid";
}

/**
 * Deliberate deviations from the manifest: path (or a regular expression over paths) → [outcome pixfit gives, why, test].
 * Outcome: an error code, "decodes", or "differs" (decodes, but not like the named reference).
 */
const POLICY: [RegExp, string, string][] = [
  // PNG (test/png.test.ts OVERRIDES)
  [/^png\/apng\/pillow\/(chunk_no_fctl|chunk_no_fdat|chunk_repeat_fctl|sequence_gap|syntax_num_frames_high)\.png$/, "decodes", "the APNG errors concern later frames; the default image pixfit decodes is intact (png.test.ts)"],
  [/^png\/apng\/pillow\/syntax_num_frames_zero\.png$/, "CORRUPT_IMAGE", "acTL but no IDAT: no default image to show (png.test.ts)"],
  [/^png\/pillow\/unknown_compression_method\.png$/, "decodes", "iCCP is ignored, so its unknown compression method does not matter (png.test.ts)"],
  [/^misc\/png_decompression_dos\.png$/, "decodes", "zTXt is never inflated, so the text bomb costs nothing (png.test.ts)"],
  // JPEG (test/jpeg.test.ts KNOWN / expectation)
  [/^jpeg\/jpeg-decoder\/crashtest\/(dc-predictor-overflow|derive-huffman-codes-overflow|subtract-with-overflow)\.jpg$/, "CORRUPT_IMAGE", "fuzz-found files: scan data runs out / invalid Huffman table or code (jpeg.test.ts KNOWN)"],
  [/^jpeg\/jpeg-decoder\/reftest\/mjpeg\.jpg$/, "CORRUPT_IMAGE", "extraneous bytes before RST markers (jpeg.test.ts)"],
  [/^jpeg\/jpeg-decoder\/reftest\/partial_progressive\.jpg$/, "CORRUPT_IMAGE", "scan data ends before its last MCU: truncation policy (jpeg.test.ts)"],
  [/^jpeg\/pillow\/ultrahdr\.jpg$/, "CORRUPT_IMAGE", "file ends right after the SOS header (jpeg.test.ts)"],
  [/^jpeg\/jpeg-decoder\/crashtest\/invalid-prediction-shift\.jpg$/, "UNSUPPORTED_FORMAT", "lossless JPEG (SOF3) (jpeg.test.ts)"],
  // GIF (test/gif.test.ts PYGIF_DEVIATIONS, ZERO_DELAY_GROUP)
  [/^gif\/pillow\/(no_palette|zero_width)\.gif$/, "CORRUPT_IMAGE", "no colour table for the first frame / a 0-pixel-wide screen (gif.test.ts ERRORS)"],
  [/^gif\/pygif\/no-data\.gif$/, "CORRUPT_IMAGE", "no image at all: nothing to show (gif.test.ts)"],
  [/^gif\/pygif\/plain-text\.gif$/, "decodes", "the plain-text extension is skipped and the image shown (gif.test.ts)"],
  [/^gif\/pygif\/images-overlap\.gif$/, "differs", "two zero-delay full-screen images: the first is shown, as browsers do (gif.test.ts)"],
  [/^gif\/pillow\/(dispose_prev|iss634)\.gif$/, "differs", "zero-delay images composited into the first frame (GIF89a §23); ImageMagick shows the first image alone (gif.test.ts)"],
  // BMP (test/bmp.test.ts B_EXPECT, q/ handling)
  [/^bmp\/bmpsuite\/b\/(baddens1|baddens2|rgb16-880)\.bmp$/, "decodes", "only density fields / a zero mask are odd; the pixels are well defined (bmp.test.ts B_EXPECT)"],
  [/^bmp\/image-rs\/(imagemagick_invalid_run_length_issue_2321|rle_overflow)\.bmp$/, "CORRUPT_IMAGE", "RLE runs past the row end: refused instead of clipped (codecs/bmp.ts; bmp.test.ts IMAGE_RS_ERRORS)"],
  [/^bmp\/image-rs\/V5_A1_R5_G5_B5\.bmp$/, "differs", "ImageMagick 6 reads 1-bit alpha as 128 and 5-bit colour by shifting; pixfit scales to 0..255 (bmp.test.ts checks ±1 and alpha 0/255)"],
  [/^bmp\/bmpsuite\/x\/ba-bm\.bmp$/, "UNSUPPORTED_FORMAT", "OS/2 bitmap array container (\"BA\"), not a BMP signature (bmp.test.ts)"],
  [/^bmp\/bmpsuite\/q\/rgb24prof2\.bmp$/, "differs", "red and green swapped back only by its ICC profile, which pixfit ignores (bmp.test.ts)"],
  // PDF: passed through unparsed (pixfit does not render PDFs)
  [/^pdf\//, "decodes", "PDFs pass through byte for byte; pixfit checks only the %PDF signature"],
];

/** Frame types and precisions pixfit does not decode (codecs/jpeg.ts), from the manifest's "parsed: <kind> <bits>-bit". */
const JPEG_UNSUPPORTED =
  /\b(?:(extended-arithmetic|progressive-arithmetic|lossless-huffman|lossless-arithmetic|jpeg-ls) \d+-bit|(?:baseline|extended-huffman|progressive-huffman) (12|16)-bit)/;

function policyFor(r: CorpusRow): [string, string] | undefined {
  const p = POLICY.find(([re]) => re.test(r.path));
  if (p) return [p[1], p[2]];
  const m = r.format === "jpeg" ? JPEG_UNSUPPORTED.exec(r.note) : null;
  if (m) return ["UNSUPPORTED_FORMAT", `${m[1] ?? `${m[2]}-bit`} JPEG is out of scope (codecs/jpeg.ts; jpeg.test.ts)`];
  return undefined;
}

/** Files no reference decoder reads, and how their pixels are checked instead. */
const NO_REFERENCE: Record<string, string> = {
  "png/image-png/invalid_palette_index.png": "pngjs and ImageMagick refuse it; png.test.ts checks that indices past PLTE decode as opaque black (libpng)",
};

/** Lower JPEG PSNR bars, with the reason (test/jpeg.test.ts LOWER_BAR). */
const JPEG_BAR: Record<string, [number, string]> = {
  "jpeg/jpeg-decoder/reftest/mozilla/jpg-cmyk-2.jpg": [30, "subsampled CMYK: chroma replicated, libjpeg interpolates"],
};

// ---- references ----------------------------------------------------------------------------------------------------

function pngRaster(path: string): Raster | null {
  try {
    const p = PNG.sync.read(Buffer.from(corpusFile(path)));
    return { width: p.width, height: p.height, data: new Uint8Array(p.data) };
  } catch {
    return null;
  }
}

function imagemagickCoalesced(path: string): Raster | null {
  if (!imagemagick) return null;
  try {
    const [w, h] = execFileSync(imagemagick, [`${path}[0]`, "-coalesce", "-format", "%w %h", "info:"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .trim()
      .split(" ")
      .map(Number);
    const d = execFileSync(imagemagick, [`${path}[0]`, "-coalesce", "-depth", "8", "rgba:-"], { maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "ignore"] });
    return d.length === w * h * 4 ? { width: w, height: h, data: new Uint8Array(d.buffer, d.byteOffset, d.length) } : null;
  } catch {
    return null;
  }
}

/** Reference renderings named by the note or shipped beside the file, in order of preference. */
function suiteReferences(r: CorpusRow): { name: string; raster: () => Raster | null }[] {
  const dir = r.path.slice(0, r.path.lastIndexOf("/") + 1);
  const file = r.path.slice(dir.length);
  const out: { name: string; raster: () => Raster | null }[] = [];
  const png = (p: string) => corpusHas(p) && out.push({ name: p, raster: () => pngRaster(p) });
  if (r.format === "gif" && r.path.startsWith("gif/pygif/")) {
    const confPath = r.path.replace(/\.gif$/, ".conf");
    if (corpusHas(confPath)) {
      const conf = new TextDecoder().decode(corpusFile(confPath));
      const frame0 = /\[frame0\][^[]*?pixels = (\S+)/.exec(conf);
      const w = /width = (\d+)/.exec(conf), h = /height = (\d+)/.exec(conf);
      if (frame0 && w && h && corpusHas(`gif/pygif/ref/${frame0[1]}`))
        out.push({ name: `gif/pygif/ref/${frame0[1]}`, raster: () => ({ width: +w[1], height: +h[1], data: corpusFile(`gif/pygif/ref/${frame0[1]}`) }) });
    }
  }
  // pngjs, as test/png.test.ts: ImageMagick applies gAMA, pixfit (no colour management) does not.
  if (r.format === "png") out.push({ name: "pngjs", raster: () => pngRaster(r.path) });
  if (r.format === "bmp") for (const m of r.note.matchAll(/ref\/[\w.-]+\.png/g)) png(dir.replace(/[gqbx]\/$/, "") + m[0]);
  if (r.format === "webp") {
    const frames = /expected frames\/decode: (ref\/[\w.-]+\.png)/.exec(r.note);
    if (frames) png(dir + frames[1]);
    if (/reference rendering in ref\//.test(r.note) && !/anim\.webp$/.test(r.path)) png(`${dir}ref/${file}.png`);
    const match = /decodes to match (\w+\.png)/.exec(r.note);
    if (match) png(`${dir}ref/${match[1]}`);
  }
  if (r.format === "gif" && !r.path.startsWith("gif/pygif/")) {
    png(`${dir}ref/${file}.png`);
    png(`${dir}frames/${file.replace(/\.gif$/, "-0.png")}`);
  }
  if (r.format === "jpeg") {
    const m = r.note.match(/expected output: (\S+\.png)/);
    if (m && !/not to match/.test(r.note)) png(dir + m[1]);
  }
  return out;
}


/** Colour of fully transparent pixels zeroed, so references that differ only there compare equal. */
function visible(r: Raster): Raster {
  const d = r.data.slice();
  for (let i = 0; i < d.length; i += 4) if (d[i + 3] === 0) d[i] = d[i + 1] = d[i + 2] = 0;
  return { ...r, data: d };
}

interface Diff {
  ref: string;
  text: string;
  pass: boolean;
}

/** Compares a decode with the first reference that has its size. */
function parity(r: CorpusRow, got: Raster): Diff | null {
  const refs = suiteReferences(r);
  const lossyJpeg = r.format === "jpeg";
  const judge = (name: string, ref: Raster, im: boolean): Diff => {
    if (ref.width !== got.width || ref.height !== got.height)
      return { ref: name, text: `size ${got.width}x${got.height} vs ${ref.width}x${ref.height}`, pass: false };
    const c = compareRasters(visible(got), visible(ref));
    if (lossyJpeg) {
      const [bar, why] = JPEG_BAR[r.path] ?? [38, ""];
      return { ref: name, text: `PSNR ${Number.isFinite(c.psnr) ? c.psnr.toFixed(1) : "∞"} dB${why ? ` (bar ${bar}: ${why})` : ""}`, pass: c.psnr >= bar };
    }
    const bar = r.format === "webp" && !im ? 0 : 1;
    return { ref: name, text: `max ${c.max}`, pass: c.max <= bar };
  };
  const md5 = r.format === "webp" ? dwebpMd5.get(r.path.slice(r.path.lastIndexOf("/") + 1)) : undefined;
  if (md5) return { ref: "libwebp dwebp md5", text: pamMd5(got) === md5 ? "identical" : "md5 differs", pass: pamMd5(got) === md5 };
  let first: Diff | null = null;
  for (const ref of refs) {
    const raster = ref.raster();
    if (!raster) continue;
    const d = judge(ref.name.slice(ref.name.lastIndexOf("/") + 1), raster, false);
    if (d.pass) return d;
    first ??= d;
  }
  // DNL files (height in a DNL segment): libjpeg refuses them, so the DNL-free sibling with the same scan data (jpeg.test.ts).
  const path = join(corpusRoot, /DNL/.test(r.note) ? r.path.replace("32x32x8_dnl", "32x32x8_grayscale") : r.path);
  const im = r.format === "gif" ? imagemagickCoalesced(path) : imagemagickRGBA(path);
  if (im) {
    const d = judge("ImageMagick", im, true);
    if (d.pass || !first) return d;
  }
  return first;
}

// ---- running ---------------------------------------------------------------------------------------------------

interface Line {
  path: string;
  format: string;
  expect: Expect;
  prepared: string;
  decoded: string;
  diff: string;
  verdict: "pass" | "policy" | "no reference" | "VIOLATION";
  why: string;
}

function outcomeOf(e: unknown): string {
  return isPixfitError(e) ? e.code : `CRASH ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
}

async function check(r: CorpusRow): Promise<Line> {
  const bytes = corpusFile(r.path);
  const expect = expectation(r);
  const line: Line = { path: r.path, format: r.format, expect, prepared: "", decoded: "-", diff: "", verdict: "pass", why: "" };
  let preparedOk = false;
  try {
    const p = await prepare(bytes);
    preparedOk = true;
    line.prepared = p.bytes === bytes ? "passed through" : `${p.mediaType.slice(6)} ${p.width}x${p.height}`;
  } catch (e) {
    line.prepared = outcomeOf(e);
  }
  const codec = codecFor(bytes);
  let raster: Raster | null = null;
  if (codec?.decode) {
    try {
      raster = await codec.decode(bytes, { maxPixels: MAX_PIXELS });
      line.decoded = `${raster.width}x${raster.height}`;
    } catch (e) {
      line.decoded = outcomeOf(e);
    }
  } else if (codec) line.decoded = preparedOk ? "(document)" : "-";

  const crash = [line.prepared, line.decoded].find((o) => o.startsWith("CRASH"));
  if (crash) return { ...line, verdict: "VIOLATION", why: crash };
  // Outcome that matters: the decode (images), else prepare (documents, unrecognised bytes).
  const ok = codec?.decode ? raster !== null : preparedOk;
  const code = codec?.decode ? line.decoded : line.prepared;
  if (ok && raster) {
    const d = parity(r, raster);
    if (d) line.diff = `${d.text} (${d.ref})`;
    if (d && !d.pass) {
      const pol = policyFor(r);
      if (expect === "valid" || expect === "either" ? pol?.[0] === "differs" : false) return { ...line, verdict: "policy", why: pol![1] };
      if (expect === "valid") return { ...line, verdict: "VIOLATION", why: `no parity: ${d.text} vs ${d.ref}` };
    }
    if (!d && expect === "valid")
      return { ...line, verdict: "no reference", why: NO_REFERENCE[r.path] ?? (imagemagick ? "ImageMagick refused the file and no suite reference" : "no ImageMagick and no suite reference") };
  }
  const pol = policyFor(r);
  switch (expect) {
    case "valid":
      if (ok) return line;
      if (pol && pol[0] === code) return { ...line, verdict: "policy", why: pol[1] };
      return { ...line, verdict: "VIOLATION", why: `a valid file gave ${code}` };
    case "invalid":
      if (!ok) return line;
      if (pol && pol[0] === "decodes") return { ...line, verdict: "policy", why: pol[1] };
      return { ...line, verdict: "VIOLATION", why: "an invalid file decoded" };
    case "limit":
      if (code === "TOO_MANY_PIXELS") return line;
      return { ...line, verdict: "VIOLATION", why: `expected TOO_MANY_PIXELS, got ${ok ? "a decode" : code}` };
    case "either":
      return line;
  }
}

function pad(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s.padEnd(n);
}

async function main(): Promise<void> {
  const rows = corpusRows().filter((r) => FORMATS.has(r.format) && corpusHas(r.path));
  const started = performance.now();
  console.log(`corpus: ${corpusRoot} (${fullCorpus ? "full" : "fixtures subset"}), ${rows.length} files; reference decoder: ${imagemagick ?? "none (suite refs only)"}`);
  console.log(`${pad("file", 72)} ${pad("expect", 8)} ${pad("prepare()", 20)} ${pad("decode", 20)} ${pad("difference", 36)} verdict`);
  const lines: Line[] = [];
  for (const r of rows) {
    const l = await check(r);
    lines.push(l);
    console.log(`${pad(l.path, 72)} ${pad(l.expect, 8)} ${pad(l.prepared, 20)} ${pad(l.decoded, 20)} ${pad(l.diff, 36)} ${l.verdict}${l.why ? ` — ${l.why}` : ""}`);
  }
  const secs = ((performance.now() - started) / 1000).toFixed(0);
  const count = (f: (l: Line) => boolean) => lines.filter(f).length;
  const verdicts = ["pass", "policy", "no reference", "VIOLATION"] as const;
  const summary = verdicts.map((v) => `${count((l) => l.verdict === v)} ${v}`).join(", ");
  console.log(`\n${lines.length} files in ${secs} s: ${summary}`);

  const formats = [...new Set(lines.map((l) => l.format))].sort();
  const md: string[] = [
    "# Conformance",
    "",
    `Generated by \`npm run conformance\` (scripts/conformance.ts) on ${new Date().toISOString().slice(0, 10)} over ${fullCorpus ? "the full conformance corpus (../shared/corpus)" : "the fixtures subset (test/fixtures/corpus)"}: every image and PDF file through \`prepare()\` and its codec's \`decode\`, compared with the suite's reference renderings or ImageMagick 6.`,
    "",
    `**${lines.length} files: ${summary}.** A violation is a valid file that does not decode with parity, an invalid file that decodes, a pixel-limit file not refused with TOO_MANY_PIXELS, or any exception that is not a \`PixfitError\`. The bars: max channel difference ≤ 1 for lossless formats and WEBP (0 against libwebp refs), PSNR ≥ 38 dB for JPEG. "policy" rows are deliberate deviations from the manifest, each pinned by a codec test; "either" rows (BMP Suite q/ files, "error or partial decode") may decode or be refused but never crash.`,
    "",
    "| format | files | valid | invalid | limit | either | pass | policy | no reference | violations |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...formats.map((f) => {
      const fl = lines.filter((l) => l.format === f);
      const c = (p: (l: Line) => boolean) => fl.filter(p).length;
      return `| ${f} | ${fl.length} | ${c((l) => l.expect === "valid")} | ${c((l) => l.expect === "invalid")} | ${c((l) => l.expect === "limit")} | ${c((l) => l.expect === "either")} | ${c((l) => l.verdict === "pass")} | ${c((l) => l.verdict === "policy")} | ${c((l) => l.verdict === "no reference")} | ${c((l) => l.verdict === "VIOLATION")} |`;
    }),
    "",
  ];
  for (const v of ["VIOLATION", "policy", "no reference"] as const) {
    const sel = lines.filter((l) => l.verdict === v);
    if (!sel.length) continue;
    md.push(`## ${v === "VIOLATION" ? "Violations" : v === "policy" ? "Deliberate deviations (policy)" : "Decoded, no reference available"}`, "");
    md.push("| file | expectation | prepare() | decode | difference | reason |", "|---|---|---|---|---|---|");
    for (const l of sel) md.push(`| ${l.path} | ${l.expect} | ${l.prepared} | ${l.decoded} | ${l.diff} | ${l.why.replace(/\|/g, "\\|")} |`);
    md.push("");
  }
  const passedBad = count((l) => l.prepared === "passed through" && !/^\d+x\d+$/.test(l.decoded) && l.decoded !== "-" && l.decoded !== "(document)");
  md.push(
    "## Pass-through of damaged files",
    "",
    `\`prepare()\` returns an image that already fits byte for byte without decoding it, so ${passedBad} files that the decoder refuses came back from \`prepare()\` unchanged (the "prepare()" column says "passed through", the "decode" column gives the error). \`toParts\` decodes every pass-through once (\`verify\`, default on) and turns these into text notes; callers of \`prepare()\` alone who need the same guarantee must decode once themselves.`,
    "",
  );
  console.log(`${passedBad} files the decoder refuses were passed through by prepare() (not decoded; toParts verifies them)`);
  const eitherDecoded = lines.filter((l) => l.expect === "either");
  md.push(`## "Either" files`, "", `${eitherDecoded.length} files may decode or be refused: ${count((l) => l.expect === "either" && /^\d+x\d+$/.test(l.decoded))} decoded, ${count((l) => l.expect === "either" && !/^\d+x\d+$/.test(l.decoded))} refused with a typed error, none crashed.`, "");
  mkdirSync(join(root, "docs"), { recursive: true });
  writeFileSync(join(root, "docs", "conformance.md"), md.join("\n"));
  console.log("wrote docs/conformance.md");
  process.exitCode = count((l) => l.verdict === "VIOLATION") ? 1 : 0;
}

await main();
