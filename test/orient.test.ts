import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { applyOrientation, orientedSize } from "../src/orient.js";
import type { Raster } from "../src/types.js";
import { corpusHas, corpusRoot } from "./corpus.js";
import { imagemagick, imagemagickRGBA } from "./reference.js";

/** A 3x2 raster whose pixel with id i (row-major, 0..5) is [10i, 10i+1, 10i+2, 255-i]. */
function ids(width = 3, height = 2, offset = 0): Raster {
  const n = width * height;
  const buf = new Uint8Array(offset + n * 4);
  const data = buf.subarray(offset);
  for (let i = 0; i < n; i++) data.set([10 * i, 10 * i + 1, 10 * i + 2, 255 - i], i * 4);
  return { width, height, data };
}

/** The ids of a raster made by ids(), row by row, checking every channel. */
function idsOf(r: Raster): number[][] {
  const rows: number[][] = [];
  for (let y = 0; y < r.height; y++) {
    const row: number[] = [];
    for (let x = 0; x < r.width; x++) {
      const p = (y * r.width + x) * 4;
      const id = r.data[p] / 10;
      assert.deepEqual([...r.data.subarray(p, p + 4)], [10 * id, 10 * id + 1, 10 * id + 2, 255 - id]);
      row.push(id);
    }
    rows.push(row);
  }
  return rows;
}

// Stored:  0 1 2
//          3 4 5
// Expected upright layouts, written out by hand from EXIF 2.32 / TIFF 6.0 tag 0x0112
// (value = where stored row 0 / column 0 are displayed).
const expected: Record<number, number[][]> = {
  1: [[0, 1, 2], [3, 4, 5]],
  2: [[2, 1, 0], [5, 4, 3]], // top-right: mirror horizontal
  3: [[5, 4, 3], [2, 1, 0]], // bottom-right: rotate 180
  4: [[3, 4, 5], [0, 1, 2]], // bottom-left: mirror vertical
  5: [[0, 3], [1, 4], [2, 5]], // left-top: transpose
  6: [[3, 0], [4, 1], [5, 2]], // right-top: rotate 90 CW
  7: [[5, 2], [4, 1], [3, 0]], // right-bottom: transverse
  8: [[2, 5], [1, 4], [0, 3]], // left-bottom: rotate 270 CW
};

test("applyOrientation puts every pixel of a 3x2 raster where EXIF orientations 1-8 say", () => {
  for (let o = 1; o <= 8; o++) {
    const out = applyOrientation(ids(), o);
    assert.deepEqual(idsOf(out), expected[o], `orientation ${o}`);
    assert.equal(out.data.length, 24);
  }
});

test("applyOrientation gives the same pixels for a misaligned subarray (byteOffset 1) as for an aligned one", () => {
  for (let o = 2; o <= 8; o++) {
    const a = applyOrientation(ids(3, 2, 0), o);
    const b = applyOrientation(ids(3, 2, 1), o);
    assert.deepEqual(b, a, `orientation ${o}`);
    assert.deepEqual(idsOf(b), expected[o]);
  }
});

test("applyOrientation returns the input itself for 1 and for values that are not 2-8", () => {
  const r = ids();
  for (const o of [1, 0, 9, -1, 2.5, NaN]) assert.equal(applyOrientation(r, o), r, `orientation ${o}`);
});

test("applyOrientation does not modify its input", () => {
  const r = ids();
  const before = r.data.slice();
  for (let o = 2; o <= 8; o++) applyOrientation(r, o);
  assert.deepEqual(r.data, before);
});

test("applyOrientation undoes itself with the inverse orientation on rasters larger than one 64-pixel block", () => {
  const inverse = [0, 1, 2, 3, 4, 5, 8, 7, 6];
  const w = 131, h = 70;
  const data = new Uint8Array(w * h * 4);
  let s = 7;
  for (let i = 0; i < data.length; i++) data[i] = (s = (s * 1103515245 + 12345) >>> 0) >>> 24;
  const r: Raster = { width: w, height: h, data };
  for (let o = 2; o <= 8; o++) {
    const turned = applyOrientation(r, o);
    assert.deepEqual({ width: turned.width, height: turned.height }, orientedSize(w, h, o));
    assert.deepEqual(applyOrientation(turned, inverse[o]), r, `orientation ${o}`);
  }
});

test("applyOrientation rejects a raster whose data length does not match its size", () => {
  assert.throws(() => applyOrientation({ width: 3, height: 2, data: new Uint8Array(20) }, 6), RangeError);
});

test("orientedSize swaps width and height for 5-8 only", () => {
  for (let o = 0; o <= 9; o++)
    assert.deepEqual(orientedSize(4000, 3000, o), o >= 5 && o <= 8 ? { width: 3000, height: 4000 } : { width: 4000, height: 3000 }, `orientation ${o}`);
  assert.deepEqual(orientedSize(1, 7, 6), { width: 7, height: 1 });
});

test("applyOrientation matches ImageMagick -auto-orient on the EXIF orientation photos", (t) => {
  const names = ["Landscape", "Portrait"].flatMap((n) => [1, 2, 3, 4, 5, 6, 7, 8].map((o) => [`jpeg/exif-orientation/${n}_${o}.jpg`, o] as const));
  const present = names.filter(([p]) => corpusHas(p));
  if (!imagemagick || present.length === 0) return t.skip("needs ImageMagick and the exif-orientation photos");
  for (const [path, o] of present) {
    const file = join(corpusRoot, path);
    const stored = imagemagickRGBA(file);
    assert.ok(stored, path);
    const upright = applyOrientation(stored, o);
    const size = execFileSync(imagemagick, [file, "-auto-orient", "-format", "%w %h", "info:"], { encoding: "utf8" }).trim();
    assert.equal(`${upright.width} ${upright.height}`, size, path);
    const ref = execFileSync(imagemagick, [file, "-auto-orient", "-depth", "8", "rgba:-"], { maxBuffer: 1 << 30 });
    // Pixels are only moved, so the match must be exact.
    assert.ok(Buffer.compare(Buffer.from(upright.data.buffer, upright.data.byteOffset, upright.data.length), ref) === 0, `${path}: pixels differ from ImageMagick -auto-orient`);
  }
});
