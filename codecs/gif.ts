/**
 * GIF codec. Spec: "Graphics Interchange Format, Version 89a" (CompuServe, 1990), cited as "GIF89a §n".
 *
 * Decoding uses a small block walker and LZW decoder written here rather than omggif's `GifReader`:
 * GifReader parses every frame header in its constructor (a 40 000-frame file is walked in full before
 * frame 0 is available), throws on valid-but-unusual blocks (plain-text extension, unknown extension
 * labels, zero-sized images), accepts invalid LZW codes silently and prints warnings with `console.log`.
 * omggif's `GifWriter` is used for encoding.
 *
 * Decode policy:
 * - The whole block structure is walked once (no LZW work) to find every image descriptor. Refused with
 *   TOO_MANY_PIXELS, before any pixel buffer exists: a logical screen over `maxPixels`, or any image whose
 *   rectangle stretches the screen's bounding box over `maxPixels` (frame-extent bombs).
 * - CORRUPT_IMAGE: bad signature or header; a zero-width or zero-height logical screen; no image at all;
 *   no colour table for the first frame; an LZW minimum code size outside 1–11 (the first code must fit in 12 bits, GIF89a Appendix F);
 *   an LZW code that is not yet in the table; a pixel index beyond the colour table (other than the
 *   transparent index); a structural error before the first image is complete. Damage after the first frame
 *   (truncation, junk bytes) is ignored.
 * - Tolerated: LZW data that ends early (missing pixels stay transparent), data after the end code or
 *   beyond the image, missing clear/end codes, a full code table without a clear (no new entries are
 *   added), unknown extensions, a transparent index outside the palette, a background index outside the
 *   palette.
 * - Output is the first frame composited onto a transparent canvas of the logical screen size; image pixels
 *   outside the screen are clipped and the background colour is not painted (as browsers do). The first
 *   frame is the first image plus any following images shown with no delay in between (GIF89a §23: an image
 *   with delay 0 and no user-input flag is followed at once), except that an opaque image covering the
 *   whole screen starts a new frame (browsers show such zero-delay images as separate frames, and
 *   compositing it would hide everything before it). Disposal methods 2 and 3 are applied between images of
 *   that group.
 */
import { GifWriter } from "omggif";
import { buildPaletteSync, utils } from "image-q";
import { hasBytes, u16le } from "../src/bytes.js";
import { PixfitError, asCorrupt } from "../src/errors.js";
import type { Codec, DecodeOptions, ImageInfo, Raster } from "../src/types.js";

function corrupt(message: string): PixfitError {
  return new PixfitError("CORRUPT_IMAGE", `Corrupt GIF: ${message}`, { format: "gif" });
}

/** One image descriptor (GIF89a §20) with what applies to it. */
interface Image {
  x: number;
  y: number;
  w: number;
  h: number;
  interlaced: boolean;
  /** Colour table as RGB triples (local if present, else global), or undefined. */
  palette: Uint8Array | undefined;
  /** Offset of the LZW minimum code size byte. */
  data: number;
  /** From the preceding Graphic Control Extension (GIF89a §23); defaults when there is none. */
  delay: number;
  disposal: number;
  transparent: number;
  /** The image's data sub-blocks end before the end of the input (false when truncated). */
  complete: boolean;
}

interface Parsed {
  width: number;
  height: number;
  images: Image[];
}

/**
 * Walks the block structure (GIF89a §17–§27) without decoding pixels. `all` = keep going after the first
 * frame's images (decode, for the extent check); otherwise stop as soon as frame 0 is known (probe).
 * Throws CORRUPT_IMAGE only for damage before the first image is complete.
 */
