/**
 * PNG codec: a self-contained reader/writer over `fflate` (no `node:zlib`, no `Buffer`), so every runtime
 * decodes the same bytes to the same pixels. Spec: PNG (Third Edition), W3C Recommendation 2025,
 * cited below as "PNG §n"; the same sections exist in ISO/IEC 15948:2004.
 *
 * Decode policy (what is an error and what is tolerated):
 * - Errors (`CORRUPT_IMAGE`): bad signature; IHDR missing, not first, wrong length, bad CRC or invalid
 *   field values; a critical chunk (IHDR, PLTE, IDAT, IEND) with a bad CRC; a chunk running past the end of
 *   the input; no IDAT; IDAT chunks that are not consecutive; colour type 3 without PLTE; a bad zlib header;
 *   a zlib stream that is corrupt or ends before the image is complete; an unknown filter type.
 * - Tolerated: ancillary chunks with a bad CRC are skipped (libpng's default, "warn and discard"), so a bad
 *   tRNS or eXIf is ignored; image data after the last needed byte (extra rows, padding, more IDAT) is
 *   ignored (libpng: "Too much image data", a warning); a missing IEND after complete image data;
 *   tRNS of the wrong length for its colour type, or with a key outside the bit depth's range, is ignored; PLTE entries beyond 2^bitDepth are ignored;
 *   the zlib Adler-32 is not checked (the IDAT CRCs already are).
 * - Palette indices beyond the PLTE entries decode as opaque black, as libpng does (its palette is a
 *   zero-filled 256-entry table); tRNS alpha applies only to the entries it lists (PNG §11.3.2.1).
 * - 16-bit samples become 8-bit by rounding, `round(v / 257)` (same as pngjs and ImageMagick `-depth 8`);
 *   a 16-bit tRNS colour key is compared against the full 16-bit sample before the reduction.
 * - No colour management: gAMA, cHRM, sRGB, iCCP and cICP are ignored; samples are returned as stored
 *   (ImageMagick's reference renderings do the same).
 * - APNG: only the default image (the IDAT stream) is decoded; acTL/fcTL/fdAT are ignored, so invalid
 *   animation control chunks never make the still image fail. When the default image is not part of the
 *   animation it is still what is returned (it is what non-APNG viewers show).
 */
import { Inflate, zlibSync } from "fflate";
import { hasBytes, u16be, u32be } from "../src/bytes.js";
import { PixfitError, asCorrupt } from "../src/errors.js";
import { readExifOrientation } from "../src/exif.js";
import type { Codec, DecodeOptions, ImageInfo, Raster } from "../src/types.js";

/** The 8-byte PNG signature (PNG §5.2). */
const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Largest chunk length and image dimension allowed: 2^31 − 1 (PNG §7.1, §11.2.1). */
const MAX_U31 = 0x7fffffff;
/**
 * Most compressed bytes handed to the inflater at a time (see `inflateIdat`). Fewer when little output is still
 * needed: `remaining / 1024`, but at least {@link INFLATE_PIECE_MIN}, so one piece of a zlib bomb (deflate expands at
 * most ~1032:1, RFC 1951 §3.2.5: a 258-byte match per ≥ 2 bits) inflates to about what the image still needs, not
 * 17 MB for a 1 × 1 image.
 */
const INFLATE_PIECE = 16384;
const INFLATE_PIECE_MIN = 1024;
/**
 * zlib compression level for `encode`. Measured on a 2560x1600 photo (filtered stream, fflate, loaded
 * 2-core machine): level 1 2.90 MB 0.4 s, level 3 2.72 MB 0.6 s, level 6 2.52 MB 2.5 s, level 9 2.40 MB
 * 7.0 s. Level 9 saves 5 % for 2.7× the time, so 6. Re-measured for issue 6 on the benchmark's two PNG outputs
 * (CPU time of `zlibSync` on the filtered stream): a 2000x1121 RGBA graphic, level 1 290 KB 115 ms, level 3
 * 275 KB 75 ms, level 5 260 KB 82 ms, level 6 216 KB 152 ms; a 2000x1125 photo, 4.56 MB at every level, 195 ms
 * (level 1) to 250 ms (level 6). Level 6 still wins where compression is possible (17 % smaller than level 5).
 */
