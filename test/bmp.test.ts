/**
 * BMP codec against BMP Suite 2.8 (g/ must decode, q/ may, b/ must be refused), image-rs BMP test files,
 * and round trips of the encoder. References: the suite's ref/*.png (decoded with pngjs) when the full
 * corpus is present, else ImageMagick (/usr/bin/convert) for that comparison.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { bmp, decodeBmp, encodeBmp, probeBmp } from "../codecs/bmp.js";
import { isPixfitError } from "../src/errors.js";
import type { Raster } from "../src/types.js";
import { corpusFile, corpusHas, corpusRoot, corpusRows, fullCorpus } from "./corpus.js";
import { compareRasters, errorCode, imagemagick, imagemagickRGBA, maxVisibleDiff, nodeOrBufferIn, pngjsRaster, withoutBuffer } from "./reference.js";

const LIMIT = { maxPixels: 100e6 };
const rows = corpusRows().filter((r) => r.format === "bmp");
const name = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const dir = (path: string) => path.slice(0, path.lastIndexOf("/") + 1);

const pngRaster = (path: string): Raster => pngjsRaster(corpusFile(path));
function sameSize(a: Raster, b: Raster): boolean {
  return a.width === b.width && a.height === b.height;
}
const maxDiff = maxVisibleDiff;
/** The suite refs a note names ("match ref/a.png or ref/b.png"), resolved beside the suite folders. */
function namedRefs(path: string, note: string): string[] {
  const base = dir(path).replace(/[gqbx]\/$/, "");
  return [...note.matchAll(/ref\/[\w.-]+\.png/g)].map((m) => base + m[0]);
}

/** ImageMagick 6 rounds 5- and 6-bit channels by bit replication, one level off proper scaling. */
const IM_TOLERANCE: Record<string, number> = { "rgb16-565.bmp": 1, "rgb16-565pal.bmp": 1, "rgb16.bmp": 1, "rgb16bfdef.bmp": 1 };

for (const row of rows.filter((r) => r.path.includes("/bmpsuite/g/"))) {
  test(`g/${name(row.path)} decodes to the suite's reference rendering`, async (t) => {
    const bytes = corpusFile(row.path);
    const r = await decodeBmp(bytes, LIMIT);
    // RLE files report alpha (skipped pixels would be transparent); no other g/ file has an alpha mask.
    assert.deepEqual(probeBmp(bytes), { width: r.width, height: r.height, hasAlpha: /rle/.test(row.path), orientation: 1 });
    const refs = namedRefs(row.path, row.note).filter(corpusHas);
    if (refs.length) {
      const diffs = refs.map((p) => pngRaster(p)).filter((ref) => sameSize(ref, r)).map((ref) => maxDiff(r, ref));
      assert.ok(diffs.includes(0), `no exact match among ${refs.join(", ")} (max diffs ${diffs})`);
    }
    const im = imagemagickRGBA(join(corpusRoot, row.path));
    if (im) assert.ok(maxDiff(r, im) <= (IM_TOLERANCE[name(row.path)] ?? 0), "differs from ImageMagick");
    if (!refs.length && !im) t.skip("no reference: suite refs absent (fixtures) and no ImageMagick");
  });
}

/** q/ files pixfit refuses, and why (all `CORRUPT_IMAGE`). */
const Q_UNSUPPORTED: Record<string, string> = {
  "pal1huffmsb.bmp": "OS/2 Huffman 1D compression",
  "rgb24jpeg.bmp": "embedded JPEG (BI_JPEG)",
  "rgb24png.bmp": "embedded PNG (BI_PNG)",
  "rgba64.bmp": "64-bit fixed-point pixels",
};
/** 11/11/10-bit samples rescaled to 8 bits land one level off the 8-bit source the ref shows. */
const Q_TOLERANCE: Record<string, number> = { "rgb32-111110.bmp": 1 };