function parse(b: Uint8Array, all: boolean): Parsed {
  if (!(hasBytes(b, 0, "GIF87a") || hasBytes(b, 0, "GIF89a"))) throw corrupt("bad signature");
  if (b.length < 13) throw corrupt("truncated logical screen descriptor");
  const width = u16le(b, 6);
  const height = u16le(b, 8);
  const flags = b[10];
  let p = 13;
  let global: Uint8Array | undefined;
  if (flags & 0x80) {
    const n = 3 << ((flags & 7) + 1);
    global = b.subarray(p, p + n);
    p += n;
  }
  const images: Image[] = [];
  let delay = 0, disposal = 0, transparent = -1;
  const fail = (msg: string): Parsed => {
    if (images.length === 0 || !images[0].complete) throw corrupt(msg);
    return { width, height, images };
  };
  /** Skips data sub-blocks from `q`; returns the offset after the terminator, or -1 if truncated. */
  const skip = (q: number): number => {
    while (q < b.length) {
      const n = b[q];
      if (n === 0) return q + 1;
      q += n + 1;
    }
    return -1;
  };
  while (p < b.length) {
    const id = b[p];
    if (id === 0x3b) break; // trailer
    if (id === 0x21) {
      const label = b[p + 1];
      if (label === 0xf9 && p + 7 < b.length && b[p + 2] >= 4) {
        const f = b[p + 3];
        disposal = (f >> 2) & 7;
        delay = u16le(b, p + 4);
        transparent = f & 1 ? b[p + 6] : -1;
      }
      const next = skip(p + 2);
      if (next < 0) return fail("truncated extension block");
      p = next;
      continue;
    }
    if (id === 0x2c) {
      if (p + 10 > b.length) return fail("truncated image descriptor");
      const f = b[p + 9];
      let q = p + 10;
      let palette = global;
      if (f & 0x80) {
        const n = 3 << ((f & 7) + 1);
        palette = b.subarray(q, q + n);
        q += n;
      }
      const next = q < b.length ? skip(q + 1) : -1;
      const img: Image = {
        x: u16le(b, p + 1),
        y: u16le(b, p + 3),
        w: u16le(b, p + 5),
        h: u16le(b, p + 7),
        interlaced: (f & 0x40) !== 0,
        palette,
        data: q,
        delay,
        disposal,
        transparent,
        complete: next >= 0,
      };
      images.push(img);
      delay = 0;
      disposal = 0;
      transparent = -1;
      if (next < 0) break; // truncated image data: decode what there is
      p = next;
      if (!all && images.length > 1) break;
      continue;
    }
    return fail(`unexpected byte 0x${id.toString(16)} at offset ${p}`);
  }
  return { width, height, images };
}

/** The images that make up frame 0 (see the module comment). */
function firstFrame(g: Parsed): Image[] {
  const out: Image[] = [];
  for (const img of g.images) {
    if (out.length > 0) {
      if (out[out.length - 1].delay > 0) break;
      if (img.transparent < 0 && img.x === 0 && img.y === 0 && img.w >= g.width && img.h >= g.height) break;
    }
    out.push(img);
  }
  return out;
}

/** Interlaced row order (GIF89a Appendix E): the destination row of each stored row. */
function rowOrder(h: number, interlaced: boolean): Int32Array {
  const rows = new Int32Array(h);
  if (!interlaced) {
    for (let i = 0; i < h; i++) rows[i] = i;
    return rows;
  }
  let i = 0;
  for (const [start, step] of [[0, 8], [4, 8], [2, 4], [1, 2]]) for (let y = start; y < h; y += step) rows[i++] = y;
  return rows;
}

/** Largest LZW code size, bits (GIF89a Appendix F). */
const MAX_CODE_BITS = 12;

/**
 * Decodes an image's LZW data (GIF89a Appendix F) into `out` (one index per pixel, in stored order).
 * Returns the number of pixels written; stops at the end code, at the end of the data, or when `out` is
 * full. Throws CORRUPT_IMAGE for a minimum code size outside 1–11, a code not yet in the table, or a literal ≥ 256.
 */
