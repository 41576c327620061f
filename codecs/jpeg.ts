/**
 * JPEG codec. The header walk (probe, variant checks, colour-space choice) is here; entropy decoding and IDCT are
 * codecs/jpeg-decoder.ts (pixfit's own: Huffman baseline / extended / progressive, 8-bit, libjpeg's integer IDCT);
 * chroma upsampling and YCbCr→RGB follow libjpeg(-turbo), so results agree with ImageMagick/browsers to within IDCT
 * rounding. Encoding is codecs/jpeg-encoder.ts. Spec: ITU-T T.81 (cited "T.81 x.y"), JFIF 1.02, Adobe TN 5116 (APP14).
 *
 * Decode policy:
 * - Supported: SOF0/SOF1/SOF2 (Huffman; baseline, extended sequential, progressive), 8-bit samples, 1, 3 or 4
 *   components; restart markers; 8- or 16-bit quantisation tables; DNL (height 0 in SOF, real height in the DNL
 *   segment after the first scan, T.81 B.2.5); Motion-JPEG frames without DHT (T.81 K.3 tables are assumed, as libjpeg does).
 * - `UNSUPPORTED_FORMAT` (named in the message): arithmetic coding (SOF9–11, SOF13–15), lossless (SOF3, SOF7,
 *   SOF11, SOF15), hierarchical (SOF5–7, SOF13–15), JPEG-LS (SOF55, 0xFFF7), sample precision other than 8
 *   (12-bit), and component counts other than 1, 3 or 4.
 * - Colour space, chosen as libjpeg does (jdapimin.c): 1 component = gray; 3 = YCbCr when a JFIF APP0 is present,
 *   else from an Adobe APP14 transform (0 = RGB, otherwise YCbCr), else RGB when the component ids are 'R','G','B',
 *   else YCbCr; 4 = CMYK with Adobe transform 0 or no Adobe segment, YCCK with any other transform. CMYK/YCCK are
 *   taken as Adobe-inverted (what Photoshop and libjpeg-based writers emit) and converted naively,
 *   R = C·K/255 on the stored values; no ICC profile is applied (neither to RGB nor to CMYK).
 * - Chroma upsampling: libjpeg-turbo "fancy" (triangle) upsampling for 2×1, 1×2 and 2×2 ratios (2×1 and 2×2 only when
 *   the subsampled component is more than 2 samples wide, as libjpeg-turbo does); other integer ratios replicate
 *   (libjpeg's int_upsample does the same). 4-component images use replication (as jpeg-js did before this decoder),
 *   which differs from libjpeg only for subsampled CMYK/YCCK.
 * - Shrink-on-load: with a `targetWidth`/`targetHeight` hint, decodes at 1/2, 1/4 or 1/8 scale (the largest that keeps
 *   both sides at least the hint; output ceil(side / d), as libjpeg's `scale_denom`) with reduced IDCTs on the
 *   low-frequency coefficients; progressive files keep only those coefficients. Chroma then usually needs no
 *   upsampling (libjpeg-turbo's choice of a larger IDCT for subsampled components).
 * - Tolerated: junk bytes and 0xFF fill bytes between header segments; APPn/COM segments anywhere before the first
 *   scan; a missing EOI after complete scan data; any data after EOI.
 * - Errors (`CORRUPT_IMAGE`): no SOI; no SOF before SOS/EOI; a header segment with length < 2 or running past the end
 *   of the input; width 0, or height 0 without a DNL segment; no SOS; more than {@link MAX_SCANS} scans; and
 *   TRUNCATED ENTROPY DATA: when a scan's data ends before its last MCU the image is refused rather than returned
 *   partially grey (the choice: a predictable error instead of a plausible-looking half image; detected at the first
 *   MCU row past the data, so a huge declared size over a few bytes fails fast). Other decoder failures (bad Huffman
 *   code or table, undefined table, extraneous bytes before or a missing RST marker) are `CORRUPT_IMAGE` too.
 * - `TOO_MANY_PIXELS` is checked from the header before anything is allocated.
 */
import { hasBytes, u16be } from "../src/bytes.js";
import { PixfitError, asCorrupt } from "../src/errors.js";
import { readExifOrientation } from "../src/exif.js";
import type { Codec, DecodeOptions, EncodeOptions, ImageInfo, Raster } from "../src/types.js";
import { encodeJpeg } from "./jpeg-encoder.js";
import { decodeJpegPlanes, type DecodedComponent, type DecodedPlanes } from "./jpeg-decoder.js";

