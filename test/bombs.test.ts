/**
 * Decompression bombs (test/fixtures/bombs/, written by scripts/make-bombs.ts; rows and expectations in bombs.json):
 * every bomb is refused with the error code its row names, before any pixel buffer is allocated, or, for the few that
 * are valid images shaped like bombs (an IDAT inflating 8 million times past what the image needs, thousands of
 * frames or segments), decoded to the declared size. Time and peak memory are measured by `npm run bombs`, not here.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { codecFor } from "../codecs/index.js";
import { detect } from "../src/detect.js";
import { isPixfitError } from "../src/errors.js";
import { prepare, prepareDefaults } from "../src/prepare.js";
import { probe } from "../src/probe.js";
import { toParts } from "../src/parts.js";
import { zlibSync } from "fflate";
import { targets } from "../src/targets.js";
import { pngChunk, pngFile, pngIend, pngIhdr } from "./png-craft.js";

const dir = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "bombs");
interface BombRow {
  file: string;
  what: string;
  expect: string;
  /** Why this one takes seconds; run with PIXFIT_SLOW_TESTS=1 (`npm run bombs` always measures it). */
  slow?: string;
}
const runSlow = process.env.PIXFIT_SLOW_TESTS === "1";
const rows: BombRow[] = JSON.parse(readFileSync(join(dir, "bombs.json"), "utf8"));
const bytesOf = (f: string) => new Uint8Array(readFileSync(join(dir, f)));

test("there is a bomb for each format, an inflate bomb, a many-frame GIF and a scan bomb", () => {
  const names = rows.map((r) => r.file);
  for (const p of ["png-dims", "jpeg-dims", "gif-dims", "bmp-dims", "webp-vp8l-dims", "png-inflate", "gif-frames", "jpeg-scans"])
    assert.ok(names.some((n) => n.startsWith(p + ".")), p);
  assert.ok(rows.filter((r) => !r.expect.startsWith("decodes")).length >= 12);
});

for (const row of rows) {
  test(`${row.file}: ${row.what} → ${row.expect}`, async (t) => {
    if (row.slow && !runSlow) return t.skip(`takes seconds (${row.slow}); PIXFIT_SLOW_TESTS=1 runs it`);
    const bytes = bytesOf(row.file);
    const codec = codecFor(bytes);
    assert.ok(codec?.decode, "detected as a decodable image");
    assert.equal(detect(bytes), codec.mediaType);
    const info = probe(bytes); // header facts only; never an allocation proportional to the declared size
    assert.ok(info.width >= 1 && info.height >= 1);

    // The decoder, with the pipeline's default pixel limit.
    const decoded = await codec.decode(bytes, { maxPixels: prepareDefaults.maxInputPixels }).then(
      (r) => `decodes ${r.width}x${r.height}`,
      (e: unknown) => (isPixfitError(e) ? e.code : `non-PixfitError: ${e}`),
    );
    assert.equal(decoded, row.expect);

    // prepare(): refused with the same code, or (a header that fits 2000 × 2000) passed through without decoding.
    const prepared = await prepare(bytes).then(
      (r) => r,
      (e: unknown) => (isPixfitError(e) ? e.code : `non-PixfitError: ${e}`),
    );
    if (row.expect.startsWith("decodes")) assert.ok(typeof prepared !== "string", `prepare: ${prepared}`);
    else if (typeof prepared === "string") assert.equal(prepared, row.expect);
    else assert.ok(prepared.bytes === bytes && !prepared.resized, "only an untouched pass-through may succeed");
    if (info.width * info.height > prepareDefaults.maxInputPixels) assert.equal(prepared, "TOO_MANY_PIXELS");
  });
}

test("toParts turns every refused bomb into a text note naming its code, in order, and keeps the valid ones", async () => {
  const used = rows.filter((r) => runSlow || !r.slow);
  const attachments = used.map((r) => ({ bytes: bytesOf(r.file), name: r.file }));
  const parts = await toParts({ attachments }, { target: targets.anthropic });
  let i = 0;
  for (const r of used) {
    const p = parts[i++];
    if (r.expect.startsWith("decodes")) {
      assert.equal(p.type, "media", r.file);
      // a resized image (the 9999 × 9999 GIF) is followed by its coordinate note
      const next = parts[i] as { type: string; text?: string } | undefined;
      if (next?.type === "text" && next.text!.startsWith(`[image "${r.file}" was resized`)) i++;
      continue;
    }
    assert.equal(p.type, "text", r.file);
    assert.match((p as { text: string }).text, new RegExp(`"${r.file.replace(".", "\\.")}" omitted: .*\\(${r.expect}\\)`), r.file);
  }
  assert.equal(i, parts.length);
});

test("PNG: compressed data past what the image needs is never inflated (garbage 3 KB into the stream is not reached)", async () => {
  // IDAT = the first 3000 bytes of a zlib stream of [filter 0, grey 77] + 20000 random 4-bit values (Huffman-coded,
  // ~4 bits a byte), then 1000 bytes of 0xff (invalid codes). The inflater gets the stream in pieces sized by the
  // output still needed, so for a 1 × 1 image it stops in the first 1 KiB. With fixed 16 KiB pieces it inflated the
  // garbage too (CORRUPT_IMAGE here) and 16 MiB of png-inflate.png for 2 bytes of image.
  const raw = new Uint8Array(20002);
  raw.set([0, 77]);
  let s = 7;
  for (let i = 2; i < raw.length; i++) raw[i] = (s = (s * 1103515245 + 12345) >>> 0) >>> 28;
  const z = zlibSync(raw, { level: 6 });
  assert.ok(z.length > 4000, `compressed to ${z.length} bytes`);
  const idat = new Uint8Array(4000).fill(0xff);
  idat.set(z.subarray(0, 3000));
  const file = pngFile(pngIhdr(1, 1, 8, 0), pngChunk("IDAT", idat), pngIend);
  const r = await codecFor(file)!.decode!(file, { maxPixels: 1 });
  assert.deepEqual([...r.data], [77, 77, 77, 255]);
  // the same stream under a header that needs all 20002 bytes reaches the garbage
  // width 20001: 20002 bytes with the filter byte
  const fixed = pngFile(pngIhdr(20001, 1, 8, 0), pngChunk("IDAT", idat), pngIend);
  await assert.rejects(codecFor(fixed)!.decode!(fixed, { maxPixels: 1e6 }), (e: unknown) => isPixfitError(e, "CORRUPT_IMAGE"));
});