function lzw(b: Uint8Array, p: number, out: Uint8Array): number {
  const minSize = b[p++];
  if (!(minSize >= 1 && minSize <= 11)) throw corrupt(`LZW minimum code size ${minSize}`);
  const clear = 1 << minSize;
  const eoi = clear + 1;
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let i = 0; i < clear; i++) {
    suffix[i] = first[i] = i;
    length[i] = 1;
  }
  let size = minSize + 1;
  let next = eoi + 1;
  let prev = -1;
  let acc = 0, bits = 0;
  let block = 0; // bytes left in the current sub-block
  let o = 0;
  const n = out.length;
  while (o < n) {
    while (bits < size) {
      if (block === 0) {
        if (p >= b.length) return o;
        block = b[p++];
        if (block === 0) return o; // block terminator: no more data
      }
      if (p >= b.length) return o;
      acc |= b[p++] << bits;
      bits += 8;
      block--;
    }
    const code = acc & ((1 << size) - 1);
    acc >>>= size;
    bits -= size;
    if (code === clear) {
      size = minSize + 1;
      next = eoi + 1;
      prev = -1;
      continue;
    }
    if (code === eoi) return o;
    let k: number;
    if (code < next) {
      // known code: emit its string. Literals ≥ 256 (minimum code size 9–11) cannot index a colour table.
      if (code >= 256 && code < clear) throw corrupt(`pixel index ${code} beyond any colour table`);
      const len = length[code];
      let c = code;
      const end = Math.min(o + len, n);
      for (let i = o + len - 1; i >= o; i--, c = prefix[c]) if (i < end) out[i] = suffix[c];
      k = first[code];
      o = end;
    } else if (code === next && prev >= 0) {
      // KwKwK case: prev's string + its first byte
      const len = length[prev] + 1;
      k = first[prev];
      const end = Math.min(o + len, n);
      let c = prev;
      if (o + len - 1 < n) out[o + len - 1] = k;
      for (let i = o + len - 2; i >= o; i--, c = prefix[c]) if (i < end) out[i] = suffix[c];
      o = end;
    } else throw corrupt(`invalid LZW code ${code}`);
    if (prev >= 0 && next < 4096) {
      prefix[next] = prev;
      suffix[next] = k;
      first[next] = first[prev];
      length[next] = length[prev] + 1;
      next++;
      if (next === 1 << size && size < MAX_CODE_BITS) size++;
    }
    prev = code;
  }
  return o;
}

/**
 * Decodes the first frame to RGBA (logical screen size). Throws TOO_MANY_PIXELS or CORRUPT_IMAGE as listed
 * in the module comment.
 */
function decodeSync(bytes: Uint8Array, { maxPixels }: DecodeOptions): Raster {
  const g = parse(bytes, true);
  const { width: W, height: H } = g;
  const tooMany = (w: number, h: number) =>
    new PixfitError("TOO_MANY_PIXELS", `GIF needs ${w}x${h} pixels, over the limit of ${maxPixels}`, { format: "gif" });
  if (W * H > maxPixels) throw tooMany(W, H);
  for (const img of g.images) {
    const w = Math.max(W, img.x + img.w);
    const h = Math.max(H, img.y + img.h);
    if (w * h > maxPixels) throw tooMany(w, h);
  }
  if (W === 0 || H === 0) throw corrupt(`logical screen is ${W}x${H}`);
  if (g.images.length === 0) throw corrupt("no image");
  const out = new Uint8Array(W * H * 4);
  let saved: Uint8Array | undefined;
  const frame = firstFrame(g);
  for (let f = 0; f < frame.length; f++) {
    const img = frame[f];
    if (f > 0) {
      const before = frame[f - 1];
      if (before.disposal === 2) clearRect(out, W, H, before);
      else if (before.disposal === 3 && saved) out.set(saved);
    }
    if (img.disposal === 3) saved = out.slice();
    drawImage(bytes, img, out, W, H);
  }
  return { width: W, height: H, data: out };
}

function clearRect(out: Uint8Array, W: number, H: number, r: Image): void {
  for (let y = r.y; y < Math.min(H, r.y + r.h); y++)
    if (r.x < W) out.fill(0, (y * W + r.x) * 4, (y * W + Math.min(W, r.x + r.w)) * 4);
}

function drawImage(bytes: Uint8Array, img: Image, out: Uint8Array, W: number, H: number): void {
  if (img.w === 0 || img.h === 0) return;
  const pal = img.palette;
  if (!pal) throw corrupt("no colour table");
  const colours = pal.length / 3;
  const idx = new Uint8Array(img.w * img.h);
  const count = lzw(bytes, img.data, idx);
  const rows = rowOrder(img.h, img.interlaced);
  const t = img.transparent;
  for (let i = 0; i < count; i++) {
    const v = idx[i];
    if (v === t) continue;
    if (v >= colours) throw corrupt(`pixel index ${v} beyond a ${colours}-colour table`);
    const x = img.x + (i % img.w);
    const y = img.y + rows[(i / img.w) | 0];
    if (x >= W || y >= H) continue;
    const o = (y * W + x) * 4;
    out[o] = pal[v * 3];
    out[o + 1] = pal[v * 3 + 1];
    out[o + 2] = pal[v * 3 + 2];
    out[o + 3] = 255;
  }
}

