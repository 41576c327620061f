/**
 * JPEG codec: probe values, decode parity against references, error codes for every corpus file the manifest marks as
 * an error or unsupported variant, and the encoder (round trip, ImageMagick readability, no `Buffer`).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { PNG } from "pngjs";
import { jpeg } from "../codecs/jpeg.js";
import { isPixfitError, type ErrorCode } from "../src/errors.js";
import type { Raster } from "../src/types.js";
import { corpusFile, corpusHas, corpusRoot, corpusRows, type CorpusRow } from "./corpus.js";
import { compareRasters, imagemagick, imagemagickRGBA, withoutBuffer } from "./reference.js";

const MAX_PIXELS = 100e6;
/** IDCT and upsampling implementations differ by a few levels; 38 dB is far above what any colour or layout bug gives. */
const PSNR_BAR = 38;

const rows = corpusRows().filter((r) => r.format === "jpeg");

/** "<kind> <bits>-bit <W>x<H>" as the manifest writes it ("parsed: baseline 8-bit 32x32, ..."). */
function parsed(r: CorpusRow): { kind: string; bits: number; width: number; height: number } | null {
  const m = r.note.match(/\b(baseline|extended-huffman|progressive-huffman|extended-arithmetic|progressive-arithmetic|lossless-huffman|lossless-arithmetic|jpeg-ls) (\d+)-bit (\d+)x(\d+)/);
  if (!m) return null;
  const out = { kind: m[1], bits: +m[2], width: +m[3], height: +m[4] };
  // DNL (height in a DNL segment) and JPEG-LS oversize (size in an LSE segment): the real size is in the description.
  const real = r.note.match(/; (\d+)x(\d+) \d+-bit .*(DNL|oversize)/);
  if (real) [out.width, out.height] = [+real[1], +real[2]];
  return out;
}

/** Files whose outcome is not "decodes like ImageMagick", each with the reason. */
const KNOWN: Record<string, { code: ErrorCode; why: string }> = {
  "jpeg/jpeg-decoder/reftest/mjpeg.jpg": {
    code: "CORRUPT_IMAGE",
    why: "extraneous bytes before RST markers; libjpeg resynchronises with warnings, jpeg-js cannot",
  },
  "jpeg/jpeg-decoder/reftest/partial_progressive.jpg": {
    code: "CORRUPT_IMAGE",
    why: "a scan's data ends before its last MCU (libjpeg: premature end of data segment): truncation policy",
  },
  "jpeg/pillow/ultrahdr.jpg": { code: "CORRUPT_IMAGE", why: "file ends right after the SOS header: no scan data at all" },
  "jpeg/sharp/truncated.jpg": { code: "CORRUPT_IMAGE", why: "cut at 10000 bytes inside the only scan: truncation policy" },
  "jpeg/jpeg-decoder/crashtest/dc-predictor-overflow.jpg": { code: "CORRUPT_IMAGE", why: "fuzz case: scan data runs out" },
  "jpeg/jpeg-decoder/crashtest/derive-huffman-codes-overflow.jpg": { code: "CORRUPT_IMAGE", why: "fuzz case: invalid Huffman table" },
  "jpeg/jpeg-decoder/crashtest/subtract-with-overflow.jpg": { code: "CORRUPT_IMAGE", why: "fuzz case: invalid Huffman code" },
  "jpeg/jpeg-decoder/crashtest/invalid-prediction-shift.jpg": { code: "UNSUPPORTED_FORMAT", why: "lossless JPEG (SOF3)" },
};
/** Files the manifest allows to fail that decode, with the reason (they match ImageMagick like any other). */
const KNOWN_DECODE: Record<string, string> = {
  "jpeg/pillow/truncated_jpeg.jpg":
    "cut inside its last scan but after the last MCU's bits (an EOB run covers the rest): only the EOI is missing",
};
/** Decodable files held to a lower PSNR bar, with the reason. */
const LOWER_BAR: Record<string, [number, string]> = {
  "jpeg/jpeg-decoder/reftest/mozilla/jpg-cmyk-2.jpg": [30, "subsampled CMYK: jpeg-js replicates chroma, libjpeg interpolates"],
};

