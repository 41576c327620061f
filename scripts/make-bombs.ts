/**
 * Writes the decompression-bomb fixtures in test/fixtures/bombs/ and their manifest (bombs.json).
 * Every file is crafted here from scratch (no third-party bytes), so all are MIT like the rest of the repo.
 *
 *   node --import tsx scripts/make-bombs.ts
 *
 * Each manifest row: `file`, `what` (the attack), `expect`: an error code the pipeline must refuse it with, or
 * "decodes WxH" for the few that are valid images shaped like bombs (pixfit bounds their cost instead of refusing a
 * valid file: the inflater stops at the declared size, the GIF decoder renders only the first frame).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { zlibSync } from "fflate";
import { jpeg } from "../codecs/jpeg.js";
import { pngChunk } from "../test/png-craft.js";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures", "bombs");

// ---- byte helpers -------------------------------------------------------------------------------------------

function concat(...parts: (Uint8Array | number[])[]): Uint8Array {
  const arrs = parts.map((p) => (p instanceof Uint8Array ? p : new Uint8Array(p)));
  const r = new Uint8Array(arrs.reduce((n, a) => n + a.length, 0));
  let o = 0;
  for (const a of arrs) (r.set(a, o), (o += a.length));
  return r;
}
const be32 = (v: number) => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
const be16 = (v: number) => [(v >>> 8) & 255, v & 255];
const le32 = (v: number) => [v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255];
const le24 = (v: number) => [v & 255, (v >>> 8) & 255, (v >>> 16) & 255];
const le16 = (v: number) => [v & 255, (v >>> 8) & 255];
const text = (s: string) => [...s].map((c) => c.charCodeAt(0));

// ---- PNG (PNG §5.3 chunk layout, §5.5 CRC) ------------------------------------------------------------------

function png(w: number, h: number, depth: number, colourType: number, idat: Uint8Array): Uint8Array {
  return concat(
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    pngChunk("IHDR", [...be32(w), ...be32(h), depth, colourType, 0, 0, 0]),
    pngChunk("IDAT", idat),
    pngChunk("IEND", []),
  );
}

// ---- JPEG (T.81 B.2) --------------------------------------------------------------------------------------

/** Splits a JPEG into [header before SOS, SOS segment + entropy data, EOI]. */
function jpegParts(b: Uint8Array): { head: Uint8Array; scan: Uint8Array } {
  let p = 2;
  while (p < b.length) {
    const m = b[p + 1];
    const len = (b[p + 2] << 8) | b[p + 3];
    if (m === 0xda) return { head: b.subarray(0, p), scan: b.subarray(p, b.length - 2) };
    p += 2 + len;
  }
  throw new Error("no SOS");
}
/** Sets the frame size in the first SOFn segment. */
function jpegWithSize(b: Uint8Array, w: number, h: number): Uint8Array {
  const c = b.slice();
  let p = 2;
  while (p < c.length) {
    const m = c[p + 1];
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
      c.set(be16(h), p + 5);
      c.set(be16(w), p + 7);
      return c;
    }
    p += 2 + ((c[p + 2] << 8) | c[p + 3]);
  }
  throw new Error("no SOF");
}

// ---- GIF (GIF89a §18, §20, §22) -----------------------------------------------------------------------------

function gifHeader(w: number, h: number): number[] {
  // logical screen, global colour table flag, 2 entries (black, white)
  return [...text("GIF89a"), ...le16(w), ...le16(h), 0x80, 0, 0, 0, 0, 0, 255, 255, 255];
}
/** One image descriptor at (x, y) of w × h with a tiny LZW stream (min code size 2: clear, index 1, end). */
function gifImage(x: number, y: number, w: number, h: number): number[] {
  // codes (3 bits): clear=4, 1, end=5 → bits LSB first: 100 001 101 → 0b0_101_001_100 = 0x14c
  return [0x2c, ...le16(x), ...le16(y), ...le16(w), ...le16(h), 0, 2, 2, 0x4c, 0x01, 0];
}

// ---- RIFF / WEBP (WebP container spec; RFC 9649 §3.2; RFC 6386 §9.1) ---------------------------------------

