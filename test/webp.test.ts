/**
 * WEBP codec: header probe against the manifest's facts, decode parity against reference renderings
 * (image-rs/image-webp refs, libwebp's grid/peak, libwebp's own dwebp output md5s, ImageMagick), first-frame
 * decode of animations, crafted VP8X/EXIF/ANMF files, and refusal of malformed input.
 *
 * Lossy parity bar: exact (max difference 0). pixfit runs libwebp, ImageMagick here links libwebp, and
 * the libwebp test-data md5s come from libwebp's dwebp: VP8 reconstruction is bit-exact by specification
 * (RFC 6386) and all three use libwebp's default "fancy" chroma upsampling, so any difference is a defect,
 * not codec noise. The one exception is image-rs's ref for anim.webp, rendered by image-rs's own decoder
 * (checked against ImageMagick instead).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { decodeWebp, probeWebp, webp } from "../codecs/webp.js";
import { isPixfitError } from "../src/errors.js";
import type { Raster } from "../src/types.js";
import { corpusFile, corpusHas, corpusRoot, corpusRows, fullCorpus } from "./corpus.js";
import { compareRasters, dwebpMd5, errorCode, imagemagickRGBA, maxVisibleDiff, nodeOrBufferIn, pamMd5, pngjsRaster, withoutBuffer } from "./reference.js";

const LIMIT = { maxPixels: 100e6 };
const rows = corpusRows().filter((r) => r.format === "webp");
const name = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const dir = (path: string) => path.slice(0, path.lastIndexOf("/") + 1);

const pngRaster = (path: string): Raster => pngjsRaster(corpusFile(path));
const maxDiff = maxVisibleDiff;

/** The reference rendering a manifest row points to, if that file is in this corpus. */
function referenceFor(path: string, note: string): string | undefined {
  const d = dir(path);
  const candidates: string[] = [];
  const frames = /expected frames\/decode: (ref\/[\w.-]+\.png)/.exec(note); // image-webp: first frame
  if (frames) candidates.push(d + frames[1]);
  if (/reference rendering in ref\//.test(note)) candidates.push(`${d}ref/${name(path)}.png`); // image-rs
  const match = /decodes to match (\w+\.png)/.exec(note); // libwebp lossless vectors
  if (match) candidates.push(`${d}ref/${match[1]}`);
  return candidates.find(corpusHas);
}

/** Refs made by another decoder that does not agree with libwebp (see module doc). */
const FOREIGN_REFS = new Set(["webp/image-rs/extended_images/anim.webp"]);

for (const row of rows) {
  test(`${row.path.slice(5)}: probe matches the manifest, decode matches its reference`, async (t) => {
    const bytes = corpusFile(row.path);
    assert.equal(webp.sniff(bytes), true);
    const info = probeWebp(bytes);
    const size = /(\d+)x(\d+) (lossy VP8|lossless VP8L)/.exec(row.note);
    assert.ok(size, "manifest note without a size");
    assert.equal(`${info.width}x${info.height}`, `${size[1]}x${size[2]}`);
    const alpha = /VP8X extended \[[^\]]*alpha|alpha_is_used flag set/.test(row.note);
    assert.equal(info.hasAlpha, alpha);
    const orient = /EXIF orientation (\d)/.exec(row.note);
    assert.equal(info.orientation, orient ? Number(orient[1]) : 1);

    const r = await decodeWebp(bytes, LIMIT);
    assert.equal(r.width, info.width);
    assert.equal(r.height, info.height);
    assert.equal(r.data.constructor, Uint8Array);
    assert.equal(r.data.length, r.width * r.height * 4);
    // (bad_palette_index.webp: libwebp turns out-of-range palette indices into transparent black.)
    if (!alpha && !/animated/.test(row.note) && name(row.path) !== "bad_palette_index.webp") assert.ok(r.data.every((v, i) => i % 4 !== 3 || v === 255), "opaque image with alpha < 255");

    let checked = false;
    const ref = FOREIGN_REFS.has(row.path) ? undefined : referenceFor(row.path, row.note);
    if (ref) {
      assert.equal(maxDiff(r, pngRaster(ref)), 0, `differs from ${ref}`);
      checked = true;
    }
    const md5 = dwebpMd5.get(name(row.path));
    if (md5) {
      assert.equal(pamMd5(r), md5, "differs from libwebp dwebp output");
      checked = true;
    }
    const im = imagemagickRGBA(join(corpusRoot, row.path));
    // ImageMagick maps libwebp-test-data/bad_palette_index.webp's out-of-range index differently from dwebp (checked above).
    if (im && name(row.path) !== "bad_palette_index.webp") {
      assert.equal(maxDiff(r, im), 0, "differs from ImageMagick");
      checked = true;
    }
    if (!checked) t.skip("no reference rendering in this corpus and no ImageMagick");
  });
}

// ---- crafted files -------------------------------------------------------------------------------

function chunk(fourcc: string, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + payload.length + (payload.length & 1));
  for (let i = 0; i < 4; i++) out[i] = fourcc.charCodeAt(i);
  new DataView(out.buffer).setUint32(4, payload.length, true);
  out.set(payload, 8);
  return out;
}
function riff(...chunks: Uint8Array[]): Uint8Array {
  const body = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(12 + body);
  out.set([...new TextEncoder().encode("RIFF"), 0, 0, 0, 0, ...new TextEncoder().encode("WEBP")]);
  new DataView(out.buffer).setUint32(4, 4 + body, true);
  let o = 12;
  for (const c of chunks) out.set(c, (o += c.length) - c.length);
  return out;
}
function u24(v: number): number[] {
  return [v & 255, (v >> 8) & 255, v >> 16];
}
function vp8x(flags: number, w: number, h: number): Uint8Array {
  return chunk("VP8X", new Uint8Array([flags, 0, 0, 0, ...u24(w - 1), ...u24(h - 1)]));
}
/** A tiny EXIF block (little-endian TIFF) holding only Orientation. */
function exif(orientation: number): Uint8Array {
  return new Uint8Array([0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0, 0, 0, 0, 0]);
}
/** The smallest plain (RIFF + VP8L only) lossless file of this corpus, and its VP8L payload. */
function smallLossless(): { payload: Uint8Array; file: Uint8Array } {
  let best: Uint8Array | undefined;
  for (const r of rows) {
    if (!/lossless VP8L/.test(r.note)) continue;
    const f = corpusFile(r.path);
    if (new TextDecoder().decode(f.subarray(12, 16)) !== "VP8L") continue;
    const i = probeWebp(f);
    if (!best || i.width * i.height < probeWebp(best).width * probeWebp(best).height) best = f;
  }
  assert.ok(best, "no plain lossless file in this corpus");
  const size = new DataView(best.buffer, best.byteOffset).getUint32(16, true);
  return { payload: best.subarray(20, 20 + size), file: best };
}

