/**
 * Baseline JPEG encoder (ITU-T T.81 sequential DCT, Huffman, 8-bit), written here so that nothing reaches
 * for a global `Buffer` (jpeg-js's encoder ends with `Buffer.from`). Output is JFIF: YCbCr 4:2:0 for colour
 * input, a single component when every pixel has R = G = B. Standard tables from T.81 Annex K, quality
 * scaling as in the IJG libjpeg (`jpeg_quality_scaling`), float AAN forward DCT as in libjpeg's jfdctflt.c.
 */
import { PixfitError } from "../src/errors.js";
import type { Raster } from "../src/types.js";
import {
  STD_AC_CHROMA,
  STD_AC_LUMA,
  STD_CHROMA_QT,
  STD_DC_CHROMA,
  STD_DC_LUMA,
  STD_LUMA_QT,
  ZIGZAG,
  standardDHT,
  type HuffSpec,
} from "./jpeg-tables.js";

/** Growable byte sink with a bit writer for entropy-coded data (0xFF bytes are followed by a stuffed 0x00). */
class Sink {
  buf: Uint8Array;
  pos = 0;
  private acc = 0;
  private nbits = 0;
  constructor(initial: number) {
    this.buf = new Uint8Array(Math.max(1024, initial));
  }
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }
  u16(v: number): void {
    this.byte(v >> 8);
    this.byte(v & 0xff);
  }
  bytes(a: ArrayLike<number>): void {
    this.ensure(a.length);
    this.buf.set(a, this.pos);
    this.pos += a.length;
  }
  bits(code: number, size: number): void {
    // acc keeps at most 7 pending bits between calls, so acc << size stays below 2^31: `size` must be ≤ 24.
    let acc = (this.acc << size) | code;
    let nbits = this.nbits + size;
    if (nbits >= 8) {
      if (this.pos + 8 > this.buf.length) this.ensure(8);
      const buf = this.buf;
      let pos = this.pos;
      do {
        nbits -= 8;
        const b = (acc >>> nbits) & 0xff;
        buf[pos++] = b;
        if (b === 0xff) buf[pos++] = 0;
      } while (nbits >= 8);
      this.pos = pos;
      acc &= (1 << nbits) - 1;
    }
    this.acc = acc;
    this.nbits = nbits;
  }
  /** Pads the last byte with 1-bits (T.81 F.1.2.3). */
  flushBits(): void {
    if (this.nbits > 0) this.bits((1 << (8 - this.nbits)) - 1, 8 - this.nbits);
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

interface HuffCodes {
  code: Uint16Array;
  size: Uint8Array;
}

/** Code assignment from a DHT-style spec (T.81 Annex C, Figures C.1–C.3). */
function huffCodes(spec: HuffSpec): HuffCodes {
  const code = new Uint16Array(256);
  const size = new Uint8Array(256);
  let c = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    for (let i = 0; i < spec.counts[len - 1]; i++) {
      const sym = spec.symbols[k++];
      code[sym] = c++;
      size[sym] = len;
    }
    c <<= 1;
  }
  return { code, size };
}

/** IJG quality scaling of a base table (libjpeg jcparam.c `jpeg_quality_scaling` / `jpeg_add_quant_table`). */
function scaledTable(base: number[], quality: number): number[] {
  const scale = quality < 50 ? Math.floor(5000 / quality) : 200 - quality * 2;
  return base.map((q) => Math.min(255, Math.max(1, Math.floor((q * scale + 50) / 100))));
}

/** AAN scale factors (libjpeg jfdctflt.c / jcdctmgr.c). */
const AAN = [1.0, 1.387039845, 1.306562965, 1.175875602, 1.0, 0.785694958, 0.5411961, 0.275899379];

/** Reciprocal divisors that fold the AAN output scaling into quantisation (libjpeg jcdctmgr.c, float path). */
function divisors(qt: number[]): Float64Array {
  const d = new Float64Array(64);
  for (let r = 0; r < 8; r++) for (let c = 0; c < 8; c++) d[r * 8 + c] = 1 / (qt[r * 8 + c] * AAN[r] * AAN[c] * 8);
  return d;
}