for (const row of rows.filter((r) => r.path.includes("/bmpsuite/q/"))) {
  const file = name(row.path);
  test(`q/${file}: ${Q_UNSUPPORTED[file] ? "refused as CORRUPT_IMAGE" : "decodes to a named reference"}`, async (t) => {
    const bytes = corpusFile(row.path);
    if (Q_UNSUPPORTED[file]) {
      assert.equal(await errorCode(decodeBmp(bytes, LIMIT)), "CORRUPT_IMAGE");
      return;
    }
    const r = await decodeBmp(bytes, LIMIT);
    const refs = namedRefs(row.path, row.note).filter(corpusHas);
    if (!refs.length) return t.skip("named reference not in this corpus");
    let candidate = r;
    if (file === "rgb24prof2.bmp") {
      // Red and green are stored swapped, with an ICC profile that swaps them back; pixfit ignores
      // colour profiles, so the decode is the reference with red and green exchanged.
      const d = r.data.slice();
      for (let i = 0; i < d.length; i += 4) [d[i], d[i + 1]] = [d[i + 1], d[i]];
      candidate = { ...r, data: d };
    }
    const diffs = refs.map((p) => pngRaster(p)).filter((ref) => sameSize(ref, r)).map((ref) => maxDiff(candidate, ref));
    assert.ok(diffs.some((d) => d <= (Q_TOLERANCE[file] ?? 0)), `no match among ${refs.join(", ")} (max diffs ${diffs})`);
  });
}

/** Expected outcome of each b/ file with maxPixels 100e6. */
const B_EXPECT: Record<string, "CORRUPT_IMAGE" | "TOO_MANY_PIXELS" | "decoded"> = {
  "badbitcount.bmp": "CORRUPT_IMAGE",
  "badbitssize.bmp": "CORRUPT_IMAGE", // biSizeImage of ~2 GB does not fit the file
  "baddens1.bmp": "decoded", // only the pixels/metre fields are odd; they do not affect decoding
  "baddens2.bmp": "decoded",
  "badfilesize.bmp": "CORRUPT_IMAGE", // bfSize of ~2 GB: the file is truncated or lies
  "badheadersize.bmp": "CORRUPT_IMAGE",
  "badpalettesize.bmp": "CORRUPT_IMAGE",
  "badplanes.bmp": "CORRUPT_IMAGE",
  "badrle.bmp": "CORRUPT_IMAGE",
  "badrle4.bmp": "CORRUPT_IMAGE",
  "badrle4bis.bmp": "CORRUPT_IMAGE",
  "badrle4ter.bmp": "CORRUPT_IMAGE",
  "badrlebis.bmp": "CORRUPT_IMAGE",
  "badrleter.bmp": "CORRUPT_IMAGE",
  "badwidth.bmp": "CORRUPT_IMAGE",
  "pal8badindex.bmp": "CORRUPT_IMAGE",
  "reallybig.bmp": "TOO_MANY_PIXELS",
  "rgb16-880.bmp": "decoded", // zero blue mask: blue is 0, as the suite's tentative ref/rgb16-880.png shows
  "rletopdown.bmp": "CORRUPT_IMAGE",
  "shortfile.bmp": "CORRUPT_IMAGE",
};

for (const row of rows.filter((r) => r.path.includes("/bmpsuite/b/"))) {
  const file = name(row.path);
  test(`b/${file}: ${B_EXPECT[file]}`, async () => {
    assert.ok(B_EXPECT[file], "b/ file without a stated expectation");
    const bytes = corpusFile(row.path);
    const outcome = await errorCode(decodeBmp(bytes, LIMIT));
    assert.equal(outcome, B_EXPECT[file]);
    if (outcome !== "decoded") return;
    const r = await decodeBmp(bytes, LIMIT);
    const ref = file === "rgb16-880.bmp" ? "bmp/bmpsuite/ref/rgb16-880.png" : "bmp/bmpsuite/ref/pal1.png";
    if (corpusHas(ref)) assert.equal(maxDiff(r, pngRaster(ref)), 0);
    const im = imagemagickRGBA(join(corpusRoot, row.path));
    if (im) assert.equal(maxDiff(r, im), 0);
  });
}