test("VP8X with an EXIF chunk: probe reports its orientation; pixels equal the plain file's", async () => {
  const { payload, file } = smallLossless();
  const plain = probeWebp(file);
  for (const o of [1, 3, 6, 8]) {
    const x = riff(vp8x(0x08, plain.width, plain.height), chunk("VP8L", payload), chunk("EXIF", exif(o)));
    assert.deepEqual(probeWebp(x), { width: plain.width, height: plain.height, hasAlpha: false, orientation: o });
    assert.deepEqual(await decodeWebp(x, LIMIT), await decodeWebp(file, LIMIT));
  }
  // "Exif\0\0"-prefixed payloads (as some writers emit) are read too.
  const prefixed = new Uint8Array([...new TextEncoder().encode("Exif\0\0"), ...exif(5)]);
  assert.equal(probeWebp(riff(vp8x(0x08, plain.width, plain.height), chunk("VP8L", payload), chunk("EXIF", prefixed))).orientation, 5);
});

test("animated: the first frame is placed at its offset on a transparent canvas", async () => {
  const { payload, file } = smallLossless();
  const still = await decodeWebp(file, LIMIT);
  const [w, h, fx, fy] = [still.width + 6, still.height + 4, 4, 2];
  const anmf = (x: number, y: number) =>
    chunk("ANMF", new Uint8Array([...u24(x / 2), ...u24(y / 2), ...u24(still.width - 1), ...u24(still.height - 1), ...u24(100), 0, ...chunk("VP8L", payload)]));
  const anim = riff(vp8x(0x02 | 0x10, w, h), chunk("ANIM", new Uint8Array([255, 255, 255, 255, 0, 0])), anmf(fx, fy), anmf(0, 0));
  assert.deepEqual(probeWebp(anim), { width: w, height: h, hasAlpha: true, orientation: 1 });
  const r = await decodeWebp(anim, LIMIT);
  assert.equal(r.width, w);
  assert.equal(r.height, h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const inside = x >= fx && y >= fy && x < fx + still.width && y < fy + still.height;
      const got = [...r.data.subarray((y * w + x) * 4, (y * w + x) * 4 + 4)];
      const want = inside ? [...still.data.subarray(((y - fy) * still.width + x - fx) * 4, ((y - fy) * still.width + x - fx) * 4 + 4)] : [0, 0, 0, 0];
      assert.deepEqual(got, want, `pixel ${x},${y}`);
    }
  // A frame that does not fit the canvas is refused.
  const outside = riff(vp8x(0x02, still.width, still.height), chunk("ANIM", new Uint8Array(6)), anmf(2, 0));
  assert.equal(await errorCode(decodeWebp(outside, LIMIT)), "CORRUPT_IMAGE");
  // An animation without frames is refused.
  assert.equal(await errorCode(decodeWebp(riff(vp8x(0x02, 4, 4), chunk("ANIM", new Uint8Array(6))), LIMIT)), "CORRUPT_IMAGE");
});