/** Expected decode outcome of a manifest row: an error code, or "decode". */
function expectation(r: CorpusRow): { code: ErrorCode | "decode"; why: string } {
  const known = KNOWN[r.path];
  if (known) return known;
  if (KNOWN_DECODE[r.path]) return { code: "decode", why: KNOWN_DECODE[r.path] };
  if (/rejected by pixel limit/.test(r.expected)) return { code: "TOO_MANY_PIXELS", why: "pixel flood" };
  const p = parsed(r);
  if (p && /arithmetic|lossless|jpeg-ls/.test(p.kind)) return { code: "UNSUPPORTED_FORMAT", why: p.kind };
  if (p && p.bits !== 8) return { code: "UNSUPPORTED_FORMAT", why: `${p.bits}-bit precision` };
  if (/error/.test(r.expected)) return { code: "CORRUPT_IMAGE", why: r.expected };
  return { code: "decode", why: "" };
}

function rasterFromPng(path: string): Raster {
  const p = PNG.sync.read(readFileSync(path));
  return { width: p.width, height: p.height, data: new Uint8Array(p.data) };
}

async function rejects(p: Promise<unknown>, code: ErrorCode): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isPixfitError(e, code), `expected ${code}, got ${e instanceof Error ? `${(e as { code?: string }).code} ${e.message}` : e}`);
    return true;
  });
}

test("corpus has JPEG rows", () => {
  assert.ok(rows.length >= 20, `only ${rows.length} JPEG rows`);
});

test("probe: width, height and EXIF orientation match the manifest", () => {
  let checked = 0;
  for (const r of rows) {
    if (!corpusHas(r.path)) continue;
    const bytes = corpusFile(r.path);
    const p = parsed(r);
    const noHeader = /no SOF marker|no SOI/.test(r.note) || (p && (p.width === 0 || p.height === 0));
    if (noHeader) {
      assert.throws(() => jpeg.probe!(bytes), (e: unknown) => isPixfitError(e, "CORRUPT_IMAGE"), r.path);
      checked++;
      continue;
    }
    const info = jpeg.probe!(bytes);
    assert.equal(info.hasAlpha, false);
    if (p) {
      assert.equal(info.width, p.width, `${r.path} width`);
      assert.equal(info.height, p.height, `${r.path} height`);
    }
    const digit = r.path.match(/exif-orientation\/\w+_(\d)\.jpg$/);
    const o = r.note.match(/EXIF orientation (\d)/);
    const want = digit ? +digit[1] : o ? +o[1] : /EXIF \(irregular/.test(r.note) ? null : 1;
    if (want !== null) assert.equal(info.orientation, want === 0 ? 1 : want, `${r.path} orientation`);
    checked++;
  }
  assert.ok(checked >= 20, `checked ${checked}`);
});

test("decode: every decodable JPEG matches its reference (PSNR)", async (t) => {
  for (const r of rows) {
    if (!corpusHas(r.path) || expectation(r).code !== "decode") continue;
    await t.test(r.path, async (st) => {
      const out = await jpeg.decode!(corpusFile(r.path), { maxPixels: MAX_PIXELS });
      const p = parsed(r);
      if (p) assert.deepEqual([out.width, out.height], [p.width, p.height]);
      assert.equal(out.data.length, out.width * out.height * 4);
      for (let i = 3; i < out.data.length; i += 4) if (out.data[i] !== 255) assert.fail(`alpha ${out.data[i]} at ${i}`);
      const [bar, why] = LOWER_BAR[r.path] ?? [PSNR_BAR, ""];
      let compared = 0;
      // 1. The expected-output PNG beside the file (jpeg-decoder / Mozilla reftests), independent of ImageMagick.
      const png = r.note.match(/expected output: (\S+\.png)/);
      const pngPath = png ? r.path.replace(/[^/]+$/, png[1]) : "";
      if (png && corpusHas(pngPath)) {
        const c = compareRasters(out, rasterFromPng(join(corpusRoot, pngPath)));
        assert.ok(c.psnr >= bar, `${r.path} vs ${png[1]}: PSNR ${c.psnr.toFixed(1)} < ${bar} ${why}`);
        compared++;
      }
      // 2. ImageMagick (libjpeg-turbo). DNL files: libjpeg refuses them, so the DNL-free sibling with the same scan data.
      const refPath = /DNL/.test(r.note) ? r.path.replace("32x32x8_dnl", "32x32x8_grayscale") : r.path;
      const ref = corpusHas(refPath) ? imagemagickRGBA(join(corpusRoot, refPath)) : null;
      if (ref) {
        const c = compareRasters(out, ref);
        assert.ok(c.psnr >= bar, `${r.path} vs ImageMagick: PSNR ${c.psnr.toFixed(1)} < ${bar} ${why}`);
        compared++;
      }
      if (!compared) st.skip(imagemagick ? "ImageMagick refused the reference file" : "no ImageMagick and no reference PNG: size checked only");
    });
  }
});

test("decode: files the manifest marks as errors or unsupported variants give the right error code", async (t) => {
  let n = 0;
  for (const r of rows) {
    if (!corpusHas(r.path)) continue;
    const e = expectation(r);
    if (e.code === "decode") continue;
    n++;
    await t.test(`${r.path} → ${e.code} (${e.why})`, async () => {
      await rejects(jpeg.decode!(corpusFile(r.path), { maxPixels: MAX_PIXELS }), e.code as ErrorCode);
    });
  }
  assert.ok(n >= 5, `only ${n} error rows`);
});

test("unsupported variants are named in the message", async () => {
  const cases: [string, RegExp][] = [
    ["jpeg/jpegsuite/extended_arithmetic/32x32x8_grayscale.jpg", /arithmetic-coded/],
    ["jpeg/jpegsuite/lossless_huffman/32x32x8_grayscale.jpg", /lossless/],
    ["jpeg/jpegsuite/ls/32x32x8_grayscale.jpg", /JPEG-LS/],
    ["jpeg/jpegsuite/extended_huffman/8x8x12_grayscale_check.jpg", /12-bit/],
  ];
  for (const [path, re] of cases) {
    assert.ok(corpusHas(path), path);
    const bytes = corpusFile(path);
    assert.ok(jpeg.probe!(bytes).width > 0, `${path}: probe still reads the size`);
    await assert.rejects(jpeg.decode!(bytes, { maxPixels: MAX_PIXELS }), (e: unknown) => {
      assert.ok(isPixfitError(e, "UNSUPPORTED_FORMAT") && e.format === "jpeg" && re.test(e.message), String(e));
      return true;
    });
  }
});

// ---- synthetic inputs, built from the encoder's output ----

function gradient(w: number, h: number, alpha = 255): Raster {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      data.set([(x * 255) / (w - 1), (y * 255) / (h - 1), ((x + y) * 127) / (w + h), alpha], i);
    }
  return { width: w, height: h, data };
}