test("b/reallybig.bmp without a pixel limit is still refused (its sizes do not fit the file)", async (t) => {
  if (!corpusHas("bmp/bmpsuite/b/reallybig.bmp")) return t.skip("file not in this corpus");
  const bytes = corpusFile("bmp/bmpsuite/b/reallybig.bmp");
  assert.deepEqual(probeBmp(bytes), { width: 3000000, height: 2000000, hasAlpha: false, orientation: 1 });
  assert.equal(await errorCode(decodeBmp(bytes, { maxPixels: Infinity })), "CORRUPT_IMAGE");
});

const IMAGE_RS_ERRORS: Record<string, [string, string]> = {
  // [with maxPixels 100e6, with no pixel limit]
  "Bad_clrsUsed.bmp": ["CORRUPT_IMAGE", "CORRUPT_IMAGE"],
  "Bad_height.bmp": ["TOO_MANY_PIXELS", "CORRUPT_IMAGE"],
  "Bad_width.bmp": ["TOO_MANY_PIXELS", "CORRUPT_IMAGE"],
  "Bad_unusual_extend_buffer_usage.bmp": ["CORRUPT_IMAGE", "CORRUPT_IMAGE"],
  // RLE runs past the row end: pixfit refuses instead of clipping (see codecs/bmp.ts).
  "imagemagick_invalid_run_length_issue_2321.bmp": ["CORRUPT_IMAGE", "CORRUPT_IMAGE"],
  "rle_overflow.bmp": ["CORRUPT_IMAGE", "CORRUPT_IMAGE"],
};

for (const row of rows.filter((r) => r.path.startsWith("bmp/image-rs/"))) {
  const file = name(row.path);
  const expected = IMAGE_RS_ERRORS[file];
  test(`image-rs ${file}: ${expected ? expected.join(" / ") : "decodes like ImageMagick"}`, async (t) => {
    const bytes = corpusFile(row.path);
    if (expected) {
      assert.equal(await errorCode(decodeBmp(bytes, LIMIT)), expected[0]);
      assert.equal(await errorCode(decodeBmp(bytes, { maxPixels: Infinity })), expected[1]);
      return;
    }
    const r = await decodeBmp(bytes, LIMIT);
    const info = probeBmp(bytes);
    assert.equal(info.width, r.width);
    assert.equal(info.height, r.height);
    const im = imagemagickRGBA(join(corpusRoot, row.path));
    if (!im) return t.skip("ImageMagick not available");
    if (file === "V5_A1_R5_G5_B5.bmp") {
      // ImageMagick 6 reads a 1-bit alpha as 128 and 5-bit colour by shifting; pixfit scales both to 0..255.
      assert.equal(info.hasAlpha, true);
      for (let i = 0; i < r.data.length; i += 4) {
        assert.equal(r.data[i + 3], im.data[i + 3] ? 255 : 0);
        for (let c = 0; c < 3; c++) assert.ok(Math.abs(r.data[i + c] - im.data[i + c]) <= 1);
      }
    } else assert.equal(maxDiff(r, im), 0);
  });
}

test("x/ba-bm.bmp (OS/2 bitmap array) is not sniffed as BMP", (t) => {
  if (!corpusHas("bmp/bmpsuite/x/ba-bm.bmp")) return t.skip("file not in this corpus");
  assert.equal(bmp.sniff(corpusFile("bmp/bmpsuite/x/ba-bm.bmp")), false);
});

/** A tiny BMP built here: 40-byte header, `bpp`, `compression`, palette and pixel bytes as given. */
function craft(opts: { width: number; height: number; bpp: number; compression?: number; palette?: number[][]; masks?: number[]; pixels: number[]; hs?: number }): Uint8Array {
  const hs = opts.hs ?? 40;
  const pal = (opts.palette ?? []).flatMap(([r, g, b]) => [b, g, r, 0]);
  const masks = (opts.masks ?? []).flatMap((m) => [m & 255, (m >>> 8) & 255, (m >>> 16) & 255, m >>> 24]);
  const header = new Uint8Array(14 + hs);
  const v = new DataView(header.buffer);
  const offset = 14 + hs + masks.length + pal.length;
  header.set([0x42, 0x4d]);
  v.setUint32(2, offset + opts.pixels.length, true);
  v.setUint32(10, offset, true);
  v.setUint32(14, hs, true);
  v.setInt32(18, opts.width, true);
  v.setInt32(22, opts.height, true);
  v.setUint16(26, 1, true);
  v.setUint16(28, opts.bpp, true);
  v.setUint32(30, opts.compression ?? 0, true);
  v.setUint32(46, (opts.palette ?? []).length, true);
  return new Uint8Array([...header, ...masks, ...pal, ...opts.pixels]);
}

