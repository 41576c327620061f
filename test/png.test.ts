/** PNG codec: corpus parity against pngjs, error codes, limits, encoder round trips. */
import { test } from "node:test";
import { pngChunk, pngFile, pngIend, pngIhdr } from "./png-craft.js";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { zlibSync } from "fflate";
import { png } from "../codecs/png.js";
import { isPixfitError } from "../src/errors.js";
import type { Raster } from "../src/types.js";
import { corpusFile, corpusHas, corpusRoot, corpusRows, fullCorpus } from "./corpus.js";
import { compareRasters, imagemagick, imagemagickRGBA, withoutBuffer } from "./reference.js";

const LIMIT = { maxPixels: 100e6 };

/** Decoding outcome we expect for corpus files whose manifest note is not a plain "valid"/"decodes". */
const OVERRIDES: Record<string, "ok" | "CORRUPT_IMAGE" | "TOO_MANY_PIXELS"> = {
  // APNG errors concern later frames; the default image (all pixfit decodes) is intact.
  "png/apng/pillow/chunk_no_fctl.png": "ok",
  "png/apng/pillow/chunk_no_fdat.png": "ok",
  "png/apng/pillow/chunk_repeat_fctl.png": "ok",
  "png/apng/pillow/sequence_gap.png": "ok",
  "png/apng/pillow/syntax_num_frames_high.png": "ok",
  // acTL but no IDAT at all: nothing to show.
  "png/apng/pillow/syntax_num_frames_zero.png": "CORRUPT_IMAGE",
  // "error or partial decode": pixfit chooses the error.
  "png/pillow/truncated_end_chunk.png": "CORRUPT_IMAGE",
  "png/pillow/truncated_image.png": "CORRUPT_IMAGE",
  "png/sharp/truncated.png": "CORRUPT_IMAGE",
  // iCCP is ignored, so its unknown compression method does not matter.
  "png/pillow/unknown_compression_method.png": "ok",
  // zTXt is never inflated, so the text bomb costs nothing.
  "misc/png_decompression_dos.png": "ok",
};

function expectedOutcome(path: string, expected: string): "ok" | "CORRUPT_IMAGE" | "TOO_MANY_PIXELS" {
  if (path in OVERRIDES) return OVERRIDES[path];
  if (/rejected by pixel limit/.test(expected)) return "TOO_MANY_PIXELS";
  if (/^(decode )?error/.test(expected)) return "CORRUPT_IMAGE";
  return "ok";
}

/** pngjs reference decode (zeroes RGB of colour-key-transparent pixels, so compare RGB only where alpha > 0). */
function pngjsRGBA(bytes: Uint8Array): Raster | null {
  try {
    const p = PNG.sync.read(Buffer.from(bytes));
    return { width: p.width, height: p.height, data: new Uint8Array(p.data) };
  } catch {
    return null;
  }
}

function assertSamePixels(a: Raster, b: Raster, what: string): void {
  assert.equal(a.width, b.width, `${what}: width`);
  assert.equal(a.height, b.height, `${what}: height`);
  for (let i = 0; i < a.data.length; i += 4) {
    const same =
      a.data[i + 3] === b.data[i + 3] &&
      (a.data[i + 3] === 0 || (a.data[i] === b.data[i] && a.data[i + 1] === b.data[i + 1] && a.data[i + 2] === b.data[i + 2]));
    if (!same) assert.fail(`${what}: pixel ${i / 4} is ${a.data.subarray(i, i + 4)} vs ${b.data.subarray(i, i + 4)}`);
  }
}

async function outcome(bytes: Uint8Array): Promise<Raster | string> {
  try {
    return await png.decode!(bytes, LIMIT);
  } catch (err) {
    if (!isPixfitError(err)) throw err;
    return err.code;
  }
}

/** Files pngjs cannot read (it rejects them) whose pixels are checked against ImageMagick instead. */
const IM_REFERENCE = new Set(["png/pillow/hopper_idat_after_image_end.png", "png/pillow/padded_idat.png", "png/pillow/tRNS_null_1x1.png"]);

