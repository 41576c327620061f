/**
 * JPEG shrink-on-load (issue 6): `decode` with a `targetWidth`/`targetHeight` hint decodes at 1/2, 1/4 or 1/8 scale in
 * the DCT domain. Checked against the full-scale decode box-averaged by the same factor (what a reduced IDCT
 * approximates), against ImageMagick's own scaled decode (`-define jpeg:size=`, libjpeg `scale_denom`) where it picks
 * the same scale, and for the hint rules and error behaviour.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { execFileSync } from "node:child_process";
import { jpeg } from "../codecs/jpeg.js";
import { isPixfitError } from "../src/errors.js";
import type { Raster } from "../src/types.js";
import { corpusFile, corpusHas, corpusRoot } from "./corpus.js";
import { compareRasters, imagemagick } from "./reference.js";

const MAX = 100e6;

/** Mean of each d×d block of `r` (partial blocks at the right/bottom edges averaged over what exists). */
function boxDown(r: Raster, d: number): Raster {
  const w = Math.ceil(r.width / d), h = Math.ceil(r.height / d);
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let c = 0; c < 4; c++) {
        let s = 0, n = 0;
        for (let yy = y * d; yy < Math.min(r.height, y * d + d); yy++)
          for (let xx = x * d; xx < Math.min(r.width, x * d + d); xx++, n++) s += r.data[(yy * r.width + xx) * 4 + c];
        out[(y * w + x) * 4 + c] = Math.round(s / n);
      }
  return { width: w, height: h, data: out };
}

/** A smooth photo-like test image (gradients and low-frequency waves), so a reduced decode has nothing to alias. */
function smooth(w: number, h: number): Raster {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      data[i] = 128 + 100 * Math.sin(x / 23) * Math.cos(y / 31);
      data[i + 1] = (255 * x) / w;
      data[i + 2] = 128 + 90 * Math.cos((x + 2 * y) / 41);
      data[i + 3] = 255;
    }
  return { width: w, height: h, data };
}

const photos = [
  "jpeg/exif-orientation/Portrait_6.jpg", // baseline 4:2:0 photo
  "jpeg/jpeg-decoder/tower.jpg",
  "jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr_2x2_1x1_1x1_interleaved.jpg",
  "jpeg/jpegsuite/baseline/32x32x8_ycbcr_2x2_2x1_1x2_interleaved.jpg",
  "jpeg/jpegsuite/baseline/32x32x8_restarts.jpg",
  "jpeg/jpegsuite/baseline/32x32x8_grayscale.jpg",
  "jpeg/jpegsuite/baseline/32x32x8_cmyk.jpg",
  "jpeg/jpegsuite/baseline/32x32x8_rgb.jpg",
].filter(corpusHas);

test("scaled decode: size is ceil(side / d) and pixels match the box-averaged full decode", async () => {
  const inputs: [string, Uint8Array][] = [
    ["synthetic 4:2:0 203×117", await jpeg.encode!(smooth(203, 117), { quality: 92 })],
    ["synthetic 4:2:0 64×64", await jpeg.encode!(smooth(64, 64), { quality: 92 })],
    ...photos.map((p) => [p, corpusFile(p)] as [string, Uint8Array]),
  ];
  for (const [name, bytes] of inputs) {
    const full = await jpeg.decode!(bytes, { maxPixels: MAX });
    for (const d of [2, 4, 8]) {
      const tw = Math.ceil(full.width / d), th = Math.ceil(full.height / d);
      const r = await jpeg.decode!(bytes, { maxPixels: MAX, targetWidth: tw, targetHeight: th });
      assert.deepEqual([r.width, r.height], [tw, th], `${name} 1/${d}`);
      for (let i = 3; i < r.data.length; i += 4) if (r.data[i] !== 255) assert.fail(`${name} 1/${d}: alpha ${r.data[i]}`);
      // A DCT-domain 1/d decode is a low-pass, a box average is another: they agree on smooth content (measured
      // 42–52 dB), less on photos (37–56 dB) and least on the suite's 32×32 test charts, whose colour edges every few
      // pixels alias differently (measured 19.7–30 dB).
      const bar = name.startsWith("synthetic") ? 38 : /jpegsuite/.test(name) ? 18 : 30;
      const psnr = compareRasters(r, boxDown(full, d)).psnr;
      assert.ok(psnr >= bar, `${name} 1/${d}: PSNR ${psnr.toFixed(1)} < ${bar} against the box-averaged full decode`);
    }
  }
});