test("probe: header facts without decoding, and unknown header sizes are CORRUPT_IMAGE", () => {
  // 56-byte header: the R, G, B, A masks are inside it at offsets 54..69.
  const v3 = craft({ width: 2, height: -3, bpp: 32, compression: 3, hs: 56, pixels: new Array(24).fill(0) });
  const dv = new DataView(v3.buffer);
  [0xff0000, 0xff00, 0xff, 0xff000000].forEach((m, i) => dv.setUint32(54 + 4 * i, m, true));
  assert.deepEqual(probeBmp(v3), { width: 2, height: 3, hasAlpha: true, orientation: 1 });
  dv.setUint32(66, 0, true);
  assert.equal(probeBmp(v3).hasAlpha, false);
  const plain = craft({ width: 5, height: 4, bpp: 24, pixels: new Array(16 * 4).fill(0) });
  assert.deepEqual(probeBmp(plain), { width: 5, height: 4, hasAlpha: false, orientation: 1 });
  for (const hs of [20, 41, 100, 200]) {
    const b = plain.slice();
    new DataView(b.buffer).setUint32(14, hs, true);
    assert.throws(() => probeBmp(b), (e) => isPixfitError(e, "CORRUPT_IMAGE"));
  }
});

test("palette index beyond a short palette is CORRUPT_IMAGE; within it decodes", async () => {
  const ok = craft({ width: 2, height: 1, bpp: 8, palette: [[10, 20, 30], [40, 50, 60]], pixels: [1, 0, 0, 0] });
  assert.deepEqual([...(await decodeBmp(ok, LIMIT)).data], [40, 50, 60, 255, 10, 20, 30, 255]);
  const bad = craft({ width: 2, height: 1, bpp: 8, palette: [[10, 20, 30], [40, 50, 60]], pixels: [1, 2, 0, 0] });
  assert.equal(await errorCode(decodeBmp(bad, LIMIT)), "CORRUPT_IMAGE");
});

test("RLE8: delta-skipped pixels are transparent; a run past the row end is CORRUPT_IMAGE", async () => {
  const pal = [[255, 0, 0], [0, 255, 0]];
  // 3x2, bottom row: 2 x colour1, then EOL; top row: delta (1,0), 1 x colour0, EOBMP.
  const good = craft({ width: 3, height: 2, bpp: 8, compression: 1, palette: pal, pixels: [2, 1, 0, 0, 0, 2, 1, 0, 1, 0, 0, 1] });
  const r = await decodeBmp(good, LIMIT);
  assert.deepEqual([...r.data], [0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 0, 0, /* bottom */ 0, 255, 0, 255, 0, 255, 0, 255, 0, 0, 0, 0]);
  assert.equal(probeBmp(good).hasAlpha, true);
  const overrun = craft({ width: 3, height: 2, bpp: 8, compression: 1, palette: pal, pixels: [4, 1, 0, 1] });
  assert.equal(await errorCode(decodeBmp(overrun, LIMIT)), "CORRUPT_IMAGE");
  const pastTop = craft({ width: 3, height: 2, bpp: 8, compression: 1, palette: pal, pixels: [0, 2, 0, 5, 1, 1, 0, 1] });
  assert.equal(await errorCode(decodeBmp(pastTop, LIMIT)), "CORRUPT_IMAGE");
  const truncated = craft({ width: 3, height: 2, bpp: 8, compression: 1, palette: pal, pixels: [2, 1] });
  assert.equal(await errorCode(decodeBmp(truncated, LIMIT)), "CORRUPT_IMAGE");
});