const rows = corpusRows().filter(
  (r) => r.format === "png" && (r.path.startsWith("png/") || r.path.startsWith("misc/")) && !r.path.includes("/ref/"),
);

test("corpus has PNG rows", () => {
  assert.ok(rows.length >= (fullCorpus ? 250 : 150), `only ${rows.length} PNG rows`);
});

for (const row of rows) {
  test(`decode ${row.path}`, async () => {
    const bytes = corpusFile(row.path);
    const want = expectedOutcome(row.path, row.expected);
    const got = await outcome(bytes);
    if (want !== "ok") {
      assert.equal(typeof got === "string" ? got : "ok", want);
      return;
    }
    assert.ok(typeof got !== "string", `decode failed: ${got}`);
    assert.equal(got.data.length, got.width * got.height * 4);
    const info = png.probe!(bytes);
    assert.equal(info.width, got.width);
    assert.equal(info.height, got.height);
    let translucent = false;
    for (let i = 3; i < got.data.length; i += 4) if (got.data[i] !== 255) translucent = true;
    if (translucent) assert.ok(info.hasAlpha, "probe.hasAlpha must be true when pixels are not opaque");
    if (row.path === "png/image-png/invalid_palette_index.png") {
      // Indices past PLTE: opaque black (libpng's zero-filled palette); pngjs refuses and ImageMagick errors.
      const plte = new Set<string>();
      const pl = bytes.subarray(0x29, 0x29 + 0x33);
      for (let i = 0; i < pl.length; i += 3) plte.add(`${pl[i]},${pl[i + 1]},${pl[i + 2]}`);
      let black = 0;
      for (let i = 0; i < got.data.length; i += 4) {
        assert.equal(got.data[i + 3], 255);
        const rgb = `${got.data[i]},${got.data[i + 1]},${got.data[i + 2]}`;
        assert.ok(plte.has(rgb) || rgb === "0,0,0", rgb);
        if (rgb === "0,0,0") black++;
      }
      assert.ok(black > 0);
      return;
    }
    if (IM_REFERENCE.has(row.path)) {
      const ref = imagemagickRGBA(join(corpusRoot, row.path));
      if (!ref) return void assert.ok(imagemagick === null, "ImageMagick refused the file");
      assertSamePixels(got, ref, "vs ImageMagick");
      return;
    }
    const ref = pngjsRGBA(bytes);
    assert.ok(ref, "pngjs could not decode this file; add it to a reference list");
    assertSamePixels(got, ref, "vs pngjs");
  });
}

test("APNG: the default image is decoded, matching the first animation frame when it is part of the animation", async (t) => {
  if (!corpusHas("png/apng/wpt/fcTL-dispose-in-region-none.png")) return t.skip("APNG files are not in the fixtures subset");
  for (const name of ["dispose-background-blend-source", "fcTL-dispose-in-region-none", "fcTL-blend-source-transparent"]) {
    const got = await png.decode!(corpusFile(`png/apng/wpt/${name}.png`), LIMIT);
    const ref = await png.decode!(corpusFile(`png/apng/wpt/ref/${name}.png.anim_01.png`), LIMIT);
    assert.equal(compareRasters(got, ref).max, 0, name);
  }
  // Default image outside the animation (no fcTL before IDAT): still the IDAT image (red), not frame 1 (green).
  const d = await png.decode!(corpusFile("png/apng/wpt/fcTL-dispose-in-region-previous.png"), LIMIT);
  assert.deepEqual([...d.data.subarray(0, 4)], [255, 0, 0, 255]);
});

