/** GIF codec: corpus parity (pygif .rgba, peterdn / image-rs reference PNGs, ImageMagick), error codes, limits, encoder. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gif } from "../codecs/gif.js";
import { png } from "../codecs/png.js";
import { isPixfitError } from "../src/errors.js";
import type { Raster } from "../src/types.js";
import { corpusFile, corpusHas, corpusRoot, corpusRows, fullCorpus } from "./corpus.js";
import { compareRasters, imagemagick, withoutBuffer } from "./reference.js";

const LIMIT = { maxPixels: 100e6 };

async function outcome(bytes: Uint8Array, maxPixels = LIMIT.maxPixels): Promise<Raster | string> {
  try {
    return await gif.decode!(bytes, { maxPixels });
  } catch (err) {
    if (!isPixfitError(err)) throw err;
    return err.code;
  }
}

/** Exact RGBA equality, except that RGB of fully transparent pixels is not compared. */
function assertSamePixels(a: Raster, b: Raster, what: string): void {
  assert.equal(`${a.width}x${a.height}`, `${b.width}x${b.height}`, `${what}: size`);
  for (let i = 0; i < a.data.length; i += 4) {
    const same =
      a.data[i + 3] === b.data[i + 3] &&
      (a.data[i + 3] === 0 || (a.data[i] === b.data[i] && a.data[i + 1] === b.data[i + 1] && a.data[i + 2] === b.data[i + 2]));
    if (!same) assert.fail(`${what}: pixel ${i / 4} is ${a.data.subarray(i, i + 4)} vs ${b.data.subarray(i, i + 4)}`);
  }
}

/** ImageMagick's first frame, coalesced onto the full logical screen (8-bit RGBA), or null. */
function imagemagickFrame0(path: string): Raster | null {
  if (!imagemagick) return null;
  try {
    const [w, h] = execFileSync(imagemagick, [`${path}[0]`, "-coalesce", "-format", "%w %h", "info:"], { encoding: "utf8" })
      .trim()
      .split(" ")
      .map(Number);
    const d = execFileSync(imagemagick, [`${path}[0]`, "-coalesce", "-depth", "8", "rgba:-"], { maxBuffer: 1 << 28 });
    return { width: w, height: h, data: new Uint8Array(d.buffer, d.byteOffset, d.length) };
  } catch {
    return null;
  }
}

// ---- pygif (Robert Ancell's suite: .conf + ref/*.rgba); only in the full corpus (CC-BY-SA, not copied) ----

/**
 * pygif files where pixfit deliberately differs from the suite's expectation:
 * - no-data.gif: no image at all; pixfit reports CORRUPT_IMAGE (nothing to show) instead of a transparent frame.
 * - plain-text.gif: the suite expects no frames; pixfit skips the plain-text extension and shows the image.
 * - images-overlap.gif: two zero-delay full-screen images; like browsers, pixfit shows the first
 *   (gif87a-animation / animation-zero-delays need that rule; the suite wants the second here).
 */
const PYGIF_DEVIATIONS: Record<string, string> = {
  "no-data.gif": "CORRUPT_IMAGE",
  "plain-text.gif": "ok",
  "images-overlap.gif": "first image",
};