/**
 * Header facts: logical screen width/height (pixels); `hasAlpha` when an image of the first frame has a
 * transparent index or the first image does not cover the screen; orientation 1 (GIF has no EXIF).
 * Throws CORRUPT_IMAGE when the header is unreadable.
 */
function probe(bytes: Uint8Array): ImageInfo {
  const g = parse(bytes, false);
  const frame = firstFrame(g);
  const first = frame[0];
  const hasAlpha =
    frame.some((i) => i.transparent >= 0) ||
    !first ||
    first.x !== 0 ||
    first.y !== 0 ||
    first.w < g.width ||
    first.h < g.height;
  return { width: g.width, height: g.height, hasAlpha, orientation: 1 };
}

// ---------------------------------------------------------------------------------------------------------
// Encode.

/** Pixels with alpha below this become the transparent index (GIF has 1-bit transparency). */
const ALPHA_THRESHOLD = 128;

/** Pixels sampled to build a palette: enough for Wu's quantiser to see every colour region. */
const PALETTE_SAMPLES = 65536;
/** Channel weights of the colour distance (ITU-R BT.709 luma coefficients, as image-q's "euclidean-bt709"). */
const WR = 0.2126, WG = 0.7152, WB = 0.0722;

/**
 * A palette of at most `colours` entries (0xRRGGBB) for an image with more colours than that: image-q's
 * Wu quantiser over an evenly spaced sample of at most {@link PALETTE_SAMPLES} opaque pixels.
 */
function quantisedPalette(r: Raster, colours: number): number[] {
  const { data } = r;
  const n = r.width * r.height;
  const step = Math.max(1, Math.floor(n / PALETTE_SAMPLES));
  const sample: number[] = [];
  for (let i = 0; i < n; i += step) {
    const o = i * 4;
    if (data[o + 3] >= ALPHA_THRESHOLD) sample.push(data[o], data[o + 1], data[o + 2], 255);
  }
  const pc = utils.PointContainer.fromUint8Array(new Uint8Array(sample), sample.length / 4, 1);
  const pal = buildPaletteSync([pc], { colors: colours, paletteQuantization: "wuquant", colorDistanceFormula: "euclidean-bt709-noalpha" });
  const out = new Set<number>();
  for (const p of pal.getPointContainer().getPointArray()) out.add((p.r << 16) | (p.g << 8) | p.b);
  return [...out].slice(0, colours);
}

/**
 * Sets `indices[i]` to the palette entry nearest to pixel i (weighted Euclidean RGB distance, no dithering:
 * error diffusion lowered PSNR in the measurement and made encoding several times slower). A direct-mapped
 * cache of 65536 recent colours avoids most full searches on photographs.
 */
function mapNearest(data: Uint8Array, palette: number[], indices: Uint8Array): void {
  const m = palette.length;
  const pr = new Float64Array(m), pg = new Float64Array(m), pb = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    pr[k] = palette[k] >> 16;
    pg[k] = (palette[k] >> 8) & 255;
    pb[k] = palette[k] & 255;
  }
  const cacheKey = new Int32Array(65536).fill(-1);
  const cacheVal = new Uint8Array(65536);
  for (let i = 0, o = 0; i < indices.length; i++, o += 4) {
    if (data[o + 3] < ALPHA_THRESHOLD) continue;
    const r = data[o], g = data[o + 1], b = data[o + 2];
    const key = (r << 16) | (g << 8) | b;
    const slot = (key ^ (key >>> 12) ^ (key >>> 20)) & 0xffff;
    if (cacheKey[slot] === key) {
      indices[i] = cacheVal[slot];
      continue;
    }
    let best = 0, bestD = Infinity;
    for (let k = 0; k < m; k++) {
      const dr = r - pr[k], dg = g - pg[k], db = b - pb[k];
      const d = WR * dr * dr + WG * dg * dg + WB * db * db;
      if (d < bestD) {
        bestD = d;
        best = k;
      }
    }
    cacheKey[slot] = key;
    cacheVal[slot] = best;
    indices[i] = best;
  }
}