test("16-bit samples round to 8 bits as round(v / 257), like pngjs and ImageMagick, not the high byte", async () => {
  // 16-bit gray: 0x00ff -> 1 (high byte: 0), 0x7f80 -> 127, 0xfe00 -> 253 (high byte: 254), 0xffff -> 255
  const idat = chunk("IDAT", zlibSync(new Uint8Array([0, 0x00, 0xff, 0x7f, 0x80, 0xfe, 0x00, 0xff, 0xff])));
  const r = await png.decode!(file(ihdr(4, 1, 16, 0), idat, iend), LIMIT);
  assert.deepEqual([0, 4, 8, 12].map((i) => r.data[i]), [1, 127, 253, 255]);
});

test("probe reads IHDR, tRNS and eXIf", () => {
  assert.deepEqual(png.probe!(corpusFile("png/pngsuite/basn6a08.png")), { width: 32, height: 32, hasAlpha: true, orientation: 1 });
  assert.deepEqual(png.probe!(corpusFile("png/pngsuite/tbbn3p08.png")), { width: 32, height: 32, hasAlpha: true, orientation: 1 });
  assert.deepEqual(png.probe!(corpusFile("png/pngsuite/basn2c08.png")), { width: 32, height: 32, hasAlpha: false, orientation: 1 });
  assert.equal(png.probe!(corpusFile("png/image-png/F-exif-chunk-early.png")).orientation, 6);
  assert.throws(() => png.probe!(corpusFile("png/pngsuite/xs1n0g01.png")), (e) => isPixfitError(e, "CORRUPT_IMAGE"));
  assert.throws(() => png.probe!(corpusFile("png/pngsuite/xhdn0g08.png")), (e) => isPixfitError(e, "CORRUPT_IMAGE"));
});

// ---- crafted inputs -------------------------------------------------------------------------------------

const chunk = pngChunk;
const file = pngFile;
const ihdr = pngIhdr;
const iend = pngIend;

test("maxPixels is checked against IHDR before anything else", async () => {
  const b = corpusFile("png/pngsuite/basn0g01.png"); // 32x32
  await assert.rejects(png.decode!(b, { maxPixels: 1023 }), (e) => isPixfitError(e, "TOO_MANY_PIXELS"));
  assert.equal((await png.decode!(b, { maxPixels: 1024 })).width, 32);
  // a header-only file declaring 2^31-1 x 2^31-1 is refused by the limit, not by the missing data
  await assert.rejects(png.decode!(file(ihdr(0x7fffffff, 0x7fffffff, 8, 6)), LIMIT), (e) => isPixfitError(e, "TOO_MANY_PIXELS"));
});

test("a zlib bomb inflates only the expected number of bytes", async () => {
  const raw = new Uint8Array(64 << 20); // 64 MiB of zero rows for a 1x1 gray image (needs 2 bytes)
  const idat = zlibSync(raw, { level: 9 });
  const r = await png.decode!(file(ihdr(1, 1, 8, 0), chunk("IDAT", idat), iend), LIMIT);
  assert.deepEqual([...r.data], [0, 0, 0, 255]);
});

test("too little image data is CORRUPT_IMAGE; extra data is ignored", async () => {
  const short = zlibSync(new Uint8Array(3)); // 2x2 gray needs 2 rows * 3 bytes
  await assert.rejects(png.decode!(file(ihdr(2, 2, 8, 0), chunk("IDAT", short), iend), LIMIT), (e) => isPixfitError(e, "CORRUPT_IMAGE"));
  const long = zlibSync(new Uint8Array([0, 10, 20, 0, 30, 40, 0, 99, 99]));
  const r = await png.decode!(file(ihdr(2, 2, 8, 0), chunk("IDAT", long), iend), LIMIT);
  assert.deepEqual([...r.data], [10, 10, 10, 255, 20, 20, 20, 255, 30, 30, 30, 255, 40, 40, 40, 255]);
});