/** In-place float forward DCT of an 8×8 block of level-shifted samples (libjpeg jfdctflt.c). */
function fdct(d: Float64Array): void {
  for (let pass = 0; pass < 2; pass++) {
    const step = pass === 0 ? 1 : 8;
    const stride = pass === 0 ? 8 : 1;
    for (let i = 0; i < 8; i++) {
      const o = i * stride;
      const p0 = o, p1 = o + step, p2 = o + 2 * step, p3 = o + 3 * step;
      const p4 = o + 4 * step, p5 = o + 5 * step, p6 = o + 6 * step, p7 = o + 7 * step;
      const tmp0 = d[p0] + d[p7], tmp7 = d[p0] - d[p7];
      const tmp1 = d[p1] + d[p6], tmp6 = d[p1] - d[p6];
      const tmp2 = d[p2] + d[p5], tmp5 = d[p2] - d[p5];
      const tmp3 = d[p3] + d[p4], tmp4 = d[p3] - d[p4];
      let tmp10 = tmp0 + tmp3;
      const tmp13 = tmp0 - tmp3;
      let tmp11 = tmp1 + tmp2;
      let tmp12 = tmp1 - tmp2;
      d[p0] = tmp10 + tmp11;
      d[p4] = tmp10 - tmp11;
      const z1 = (tmp12 + tmp13) * 0.707106781;
      d[p2] = tmp13 + z1;
      d[p6] = tmp13 - z1;
      tmp10 = tmp4 + tmp5;
      tmp11 = tmp5 + tmp6;
      tmp12 = tmp6 + tmp7;
      const z5 = (tmp10 - tmp12) * 0.382683433;
      const z2 = 0.5411961 * tmp10 + z5;
      const z4 = 1.306562965 * tmp12 + z5;
      const z3 = tmp11 * 0.707106781;
      const z11 = tmp7 + z3;
      const z13 = tmp7 - z3;
      d[p5] = z13 + z2;
      d[p3] = z13 - z2;
      d[p1] = z11 + z4;
      d[p7] = z11 - z4;
    }
  }
}

/** Number of bits needed for |v| (the "SSSS" category of T.81 F.1.2.1). */
function category(v: number): number {
  return 32 - Math.clz32(v < 0 ? -v : v);
}

const zz = new Int32Array(64);

/** FDCT, quantise and Huffman-code one block; returns its quantised DC for the next prediction. */
function encodeBlock(out: Sink, block: Float64Array, div: Float64Array, prevDC: number, dc: HuffCodes, ac: HuffCodes): number {
  fdct(block);
  for (let k = 0; k < 64; k++) {
    const n = ZIGZAG[k];
    zz[k] = Math.round(block[n] * div[n]);
  }
  const diff = zz[0] - prevDC;
  const dcat = category(diff);
  out.bits(dc.code[dcat], dc.size[dcat]);
  if (dcat) out.bits(diff < 0 ? (diff - 1) & ((1 << dcat) - 1) : diff, dcat);
  let run = 0;
  for (let k = 1; k < 64; k++) {
    const v = zz[k];
    if (v === 0) {
      run++;
      continue;
    }
    while (run > 15) {
      out.bits(ac.code[0xf0], ac.size[0xf0]);
      run -= 16;
    }
    const cat = category(v);
    const sym = (run << 4) | cat;
    const extra = v < 0 ? (v - 1) & ((1 << cat) - 1) : v;
    const len = ac.size[sym];
    // Code and extra bits in one write when they fit the 24-bit limit of Sink.bits.
    if (len + cat <= 24) out.bits((ac.code[sym] << cat) | extra, len + cat);
    else {
      out.bits(ac.code[sym], len);
      out.bits(extra, cat);
    }
    run = 0;
  }
  if (run > 0) out.bits(ac.code[0], ac.size[0]);
  return zz[0];
}

function isGray(d: Uint8Array): boolean {
  for (let i = 0; i < d.length; i += 4) if (d[i] !== d[i + 1] || d[i] !== d[i + 2]) return false;
  return true;
}

/**
 * Encodes an 8-bit RGBA raster as a baseline JFIF JPEG.
 *
 * - `raster`: `{width, height, data}` with `data.length === width * height * 4`; width and height in pixels, 1–65535
 *   (the 16-bit fields of the SOF header, T.81 B.2.2).
 * - `quality`: 1–100 (rounded and clamped), IJG scaling of the T.81 Annex K tables; 80 when omitted.
 * - Alpha is ignored: the colour channels are written as stored, not composited over any background (JPEG has no alpha;
 *   callers that care flatten first).
 * - Colour input → YCbCr 4:2:0 (JFIF, 2×2 box-filtered chroma); input with R = G = B everywhere → one grayscale component.
 *
 * Returns the JPEG bytes (a fresh `Uint8Array`). Throws `INPUT_TOO_LARGE` when a side exceeds 65535 pixels and
 * `RangeError` when the raster's shape is inconsistent (a caller bug, not bad input data).
 */