const pygif = corpusRows().filter((r) => r.format === "gif" && r.path.startsWith("gif/pygif/"));
for (const row of pygif) {
  const name = row.path.split("/").pop()!;
  test(`pygif ${name}`, async () => {
    const conf = readFileSync(join(corpusRoot, row.path.replace(/\.gif$/, ".conf")), "utf8");
    const frame0 = /\[frame0\][^[]*?pixels = (\S+)/.exec(conf);
    const got = await outcome(corpusFile(row.path));
    const dev = PYGIF_DEVIATIONS[name];
    if (dev === "CORRUPT_IMAGE") return void assert.equal(got, "CORRUPT_IMAGE");
    if (dev === "ok") return void assert.ok(typeof got !== "string");
    if (!frame0) {
      // "no frames": rejected, by the pixel limit for the 65535x65535 screen
      assert.equal(got, name === "max-size.gif" ? "TOO_MANY_PIXELS" : "CORRUPT_IMAGE");
      return;
    }
    assert.ok(typeof got !== "string", `decode failed: ${got}`);
    const w = Number(/width = (\d+)/.exec(conf)![1]);
    const h = Number(/height = (\d+)/.exec(conf)![1]);
    const ref = new Uint8Array(readFileSync(join(corpusRoot, "gif/pygif/ref", frame0[1])));
    if (dev === "first image") {
      assert.notDeepEqual(got.data, ref);
      return;
    }
    assert.equal(`${got.width}x${got.height}`, `${w}x${h}`);
    assert.deepEqual(got.data, ref);
  });
}

// ---- reference renderings: peterdn frames/<name>-0.png, image-rs ref/<name>.gif.png ----------------------

const gifRows = corpusRows().filter((r) => r.format === "gif" && !r.path.startsWith("gif/pygif/"));

test("corpus has GIF rows", () => {
  assert.ok(gifRows.length >= (fullCorpus ? 60 : 30), `only ${gifRows.length} GIF rows`);
});

function referenceFor(path: string): string | undefined {
  const name = path.split("/").pop()!;
  const dir = path.slice(0, -name.length);
  return [`${dir}ref/${name}.png`, `${dir}frames/${name.replace(/\.gif$/, "-0.png")}`, `${dir}frames/${name.replace(/\.gif$/, ".png")}`].find(
    corpusHas,
  );
}

/** Expected errors (manifest "expected: error..." or bombs), by path. */
const ERRORS: Record<string, string> = {
  "gif/image-gif/issue-117-out-of-range.gif": "CORRUPT_IMAGE", // LZW minimum code size 0
  "gif/image-gif/issue-96-small-codesize.gif": "CORRUPT_IMAGE", // 185x0 screen
  "gif/image-gif/issue-96-small-codesize-2.gif": "TOO_MANY_PIXELS", // 11390x12595 screen
  "gif/pillow/no_palette.gif": "CORRUPT_IMAGE", // no global or local colour table
  "gif/pillow/zero_width.gif": "CORRUPT_IMAGE", // 0x32 screen
  "misc/decompression_bomb.gif": "TOO_MANY_PIXELS",
  "misc/decompression_bomb_extents.gif": "TOO_MANY_PIXELS",
  "misc/issue-101-infinite-empty-loop.gif": "TOO_MANY_PIXELS",
};

/**
 * Files whose first frame is a zero-delay image followed by another image: pixfit composites both
 * (GIF89a §23, as the pygif suite expects), ImageMagick shows the first image alone.
 */
const ZERO_DELAY_GROUP = new Set(["gif/pillow/dispose_prev.gif", "gif/pillow/iss634.gif"]);

for (const row of gifRows) {
  test(`decode ${row.path}`, async (t) => {
    const bytes = corpusFile(row.path);
    const got = await outcome(bytes);
    if (row.path in ERRORS) return void assert.equal(got, ERRORS[row.path]);
    assert.ok(typeof got !== "string", `decode failed: ${got}`);
    const info = gif.probe!(bytes);
    assert.equal(`${info.width}x${info.height}`, `${got.width}x${got.height}`);
    let translucent = false;
    for (let i = 3; i < got.data.length; i += 4) if (got.data[i] !== 255) translucent = true;
    if (translucent) assert.ok(info.hasAlpha, "probe.hasAlpha must be true when pixels are transparent");
    const refPath = referenceFor(row.path);
    if (refPath) {
      assertSamePixels(got, await png.decode!(corpusFile(refPath), LIMIT), `vs ${refPath}`);
      return;
    }
    if (ZERO_DELAY_GROUP.has(row.path)) return;
    const im = imagemagickFrame0(join(corpusRoot, row.path));
    if (!im) return t.skip("no reference rendering and ImageMagick is not installed");
    assertSamePixels(got, im, "vs ImageMagick");
  });
}

test("a 40000-frame GIF is decoded (only frame 0 is decoded)", async (t) => {
  if (!corpusHas("misc/uber.gif")) return t.skip("misc/uber.gif is only in the full corpus");
  const r = await gif.decode!(corpusFile("misc/uber.gif"), LIMIT);
  assert.equal(`${r.width}x${r.height}`, "1x1");
});

test("maxPixels covers the logical screen and every frame's extent", async () => {
  const b = corpusFile("gif/peterdn/static_transparent.gif"); // 100x100
  assert.equal(await outcome(b, 9999), "TOO_MANY_PIXELS");
  assert.equal(typeof (await outcome(b, 10000)), "object");
  const oob = corpusFile("gif/image-rs/anim/oob.gif"); // 32x32 screen, frame to 40x40
  assert.equal(await outcome(oob, 32 * 32), "TOO_MANY_PIXELS");
  assert.equal(typeof (await outcome(oob, 40 * 40)), "object");
});

test("every truncation of a valid file ends with a raster or CORRUPT_IMAGE", async () => {
  const b = corpusFile("gif/peterdn/animated_loop_interlaced.gif");
  for (let n = 0; n < b.length; n += 7) {
    const got = await outcome(b.subarray(0, n));
    assert.ok(typeof got !== "string" || got === "CORRUPT_IMAGE", `length ${n}: ${got}`);
  }
});

test("probe: screen size, transparency, orientation 1", () => {
  assert.deepEqual(gif.probe!(corpusFile("gif/peterdn/static_transparent.gif")), { width: 100, height: 100, hasAlpha: true, orientation: 1 });
  assert.deepEqual(gif.probe!(corpusFile("gif/peterdn/static_nontransparent.gif")), { width: 100, height: 100, hasAlpha: false, orientation: 1 });
  assert.throws(() => gif.probe!(new TextEncoder().encode("GIF89a")), (e) => isPixfitError(e, "CORRUPT_IMAGE"));
});

// ---- crafted LZW cases (GIF89a Appendix F) ---------------------------------------------------------------

/** A 2x1 GIF89a with a 4-colour global table and the given LZW bytes (min code size first). */
function tiny(lzw: number[]): Uint8Array {
  const head = [...new TextEncoder().encode("GIF89a"), 2, 0, 1, 0, 0x81, 0, 0];
  const pal = [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255];
  const img = [0x2c, 0, 0, 0, 0, 2, 0, 1, 0, 0];
  return new Uint8Array([...head, ...pal, ...img, lzw[0], lzw.length - 1, ...lzw.slice(1), 0, 0x3b]);
}
// codes are 3 bits with min size 2: clear=4, eoi=5. Pack LSB-first.
function pack(codes: number[], bits = 3): number[] {
  let acc = 0, n = 0;
  const out: number[] = [];
  for (const c of codes) {
    acc |= c << n;
    n += bits;
    while (n >= 8) (out.push(acc & 255), (acc >>= 8), (n -= 8));
  }
  if (n) out.push(acc & 255);
  return out;
}

test("LZW: valid stream, missing pixels, invalid code, bad minimum code size", async () => {
  const ok = (await outcome(tiny([2, ...pack([4, 1, 2, 5])]))) as Raster;
  assert.deepEqual([...ok.data], [255, 0, 0, 255, 0, 255, 0, 255]);
  const short = (await outcome(tiny([2, ...pack([4, 1, 5])]))) as Raster;
  assert.deepEqual([...short.data], [255, 0, 0, 255, 0, 0, 0, 0]);
  assert.equal(await outcome(tiny([2, ...pack([4, 1, 7, 5])])), "CORRUPT_IMAGE"); // 7 is not yet defined
  assert.equal(await outcome(tiny([0, ...pack([4, 1, 5])])), "CORRUPT_IMAGE");
  assert.equal(await outcome(tiny([12, 0])), "CORRUPT_IMAGE");
});

// ---- encoder ----------------------------------------------------------------------------------------------


function paletteRaster(w: number, h: number, colours: number, transparent: boolean): Raster {
  const data = new Uint8Array(w * h * 4);
  for (let i = 0; i < w * h; i++) {
    const c = (i * 7919) % colours;
    data[i * 4] = (c * 37) & 255;
    data[i * 4 + 1] = (c * 101) & 255;
    data[i * 4 + 2] = c;
    data[i * 4 + 3] = transparent && i % 5 === 0 ? 0 : 255;
    if (data[i * 4 + 3] === 0) data[i * 4] = data[i * 4 + 1] = data[i * 4 + 2] = 0;
  }
  return { width: w, height: h, data };
}

test("encode: a ≤256-colour image round-trips exactly, with and without transparency, without Buffer", async () => {
  for (const [colours, transparent] of [
    [2, false],
    [256, false],
    [255, true],
    [1, true],
  ] as const) {
    const r = paletteRaster(37, 19, colours, transparent);
    const bytes = await withoutBuffer(() => gif.encode!(r, {}));
    const back = await withoutBuffer(() => gif.decode!(bytes, LIMIT));
    assert.deepEqual(back.data, r.data, `${colours} colours, transparent=${transparent}`);
  }
});

test("encode: a photo-like image is quantised to ≤256 colours with good PSNR", async () => {
  const w = 96, h = 64;
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * 4;
      data[o] = (x * 255) / w;
      data[o + 1] = (y * 255) / h;
      data[o + 2] = ((x + y) * 127) / (w + h);
      data[o + 3] = 255;
    }
  const r = { width: w, height: h, data };
  const back = await gif.decode!(await gif.encode!(r, {}), LIMIT);
  const colours = new Set<number>();
  for (let i = 0; i < back.data.length; i += 4) colours.add((back.data[i] << 16) | (back.data[i + 1] << 8) | back.data[i + 2]);
  assert.ok(colours.size <= 256);
  assert.ok(compareRasters(back, r).psnr > 30, `psnr ${compareRasters(back, r).psnr}`);
});

test("encoded GIF decodes identically with ImageMagick", async (t) => {
  if (!imagemagick) return t.skip("ImageMagick not installed");
  const dir = mkdtempSync(join(tmpdir(), "pixfit-gif-"));
  const r = paletteRaster(23, 11, 200, true);
  const path = join(dir, "x.gif");
  writeFileSync(path, await gif.encode!(r, {}));
  assertSamePixels(imagemagickFrame0(path)!, r, "ImageMagick");
});