function riff(...chunks: [string, number[] | Uint8Array][]): Uint8Array {
  const body = concat(
    text("WEBP"),
    ...chunks.map(([fourcc, d]) => concat(text(fourcc), le32(d.length), d, d.length & 1 ? [0] : [])),
  );
  return concat(text("RIFF"), le32(body.length), body);
}
/** VP8L header: signature 0x2f, 14-bit width-1, 14-bit height-1, alpha bit, version 0; then some data bytes. */
function vp8l(w: number, h: number): number[] {
  const v = ((w - 1) & 0x3fff) | (((h - 1) & 0x3fff) << 14);
  return [0x2f, ...le32(v >>> 0), 0, 0, 0, 0, 0, 0, 0];
}

// ---- the fixtures ---------------------------------------------------------------------------------------------

export interface BombRow {
  file: string;
  what: string;
  expect: "TOO_MANY_PIXELS" | "CORRUPT_IMAGE" | `decodes ${number}x${number}`;
  /** Set when the outcome takes seconds (work proportional to a declared size under `maxInputPixels`): why. */
  slow?: string;
}

async function build(): Promise<[BombRow, Uint8Array][]> {
  const rows: [BombRow, Uint8Array][] = [];
  const add = (file: string, what: string, expect: BombRow["expect"], bytes: Uint8Array, slow?: string) =>
    rows.push([slow ? { file, what, expect, slow } : { file, what, expect }, bytes]);

  const tinyIdat = zlibSync(new Uint8Array(16));
  add("png-dims.png", "IHDR declares 1000000 × 1000000 RGBA (4 TB of pixels) in 70 bytes", "TOO_MANY_PIXELS", png(1_000_000, 1_000_000, 8, 6, tinyIdat));
  add("png-max-dims.png", "IHDR declares 2^31-1 × 2^31-1, the largest PNG allows", "TOO_MANY_PIXELS", png(0x7fffffff, 0x7fffffff, 16, 6, tinyIdat));
  // 1 GiB of zero bytes deflates to ~1 MB; 16 MiB (16 KB) keeps the fixture small and still inflates 8 million times
  // past the 2 bytes a 1 × 1 grey image needs.
  const zeros = zlibSync(new Uint8Array(16 << 20), { level: 9 });
  add("png-inflate.png", "1 × 1 grey PNG whose IDAT inflates to 16 MiB (needs 2 bytes)", "decodes 1x1", png(1, 1, 8, 0, zeros));
  add("png-inflate-dims.png", "the same 16 MiB IDAT under an IHDR of 20000 × 20000", "TOO_MANY_PIXELS", png(20000, 20000, 8, 0, zeros));

  const base = await jpeg.encode!({ width: 8, height: 8, data: new Uint8Array(8 * 8 * 4).fill(200) }, { quality: 80 });
  add("jpeg-dims.jpg", "SOF0 declares 65535 × 65535 (4.3 G pixels)", "TOO_MANY_PIXELS", jpegWithSize(base, 65535, 65535));
  // Under the pixel limit but with 8 × 8 pixels' worth of scan data: must fail fast as truncated, not decode 98 M pixels.
  const base64 = await jpeg.encode!({ width: 64, height: 64, data: new Uint8Array(64 * 64 * 4).fill(90) }, { quality: 80 });
  add("jpeg-truncated-dims.jpg", "SOF0 declares 65535 × 1500 (98 M pixels, under the limit) over 64 × 64 pixels of scan data", "CORRUPT_IMAGE", jpegWithSize(base64, 65535, 1500));
  add("png-truncated-dims.png", "IHDR declares 9999 × 9999 RGBA (under the limit) over a 26-byte IDAT", "CORRUPT_IMAGE", png(9999, 9999, 8, 6, tinyIdat));
  const { head, scan } = jpegParts(base);
  const scans: Uint8Array[] = [];
  for (let i = 0; i < 2000; i++) scans.push(scan);
  add("jpeg-scans.jpg", "8 × 8 baseline JPEG with its scan repeated 2000 times (scan bomb)", "CORRUPT_IMAGE", concat(head, ...scans, [0xff, 0xd9]));
  const com: number[] = [];
  for (let i = 0; i < 5000; i++) com.push(0xff, 0xfe, 0, 2);
  add("jpeg-segments.jpg", "8 × 8 JPEG with 5000 empty COM segments before the frame", "decodes 8x8", concat(base.subarray(0, 2), com, base.subarray(2)));

  add("gif-dims.gif", "logical screen 65535 × 65535", "TOO_MANY_PIXELS", concat(gifHeader(65535, 65535), gifImage(0, 0, 1, 1), [0x3b]));
  add("gif-frame-extent.gif", "1 × 1 screen, one 1 × 1 image placed at (65000, 65000)", "TOO_MANY_PIXELS", concat(gifHeader(1, 1), gifImage(0, 0, 1, 1), gifImage(65000, 65000, 1, 1), [0x3b]));
  const frames: number[] = [];
  // graphic control extension with a 1/100 s delay before each image, so each image is its own frame
  for (let i = 0; i < 2000; i++) frames.push(0x21, 0xf9, 4, 0, 1, 0, 0, 0, ...gifImage(0, 0, 1, 1));
  add("gif-frames.gif", "1 × 1 GIF with 2000 frames", "decodes 1x1", concat(gifHeader(1, 1), frames, [0x3b]));
  add("gif-frames-extent.gif", "2000 frames, then one image stretching the canvas to 60000 × 60000", "TOO_MANY_PIXELS", concat(gifHeader(1, 1), frames, gifImage(59999, 59999, 1, 1), [0x3b]));

  const bmpHead = (w: number, h: number, bpp: number) =>
    concat(text("BM"), le32(54 + 16), [0, 0, 0, 0], le32(54), le32(40), le32(w), le32(h), le16(1), le16(bpp), le32(0), le32(0), le32(2835), le32(2835), le32(0), le32(0), new Uint8Array(16));
  add("bmp-dims.bmp", "BITMAPINFOHEADER declares 1000000 × 1000000 at 24 bits", "TOO_MANY_PIXELS", bmpHead(1_000_000, 1_000_000, 24));
  add("bmp-truncated-dims.bmp", "BITMAPINFOHEADER declares 9999 × 9999 at 32 bits (under the limit) over 16 bytes of pixels", "CORRUPT_IMAGE", bmpHead(9999, 9999, 32));
  add("gif-truncated-dims.gif", "9999 × 9999 screen and image (under the limit) with 3 LZW codes of data", "decodes 9999x9999", concat(gifHeader(9999, 9999), gifImage(0, 0, 9999, 9999), [0x3b]),
    "GIF policy keeps LZW data that ends early (missing pixels transparent), so this is a valid 100 M pixel image");
  add("webp-truncated-dims.webp", "lossless WEBP declaring 10000 × 9999 (under the limit) with 7 bytes of bitstream", "CORRUPT_IMAGE", riff(["VP8L", vp8l(10000, 9999)]));
  add("bmp-topdown-dims.bmp", "top-down BMP (negative height) of 2^31-1 × 2^31", "TOO_MANY_PIXELS", bmpHead(0x7fffffff, -0x80000000, 32));

  add("webp-vp8l-dims.webp", "lossless WEBP declaring 16384 × 16384 (its maximum)", "TOO_MANY_PIXELS", riff(["VP8L", vp8l(16384, 16384)]));
  const vp8 = [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, ...le16(16383), ...le16(16383), 0, 0, 0, 0, 0, 0];
  add("webp-vp8-dims.webp", "lossy WEBP declaring 16383 × 16383", "TOO_MANY_PIXELS", riff(["VP8 ", vp8]));
  add("webp-vp8x-dims.webp", "extended WEBP with a 16777216 × 255 canvas around a 1 × 1 image", "TOO_MANY_PIXELS", riff(["VP8X", [0, 0, 0, 0, ...le24(16777215), ...le24(254)]], ["VP8L", vp8l(1, 1)]));
  return rows;
}

async function main(): Promise<void> {
  mkdirSync(out, { recursive: true });
  const rows = await build();
  for (const [row, bytes] of rows) writeFileSync(join(out, row.file), bytes);
  writeFileSync(join(out, "bombs.json"), JSON.stringify(rows.map(([r]) => r), null, 2) + "\n");
  for (const [row, bytes] of rows) console.log(`${row.file.padEnd(24)} ${String(bytes.length).padStart(7)} bytes  ${row.expect}`);
}

await main();