export function encodeJpeg(raster: Raster, quality = 80): Uint8Array {
  const { width: w, height: h, data } = raster;
  if (!Number.isInteger(w) || !Number.isInteger(h) || w < 1 || h < 1 || data.length !== w * h * 4)
    throw new RangeError(`raster must be width×height×4 bytes with positive integer sides (got ${w}×${h}, ${data.length} bytes)`);
  if (w > 65535 || h > 65535)
    throw new PixfitError("INPUT_TOO_LARGE", `JPEG sides are limited to 65535 pixels (got ${w}×${h})`, { format: "jpeg" });
  const q = Math.min(100, Math.max(1, Math.round(Number.isFinite(quality) ? quality : 80)));
  const gray = isGray(data);
  const lqt = scaledTable(STD_LUMA_QT, q);
  const cqt = scaledTable(STD_CHROMA_QT, q);
  const out = new Sink(Math.ceil((w * h) / 4) + 1024);

  // SOI, APP0 JFIF 1.01 (aspect 1:1, no thumbnail).
  out.u16(0xffd8);
  out.u16(0xffe0);
  out.u16(16);
  out.bytes([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  // DQT: tables in zig-zag order, 8-bit precision.
  const tables = gray ? [lqt] : [lqt, cqt];
  out.u16(0xffdb);
  out.u16(2 + 65 * tables.length);
  tables.forEach((t, id) => {
    out.byte(id);
    for (let k = 0; k < 64; k++) out.byte(t[ZIGZAG[k]]);
  });
  // SOF0.
  const nc = gray ? 1 : 3;
  out.u16(0xffc0);
  out.u16(8 + 3 * nc);
  out.byte(8);
  out.u16(h);
  out.u16(w);
  out.byte(nc);
  if (gray) out.bytes([1, 0x11, 0]);
  else out.bytes([1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  out.bytes(standardDHT());
  // SOS: all components in one interleaved scan, Ss=0, Se=63, Ah=Al=0.
  out.u16(0xffda);
  out.u16(6 + 2 * nc);
  out.byte(nc);
  if (gray) out.bytes([1, 0x00]);
  else out.bytes([1, 0x00, 2, 0x11, 3, 0x11]);
  out.bytes([0, 63, 0]);

  const dcL = huffCodes(STD_DC_LUMA), acL = huffCodes(STD_AC_LUMA);
  const dcC = huffCodes(STD_DC_CHROMA), acC = huffCodes(STD_AC_CHROMA);
  const divL = divisors(lqt), divC = divisors(cqt);
  const blk = new Float64Array(64);

  if (gray) {
    let pred = 0;
    for (let by = 0; by < h; by += 8)
      for (let bx = 0; bx < w; bx += 8) {
        for (let r = 0; r < 8; r++) {
          const row = Math.min(by + r, h - 1) * w;
          for (let c = 0; c < 8; c++) blk[r * 8 + c] = data[(row + Math.min(bx + c, w - 1)) * 4] - 128;
        }
        pred = encodeBlock(out, blk, divL, pred, dcL, acL);
      }
  } else {
    // One 16×16 MCU at a time: Y, Cb, Cr computed on the fly (JFIF 1.02 equations), edges replicated.
    const Y = new Float64Array(256), Cb = new Float64Array(256), Cr = new Float64Array(256);
    let pY = 0, pCb = 0, pCr = 0;
    for (let my = 0; my < h; my += 16)
      for (let mx = 0; mx < w; mx += 16) {
        for (let r = 0; r < 16; r++) {
          const row = Math.min(my + r, h - 1) * w;
          for (let c = 0; c < 16; c++) {
            const i = (row + Math.min(mx + c, w - 1)) * 4;
            const R = data[i], G = data[i + 1], B = data[i + 2];
            const k = r * 16 + c;
            Y[k] = 0.299 * R + 0.587 * G + 0.114 * B - 128;
            Cb[k] = -0.168735892 * R - 0.331264108 * G + 0.5 * B;
            Cr[k] = 0.5 * R - 0.418687589 * G - 0.081312411 * B;
          }
        }
        for (let b = 0; b < 4; b++) {
          const oy = (b >> 1) * 8, ox = (b & 1) * 8;
          for (let r = 0; r < 8; r++) for (let c = 0; c < 8; c++) blk[r * 8 + c] = Y[(oy + r) * 16 + ox + c];
          pY = encodeBlock(out, blk, divL, pY, dcL, acL);
        }
        for (const [plane, which] of [[Cb, 0], [Cr, 1]] as const) {
          for (let r = 0; r < 8; r++)
            for (let c = 0; c < 8; c++) {
              const k = r * 32 + c * 2;
              blk[r * 8 + c] = (plane[k] + plane[k + 1] + plane[k + 16] + plane[k + 17]) / 4;
            }
          if (which === 0) pCb = encodeBlock(out, blk, divC, pCb, dcC, acC);
          else pCr = encodeBlock(out, blk, divC, pCr, dcC, acC);
        }
      }
  }
  out.flushBits();
  out.u16(0xffd9);
  return out.result();
}