/**
 * Most scans a file may have (libjpeg-turbo's TurboJPEG scan limit is 500; real files have at most a few dozen).
 * Guards against progressive "scan bombs" that redo the whole image thousands of times.
 */
export const MAX_SCANS = 500;

/** One component of the frame header (T.81 B.2.2). */
interface FrameComponent {
  id: number;
  h: number;
  v: number;
}

/** What the header walk learns. Offsets are byte offsets into the input. */
interface JpegHeader {
  width: number;
  height: number;
  /** Low byte of the SOF marker: 0xC0–0xCF (not C4/C8/CC) or 0xF7 (JPEG-LS). */
  sof: number;
  /** Offset of the SOF segment's length field. */
  sofAt: number;
  precision: number;
  components: FrameComponent[];
  orientation: number;
  jfif: boolean;
  /** Adobe APP14 transform flag, or -1 when there is no Adobe segment. */
  adobeTransform: number;
  /** A DHT segment appeared before the first SOS. */
  dht: boolean;
  /** Offset of the first SOS marker (its 0xFF), or -1. */
  sos: number;
  /** Height from a DNL segment when the SOF says 0, else 0. */
  dnlHeight: number;
  /** JPEG-LS oversize dimensions from an LSE segment (ID 4), else 0. */
  lsWidth: number;
  lsHeight: number;
  /** Header segments before the first SOS: [marker low byte, offset of 0xFF, end offset]. */
  segments: [number, number, number][];
}

const SOF_NAMES: Record<number, string> = {
  0xc3: "lossless (SOF3)",
  0xc5: "hierarchical sequential (SOF5)",
  0xc6: "hierarchical progressive (SOF6)",
  0xc7: "hierarchical lossless (SOF7)",
  0xc9: "arithmetic-coded extended sequential (SOF9)",
  0xca: "arithmetic-coded progressive (SOF10)",
  0xcb: "arithmetic-coded lossless (SOF11)",
  0xcd: "arithmetic-coded hierarchical sequential (SOF13)",
  0xce: "arithmetic-coded hierarchical progressive (SOF14)",
  0xcf: "arithmetic-coded hierarchical lossless (SOF15)",
  0xf7: "JPEG-LS (SOF55)",
};

function isSOF(m: number): boolean {
  return (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) || m === 0xf7;
}

/** Big-endian unsigned integer of `n` (1–4) bytes at `o`. */
function uintBE(b: Uint8Array, o: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) v = v * 256 + (o + k < b.length ? b[o + k] : 0);
  return v;
}

function corrupt(msg: string): PixfitError {
  return new PixfitError("CORRUPT_IMAGE", `Corrupt JPEG: ${msg}`, { format: "jpeg" });
}

/**
 * Walks the marker segments from SOI to the first SOS (T.81 B.1.1.2, B.2). Skips junk and 0xFF fill bytes between
 * segments and standalone markers (RSTn, TEM, a repeated SOI). Stops at SOS or EOI. Every step advances, so it
 * cannot loop. Throws CORRUPT_IMAGE for a missing SOI/SOF, a bad length or a segment cut off by the end of input.
 */