const ENCODE_LEVEL = 6;

function corrupt(message: string): PixfitError {
  return new PixfitError("CORRUPT_IMAGE", `Corrupt PNG: ${message}`, { format: "png" });
}

// ---------------------------------------------------------------------------------------------------------
// CRC-32 (ISO 3309 / ITU-T V.42, polynomial 0xEDB88320), PNG §5.5 and Annex D.

let crcTable: Int32Array | undefined;
function table(): Int32Array {
  if (crcTable) return crcTable;
  crcTable = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crcTable[n] = c;
  }
  return crcTable;
}

/** CRC-32 of `b[start..end)`, as an unsigned 32-bit number. */
function crc32(b: Uint8Array, start: number, end: number): number {
  const t = table();
  let c = -1;
  for (let i = start; i < end; i++) c = t[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

// ---------------------------------------------------------------------------------------------------------
// Chunk walking.

interface Header {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

/** Samples per pixel for each valid colour type (PNG §11.2.1 Table 11). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Allowed bit depths for each colour type (PNG §11.2.1 Table 11). */
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/** Reads and validates the signature and IHDR (which must be the first chunk). Throws CORRUPT_IMAGE. */
function readHeader(b: Uint8Array): Header {
  if (!hasBytes(b, 0, SIGNATURE)) throw corrupt("bad signature (CR/LF bytes altered: text-mode transfer damage?)");
  if (b.length < 33) throw corrupt("truncated before the end of IHDR");
  if (u32be(b, 8) !== 13 || !hasBytes(b, 12, "IHDR")) throw corrupt("IHDR is not the first chunk or has the wrong length");
  if (crc32(b, 12, 29) !== u32be(b, 29)) throw corrupt("IHDR CRC mismatch");
  const width = u32be(b, 16);
  const height = u32be(b, 20);
  const bitDepth = b[24];
  const colorType = b[25];
  if (width === 0 || height === 0 || width > MAX_U31 || height > MAX_U31) throw corrupt(`invalid dimensions ${width}x${height}`);
  if (!DEPTHS[colorType]) throw corrupt(`invalid colour type ${colorType}`);
  if (!DEPTHS[colorType].includes(bitDepth)) throw corrupt(`invalid bit depth ${bitDepth} for colour type ${colorType}`);
  if (b[26] !== 0) throw corrupt(`unknown compression method ${b[26]}`);
  if (b[27] !== 0) throw corrupt(`unknown filter method ${b[27]}`);
  if (b[28] > 1) throw corrupt(`unknown interlace method ${b[28]}`);
  return { width, height, bitDepth, colorType, interlace: b[28] };
}

/** The chunks the decoder uses. */
interface Chunks {
  plte?: Uint8Array;
  trns?: Uint8Array;
  exif?: Uint8Array;
  idat: Uint8Array[];
}

const CRITICAL = new Set(["IHDR", "PLTE", "IDAT", "IEND"]);

/**
 * Walks the chunks after IHDR up to IEND (or the end of the input). `strict` = decode: enforce the
 * structural rules listed in the module comment. Non-strict (probe) never throws past the header and
 * returns what it could read.
 */
function readChunks(b: Uint8Array, strict: boolean): Chunks {
  const out: Chunks = { idat: [] };
  let p = 33;
  let idatEnded = false;
  while (p < b.length) {
    if (p + 12 > b.length) {
      if (!strict) break;
      throw corrupt("truncated inside a chunk header");
    }
    const len = u32be(b, p);
    const type = String.fromCharCode(b[p + 4], b[p + 5], b[p + 6], b[p + 7]);
    const end = p + 8 + len;
    if (len > MAX_U31 || end + 4 > b.length) {
      if (!strict) break;
      throw corrupt(`truncated inside the ${JSON.stringify(type)} chunk`);
    }
    const crcOk = crc32(b, p + 4, end) === u32be(b, end);
    const data = b.subarray(p + 8, end);
    p = end + 4;
    if (!crcOk) {
      if (CRITICAL.has(type)) {
        if (strict) throw corrupt(`${type} CRC mismatch`);
        break;
      }
      continue; // ancillary chunk with a bad CRC: discarded, as libpng does by default
    }
    if (type === "IEND") break;
    if (type === "IDAT") {
      if (idatEnded) {
        if (strict) throw corrupt("IDAT chunks are not consecutive");
        continue;
      }
      out.idat.push(data);
      continue;
    }
    if (out.idat.length > 0) idatEnded = true;
    if (type === "IHDR" && strict) throw corrupt("second IHDR");
    else if (type === "PLTE" && !out.plte && out.idat.length === 0) out.plte = data;
    else if (type === "tRNS" && !out.trns && out.idat.length === 0) out.trns = data;
    else if (type === "eXIf" && !out.exif) out.exif = data;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Probe.

/**
 * Header facts: IHDR width/height (pixels); `hasAlpha` for colour types 4 and 6 or a tRNS chunk before the
 * image data; `orientation` from an eXIf chunk (PNG §11.3.6.1) when present and valid, else 1.
 * Throws CORRUPT_IMAGE when the signature or IHDR is invalid; later damage is not looked at.
 */
function probe(bytes: Uint8Array): ImageInfo {
  const h = readHeader(bytes);
  let chunks: Chunks;
  try {
    chunks = readChunks(bytes, false);
  } catch {
    chunks = { idat: [] };
  }
  return {
    width: h.width,
    height: h.height,
    hasAlpha: h.colorType === 4 || h.colorType === 6 || (chunks.trns !== undefined && chunks.trns.length > 0),
    orientation: chunks.exif ? readExifOrientation(chunks.exif) : 1,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Decode.

/** Adam7 passes: x start, y start, x step, y step (PNG §8.2). */
const ADAM7: ReadonlyArray<readonly [number, number, number, number]> = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

/** A pass (sub-image) of the image: its size in pixels and where its pixels land in the full image. */
interface Pass {
  x0: number;
  y0: number;
  dx: number;
  dy: number;
  w: number;
  h: number;
}

function passes(h: Header): Pass[] {
  if (h.interlace === 0) return [{ x0: 0, y0: 0, dx: 1, dy: 1, w: h.width, h: h.height }];
  const out: Pass[] = [];
  for (const [x0, y0, dx, dy] of ADAM7) {
    const w = Math.ceil((h.width - x0) / dx);
    const hh = Math.ceil((h.height - y0) / dy);
    if (w > 0 && hh > 0) out.push({ x0, y0, dx, dy, w, h: hh });
  }
  return out;
}

/** Bytes in one filtered row of `w` pixels, without the filter-type byte (PNG §7.2). */
function rowBytes(w: number, h: Header): number {
  return Math.ceil((w * CHANNELS[h.colorType] * h.bitDepth) / 8);
}

/** Paeth predictor (PNG §9.4). */
function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Reverses the filter of one row in place (PNG §9.2). `row` = the row's bytes (after its filter byte),
 * `prev` = the previous unfiltered row of the same pass or null for the first, `bpp` = bytes per complete
 * pixel, at least 1.
 */
function unfilter(type: number, row: Uint8Array, prev: Uint8Array | null, bpp: number): void {
  const n = row.length;
  switch (type) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i++) row[i] = (row[i] + row[i - bpp]) & 0xff;
      return;
    case 2:
      if (prev) for (let i = 0; i < n; i++) row[i] = (row[i] + prev[i]) & 0xff;
      return;
    case 3:
      if (prev) {
        for (let i = 0; i < bpp; i++) row[i] = (row[i] + (prev[i] >> 1)) & 0xff;
        for (let i = bpp; i < n; i++) row[i] = (row[i] + ((row[i - bpp] + prev[i]) >> 1)) & 0xff;
      } else for (let i = bpp; i < n; i++) row[i] = (row[i] + (row[i - bpp] >> 1)) & 0xff;
      return;
    case 4:
      if (prev) {
        for (let i = 0; i < bpp; i++) row[i] = (row[i] + prev[i]) & 0xff;
        for (let i = bpp; i < n; i++) row[i] = (row[i] + paeth(row[i - bpp], prev[i], prev[i - bpp])) & 0xff;
      } else for (let i = bpp; i < n; i++) row[i] = (row[i] + row[i - bpp]) & 0xff;
      return;
    default:
      throw corrupt(`unknown filter type ${type}`);
  }
}

/** 16-bit sample to 8 bits, rounding: round(v × 255 / 65535). */
function to8(v: number): number {
  return ((v * 255 + 32767) / 65535) | 0;
}

/** Everything needed to turn unfiltered rows into RGBA. */
interface Converter {
  h: Header;
  /** 256 RGBA entries (palette images), missing entries opaque black. */
  palette?: Uint8Array;
  /**
   * Transparent colour key as stored samples (gray: 1 value, RGB: 3), or undefined. A key above the
   * largest sample for the bit depth never matches (ImageMagick and pngjs ignore such a tRNS too).
   */
  key?: number[];
}

function makeConverter(h: Header, c: Chunks): Converter {
  const conv: Converter = { h };
  const trns = c.trns;
  if (h.colorType === 3) {
    const plte = c.plte;
    if (!plte || plte.length === 0 || plte.length % 3 !== 0 || plte.length > 768) throw corrupt("palette image without a valid PLTE");
    const pal = new Uint8Array(256 * 4);
    for (let i = 0; i < 256; i++) pal[i * 4 + 3] = 255;
    const n = Math.min(plte.length / 3, 1 << h.bitDepth);
    for (let i = 0; i < n; i++) {
      pal[i * 4] = plte[i * 3];
      pal[i * 4 + 1] = plte[i * 3 + 1];
      pal[i * 4 + 2] = plte[i * 3 + 2];
    }
    if (trns && trns.length <= n) for (let i = 0; i < trns.length; i++) pal[i * 4 + 3] = trns[i];
    conv.palette = pal;
  } else if (h.colorType === 0 && trns && trns.length === 2) {
    conv.key = [u16be(trns, 0)];
  } else if (h.colorType === 2 && trns && trns.length === 6) {
    conv.key = [u16be(trns, 0), u16be(trns, 2), u16be(trns, 4)];
  }
  return conv;
}

/** Writes one unfiltered row of a pass (`w` pixels) into the RGBA output. */
function emitRow(cv: Converter, row: Uint8Array, w: number, out: Uint8Array, outStart: number, step: number): void {
  const { bitDepth: d, colorType: t } = cv.h;
  let o = outStart;
  if (d < 8) {
    const mask = (1 << d) - 1;
    const perByte = 8 / d;
    const scale = 255 / mask;
    const pal = cv.palette;
    const key = cv.key ? cv.key[0] : -1;
    for (let x = 0; x < w; x++, o += step) {
      const v = (row[(x / perByte) | 0] >> (8 - d - (x % perByte) * d)) & mask;
      if (pal) {
        const q = v * 4;
        out[o] = pal[q];
        out[o + 1] = pal[q + 1];
        out[o + 2] = pal[q + 2];
        out[o + 3] = pal[q + 3];
      } else {
        const g = v * scale;
        out[o] = out[o + 1] = out[o + 2] = g;
        out[o + 3] = v === key ? 0 : 255;
      }
    }
    return;
  }
  const key = cv.key;
  if (d === 8) {
    switch (t) {
      case 0: {
        const k = key ? key[0] : -1;
        for (let x = 0; x < w; x++, o += step) {
          const g = row[x];
          out[o] = out[o + 1] = out[o + 2] = g;
          out[o + 3] = g === k ? 0 : 255;
        }
        return;
      }
      case 2:
        for (let x = 0, i = 0; x < w; x++, o += step, i += 3) {
          const r = row[i], g = row[i + 1], b = row[i + 2];
          out[o] = r;
          out[o + 1] = g;
          out[o + 2] = b;
          out[o + 3] = key && r === key[0] && g === key[1] && b === key[2] ? 0 : 255;
        }
        return;
      case 3: {
        const pal = cv.palette!;
        for (let x = 0; x < w; x++, o += step) {
          const q = row[x] * 4;
          out[o] = pal[q];
          out[o + 1] = pal[q + 1];
          out[o + 2] = pal[q + 2];
          out[o + 3] = pal[q + 3];
        }
        return;
      }
      case 4:
        for (let x = 0, i = 0; x < w; x++, o += step, i += 2) {
          out[o] = out[o + 1] = out[o + 2] = row[i];
          out[o + 3] = row[i + 1];
        }
        return;
      default:
        for (let x = 0, i = 0; x < w; x++, o += step, i += 4) {
          out[o] = row[i];
          out[o + 1] = row[i + 1];
          out[o + 2] = row[i + 2];
          out[o + 3] = row[i + 3];
        }
        return;
    }
  }
  // 16-bit
  const s = (i: number) => (row[i] << 8) | row[i + 1];
  switch (t) {
    case 0: {
      const k = key ? key[0] : -1;
      for (let x = 0; x < w; x++, o += step) {
        const v = s(x * 2);
        out[o] = out[o + 1] = out[o + 2] = to8(v);
        out[o + 3] = v === k ? 0 : 255;
      }
      return;
    }
    case 2:
      for (let x = 0, i = 0; x < w; x++, o += step, i += 6) {
        const r = s(i), g = s(i + 2), b = s(i + 4);
        out[o] = to8(r);
        out[o + 1] = to8(g);
        out[o + 2] = to8(b);
        out[o + 3] = key && r === key[0] && g === key[1] && b === key[2] ? 0 : 255;
      }
      return;
    case 4:
      for (let x = 0, i = 0; x < w; x++, o += step, i += 4) {
        out[o] = out[o + 1] = out[o + 2] = to8(s(i));
        out[o + 3] = to8(s(i + 2));
      }
      return;
    default:
      for (let x = 0, i = 0; x < w; x++, o += step, i += 8) {
        out[o] = to8(s(i));
        out[o + 1] = to8(s(i + 2));
        out[o + 2] = to8(s(i + 4));
        out[o + 3] = to8(s(i + 6));
      }
  }
}

/** Inflates the concatenated IDAT data into exactly `size` bytes. Throws CORRUPT_IMAGE. */
function inflateIdat(idat: Uint8Array[], size: number): Uint8Array {
  let total = 0;
  for (const c of idat) total += c.length;
  let z: Uint8Array;
  if (idat.length === 1) z = idat[0];
  else {
    z = new Uint8Array(total);
    let o = 0;
    for (const c of idat) {
      z.set(c, o);
      o += c.length;
    }
  }
  // zlib header, RFC 1950 §2.2: CM = 8 (deflate), CINFO ≤ 7, FCHECK makes CMF·256 + FLG a multiple of 31,
  // FDICT = 0 (PNG §10.1 forbids a preset dictionary).
  if (z.length < 2 || (z[0] & 0x0f) !== 8 || z[0] >> 4 > 7 || ((z[0] << 8) | z[1]) % 31 !== 0 || z[1] & 0x20)
    throw corrupt("bad zlib header in IDAT");
  // Streamed in small input pieces, stopping once `size` bytes are out: a zlib bomb costs at most `size`
  // bytes of memory plus the work for one piece (deflate expands at most ~1032:1, so a piece of k bytes gives
  // ≤ ~1032·k bytes, and k shrinks with the output still needed); data after the image is never inflated.
  // (fflate's inflateSync with a fixed `out` buffer does not stop early: it inflates the whole stream and drops
  // the excess.)
  const out = new Uint8Array(size);
  let o = 0;
  const inf = new Inflate((chunk) => {
    const n = Math.min(chunk.length, size - o);
    out.set(n === chunk.length ? chunk : chunk.subarray(0, n), o);
    o += n;
  });
  for (let p = 2; p < z.length && o < size; ) {
    const piece = Math.min(INFLATE_PIECE, Math.max(INFLATE_PIECE_MIN, Math.ceil((size - o) / 1024)));
    const end = Math.min(z.length, p + piece);
    inf.push(z.subarray(p, end), end === z.length);
    p = end;
  }
  if (o < size) throw corrupt(`image data ends early (${o} of ${size} bytes)`);
  return out;
}

/**
 * Decodes a PNG to 8-bit RGBA. `maxPixels` is checked against the IHDR dimensions before anything is
 * allocated. Throws TOO_MANY_PIXELS when width × height > maxPixels, CORRUPT_IMAGE for the errors listed in
 * the module comment.
 */
function decodeSync(bytes: Uint8Array, { maxPixels }: DecodeOptions): Raster {
  const h = readHeader(bytes);
  if (h.width * h.height > maxPixels)
    throw new PixfitError("TOO_MANY_PIXELS", `PNG is ${h.width}x${h.height} pixels, over the limit of ${maxPixels}`, { format: "png" });
  const chunks = readChunks(bytes, true);
  if (chunks.idat.length === 0) throw corrupt("no IDAT chunk");
  const cv = makeConverter(h, chunks);
  const ps = passes(h);
  let size = 0;
  for (const p of ps) size += p.h * (1 + rowBytes(p.w, h));
  const data = inflateIdat(chunks.idat, size);
  const out = new Uint8Array(h.width * h.height * 4);
  const bpp = Math.max(1, (CHANNELS[h.colorType] * h.bitDepth) >> 3);
  let pos = 0;
  for (const p of ps) {
    const rb = rowBytes(p.w, h);
    let prev: Uint8Array | null = null;
    for (let y = 0; y < p.h; y++) {
      const type = data[pos];
      const row = data.subarray(pos + 1, pos + 1 + rb);
      pos += 1 + rb;
      unfilter(type, row, prev, bpp);
      prev = row;
      emitRow(cv, row, p.w, out, ((p.y0 + y * p.dy) * h.width + p.x0) * 4, p.dx * 4);
    }
  }
  return { width: h.width, height: h.height, data: out };
}

// ---------------------------------------------------------------------------------------------------------
// Encode.

function chunk(type: string, data: Uint8Array): Uint8Array {
  const c = new Uint8Array(12 + data.length);
  const v = new DataView(c.buffer);
  v.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) c[4 + i] = type.charCodeAt(i);
  c.set(data, 8);
  v.setUint32(8 + data.length, crc32(c, 4, 8 + data.length));
  return c;
}

/**
 * Filters the image rows (PNG §9) choosing, per row, the filter with the smallest sum of absolute values of
 * the filtered bytes taken as signed (the heuristic libpng uses, PNG §12.7). Returns the filtered stream.
 * Each filter is scored in its own loop without storing its output; only the winner is written.
 */
function filterRows(px: Uint8Array, width: number, height: number, bpp: number): Uint8Array {
  const rb = width * bpp;
  const out = new Uint8Array(height * (rb + 1));
  const zero = new Uint8Array(rb);
  const sums = new Float64Array(5);
  for (let y = 0; y < height; y++) {
    const c0 = y * rb;
    const up = y > 0 ? px : zero;
    const u0 = y > 0 ? c0 - rb : 0;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    // |filtered byte as signed| without branches: d = ((x - pred) << 24) >> 24, |d| = (d ^ (d >> 31)) - (d >> 31).
    for (let i = 0; i < rb; i++) {
      const x = px[c0 + i], b = up[u0 + i];
      const a = i >= bpp ? px[c0 + i - bpp] : 0, c = i >= bpp ? up[u0 + i - bpp] : 0;
      let d = (x << 24) >> 24;
      s0 += (d ^ (d >> 31)) - (d >> 31);
      d = ((x - a) << 24) >> 24;
      s1 += (d ^ (d >> 31)) - (d >> 31);
      d = ((x - b) << 24) >> 24;
      s2 += (d ^ (d >> 31)) - (d >> 31);
      d = ((x - ((a + b) >> 1)) << 24) >> 24;
      s3 += (d ^ (d >> 31)) - (d >> 31);
      const p = a + b - c;
      const pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p, pc = p > c ? p - c : c - p;
      d = ((x - (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) << 24) >> 24;
      s4 += (d ^ (d >> 31)) - (d >> 31);
    }
    sums[0] = s0;
    sums[1] = s1;
    sums[2] = s2;
    sums[3] = s3;
    sums[4] = s4;
    let f = 0;
    for (let k = 1; k < 5; k++) if (sums[k] < sums[f]) f = k;
    const o = y * (rb + 1) + 1;
    out[o - 1] = f;
    if (f === 0) out.set(px.subarray(c0, c0 + rb), o);
    else if (f === 2) for (let i = 0; i < rb; i++) out[o + i] = px[c0 + i] - up[u0 + i];
    else
      for (let i = 0; i < rb; i++) {
        const x = px[c0 + i], a = i >= bpp ? px[c0 + i - bpp] : 0, b = up[u0 + i], c = i >= bpp ? up[u0 + i - bpp] : 0;
        out[o + i] = x - (f === 1 ? a : f === 3 ? (a + b) >> 1 : paeth(a, b, c));
      }
  }
  return out;
}

/**
 * Encodes an RGBA raster as a non-interlaced 8-bit PNG: colour type 2 (RGB) when every alpha is 255, else
 * colour type 6 (RGBA); adaptive per-row filters; zlib level 6. Lossless: decoding gives the same RGBA back
 * (fully transparent pixels keep their RGB). Never touches `Buffer`. Throws CORRUPT_IMAGE when
 * `data.length !== width * height * 4` or a dimension is 0 or above 2^31 − 1.
 */
function encodeSync(raster: Raster): Uint8Array {
  const { width, height, data } = raster;
  if (!(width >= 1 && height >= 1 && width <= MAX_U31 && height <= MAX_U31) || data.length !== width * height * 4)
    throw corrupt(`raster ${width}x${height} with ${data.length} bytes is not valid RGBA`);
  let opaque = true;
  for (let i = 3; i < data.length; i += 4)
    if (data[i] !== 255) {
      opaque = false;
      break;
    }
  let px = data;
  if (opaque) {
    px = new Uint8Array(width * height * 3);
    for (let i = 0, j = 0; i < data.length; i += 4, j += 3) {
      px[j] = data[i];
      px[j + 1] = data[i + 1];
      px[j + 2] = data[i + 2];
    }
  }
  const bpp = opaque ? 3 : 4;
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr[8] = 8;
  ihdr[9] = opaque ? 2 : 6;
  const idat = zlibSync(filterRows(px, width, height, bpp), { level: ENCODE_LEVEL });
  const parts = [new Uint8Array(SIGNATURE), chunk("IHDR", ihdr), chunk("IDAT", idat), chunk("IEND", new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export const png: Codec = {
  format: "png",
  mediaType: "image/png",
  kind: "image",
  // "\x89PNG" alone identifies PNG; the rest of the signature (CR LF SUB LF) exists to catch text-mode transfer
  // damage, which probe/decode then report as CORRUPT_IMAGE rather than as an unknown format.
  sniff: (b) => hasBytes(b, 0, [0x89, 0x50, 0x4e, 0x47]),
  probe,
  /** See {@link decodeSync}. Any unexpected failure is reported as CORRUPT_IMAGE with the cause kept. */
  async decode(bytes, options) {
    try {
      return decodeSync(bytes, options);
    } catch (err) {
      throw asCorrupt(err, "png");
    }
  },
  /** See {@link encodeSync}. */
  async encode(raster) {
    return encodeSync(raster);
  },
};