/**
 * Maps RGBA to at most 256 palette indices. Images with ≤ 256 distinct opaque colours (≤ 255 when a
 * transparent index is needed) keep them exactly; others get a Wu-quantised palette and nearest-colour
 * mapping (see {@link quantisedPalette}, {@link mapNearest}).
 */
function toIndexed(r: Raster): { indices: Uint8Array; palette: number[]; transparent: number | undefined } {
  const { data } = r;
  const n = r.width * r.height;
  let anyTransparent = false;
  const colours = new Map<number, number>();
  let exact = true;
  for (let i = 0; i < n; i++) {
    if (data[i * 4 + 3] < ALPHA_THRESHOLD) {
      anyTransparent = true;
      continue;
    }
    if (!exact) continue;
    const c = (data[i * 4] << 16) | (data[i * 4 + 1] << 8) | data[i * 4 + 2];
    if (!colours.has(c)) {
      if (colours.size >= 256) exact = false;
      else colours.set(c, colours.size);
    }
  }
  const limit = anyTransparent ? 255 : 256;
  const indices = new Uint8Array(n);
  let palette: number[];
  if (exact && colours.size <= limit) {
    palette = [...colours.keys()];
    for (let i = 0; i < n; i++) {
      if (data[i * 4 + 3] < ALPHA_THRESHOLD) continue;
      indices[i] = colours.get((data[i * 4] << 16) | (data[i * 4 + 1] << 8) | data[i * 4 + 2])!;
    }
  } else {
    palette = quantisedPalette(r, limit);
    mapNearest(data, palette, indices);
  }
  let transparent: number | undefined;
  if (anyTransparent) {
    transparent = palette.length;
    palette.push(0);
    for (let i = 0; i < n; i++) if (data[i * 4 + 3] < ALPHA_THRESHOLD) indices[i] = transparent;
  }
  // GifWriter wants a power-of-two palette of 2–256 entries.
  let size = 2;
  while (size < palette.length) size *= 2;
  while (palette.length < size) palette.push(0);
  return { indices, palette, transparent };
}

/**
 * Encodes RGBA as a single-image GIF89a: ≤ 256 colours (exact when the image has that few, else quantised),
 * pixels with alpha < 128 mapped to one reserved transparent index, others made opaque. Never touches
 * `Buffer`. Throws CORRUPT_IMAGE when the raster is not valid RGBA or larger than 65535 in a dimension
 * (GIF89a §18 stores dimensions in 16 bits).
 */
function encodeSync(raster: Raster): Uint8Array {
  const { width, height, data } = raster;
  if (!(width >= 1 && height >= 1 && width <= 65535 && height <= 65535) || data.length !== width * height * 4)
    throw corrupt(`raster ${width}x${height} with ${data.length} bytes cannot be written as GIF`);
  const { indices, palette, transparent } = toIndexed(raster);
  // Worst case: 12-bit codes for every pixel plus a clear code per 4096 codes, in 255-byte sub-blocks, plus
  // headers and the 768-byte palette.
  const buf = new Uint8Array(Math.ceil(width * height * 1.6) + 2048);
  const w = new GifWriter(buf, width, height, { palette });
  w.addFrame(0, 0, width, height, indices as unknown as number[], transparent === undefined ? {} : { transparent });
  return buf.slice(0, w.end());
}

export const gif: Codec = {
  format: "gif",
  mediaType: "image/gif",
  kind: "image",
  sniff: (b) => hasBytes(b, 0, "GIF87a") || hasBytes(b, 0, "GIF89a"),
  probe,
  /** See {@link decodeSync}. Any unexpected failure is reported as CORRUPT_IMAGE with the cause kept. */
  async decode(bytes, options) {
    try {
      return decodeSync(bytes, options);
    } catch (err) {
      throw asCorrupt(err, "gif");
    }
  },
  /** See {@link encodeSync}. */
  async encode(raster) {
    try {
      return encodeSync(raster);
    } catch (err) {
      throw asCorrupt(err, "gif");
    }
  },
};