test("scaled decode of real photos agrees with libjpeg's own scaled decode (ImageMagick jpeg:size)", async (t) => {
  if (!imagemagick) return t.skip("ImageMagick not installed");
  const list = ["jpeg/exif-orientation/Portrait_6.jpg", "jpeg/exif-orientation/Landscape_3.jpg"].filter(corpusHas);
  if (!list.length) return t.skip("no photo in the corpus subset");
  for (const p of list) {
    const bytes = corpusFile(p);
    const info = jpeg.probe!(bytes);
    for (const d of [2, 4]) {
      const tw = Math.ceil(info.width / d), th = Math.ceil(info.height / d);
      const r = await jpeg.decode!(bytes, { maxPixels: MAX, targetWidth: tw, targetHeight: th });
      const im: Uint8Array = execFileSync(imagemagick!, ["-define", `jpeg:size=${tw}x${th}`, join(corpusRoot, p), "-depth", "8", "rgba:-"], { maxBuffer: 1 << 28 });
      assert.equal(im.length, r.width * r.height * 4, `${p} 1/${d}: ImageMagick picked another scale`);
      const psnr = compareRasters(r, { width: r.width, height: r.height, data: new Uint8Array(im) }).psnr;
      // libjpeg-turbo's reduced IDCTs (jidctred.c) use more coefficients than the low S×S ones; 35 dB still rules out
      // any layout, colour or scaling bug.
      assert.ok(psnr >= 35, `${p} 1/${d}: PSNR ${psnr.toFixed(1)} vs ImageMagick`);
    }
  }
});

test("the hint: the largest of 1/8, 1/4, 1/2 that stays at least as large as the hint on both sides, else full size", async () => {
  const bytes = await jpeg.encode!(smooth(160, 96), { quality: 90 });
  const size = async (tw?: number, th?: number) => {
    const r = await jpeg.decode!(bytes, { maxPixels: MAX, targetWidth: tw, targetHeight: th });
    return [r.width, r.height];
  };
  assert.deepEqual(await size(), [160, 96]);
  assert.deepEqual(await size(80, 48), [80, 48]);
  assert.deepEqual(await size(81, 10), [160, 96]); // width needs more than half
  assert.deepEqual(await size(40, 48), [80, 48]); // height limits the scale
  assert.deepEqual(await size(20, 12), [20, 12]);
  assert.deepEqual(await size(1, 1), [20, 12]); // never below 1/8
  assert.deepEqual(await size(100, undefined), [160, 96]); // both sides are needed for the hint to apply
});

test("scaled decode keeps the error behaviour: limits from the full header, truncation is CORRUPT_IMAGE", async () => {
  const bytes = await jpeg.encode!(smooth(64, 64), { quality: 90 });
  await assert.rejects(jpeg.decode!(bytes, { maxPixels: 64 * 64 - 1, targetWidth: 8, targetHeight: 8 }), (e: unknown) => isPixfitError(e, "TOO_MANY_PIXELS"));
  const cut = bytes.subarray(0, Math.floor(bytes.length * 0.6));
  await assert.rejects(jpeg.decode!(cut, { maxPixels: MAX, targetWidth: 8, targetHeight: 8 }), (e: unknown) => isPixfitError(e, "CORRUPT_IMAGE"));
  const partial = "jpeg/jpeg-decoder/reftest/partial_progressive.jpg";
  if (corpusHas(partial))
    await assert.rejects(jpeg.decode!(corpusFile(partial), { maxPixels: MAX, targetWidth: 1, targetHeight: 1 }), (e: unknown) => isPixfitError(e, "CORRUPT_IMAGE"));
});