function grayGradient(w: number, h: number): Raster {
  const g = gradient(w, h);
  for (let i = 0; i < g.data.length; i += 4) g.data[i + 1] = g.data[i + 2] = g.data[i];
  return g;
}

function concat(...parts: ArrayLike<number>[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Offset of marker 0xFF `m` found by a plain byte search (fine for the encoder's output before its SOS). */
function markerAt(b: Uint8Array, m: number): number {
  for (let i = 0; i + 1 < b.length; i++) if (b[i] === 0xff && b[i + 1] === m) return i;
  return -1;
}

test("decode tolerates junk and fill bytes between header segments, and a missing EOI", async () => {
  const enc = await jpeg.encode!(gradient(40, 24), { quality: 90 });
  const base = await jpeg.decode!(enc, { maxPixels: MAX_PIXELS });
  const dqt = markerAt(enc, 0xdb);
  const junky = concat(enc.subarray(0, dqt), [0x12, 0x34, 0xff, 0xff, 0xff], enc.subarray(dqt));
  assert.deepEqual((await jpeg.decode!(junky, { maxPixels: MAX_PIXELS })).data, base.data);
  const noEoi = enc.subarray(0, enc.length - 2);
  assert.deepEqual((await jpeg.decode!(noEoi, { maxPixels: MAX_PIXELS })).data, base.data);
});

test("decode supplies the standard Huffman tables when DHT is missing (Motion-JPEG)", async () => {
  const enc = await jpeg.encode!(gradient(33, 17), { quality: 75 }); // the encoder uses the T.81 K.3 tables
  const dht = markerAt(enc, 0xc4);
  const len = (enc[dht + 2] << 8) | enc[dht + 3];
  const stripped = concat(enc.subarray(0, dht), enc.subarray(dht + 2 + len));
  assert.equal(markerAt(stripped, 0xc4), -1);
  assert.deepEqual((await jpeg.decode!(stripped, { maxPixels: MAX_PIXELS })).data, (await jpeg.decode!(enc, { maxPixels: MAX_PIXELS })).data);
});

test("truncation policy: scan data cut short is CORRUPT_IMAGE, not a partial image", async () => {
  const enc = await jpeg.encode!(gradient(64, 64), { quality: 90 });
  const sos = markerAt(enc, 0xda);
  for (const cut of [sos + 20, Math.floor((sos + enc.length) / 2), enc.length - 40])
    await rejects(jpeg.decode!(enc.subarray(0, cut), { maxPixels: MAX_PIXELS }), "CORRUPT_IMAGE");
  // Cut inside the header: probe and decode both refuse.
  assert.throws(() => jpeg.probe!(enc.subarray(0, markerAt(enc, 0xc0) + 6)), (e: unknown) => isPixfitError(e, "CORRUPT_IMAGE"));
});

test("bad segment lengths and marker soup end in CORRUPT_IMAGE without hanging", async () => {
  const soi = [0xff, 0xd8];
  const inputs = [
    concat(soi, [0xff, 0xe0, 0x00, 0x00]), // length 0
    concat(soi, [0xff, 0xe0, 0x00, 0x01]), // length 1
    concat(soi, [0xff, 0xe0, 0xff, 0xff, 1, 2, 3]), // past the end
    concat(soi, new Uint8Array(5000).fill(0xff)), // fill bytes only
    concat(soi, Array.from({ length: 3000 }, (_, i) => (i % 2 ? 0xd0 + (i % 8) : 0xff))), // RST markers only
    concat(soi, [0xff, 0xd9]),
  ];
  for (const b of inputs) {
    assert.throws(() => jpeg.probe!(b), (e: unknown) => isPixfitError(e, "CORRUPT_IMAGE"));
    await rejects(jpeg.decode!(b, { maxPixels: MAX_PIXELS }), "CORRUPT_IMAGE");
  }
});

test("TOO_MANY_PIXELS is decided from the header, before any pixel work", async () => {
  // SOI + SOF0 declaring 60000×60000 grayscale, nothing else: no tables, no scan.
  const b = concat([0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0xea, 0x60, 0xea, 0x60, 1, 1, 0x11, 0]);
  assert.deepEqual(jpeg.probe!(b), { width: 60000, height: 60000, hasAlpha: false, orientation: 1 });
  await rejects(jpeg.decode!(b, { maxPixels: MAX_PIXELS }), "TOO_MANY_PIXELS");
  await rejects(jpeg.decode!(b, { maxPixels: 60000 * 60000 }), "CORRUPT_IMAGE"); // within the limit: the missing scan
  const small = await jpeg.encode!(gradient(20, 10), {});
  await rejects(jpeg.decode!(small, { maxPixels: 199 }), "TOO_MANY_PIXELS");
  assert.equal((await jpeg.decode!(small, { maxPixels: 200 })).width, 20);
});

test("a progressive scan bomb (more than MAX_SCANS scans) is refused up front", async () => {
  const enc = await jpeg.encode!(gradient(8, 8), {});
  const sos = [0xff, 0xda, 0, 8, 1, 1, 0, 0, 63, 0];
  const bomb = concat(enc.subarray(0, enc.length - 2), ...Array.from({ length: 501 }, () => sos), [0xff, 0xd9]);
  await assert.rejects(jpeg.decode!(bomb, { maxPixels: MAX_PIXELS }), (e: unknown) => isPixfitError(e, "CORRUPT_IMAGE") && /scans/.test((e as Error).message));
});

// ---- encoder ----

/** A real photo from the corpus (decoded), or null. */
async function photo(): Promise<Raster | null> {
  for (const p of ["jpeg/exif-orientation/Portrait_6.jpg", "jpeg/exif-orientation/Portrait_0.jpg", "jpeg/jpeg-decoder/tower.jpg"])
    if (corpusHas(p)) return jpeg.decode!(corpusFile(p), { maxPixels: MAX_PIXELS });
  return null;
}

test("encode → decode round trip of a real photo", async () => {
  const src = await photo();
  assert.ok(src, "no photo in the corpus");
  const q80 = await jpeg.encode!(src, {}); // default quality 80
  const back = await jpeg.decode!(q80, { maxPixels: MAX_PIXELS });
  assert.deepEqual([back.width, back.height], [src.width, src.height]);
  const p80 = compareRasters(back, src).psnr;
  assert.ok(p80 >= 32, `q80 PSNR ${p80.toFixed(1)}`);
  const q95 = await jpeg.encode!(src, { quality: 95 });
  const p95 = compareRasters(await jpeg.decode!(q95, { maxPixels: MAX_PIXELS }), src).psnr;
  assert.ok(p95 > p80 && q95.length > q80.length, `q95 ${p95.toFixed(1)} dB ${q95.length} B vs q80 ${p80.toFixed(1)} dB ${q80.length} B`);
  const q20 = await jpeg.encode!(src, { quality: 20 });
  assert.ok(q20.length < q80.length / 2, `q20 ${q20.length} B vs q80 ${q80.length} B`);
});

test("encoder output decodes in ImageMagick to the same pixels", async (t) => {
  if (!imagemagick) return t.skip("ImageMagick not installed");
  const dir = mkdtempSync(join(tmpdir(), "pixfit-jpeg-"));
  for (const [name, r] of [["color", gradient(37, 21)], ["gray", grayGradient(19, 9)]] as const) {
    const enc = await jpeg.encode!(r, { quality: 85 });
    const f = join(dir, `${name}.jpg`);
    writeFileSync(f, enc);
    const im = imagemagickRGBA(f);
    assert.ok(im, `ImageMagick could not read ${name}`);
    const ours = await jpeg.decode!(enc, { maxPixels: MAX_PIXELS });
    assert.ok(compareRasters(ours, im).psnr >= 45, name);
    assert.ok(compareRasters(im, r).psnr >= 30, `${name} vs source`);
  }
  assert.ok(existsSync(dir));
});

test("encode: grayscale input gives one component; alpha is ignored, not composited", async () => {
  const enc = await jpeg.encode!(grayGradient(16, 16), {});
  const sof = markerAt(enc, 0xc0);
  assert.equal(enc[sof + 9], 1, "component count");
  const opaque = await jpeg.encode!(gradient(30, 20, 255), { quality: 70 });
  const clear = await jpeg.encode!(gradient(30, 20, 0), { quality: 70 });
  assert.deepEqual(clear, opaque);
});

test("encode rejects sides over 65535 and inconsistent rasters", async () => {
  await rejects(jpeg.encode!({ width: 70000, height: 1, data: new Uint8Array(70000 * 4) }, {}), "INPUT_TOO_LARGE");
  await assert.rejects(jpeg.encode!({ width: 2, height: 2, data: new Uint8Array(3) }, {}), RangeError);
});

test("jpeg.encode and jpeg.decode never touch globalThis.Buffer", async () => {
  const src = gradient(50, 30);
  await withoutBuffer(async () => {
    const enc = await jpeg.encode!(src, { quality: 80 });
    assert.equal(Object.getPrototypeOf(enc), Uint8Array.prototype, "plain Uint8Array, not a Buffer");
    const back = await jpeg.decode!(enc, { maxPixels: MAX_PIXELS });
    assert.equal(Object.getPrototypeOf(back.data), Uint8Array.prototype);
    assert.ok(compareRasters(back, src).psnr >= 30);
  });
  assert.ok((globalThis as { Buffer?: unknown }).Buffer, "restored");
});

test("a progressive JPEG whose last component is never scanned is CORRUPT_IMAGE with its own message (fuzz regression)", async () => {
  const bytes = new Uint8Array(readFileSync(new URL("./fixtures/fuzz/jpeg-progressive-component-never-scanned.jpg", import.meta.url)));
  await assert.rejects(jpeg.decode!(bytes, { maxPixels: 1e8 }), (e: unknown) =>
    isPixfitError(e, "CORRUPT_IMAGE") && e.message === "Corrupt JPEG: component 3 is never coded in any scan" && e.cause === undefined);
});