function readHeader(b: Uint8Array): JpegHeader {
  if (!hasBytes(b, 0, [0xff, 0xd8])) throw corrupt("missing SOI marker");
  const hd: JpegHeader = {
    width: 0, height: 0, sof: -1, sofAt: -1, precision: 0, components: [], orientation: 1, jfif: false,
    adobeTransform: -1, dht: false, sos: -1, dnlHeight: 0, lsWidth: 0, lsHeight: 0, segments: [],
  };
  let exifSeen = false;
  let i = 2;
  const n = b.length;
  for (;;) {
    while (i < n && b[i] !== 0xff) i++; // junk between segments (libjpeg warns "extraneous bytes")
    while (i < n && b[i] === 0xff) i++; // fill bytes (T.81 B.1.1.2)
    if (i >= n) break;
    const m = b[i++];
    const at = i - 2;
    if (m === 0x00 || m === 0x01 || m === 0xd8 || (m >= 0xd0 && m <= 0xd7)) continue; // standalone / stuffed
    if (m === 0xd9) break; // EOI
    if (i + 2 > n) throw corrupt(`segment 0xFF${m.toString(16).toUpperCase()} cut off at byte ${at}`);
    const len = u16be(b, i);
    if (len < 2) throw corrupt(`segment 0xFF${m.toString(16).toUpperCase()} at byte ${at} has length ${len}`);
    const end = i + len;
    if (end > n) {
      if (hd.sof < 0 || m === 0xda || isSOF(m)) throw corrupt(`header truncated inside segment 0xFF${m.toString(16).toUpperCase()}`);
      break; // a cut-off segment after the frame header: probe has what it needs; decode fails on the missing scan
    }
    const seg = b.subarray(i + 2, end);
    if (m === 0xda) {
      hd.sos = at;
      break;
    }
    hd.segments.push([m, at, end]);
    if (isSOF(m)) {
      if (hd.sof >= 0) throw corrupt("more than one frame header (SOF)");
      if (seg.length < 6) throw corrupt("frame header (SOF) too short");
      hd.sof = m;
      hd.sofAt = i;
      hd.precision = seg[0];
      hd.height = u16be(seg, 1);
      hd.width = u16be(seg, 3);
      const nc = seg[5];
      if (seg.length < 6 + 3 * nc) throw corrupt("frame header (SOF) too short for its components");
      for (let c = 0; c < nc; c++) {
        const hv = seg[7 + 3 * c];
        hd.components.push({ id: seg[6 + 3 * c], h: hv >> 4, v: hv & 15 });
      }
    } else if (m === 0xf8 && seg[0] === 4 && seg.length >= 2 + 2 * seg[1]) {
      // JPEG-LS LSE "oversize image dimension" (T.87 C.2.4.1.4): Wxy-byte height then width, used when SOF55 says 0.
      const wxy = seg[1];
      hd.lsHeight = uintBE(seg, 2, wxy);
      hd.lsWidth = uintBE(seg, 2 + wxy, wxy);
    } else if (m === 0xc4) hd.dht = true;
    else if (m === 0xe0 && hasBytes(seg, 0, "JFIF\0")) hd.jfif = true;
    else if (m === 0xe1 && !exifSeen && hasBytes(seg, 0, "Exif\0\0")) {
      exifSeen = true; // the first EXIF segment wins (libexif, ExifTool)
      hd.orientation = readExifOrientation(seg);
    } else if (m === 0xee && seg.length >= 12 && hasBytes(seg, 0, "Adobe")) hd.adobeTransform = seg[11];
    i = end;
  }
  if (hd.sof < 0) throw corrupt("no frame header (SOF) before the first scan or end of image");
  if (hd.sof === 0xf7 && hd.width === 0 && hd.height === 0) {
    hd.width = hd.lsWidth;
    hd.height = hd.lsHeight;
  }
  if (hd.width === 0) throw corrupt("frame header declares width 0");
  if (hd.height === 0) {
    // T.81 B.2.5: the height may come in a DNL segment right after the first scan. 0xFF 0xDC cannot occur inside
    // entropy-coded data (0xFF there is followed by 0x00 or RSTn), so a byte search finds it.
    // Searched from the end of the SOF segment: a DNL may also follow a scan that ends before our SOS search point.
    const sofEnd = hd.sofAt + u16be(b, hd.sofAt);
    for (let j = sofEnd; j + 5 < n; j++)
      if (b[j] === 0xff && b[j + 1] === 0xdc && u16be(b, j + 2) >= 4 && u16be(b, j + 2) <= 6) {
        // Ld = 4 (T.81 B.2.5); JPEG-LS also allows 3- and 4-byte heights (T.87 C.2.3, Ld = 5, 6).
        hd.dnlHeight = uintBE(b, j + 4, u16be(b, j + 2) - 2);
        break;
      }
    if (hd.dnlHeight === 0) throw corrupt("frame header declares height 0 and no DNL segment gives it");
    hd.height = hd.dnlHeight;
  }
  return hd;
}

/** Why this frame cannot be decoded (codecs/jpeg-decoder.ts), or null when it can. */
function unsupportedReason(hd: JpegHeader): string | null {
  const name = SOF_NAMES[hd.sof];
  if (name) return `${name} JPEG is not supported`;
  if (hd.precision !== 8) return `${hd.precision}-bit sample precision JPEG is not supported (only 8-bit)`;
  const nc = hd.components.length;
  if (nc !== 1 && nc !== 3 && nc !== 4) return `JPEG with ${nc} colour components is not supported (only 1, 3 or 4)`;
  return null;
}