test("maxPixels is checked against the header before the decoder runs", async () => {
  const { payload, file } = smallLossless();
  const info = probeWebp(file);
  assert.equal(await errorCode(decodeWebp(file, { maxPixels: info.width * info.height - 1 })), "TOO_MANY_PIXELS");
  assert.equal(await errorCode(decodeWebp(file, { maxPixels: info.width * info.height })), "decoded");
  // A VP8X canvas of 16384 x 16384 around a small bitstream: refused by size, nothing decoded.
  const huge = riff(vp8x(0, 16384, 16384), chunk("VP8L", payload));
  assert.deepEqual(probeWebp(huge), { width: 16384, height: 16384, hasAlpha: false, orientation: 1 });
  assert.equal(await errorCode(decodeWebp(huge, LIMIT)), "TOO_MANY_PIXELS");
  // Lossless bitstream claiming 16384 x 16384 in a plain file.
  const big = payload.slice();
  big.set([0xff, 0xff, 0xff, 0x0f], 1);
  assert.equal(await errorCode(decodeWebp(riff(chunk("VP8L", big)), LIMIT)), "TOO_MANY_PIXELS");
});

test("malformed files are CORRUPT_IMAGE from probe and decode", async () => {
  const { payload, file } = smallLossless();
  const bad: Record<string, Uint8Array> = {
    "no chunks": riff(),
    "unknown first chunk": riff(chunk("JUNK", new Uint8Array(4))),
    "bad VP8L signature": riff(chunk("VP8L", new Uint8Array([0x2e, ...payload.subarray(1)]))),
    "VP8L version 1": riff(chunk("VP8L", new Uint8Array([...payload.subarray(0, 4), payload[4] | 0x20, ...payload.subarray(5)]))),
    "VP8 without start code": riff(chunk("VP8 ", new Uint8Array([0x10, 0, 0, 1, 2, 3, 16, 0, 16, 0]))),
    "VP8 inter frame": riff(chunk("VP8 ", new Uint8Array([0x11, 0, 0, 0x9d, 1, 0x2a, 16, 0, 16, 0]))),
    "VP8X too short": riff(chunk("VP8X", new Uint8Array(4))),
    "chunk past the end": file.subarray(0, file.length - 1),
  };
  for (const [what, bytes] of Object.entries(bad)) {
    assert.throws(() => probeWebp(bytes), (e) => isPixfitError(e, "CORRUPT_IMAGE"), what);
    assert.equal(await errorCode(decodeWebp(bytes, LIMIT)), "CORRUPT_IMAGE", what);
  }
  // Header fine, bitstream garbage: libwebp refuses, wrapped as CORRUPT_IMAGE.
  const garbage = payload.slice();
  for (let i = 5; i < garbage.length; i++) garbage[i] = (i * 37) & 255;
  assert.equal(await errorCode(decodeWebp(riff(chunk("VP8L", garbage)), LIMIT)), "CORRUPT_IMAGE");
});

test("truncations and byte flips of corpus files: decode or PixfitError, never a crash", async () => {
  const paths = rows.map((r) => r.path).slice(0, 6);
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (const path of paths) {
    const bytes = corpusFile(path);
    for (let k = 1; k <= 20; k++) {
      const code = await errorCode(decodeWebp(bytes.subarray(0, Math.floor((bytes.length * k) / 21)), LIMIT));
      assert.equal(code, "CORRUPT_IMAGE", `${path} cut at ${k}/21`);
    }
    for (let i = 0; i < 30; i++) {
      const b = bytes.slice();
      for (let j = 0; j < 3; j++) b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
      const code = await errorCode(decodeWebp(b, LIMIT));
      assert.ok(["decoded", "CORRUPT_IMAGE", "TOO_MANY_PIXELS"].includes(code), `${path}: ${code}`);
    }
  }
});

test("decode needs no Buffer or ImageData global and leaves none behind; codecs import nothing from node:", async () => {
  assert.deepEqual(nodeOrBufferIn("../codecs/webp.ts", "../codecs/wasm/webp-wasm.js", "../codecs/wasm/webp-wasm.workerd.js"), []);
  const { file } = smallLossless();
  const hadImageData = "ImageData" in globalThis;
  await withoutBuffer(async () => {
    const r = await decodeWebp(file, LIMIT);
    assert.equal(r.data.length, r.width * r.height * 4);
  });
  assert.equal("ImageData" in globalThis, hadImageData);
});

test("corpus sanity: WEBP rows are present", () => {
  assert.ok(rows.length > 0, "no WEBP rows");
  if (fullCorpus) assert.ok(rows.length >= 170, `only ${rows.length} WEBP rows`);
});