test("CRC policy: critical chunks must match, a bad ancillary chunk is dropped", async () => {
  const idat = chunk("IDAT", zlibSync(new Uint8Array([0, 7])));
  const trns = chunk("tRNS", new Uint8Array([0, 7]));
  const ok = await png.decode!(file(ihdr(1, 1, 8, 0), trns, idat, iend), LIMIT);
  assert.deepEqual([...ok.data], [7, 7, 7, 0]);
  const badTrns = trns.slice();
  badTrns[badTrns.length - 1] ^= 1;
  const dropped = await png.decode!(file(ihdr(1, 1, 8, 0), badTrns, idat, iend), LIMIT);
  assert.deepEqual([...dropped.data], [7, 7, 7, 255]);
  const badIdat = idat.slice();
  badIdat[badIdat.length - 1] ^= 1;
  await assert.rejects(png.decode!(file(ihdr(1, 1, 8, 0), badIdat, iend), LIMIT), (e) => isPixfitError(e, "CORRUPT_IMAGE"));
});

test("16-bit colour key compares the full 16-bit sample", async () => {
  // two 16-bit gray pixels 0x1234 and 0x1235; key 0x1234 -> only the first is transparent
  const idat = chunk("IDAT", zlibSync(new Uint8Array([0, 0x12, 0x34, 0x12, 0x35])));
  const r = await png.decode!(file(ihdr(2, 1, 16, 0), chunk("tRNS", new Uint8Array([0x12, 0x34])), idat, iend), LIMIT);
  assert.deepEqual([...r.data], [18, 18, 18, 0, 18, 18, 18, 255]);
});

test("every truncation of a valid file gives a raster or CORRUPT_IMAGE, never a crash", async () => {
  const b = corpusFile("png/pngsuite/basi3p04.png");
  for (let n = 0; n < b.length; n++) {
    const got = await outcome(b.subarray(0, n));
    assert.ok(typeof got !== "string" || got === "CORRUPT_IMAGE", `length ${n}: ${got}`);
  }
});

// ---- encoder ----------------------------------------------------------------------------------------------

function randomRaster(w: number, h: number, alpha: boolean, seed: number): Raster {
  const data = new Uint8Array(w * h * 4);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    // smooth-ish content so every filter gets chosen somewhere
    data[i] = (i & 3) === 3 ? (alpha ? s >>> 24 : 255) : ((i >> 2) % w) * 3 + (s >>> 29);
  }
  return { width: w, height: h, data };
}


test("encode round-trips exactly (RGB and RGBA) and never touches Buffer", async () => {
  for (const [w, h, alpha] of [
    [1, 1, false],
    [17, 5, true],
    [64, 33, false],
    [3, 40, true],
  ] as const) {
    const r = randomRaster(w, h, alpha, w * 31 + h);
    const bytes = await withoutBuffer(() => png.encode!(r, {}));
    assert.equal(bytes[25], alpha ? 6 : 2, "colour type");
    const back = await withoutBuffer(() => png.decode!(bytes, LIMIT));
    assert.deepEqual(back.data, r.data);
    const ref = pngjsRGBA(bytes)!;
    assert.deepEqual(ref.data, r.data, "pngjs reads the same pixels");
  }
});

test("encoded PNG decodes identically with ImageMagick", async (t) => {
  if (!imagemagick) return t.skip("ImageMagick not installed");
  const dir = mkdtempSync(join(tmpdir(), "pixfit-png-"));
  for (const alpha of [false, true]) {
    const r = randomRaster(23, 11, alpha, 7);
    const path = join(dir, `x${alpha}.png`);
    writeFileSync(path, await png.encode!(r, {}));
    execFileSync(imagemagick, [path, "-format", "%w", "info:"]); // throws if ImageMagick rejects it
    const ref = imagemagickRGBA(path)!;
    assert.deepEqual(ref.data, r.data);
  }
});

test("encode rejects a raster whose data length does not match", async () => {
  await assert.rejects(png.encode!({ width: 2, height: 2, data: new Uint8Array(15) }, {}), (e) => isPixfitError(e, "CORRUPT_IMAGE"));
});

test("full corpus flag is consistent", () => {
  if (fullCorpus) assert.ok(corpusHas("png/apng/basic_f20.png"));
  else assert.ok(corpusHas("png/pngsuite/basn0g01.png"));
});