/** Counts SOS markers from `from` on; stops counting past `limit`. Uses the native `indexOf` to find 0xFF bytes. */
function countScans(b: Uint8Array, from: number, limit: number): number {
  let count = 0;
  for (let j = b.indexOf(0xff, from); j >= 0 && j + 1 < b.length; j = b.indexOf(0xff, j + 1))
    if (b[j + 1] === 0xda && ++count > limit) break;
  return count;
}

/** 3-component colour space by libjpeg's rules (jdapimin.c `default_decompress_parms`). */
function isYCbCr(hd: JpegHeader): boolean {
  if (hd.jfif) return true;
  if (hd.adobeTransform >= 0) return hd.adobeTransform !== 0;
  const [a, b, c] = hd.components.map((x) => x.id);
  return !(a === 0x52 && b === 0x47 && c === 0x42); // 'R','G','B'
}

/**
 * Replaces channel `ch` of `px` (RGBA, w×h), filled by replicating a component subsampled by rx×ry,
 * with libjpeg's fancy (triangle-filter) upsampling of the same samples (jdsample.c h2v1/h1v2/h2v2_fancy_upsample).
 * Edge samples are repeated, as libjpeg does at image edges.
 */
function fancyUpsample(px: Uint8Array, w: number, h: number, ch: number, rx: number, ry: number): void {
  const cw = Math.ceil(w / rx), chh = Math.ceil(h / ry);
  const p = new Int32Array(cw * chh);
  for (let y = 0; y < chh; y++) for (let x = 0; x < cw; x++) p[y * cw + x] = px[(y * ry * w + x * rx) * 4 + ch];
  const at = (x: number, y: number) => p[(y < 0 ? 0 : y >= chh ? chh - 1 : y) * cw + (x < 0 ? 0 : x >= cw ? cw - 1 : x)];
  for (let y = 0; y < h; y++) {
    const sy = ry === 2 ? y >> 1 : y;
    const ny = ry === 2 ? (y & 1 ? sy + 1 : sy - 1) : sy; // nearer neighbouring row
    for (let x = 0; x < w; x++) {
      const sx = rx === 2 ? x >> 1 : x;
      let v: number;
      if (rx === 2 && ry === 2) {
        const nx = x & 1 ? sx + 1 : sx - 1;
        const cur = 3 * at(sx, sy) + at(sx, ny);
        const nb = 3 * at(nx, sy) + at(nx, ny);
        v = (3 * cur + nb + (x & 1 ? 7 : 8)) >> 4;
      } else if (rx === 2) {
        const nx = x & 1 ? sx + 1 : sx - 1;
        v = (3 * at(sx, sy) + at(nx, sy) + (x & 1 ? 2 : 1)) >> 2;
      } else {
        v = (3 * at(sx, sy) + at(sx, ny) + (y & 1 ? 2 : 1)) >> 2;
      }
      px[(y * w + x) * 4 + ch] = v;
    }
  }
}

/** libjpeg's YCbCr → RGB tables (jdcolor.c build_ycc_rgb_table, SCALEBITS = 16; JFIF 1.02 equations). */
const YCC = (() => {
  const FIX = (x: number) => Math.floor(x * 65536 + 0.5);
  const HALF = 1 << 15;
  const crR = new Int32Array(256), cbB = new Int32Array(256), crG = new Int32Array(256), cbG = new Int32Array(256);
  for (let i = 0; i < 256; i++) {
    const x = i - 128;
    crR[i] = (FIX(1.402) * x + HALF) >> 16;
    cbB[i] = (FIX(1.772) * x + HALF) >> 16;
    crG[i] = -FIX(0.71414) * x;
    cbG[i] = -FIX(0.34414) * x + HALF;
  }
  return { crR, cbB, crG, cbG };
})();

/** YCbCr → RGB in place with libjpeg's fixed-point tables (jdcolor.c, SCALEBITS = 16; JFIF 1.02 equations). */
function ycbcrToRgb(px: Uint8Array): void {
  const { crR, cbB, crG, cbG } = YCC;
  const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);
  for (let i = 0; i < px.length; i += 4) {
    const y = px[i], cb = px[i + 1], cr = px[i + 2];
    px[i] = clamp(y + crR[cr]);
    px[i + 1] = clamp(y + ((cbG[cb] + crG[cr]) >> 16));
    px[i + 2] = clamp(y + cbB[cb]);
  }
}