test("every truncation of a valid file is CORRUPT_IMAGE, every byte flip is decode-or-PixfitError", async (t) => {
  const path = rows.map((r) => r.path).find((p) => /g\/(pal4rle|pal8rle|pal8os2|rgb16-565)\.bmp$/.test(p));
  if (!path) return t.skip("no suitable file in this corpus");
  const bytes = corpusFile(path);
  for (let n = 0; n < bytes.length; n += Math.max(1, Math.floor(bytes.length / 300)))
    assert.equal(await errorCode(decodeBmp(bytes.subarray(0, n), LIMIT)), "CORRUPT_IMAGE", `cut at ${n}`);
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let i = 0; i < 500; i++) {
    const b = bytes.slice();
    const k = 1 + Math.floor(rand() * 4);
    for (let j = 0; j < k; j++) b[Math.floor(rand() * Math.min(b.length, 200))] = Math.floor(rand() * 256);
    const code = await errorCode(decodeBmp(b, LIMIT));
    assert.ok(["decoded", "CORRUPT_IMAGE", "TOO_MANY_PIXELS"].includes(code), code);
  }
});

function randomRaster(width: number, height: number, alpha: boolean, seed: number): Raster {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    data[i] = seed >>> 24;
  }
  if (!alpha) for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { width, height, data };
}

test("encode: 24-bit BI_RGB when opaque, 32-bit V4 BITFIELDS when not; exact round trip at every row padding", async () => {
  for (const alpha of [false, true])
    for (let w = 1; w <= 6; w++) {
      const src = randomRaster(w, 3, alpha, w * 7 + (alpha ? 1 : 0));
      const file = await bmp.encode!(src, {});
      const v = new DataView(file.buffer, file.byteOffset);
      assert.equal(v.getUint32(14, true), alpha ? 108 : 40);
      assert.equal(v.getUint16(28, true), alpha ? 32 : 24);
      assert.equal(v.getUint32(2, true), file.length);
      assert.equal((file.length - v.getUint32(10, true)) % 4, 0);
      assert.equal(probeBmp(file).hasAlpha, alpha);
      const back = await decodeBmp(file, LIMIT);
      assert.deepEqual(back, { width: w, height: 3, data: src.data });
    }
  assert.throws(() => encodeBmp({ width: 2, height: 2, data: new Uint8Array(15) }), (e) => isPixfitError(e, "CORRUPT_IMAGE"));
});

test("encode: ImageMagick reads our files back exactly", (t) => {
  if (!imagemagick) return t.skip("ImageMagick not available");
  const tmp = mkdtempSync(join(tmpdir(), "pixfit-bmp-"));
  try {
    for (const alpha of [false, true]) {
      const src = randomRaster(7, 5, alpha, alpha ? 99 : 98);
      const path = join(tmp, `${alpha}.bmp`);
      writeFileSync(path, encodeBmp(src));
      const im = imagemagickRGBA(path);
      assert.ok(im, "ImageMagick refused the file");
      assert.deepEqual([...im.data], [...src.data]);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("codec never touches globalThis.Buffer and codecs/bmp.ts imports nothing from node:", async () => {
  assert.deepEqual(nodeOrBufferIn("../codecs/bmp.ts"), []);
  await withoutBuffer(async () => {
    const raster = randomRaster(9, 4, true, 5);
    const back = await decodeBmp(encodeBmp(raster), LIMIT);
    assert.deepEqual(back.data, raster.data);
    const rle = craft({ width: 3, height: 1, bpp: 8, compression: 1, palette: [[1, 2, 3]], pixels: [3, 0, 0, 1] });
    assert.equal((await decodeBmp(rle, LIMIT)).width, 3);
  });
});

test("corpus sanity: the BMP rows this run expects are present", () => {
  assert.ok(rows.some((r) => r.path.includes("/bmpsuite/g/")), "no g/ files");
  assert.ok(rows.some((r) => r.path.includes("/bmpsuite/b/")), "no b/ files");
  if (fullCorpus) assert.ok(rows.length >= 100, `only ${rows.length} BMP rows`);
});
