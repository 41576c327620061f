import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { writeFileSync, mkdtempSync } from "node:fs";
import { prepare } from "../src/prepare.js";
import { PixfitError, type ErrorCode } from "../src/errors.js";
import { png } from "../codecs/png.js";
import { jpeg } from "../codecs/jpeg.js";
import { gif } from "../codecs/gif.js";
import { bmp } from "../codecs/bmp.js";
import type { Raster } from "../src/types.js";
import { compareRasters, imagemagickRGBA } from "./reference.js";
import { corpusFile, corpusHas } from "./corpus.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "pipeline");
const BACKGROUNDS = "/usr/share/backgrounds";

/** A deterministic test picture: gradients and hard edges, opaque unless `alpha` is set. */
function picture(width: number, height: number, alpha = false, smooth = false): Raster {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = (x * 255) / Math.max(1, width - 1);
      data[i + 1] = (y * 255) / Math.max(1, height - 1);
      data[i + 2] = smooth ? 128 + 100 * Math.sin((x + 2 * y) / 9) : (x >> 3) % 2 === (y >> 3) % 2 ? 200 : 40;
      data[i + 3] = alpha ? (x < width / 2 ? 255 : 0) : 255;
    }
  return { width, height, data };
}

async function rejects(p: Promise<unknown>, code: ErrorCode, message?: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof PixfitError, `expected PixfitError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

/** Inserts an APP1 EXIF segment with the given orientation right after a JPEG's SOI. */
function withOrientation(jpg: Uint8Array, orientation: number): Uint8Array {
  // TIFF header (big-endian), IFD0 with one entry: tag 0x0112, type SHORT, count 1, value.
  const tiff = [0x4d, 0x4d, 0, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0];
  const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
  const len = payload.length + 2;
  const seg = [0xff, 0xe1, len >> 8, len & 255, ...payload];
  return new Uint8Array([...jpg.subarray(0, 2), ...seg, ...jpg.subarray(2)]);
}

test("an image that already fits passes through byte for byte, for every format", async () => {
  const raster = picture(64, 48, true);
  const inputs: [string, Uint8Array][] = [
    ["image/png", await png.encode!(raster, {})],
    ["image/jpeg", await jpeg.encode!(raster, { quality: 90 })],
    ["image/gif", await gif.encode!(raster, {})],
    ["image/bmp", await bmp.encode!(raster, {})],
    ["image/webp", new Uint8Array(readFileSync(join(FIXTURES, "lossy_alpha.webp")))],
  ];
  for (const [mediaType, bytes] of inputs) {
    const copy = bytes.slice();
    const r = await prepare(bytes);
    assert.equal(r.mediaType, mediaType);
    assert.equal(r.bytes, bytes, `${mediaType}: the very same array comes back`);
    assert.deepEqual(bytes, copy, "input not mutated");
    assert.equal(r.resized, false);
    assert.equal(r.transcoded, false);
    assert.equal(r.orientation, 1);
    assert.deepEqual(r.original, { mediaType, width: r.width, height: r.height, byteLength: bytes.length });
  }
});

test("PDF passes through unchanged", async () => {
  const pdf = new TextEncoder().encode("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
  const r = await prepare(pdf);
  assert.equal(r.mediaType, "application/pdf");
  assert.equal(r.bytes, pdf);
  assert.deepEqual(r.original, { mediaType: "application/pdf", width: 0, height: 0, byteLength: pdf.length });
});

test("too large images are resized to fit, aspect kept, same codec out", async () => {
  const cases: [string, Uint8Array, number, number][] = [
    ["image/png", await png.encode!(picture(300, 120, true), {}), 100, 40],
    ["image/jpeg", await jpeg.encode!(picture(300, 120), { quality: 90 }), 100, 40],
    ["image/gif", await gif.encode!(picture(120, 300), {}), 40, 100],
    ["image/bmp", await bmp.encode!(picture(301, 101), {}), 100, 34],
  ];
  for (const [mediaType, bytes, w, h] of cases) {
    const r = await prepare(bytes, { maxWidth: 100, maxHeight: 100 });
    assert.equal(r.mediaType, mediaType);
    assert.equal(r.width, w, mediaType);
    assert.equal(r.height, h, mediaType);
    assert.equal(r.resized, true);
    assert.equal(r.transcoded, false);
    const back = await ({ "image/png": png, "image/jpeg": jpeg, "image/gif": gif, "image/bmp": bmp } as const)[mediaType as "image/png"].decode!(r.bytes, { maxPixels: 1e8 });
    assert.equal(back.width, w);
    assert.equal(back.height, h);
  }
});

test("PNG keeps its alpha through a resize and fully transparent pixels carry no colour", async () => {
  const r = await prepare(await png.encode!(picture(400, 200, true), {}), { maxWidth: 100, maxHeight: 100 });
  const out = await png.decode!(r.bytes, { maxPixels: 1e8 });
  assert.equal(out.data[3], 255, "left edge opaque");
  const last = out.data.length - 4;
  assert.equal(out.data[last + 3], 0, "right edge transparent");
  assert.deepEqual([...out.data.subarray(last, last + 3)], [0, 0, 0]);
});

test("WEBP that must be re-encoded becomes JPEG", async () => {
  const bytes = new Uint8Array(readFileSync(join(FIXTURES, "lossy_alpha.webp")));
  const r = await prepare(bytes, { maxWidth: 50, maxHeight: 50 });
  assert.equal(r.mediaType, "image/jpeg");
  assert.equal(r.transcoded, true);
  assert.equal(r.resized, true);
  assert.equal(r.original.mediaType, "image/webp");
  assert.ok(Math.max(r.width, r.height) === 50);
});

test("EXIF orientations 1-8 come out upright, with the orientation reported and no resize needed", async () => {
  // Stored pixels for orientation o are the upright picture transformed by the inverse of o's display transform.
  const upright = picture(48, 32, false, true);
  const stored: Record<number, Raster> = {};
  const { applyOrientation } = await import("../src/orient.js");
  const inverse = [0, 1, 2, 3, 4, 5, 8, 7, 6];
  for (let o = 1; o <= 8; o++) stored[o] = applyOrientation(upright, inverse[o]);
  for (let o = 1; o <= 8; o++) {
    const base = await jpeg.encode!(stored[o], { quality: 95 });
    const bytes = withOrientation(base, o);
    const r = await prepare(bytes);
    assert.equal(r.orientation, o);
    assert.equal(r.width, 48, `orientation ${o}`);
    assert.equal(r.height, 32, `orientation ${o}`);
    assert.equal(r.resized, false);
    if (o === 1) assert.equal(r.bytes, bytes, "orientation 1 passes through");
    const out = await jpeg.decode!(r.bytes, { maxPixels: 1e8 });
    const cmp = compareRasters(out, upright);
    assert.ok(cmp.psnr > 35, `orientation ${o}: PSNR ${cmp.psnr.toFixed(1)} dB against the upright picture`);
  }
});

test("the EXIF orientation photo set comes out upright", async (t) => {
  if (!corpusHas("jpeg/exif-orientation/Landscape_1.jpg")) return t.skip("exif-orientation set not available");
  const reference = await jpeg.decode!(corpusFile("jpeg/exif-orientation/Landscape_1.jpg"), { maxPixels: 1e8 });
  for (let o = 2; o <= 8; o++) {
    const path = `jpeg/exif-orientation/Landscape_${o}.jpg`;
    if (!corpusHas(path)) continue;
    const r = await prepare(corpusFile(path));
    assert.equal(r.orientation, o);
    assert.deepEqual([r.width, r.height], [1800, 1200]);
    const cmp = compareRasters(await jpeg.decode!(r.bytes, { maxPixels: 1e8 }), reference);
    assert.ok(cmp.psnr > 25, `${path}: PSNR ${cmp.psnr.toFixed(1)} dB`);
  }
});

test("typed errors for bad input", async () => {
  await rejects(prepare(new Uint8Array()), "EMPTY_INPUT");
  await rejects(prepare(new TextEncoder().encode("just some text")), "UNSUPPORTED_FORMAT", /not PNG, JPEG, GIF, BMP, WEBP or PDF/);
  await rejects(prepare(new Uint8Array([0, 0, 0, 24, ...new TextEncoder().encode("ftypheic\0\0\0\0mif1heic")])), "UNSUPPORTED_FORMAT", /^HEIC images are not supported/);
  const jpg = await jpeg.encode!(picture(64, 64), {});
  await rejects(prepare(jpg, { maxInputBytes: 100 }), "INPUT_TOO_LARGE", /100 bytes/);
  await rejects(prepare(jpg, { maxInputPixels: 64 * 64 - 1 }), "TOO_MANY_PIXELS", /64 × 64/);
  await rejects(prepare(jpg.subarray(0, 20)), "CORRUPT_IMAGE");
  const big = await png.encode!(picture(200, 10), {});
  await rejects(prepare(big.subarray(0, big.length - 40), { maxWidth: 50 }), "CORRUPT_IMAGE");
});

test("a header declaring a huge image is refused before decoding", async () => {
  // A GIF and a JPEG that declare 65535 x 65535 pixels in a few hundred bytes.
  const g = (await gif.encode!(picture(4, 4), {})).slice();
  g.set([0xff, 0xff, 0xff, 0xff], 6);
  const j = (await jpeg.encode!(picture(4, 4), {})).slice();
  const sof = j.findIndex((v, i) => v === 0xff && j[i + 1] === 0xc0);
  assert.ok(sof > 0);
  j.set([0xff, 0xff, 0xff, 0xff], sof + 5);
  for (const forged of [g, j]) {
    await rejects(prepare(forged), "TOO_MANY_PIXELS", /65535 × 65535/);
  }
});

const bg = (p: string) => join(BACKGROUNDS, p);
const real: [string, string, number, number, string][] = [
  ["mate/abstract/Elephants_5640x3172.jpg", "image/jpeg", 2000, 1125, "JPEG"],
  ["gnome/adwaita-l.webp", "image/jpeg", 2000, 2000, "JPEG"],
  ["mate/abstract/Arc-Colors-Transparent-Wallpaper.png", "image/png", 2000, 1121, "PNG"],
];
for (const [path, mediaType, w, h, im] of real) {
  test(`real image ${path} → ${w}x${h} ${mediaType}, decodable by ImageMagick`, async (t) => {
    if (!existsSync(bg(path))) return t.skip(`${bg(path)} not installed (apt-get install mate-backgrounds gnome-backgrounds)`);
    const bytes = new Uint8Array(readFileSync(bg(path)));
    const r = await prepare(bytes);
    assert.equal(r.mediaType, mediaType);
    assert.deepEqual([r.width, r.height], [w, h]);
    assert.equal(r.resized, true);
    const dir = mkdtempSync(join(tmpdir(), "pixfit-"));
    const file = join(dir, "out");
    writeFileSync(file, r.bytes);
    const ref = imagemagickRGBA(file);
    if (!ref) return t.skip("ImageMagick not available to cross-check");
    assert.deepEqual([ref.width, ref.height], [w, h], `ImageMagick reads the ${im} output`);
  });
}

test("options out of range are INVALID_OPTION, before any work", async () => {
  const jpg = await jpeg.encode!(picture(8, 8), {});
  const bad: [string, object][] = [
    ["maxWidth", { maxWidth: -5 }], ["maxHeight", { maxHeight: 0 }], ["maxWidth", { maxWidth: 1.5 }],
    ["jpegQuality", { jpegQuality: 0 }], ["jpegQuality", { jpegQuality: 500 }], ["jpegQuality", { jpegQuality: 80.5 }],
    ["filter", { filter: "nope" }], ["maxInputBytes", { maxInputBytes: -1 }], ["maxInputPixels", { maxInputPixels: Number.NaN }],
  ];
  for (const [name, options] of bad) await rejects(prepare(jpg, options), "INVALID_OPTION", new RegExp(`^${name} must be`));
  assert.equal((await prepare(jpg, { maxWidth: Infinity, jpegQuality: 100 })).bytes, jpg);
});

test("maxDecodePixels bounds the raster the decoder allocates, counting JPEG shrink-on-load", async () => {
  const jpg = await jpeg.encode!(picture(400, 300), {});
  // fit 100 x 75: the JPEG decodes at 1/4 scale, 100 x 75 = 7500 pixels
  const r = await prepare(jpg, { maxWidth: 100, maxHeight: 100, maxDecodePixels: 7500 });
  assert.deepEqual([r.width, r.height], [100, 75]);
  await rejects(prepare(jpg, { maxWidth: 100, maxHeight: 100, maxDecodePixels: 7499 }), "TOO_MANY_PIXELS", /100 × 75 raster; the limit \(maxDecodePixels\) is 7499/);
  // a PNG decodes at full size
  const p = await png.encode!(picture(400, 300), {});
  await rejects(prepare(p, { maxWidth: 100, maxHeight: 100, maxDecodePixels: 400 * 300 - 1 }), "TOO_MANY_PIXELS", /400 × 300 raster/);
  assert.equal((await prepare(p, { maxWidth: 100, maxHeight: 100, maxDecodePixels: 400 * 300 })).width, 100);
});

test("JPEG variants pixfit cannot decode are refused even when they fit, naming the variant", async () => {
  const cases: [string, RegExp][] = [
    ["jpeg/jpegsuite/extended_arithmetic/32x32x8_grayscale.jpg", /arithmetic/i],
    ["jpeg/jpegsuite/lossless_huffman/32x32x8_grayscale.jpg", /lossless/i],
    ["jpeg/jpegsuite/extended_huffman/8x8x12_grayscale_check.jpg", /^12-bit sample precision JPEG is not supported/],
    ["jpeg/jpegsuite/ls/32x32x8_grayscale.jpg", /JPEG-LS/],
  ];
  for (const [path, message] of cases) {
    const bytes = corpusFile(path);
    await rejects(prepare(bytes), "UNSUPPORTED_FORMAT", message);
  }
});