/**
 * One output row of a component whose grid is `rx`×`ry` (1 or 2) coarser than the output, into `dst` (w samples):
 * a plain copy, libjpeg's fancy triangle filter (jdsample.c h2v1/h1v2/h2v2_fancy_upsample, edges repeated; the same
 * arithmetic as {@link fancyUpsample}), or replication when `fancy` is false.
 */
function componentRow(c: DecodedComponent, y: number, w: number, h: number, rx: number, ry: number, fancy: boolean, dst: Uint8Array, sums: Int32Array): void {
  const d = c.data, st = c.stride;
  const sy = ry === 2 ? y >> 1 : y;
  const cw = Math.ceil(w / rx), chh = Math.ceil(h / ry);
  const r0 = sy * st;
  if (rx === 1 && ry === 1) {
    for (let x = 0; x < w; x++) dst[x] = d[r0 + x];
    return;
  }
  if (!fancy) {
    for (let x = 0; x < w; x++) dst[x] = d[r0 + (rx === 2 ? x >> 1 : x)];
    return;
  }
  if (ry === 2) {
    let ny = y & 1 ? sy + 1 : sy - 1;
    ny = ny < 0 ? 0 : ny >= chh ? chh - 1 : ny;
    const r1 = ny * st;
    if (rx === 1) {
      const bias = y & 1 ? 2 : 1;
      for (let x = 0; x < w; x++) dst[x] = (3 * d[r0 + x] + d[r1 + x] + bias) >> 2;
      return;
    }
    for (let sx = 0; sx < cw; sx++) sums[sx] = 3 * d[r0 + sx] + d[r1 + sx];
    for (let x = 0; x < w; x++) {
      const sx = x >> 1;
      let nx = x & 1 ? sx + 1 : sx - 1;
      nx = nx < 0 ? 0 : nx >= cw ? cw - 1 : nx;
      dst[x] = (3 * sums[sx] + sums[nx] + (x & 1 ? 7 : 8)) >> 4;
    }
    return;
  }
  for (let x = 0; x < w; x++) {
    const sx = x >> 1;
    let nx = x & 1 ? sx + 1 : sx - 1;
    nx = nx < 0 ? 0 : nx >= cw ? cw - 1 : nx;
    dst[x] = (3 * d[r0 + sx] + d[r0 + nx] + (x & 1 ? 2 : 1)) >> 2;
  }
}

/**
 * The common case, row by row without intermediate passes: 3 components, YCbCr, luma at output resolution, chroma
 * 1 or 2 times coarser per axis. Null when the layout is anything else (the general path handles it).
 */
function ycbcrFast(p: DecodedPlanes, hd: JpegHeader): Uint8Array | null {
  const { width: w, height: h } = p;
  if (p.components.length !== 3 || !isYCbCr(hd)) return null;
  const rs = p.components.map((c) => [(p.maxH * p.blockSize) / (c.h * c.blockSize), (p.maxV * p.blockSize) / (c.v * c.blockSize)]);
  if (rs[0][0] !== 1 || rs[0][1] !== 1) return null;
  for (const [rx, ry] of rs) if ((rx !== 1 && rx !== 2) || (ry !== 1 && ry !== 2)) return null;
  const fancy = rs.map(([rx, ry]) => (rx === 2 ? Math.ceil(w / 2) > 2 : ry === 2));
  const out = new Uint8Array(w * h * 4);
  const yc = p.components[0];
  const cbRow = new Uint8Array(w), crRow = new Uint8Array(w), sums = new Int32Array(w + 2);
  const { crR, cbB, crG, cbG } = YCC;
  for (let y = 0; y < h; y++) {
    componentRow(p.components[1], y, w, h, rs[1][0], rs[1][1], fancy[1], cbRow, sums);
    componentRow(p.components[2], y, w, h, rs[2][0], rs[2][1], fancy[2], crRow, sums);
    const yr = y * yc.stride;
    let o = y * w * 4;
    for (let x = 0; x < w; x++, o += 4) {
      const Y = yc.data[yr + x], cb = cbRow[x], cr = crRow[x];
      const r = Y + crR[cr], g = Y + ((cbG[cb] + crG[cr]) >> 16), b = Y + cbB[cb];
      out[o] = r < 0 ? 0 : r > 255 ? 255 : r;
      out[o + 1] = g < 0 ? 0 : g > 255 ? 255 : g;
      out[o + 2] = b < 0 ? 0 : b > 255 ? 255 : b;
      out[o + 3] = 255;
    }
  }
  return out;
}

/**
 * Component planes → RGBA (alpha 255) at the planes' output size, by the colour rules of the module comment:
 * each component is first replicated onto the output grid (sample ⌊x · h·S / (maxH·S₀)⌋, as jpeg-js did), then for 3
 * components libjpeg's fancy upsampling replaces replicated 2×1 / 1×2 / 2×2 chroma, then YCbCr → RGB; 4 components
 * use jpeg-js's CMYK/YCCK formulas (inverted CMYK, R = 255 − clamp(C'·(1 − K'/255) + K') on C' = 255 − C).
 */
function toRGBA(p: DecodedPlanes, hd: JpegHeader): Uint8Array {
  const fast = ycbcrFast(p, hd);
  if (fast) return fast;
  const { width: w, height: h } = p;
  const nc = p.components.length;
  const out = new Uint8Array(w * h * 4);
  const ratios: [number, number][] = [];
  for (const [ci, c] of p.components.entries()) {
    const num = c.h * c.blockSize, den = p.maxH * p.blockSize;
    const vnum = c.v * c.blockSize, vden = p.maxV * p.blockSize;
    ratios.push([den / num, vden / vnum]);
    const xmap = new Int32Array(w);
    for (let x = 0; x < w; x++) xmap[x] = Math.floor((x * num) / den);
    const chans = nc === 1 ? [0, 1, 2] : [ci];
    const direct = num === den;
    for (let y = 0; y < h; y++) {
      const row = Math.floor((y * vnum) / vden) * c.stride;
      const d = c.data;
      for (const ch of chans) {
        let o = y * w * 4 + ch;
        if (direct) for (let x = 0; x < w; x++, o += 4) out[o] = d[row + x];
        else for (let x = 0; x < w; x++, o += 4) out[o] = d[row + xmap[x]];
      }
    }
  }
  if (nc !== 4) for (let i = 3; i < out.length; i += 4) out[i] = 255; // nc = 4: channel 3 holds K until cmykToRgb
  if (nc === 3) {
    for (const [i, [rx, ry]] of ratios.entries()) {
      // libjpeg-turbo (jdsample.c jinit_upsampler) uses fancy h2v1/h2v2 only when the component is wider than 2 samples.
      const fancy = rx === 2 ? Math.ceil(w / 2) > 2 : ry === 2;
      if ((rx === 1 || rx === 2) && (ry === 1 || ry === 2) && rx * ry > 1 && fancy) fancyUpsample(out, w, h, i, rx, ry);
    }
    if (isYCbCr(hd)) ycbcrToRgb(out);
  } else if (nc === 4) cmykToRgb(out, hd.adobeTransform > 0);
  return out;
}

/** jpeg-js 0.4 CMYK/YCCK → RGB (decoder.js getData + copyToImageData), in place on RGBA holding the raw samples. */
function cmykToRgb(px: Uint8Array, ycck: boolean): void {
  const c8 = (a: number) => (a < 0 ? 0 : a > 255 ? 255 : a);
  for (let i = 0; i < px.length; i += 4) {
    let c: number, m: number, y: number;
    if (ycck) {
      const Y = px[i], Cb = px[i + 1], Cr = px[i + 2];
      c = Math.trunc(c8(Y + 1.402 * (Cr - 128)));
      m = Math.trunc(c8(Y - 0.3441363 * (Cb - 128) - 0.71413636 * (Cr - 128)));
      y = Math.trunc(c8(Y + 1.772 * (Cb - 128)));
    } else {
      c = 255 - px[i];
      m = 255 - px[i + 1];
      y = 255 - px[i + 2];
    }
    const k = 255 - px[i + 3];
    px[i] = 255 - c8(c * (1 - k / 255) + k);
    px[i + 1] = 255 - c8(m * (1 - k / 255) + k);
    px[i + 2] = 255 - c8(y * (1 - k / 255) + k);
    px[i + 3] = 255;
  }
}

/**
 * Header facts without decoding: `{width, height}` in pixels from the first SOFn (any of SOF0–3, 5–7, 9–11, 13–15 or
 * JPEG-LS SOF55; a DNL-defined height from the DNL segment, T.81 B.2.5; JPEG-LS oversize dimensions from the LSE
 * segment, T.87 C.2.4.1.4), `hasAlpha: false`, `orientation` 1–8 from the first
 * APP1 "Exif\0\0" segment (1 when absent or invalid).
 * @throws PixfitError `CORRUPT_IMAGE` when there is no SOI, no SOF before SOS/EOI, a width of 0, a height of 0 without
 * DNL, or a header segment that is malformed or cut off.
 */
function probe(bytes: Uint8Array): ImageInfo {
  const hd = readHeader(bytes);
  const info: ImageInfo = { width: hd.width, height: hd.height, hasAlpha: false, orientation: hd.orientation };
  const unsupported = unsupportedReason(hd);
  if (unsupported) info.unsupported = unsupported;
  return info;
}

/**
 * Shrink-on-load scale: the largest d in 8, 4, 2 with ceil(w/d) ≥ `tw` and ceil(h/d) ≥ `th` (libjpeg's `scale_denom`
 * output size), else 1 (full size, also without a hint).
 */
function scaleDenom(w: number, h: number, tw: number | undefined, th: number | undefined): number {
  if (tw && th && tw > 0 && th > 0) for (const d of [8, 4, 2]) if (Math.ceil(w / d) >= tw && Math.ceil(h / d) >= th) return d;
  return 1;
}

/**
 * Decodes to RGBA (alpha 255), rows top to bottom, EXIF orientation NOT applied. See the module comment for the policy.
 * With `targetWidth` and `targetHeight` (pixels, stored orientation) the result may be ceil(W/d) × ceil(H/d) for
 * d = 2, 4 or 8 (the largest d keeping both sides ≥ the hint); without them, or when even d = 2 is too small, full size.
 * @throws PixfitError `TOO_MANY_PIXELS` when width × height > `maxPixels` (checked first, from the full header size);
 * `UNSUPPORTED_FORMAT` for arithmetic, lossless, hierarchical, JPEG-LS, non-8-bit or 2-component files;
 * `CORRUPT_IMAGE` for malformed or truncated data.
 */
async function decode(bytes: Uint8Array, opts: DecodeOptions): Promise<Raster> {
  const { maxPixels } = opts;
  const hd = readHeader(bytes);
  const { width: w, height: h } = hd;
  if (w * h > maxPixels)
    throw new PixfitError("TOO_MANY_PIXELS", `JPEG is ${w}×${h} = ${w * h} pixels, over the limit of ${maxPixels}`, {
      format: "jpeg",
    });
  const reason = unsupportedReason(hd);
  if (reason) throw new PixfitError("UNSUPPORTED_FORMAT", reason, { format: "jpeg" });
  if (hd.sos < 0) throw corrupt("no scan (SOS) data");
  if (countScans(bytes, hd.sos, MAX_SCANS) > MAX_SCANS) throw corrupt(`more than ${MAX_SCANS} scans`);
  const denom = scaleDenom(w, h, opts.targetWidth, opts.targetHeight);
  let planes: DecodedPlanes;
  try {
    planes = decodeJpegPlanes(bytes, { scaleDenom: denom, height: hd.dnlHeight || undefined });
  } catch (err) {
    throw asCorrupt(err, "jpeg");
  }
  const out = toRGBA(planes, hd);
  return { width: planes.width, height: planes.height, data: out };
}

/**
 * Encodes RGBA as baseline JFIF JPEG, 4:2:0 (grayscale when R = G = B everywhere); `quality` 1–100, default 80.
 * Alpha is dropped, not composited: callers flatten first if they need a background. See {@link encodeJpeg}.
 * @throws PixfitError `INPUT_TOO_LARGE` when a side exceeds 65535 pixels (the SOF field size).
 */
async function encode(raster: Raster, { quality }: EncodeOptions): Promise<Uint8Array> {
  return encodeJpeg(raster, quality ?? 80);
}

/** The JPEG entry of the codec registry. */
export const jpeg: Codec = {
  format: "jpeg",
  mediaType: "image/jpeg",
  kind: "image",
  sniff: (b) => hasBytes(b, 0, [0xff, 0xd8, 0xff]),
  probe,
  decodedSize: (info, tw, th) => {
    const d = scaleDenom(info.width, info.height, tw, th);
    return { width: Math.ceil(info.width / d), height: Math.ceil(info.height / d) };
  },
  decode,
  encode,
};
