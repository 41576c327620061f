/**
 * pixfit's own JPEG entropy decoder and IDCT (ITU-T T.81, cited "T.81 x.y"): Huffman-coded baseline, extended
 * sequential and progressive frames, 8-bit, 1–4 components, restart markers, any sampling factors 1–4. It can decode
 * at 1/1, 1/2, 1/4 or 1/8 scale in the DCT domain (as libjpeg's `scale_denom`): a block gives an S×S output block
 * from its top-left S×S coefficients (S = 8, 4, 2, 1), and for progressive files only those coefficients are kept
 * (plus one "non-zero" bit per dropped coefficient, which successive-approximation refinement needs, T.81 G.1.2.3).
 *
 * Output is one 8-bit sample plane per component (not colour-converted, not upsampled); codecs/jpeg.ts does the
 * colour rules. Component block sizes follow libjpeg-turbo (jdmaster.c `jpeg_core_output_dimensions`): a subsampled
 * component uses a larger IDCT (up to 8) instead of being upsampled later, when its subsampling ratio allows.
 *
 * The 8×8 IDCT is libjpeg's accurate integer one (jidctint.c `jpeg_idct_islow`, CONST_BITS 13, PASS1_BITS 2), so
 * full-scale output matches libjpeg(-turbo) / ImageMagick bit for bit on sequential files in most blocks. The reduced
 * IDCTs are the S-point orthonormal inverse DCT of the low-frequency S×S coefficients scaled by S/8 (float).
 *
 * Errors: every failure is a `PixfitError` `CORRUPT_IMAGE`: a bad or undefined Huffman/quantisation table, a bad
 * Huffman code, a missing RST marker or extraneous bytes before one, and scan data that ends before the scan's last
 * MCU (padding would be consumed: the truncation policy of codecs/jpeg.ts). The caller checks the frame type, the
 * precision, the component count and the pixel limit before calling.
 */
import { PixfitError } from "../src/errors.js";
import { STD_AC_CHROMA, STD_AC_LUMA, STD_DC_CHROMA, STD_DC_LUMA, ZIGZAG, type HuffSpec } from "./jpeg-tables.js";

/** One decoded component: samples at its own (possibly subsampled, possibly scaled) resolution. */
export interface DecodedComponent {
  id: number;
  /** Sampling factors from the frame header (T.81 B.2.2); 1×1 for a single-component frame. */
  h: number;
  v: number;
  /** IDCT output size used for this component's blocks: 1, 2, 4 or 8 samples per block side. */
  blockSize: number;
  /** Samples, row-major, `stride` bytes per row, `rows` rows (padded to whole MCUs). */
  data: Uint8Array;
  stride: number;
  rows: number;
}

/** Result of {@link decodeJpegPlanes}: output size in pixels at the chosen scale and the component planes. */
export interface DecodedPlanes {
  /** ceil(frame width / scaleDenom), pixels (libjpeg `jdiv_round_up`). */
  width: number;
  height: number;
  /** Largest sampling factors over the components. */
  maxH: number;
  maxV: number;
  /** Block size of a component with the largest sampling factors (8 / scaleDenom). */
  blockSize: number;
  components: DecodedComponent[];
}

/** Options for {@link decodeJpegPlanes}. */
export interface PlaneOptions {
  /** 1, 2, 4 or 8: output is ceil(width / scaleDenom) × ceil(height / scaleDenom). */
  scaleDenom: number;
  /** Frame height to use when the SOF says 0 (from a DNL segment, T.81 B.2.5). */
  height?: number;
}

function corrupt(msg: string): PixfitError {
  return new PixfitError("CORRUPT_IMAGE", `Corrupt JPEG: ${msg}`, { format: "jpeg" });
}

/** A Huffman decoding table (libjpeg jdhuff.c `d_derived_tbl`, with a 9-bit lookahead table). */
interface Huff {
  /** lookahead code (9 bits) → (code length << 8) | symbol, 0 when the code is longer than 9 bits. */
  lut: Uint16Array;
  /** Largest code of each length 1–16, -1 when none (index 17 is a sentinel). */
  maxcode: Int32Array;
  /** Index into `vals` of the first symbol of each length, minus that length's first code. */
  valoff: Int32Array;
  vals: Uint8Array;
  /**
   * AC fast path, FAST bits of lookahead → (value << 16) | (run << 8) | (code length + value bits) for symbols with
   * a non-zero size whose code and value bits both fit in the lookahead (libjpeg-turbo jdhuff.c does the same); 0 else.
   */
  fast: Int32Array;
}

const LOOK = 9;
const FAST = 10;

/** Builds a decoding table from DHT counts/symbols (T.81 Annex C, Figures C.1–C.2; F.2.2.3). */
function buildHuff(counts: ArrayLike<number>, symbols: ArrayLike<number>): Huff {
  const lut = new Uint16Array(1 << LOOK);
  const maxcode = new Int32Array(18).fill(-1);
  const valoff = new Int32Array(18);
  const vals = Uint8Array.from(symbols);
  let code = 0, p = 0;
  for (let l = 1; l <= 16; l++) {
    const n = counts[l - 1];
    valoff[l] = p - code;
    for (let i = 0; i < n; i++, p++, code++) {
      if (l <= LOOK) {
        const shift = LOOK - l;
        const base = code << shift;
        const e = (l << 8) | vals[p];
        for (let f = 0; f < 1 << shift; f++) lut[base | f] = e;
      }
    }
    if (n) maxcode[l] = code - 1;
    if (code > 1 << l) throw corrupt("bad Huffman table (code space overflow)");
    code <<= 1;
  }
  maxcode[17] = 0x7fffffff;
  const fast = new Int32Array(1 << FAST);
  code = 0;
  p = 0;
  for (let l = 1; l <= FAST; l++) {
    for (let i = 0; i < counts[l - 1]; i++, p++, code++) {
      const rs = vals[p], r = rs >> 4, sz = rs & 15;
      if (sz === 0 || l + sz > FAST) continue;
      const free = FAST - l - sz;
      for (let vbits = 0; vbits < 1 << sz; vbits++) {
        const v = vbits < 1 << (sz - 1) ? vbits - (1 << sz) + 1 : vbits;
        const e = (v << 16) | (r << 8) | (l + sz);
        const base = ((code << sz) | vbits) << free;
        for (let f = 0; f < 1 << free; f++) fast[base | f] = e;
      }
    }
    code <<= 1;
  }
  return { lut, maxcode, valoff, vals, fast };
}

const specHuff = (s: HuffSpec) => buildHuff(s.counts, s.symbols);

/** Frame component with decoding state. */
interface Comp {
  id: number;
  h: number;
  v: number;
  tq: number;
  /** Blocks per line / column in the component's own grid (T.81 A.1.1), used by non-interleaved scans. */
  bw: number;
  bh: number;
  /** Padded block grid (whole MCUs). */
  pbw: number;
  pbh: number;
  /** IDCT size and coefficients kept per block (S×S). */
  S: number;
  /** zig-zag index → slot in the S×S block (row-major), or -1 when the coefficient is dropped. */
  slot: Int8Array;
  /** Progressive: S×S coefficients per block (natural order within the S×S square). */
  coef: Int16Array | null;
  /** Progressive: non-zero flags of the 63 AC coefficients (2 words per block, bit = zig-zag index). */
  nz: Int32Array | null;
  /** Quantisation table (natural order), latched at the component's first scan. */
  q: Int32Array | null;
  plane: Uint8Array;
  stride: number;
  pred: number;
  dcT: Huff | null;
  acT: Huff | null;
}

/**
 * Decodes a JPEG's scans into component planes. `bytes` is the whole file; the caller has already checked the frame
 * type (SOF0/1/2), precision 8, component count 1/3/4 and the pixel limit. APPn/COM segments are skipped here.
 * When the file defines no Huffman table, the T.81 K.3 tables are used (Motion-JPEG, as libjpeg does).
 * @throws PixfitError `CORRUPT_IMAGE` (see the module comment).
 */
export function decodeJpegPlanes(bytes: Uint8Array, opts: PlaneOptions): DecodedPlanes {
  const n = bytes.length;
  const qts: (Int32Array | null)[] = [null, null, null, null];
  const dcTabs: (Huff | null)[] = [specHuff(STD_DC_LUMA), specHuff(STD_DC_CHROMA), null, null];
  const acTabs: (Huff | null)[] = [specHuff(STD_AC_LUMA), specHuff(STD_AC_CHROMA), null, null];
  let dhtSeen = false;
  let restartInterval = 0;
  let comps: Comp[] = [];
  let progressive = false;
  let W = 0, H = 0, maxH = 1, maxV = 1, mcusX = 0, mcusY = 0;
  const denom = opts.scaleDenom;
  const S0 = 8 / denom;
  let frameSeen = false;
  let scans = 0;
  let i = 2;
  let eoi = false;
  while (!eoi) {
    while (i < n && bytes[i] !== 0xff) i++;
    while (i < n && bytes[i] === 0xff) i++;
    if (i >= n) break;
    const m = bytes[i++];
    if (m === 0x00 || m === 0x01 || m === 0xd8 || (m >= 0xd0 && m <= 0xd7)) continue;
    if (m === 0xd9) break;
    if (i + 2 > n) throw corrupt("segment cut off");
    const len = (bytes[i] << 8) | bytes[i + 1];
    if (len < 2 || i + len > n) throw corrupt(`bad segment length at byte ${i - 2}`);
    const s = i + 2, end = i + len;
    i = end;
    if (m === 0xdb) {
      // DQT (T.81 B.2.4.1)
      let p = s;
      while (p < end) {
        const pq = bytes[p] >> 4, tq = bytes[p] & 15;
        p++;
        if (tq > 3 || pq > 1 || p + 64 * (pq + 1) > end) throw corrupt("bad quantisation table");
        const t = new Int32Array(64);
        for (let k = 0; k < 64; k++) {
          t[ZIGZAG[k]] = pq ? (bytes[p] << 8) | bytes[p + 1] : bytes[p];
          p += pq + 1;
        }
        qts[tq] = t;
      }
    } else if (m === 0xc4) {
      // DHT (T.81 B.2.4.2)
      if (!dhtSeen) {
        dhtSeen = true;
        dcTabs.fill(null);
        acTabs.fill(null);
      }
      let p = s;
      while (p < end) {
        const tc = bytes[p] >> 4, th = bytes[p] & 15;
        if (tc > 1 || th > 3 || p + 17 > end) throw corrupt("bad Huffman table");
        const counts = bytes.subarray(p + 1, p + 17);
        let total = 0;
        for (let k = 0; k < 16; k++) total += counts[k];
        if (total > 256 || p + 17 + total > end) throw corrupt("bad Huffman table");
        const t = buildHuff(counts, bytes.subarray(p + 17, p + 17 + total));
        (tc === 0 ? dcTabs : acTabs)[th] = t;
        p += 17 + total;
      }
    } else if (m === 0xdd) {
      if (len < 4) throw corrupt("bad DRI segment");
      restartInterval = (bytes[s] << 8) | bytes[s + 1];
    } else if (m === 0xc0 || m === 0xc1 || m === 0xc2) {
      if (frameSeen) throw corrupt("more than one frame header (SOF)");
      frameSeen = true;
      progressive = m === 0xc2;
      H = (bytes[s + 1] << 8) | bytes[s + 2];
      W = (bytes[s + 3] << 8) | bytes[s + 4];
      if (H === 0) H = opts.height ?? 0;
      const nc = bytes[s + 5];
      if (!W || !H || !nc || 6 + 3 * nc > len - 2) throw corrupt("bad frame header");
      for (let c = 0; c < nc; c++) {
        const hv = bytes[s + 7 + 3 * c];
        let h = hv >> 4, v = hv & 15;
        if (h < 1 || h > 4 || v < 1 || v > 4) throw corrupt("bad sampling factors");
        if (nc === 1) h = v = 1; // a single component is never interleaved: its MCU is one block (T.81 A.2.2)
        comps.push({
          id: bytes[s + 6 + 3 * c], h, v, tq: bytes[s + 8 + 3 * c] & 3, bw: 0, bh: 0, pbw: 0, pbh: 0, S: 8, slot: new Int8Array(64),
          coef: null, nz: null, q: null, plane: new Uint8Array(0), stride: 0, pred: 0, dcT: null, acT: null,
        });
      }
      maxH = Math.max(...comps.map((c) => c.h));
      maxV = Math.max(...comps.map((c) => c.v));
      mcusX = Math.ceil(W / (8 * maxH));
      mcusY = Math.ceil(H / (8 * maxV));
      for (const c of comps) {
        c.bw = Math.ceil(Math.ceil((W * c.h) / maxH) / 8);
        c.bh = Math.ceil(Math.ceil((H * c.v) / maxV) / 8);
        c.pbw = mcusX * c.h;
        c.pbh = mcusY * c.v;
        // libjpeg-turbo jdmaster.c: scale a subsampled component up by IDCT size instead of upsampling it.
        let S = S0;
        while (S < 8 && (maxH * S0) % (c.h * S * 2) === 0 && (maxV * S0) % (c.v * S * 2) === 0) S *= 2;
        c.S = S;
        for (let k = 0; k < 64; k++) {
          const z = ZIGZAG[k], u = z & 7, v = z >> 3;
          c.slot[k] = u < S && v < S ? v * S + u : -1;
        }
        c.stride = c.pbw * S;
        c.plane = new Uint8Array(c.stride * c.pbh * S);
        if (progressive) {
          c.coef = new Int16Array(c.pbw * c.pbh * S * S);
          c.nz = new Int32Array(c.pbw * c.pbh * 2);
        }
      }
    } else if (m === 0xda) {
      if (!frameSeen) throw corrupt("scan before frame header");
      if (++scans > 500) throw corrupt("more than 500 scans");
      const ns = bytes[s];
      if (ns < 1 || ns > 4 || 1 + 2 * ns + 3 > len - 2) throw corrupt("bad scan header");
      const sc: Comp[] = [];
      for (let k = 0; k < ns; k++) {
        const id = bytes[s + 1 + 2 * k], t = bytes[s + 2 + 2 * k];
        const c = comps.find((x) => x.id === id);
        if (!c || sc.includes(c)) throw corrupt(`scan names unknown component ${id}`);
        c.dcT = dcTabs[(t >> 4) & 3];
        c.acT = acTabs[t & 3];
        sc.push(c);
      }
      const p = s + 1 + 2 * ns;
      const Ss = bytes[p], Se = bytes[p + 1], Ah = bytes[p + 2] >> 4, Al = bytes[p + 2] & 15;
      if (progressive) {
        if (Ss > Se || Se > 63 || (Ss === 0 && Se !== 0) || (Ss > 0 && ns !== 1) || Al > 13 || Ah > 13) throw corrupt("bad progressive scan parameters");
      }
      for (const c of sc) {
        if (!c.q) {
          const q = qts[c.tq];
          if (!q) throw corrupt(`component ${c.id} uses undefined quantisation table ${c.tq}`);
          c.q = progressive ? q.slice() : q;
        } else if (!progressive) c.q = qts[c.tq] ?? c.q;
        const needDC = !progressive || (Ss === 0 && Ah === 0);
        const needAC = !progressive ? true : Ss > 0;
        if (needDC && !c.dcT) throw corrupt("scan uses an undefined DC Huffman table");
        if (needAC && !c.acT) throw corrupt("scan uses an undefined AC Huffman table");
        c.pred = 0;
      }
      i = decodeScan(bytes, end, sc, { progressive, Ss, Se: progressive ? Se : 63, Ah, Al, restartInterval, mcusX, mcusY });
    } else if (m === 0xdc) {
      // DNL: height already known (from the caller)
    } else if ((m >= 0xc3 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) || m === 0xf7) {
      throw corrupt("unsupported frame type");
    }
    if (eoi) break;
  }
  if (!frameSeen) throw corrupt("no frame header");
  if (scans === 0) throw corrupt("no scan (SOS) data");
  if (progressive) for (const c of comps) idctAll(c);
  return {
    width: Math.ceil(W / denom),
    height: Math.ceil(H / denom),
    maxH,
    maxV,
    blockSize: S0,
    components: comps.map((c) => ({ id: c.id, h: c.h, v: c.v, blockSize: c.S, data: c.plane, stride: c.stride, rows: c.pbh * c.S })),
  };
}

interface ScanParams {
  progressive: boolean;
  Ss: number;
  Se: number;
  Ah: number;
  Al: number;
  restartInterval: number;
  mcusX: number;
  mcusY: number;
}

const ZZ = Int32Array.from(ZIGZAG);

/**
 * Entropy-decodes one scan starting at `start` (just after the SOS header) and returns the offset where the marker
 * walk continues (the 0xFF of the next marker).
 */
/** State of one scan's entropy decoder: the input, the bit buffer and the progressive scan parameters. */
class Scan {
  /** Next unread input byte (when `markerHit`: the last 0xFF before the marker code). */
  pos: number;
  /** Bit buffer: the low `cnt` bits are unread. */
  buf = 0;
  cnt = 0;
  /** Zero bytes appended after the data ended (at a marker or end of input). */
  pad = 0;
  markerHit = false;
  eobrun = 0;
  readonly n: number;
  readonly Ss: number;
  readonly Se: number;
  readonly Ah: number;
  readonly Al: number;
  readonly blk = new Int32Array(64);
  constructor(readonly bytes: Uint8Array, start: number, sp: ScanParams) {
    this.pos = start;
    this.n = bytes.length;
    this.Ss = sp.Ss;
    this.Se = sp.Se;
    this.Ah = sp.Ah;
    this.Al = sp.Al;
  }
}

/** Tops the bit buffer up to at least 25 bits, unstuffing 0xFF 0x00; at a marker or the end of input, pads zeros. */
function fill(st: Scan): void {
  const bytes = st.bytes, n = st.n;
  let { pos, buf, cnt, pad, markerHit } = st;
  while (cnt <= 24) {
    let b = 0;
    if (!markerHit) {
      if (pos >= n) markerHit = true;
      else {
        b = bytes[pos];
        if (b === 0xff) {
          let q = pos + 1;
          while (q < n && bytes[q] === 0xff) q++;
          if (q < n && bytes[q] === 0) pos = q + 1;
          else {
            markerHit = true;
            pos = q - 1; // the last 0xFF before the marker code (or the end)
            b = 0;
          }
        } else pos++;
      }
    }
    if (markerHit) pad++;
    buf = (buf << 8) | b;
    cnt += 8;
  }
  st.pos = pos;
  st.buf = buf;
  st.cnt = cnt;
  st.pad = pad;
  st.markerHit = markerHit;
}
function bits(st: Scan, k: number): number {
  if (st.cnt < k) fill(st);
  st.cnt -= k;
  return (st.buf >>> st.cnt) & ((1 << k) - 1);
}
function bit(st: Scan): number {
  if (st.cnt < 1) fill(st);
  st.cnt--;
  return (st.buf >>> st.cnt) & 1;
}
function huff(st: Scan, t: Huff): number {
  if (st.cnt < 16) fill(st);
  const e = t.lut[(st.buf >>> (st.cnt - LOOK)) & 511];
  if (e) {
    st.cnt -= e >> 8;
    return e & 255;
  }
  for (let l = LOOK + 1; l <= 16; l++) {
    const code = (st.buf >>> (st.cnt - l)) & ((1 << l) - 1);
    if (code <= t.maxcode[l]) {
      st.cnt -= l;
      return t.vals[(t.valoff[l] + code) & 255];
    }
  }
  throw corrupt("bad Huffman code");
}
function extend(v: number, s: number): number {
  return v < 1 << (s - 1) ? v - (1 << s) + 1 : v;
}
function checkTruncated(st: Scan): void {
  if (st.pad * 8 > st.cnt) throw corrupt("scan data ends before its last MCU (truncated file)");
}

/** Sequential: decode one block fully, then IDCT it into the plane. */
function seqBlock(st: Scan, c: Comp, br: number, bc: number): void {
  const dcT = c.dcT!, acT = c.acT!;
  st.blk.fill(0);
  const t = huff(st, dcT);
  if (t > 16) throw corrupt("bad DC code");
  c.pred += t ? extend(bits(st, t), t) : 0;
  st.blk[0] = c.pred;
  // AC coefficients with the bit buffer in locals (hot loop; see acRefine).
  const lut = acT.lut, fast = acT.fast, blk = st.blk;
  let b_ = st.buf, c_ = st.cnt;
  for (let k = 1; k < 64; ) {
    if (c_ < 16) {
      st.buf = b_;
      st.cnt = c_;
      fill(st);
      b_ = st.buf;
      c_ = st.cnt;
    }
    const fe = fast[(b_ >>> (c_ - FAST)) & ((1 << FAST) - 1)];
    if (fe !== 0) {
      c_ -= fe & 255;
      k += (fe >> 8) & 255;
      if (k > 63) break;
      blk[ZZ[k]] = fe >> 16;
      k++;
      continue;
    }
    const e = lut[(b_ >>> (c_ - LOOK)) & 511];
    let rs: number;
    if (e) {
      c_ -= e >> 8;
      rs = e & 255;
    } else {
      st.cnt = c_;
      rs = huff(st, acT);
      b_ = st.buf;
      c_ = st.cnt;
    }
    const s = rs & 15;
    if (s === 0) {
      if (rs !== 0xf0) break;
      k += 16;
      continue;
    }
    k += rs >> 4;
    if (c_ < s) {
      st.buf = b_;
      st.cnt = c_;
      fill(st);
      b_ = st.buf;
      c_ = st.cnt;
    }
    c_ -= s;
    const v0 = (b_ >>> c_) & ((1 << s) - 1);
    if (k > 63) break;
    blk[ZZ[k]] = v0 < 1 << (s - 1) ? v0 - (1 << s) + 1 : v0;
    k++;
  }
  st.buf = b_;
  st.cnt = c_;
  idctBlock(st.blk, 0, 8, c.q!, c.S, c.plane, (br * c.stride + bc) * c.S, c.stride);
}

function dcFirst(st: Scan, c: Comp, b: number): void {
  const t = huff(st, c.dcT!);
  if (t > 16) throw corrupt("bad DC code");
  c.pred += t ? extend(bits(st, t), t) : 0;
  c.coef![b * c.S * c.S] = c.pred * (1 << st.Al);
}
function dcRefine(st: Scan, c: Comp, b: number): void {
  if (bit(st)) c.coef![b * c.S * c.S] |= 1 << st.Al;
}
function acFirst(st: Scan, c: Comp, b: number): void {
  if (st.eobrun > 0) {
    st.eobrun--;
    return;
  }
  const coef = c.coef!, base = b * c.S * c.S, slot = c.slot, acT = c.acT!, nz = c.nz, lut = acT.lut, fast = acT.fast;
  const Al = st.Al, Se = st.Se;
  let b_ = st.buf, c_ = st.cnt;
  for (let k = st.Ss; k <= Se; ) {
    if (c_ < 16) {
      st.buf = b_;
      st.cnt = c_;
      fill(st);
      b_ = st.buf;
      c_ = st.cnt;
    }
    const fe = fast[(b_ >>> (c_ - FAST)) & ((1 << FAST) - 1)];
    if (fe !== 0) {
      c_ -= fe & 255;
      k += (fe >> 8) & 255;
      if (k > 63) break;
      const sl = slot[k];
      if (sl >= 0) coef[base + sl] = (fe >> 16) * (1 << Al);
      nz![b * 2 + (k >> 5)] |= 1 << (k & 31);
      k++;
      continue;
    }
    const e = lut[(b_ >>> (c_ - LOOK)) & 511];
    let rs: number;
    if (e) {
      c_ -= e >> 8;
      rs = e & 255;
    } else {
      st.cnt = c_;
      rs = huff(st, acT);
      b_ = st.buf;
      c_ = st.cnt;
    }
    const s = rs & 15, r = rs >> 4;
    if (s === 0) {
      if (r < 15) {
        st.eobrun = (1 << r) - 1;
        if (r) {
          if (c_ < r) {
            st.buf = b_;
            st.cnt = c_;
            fill(st);
            b_ = st.buf;
            c_ = st.cnt;
          }
          c_ -= r;
          st.eobrun += (b_ >>> c_) & ((1 << r) - 1);
        }
        break;
      }
      k += 16;
      continue;
    }
    k += r;
    if (c_ < s) {
      st.buf = b_;
      st.cnt = c_;
      fill(st);
      b_ = st.buf;
      c_ = st.cnt;
    }
    c_ -= s;
    const v0 = (b_ >>> c_) & ((1 << s) - 1);
    const v = (v0 < 1 << (s - 1) ? v0 - (1 << s) + 1 : v0) * (1 << st.Al);
    if (k > 63) break;
    const sl = slot[k];
    if (sl >= 0) coef[base + sl] = v;
    nz![b * 2 + (k >> 5)] |= 1 << (k & 31);
    k++;
  }
  st.buf = b_;
  st.cnt = c_;
}
/**
 * AC refinement (T.81 G.1.2.3; libjpeg jdphuff.c decode_mcu_AC_refine); dropped coefficients keep a non-zero bit.
 * The bit buffer lives in locals `b_`/`c_` here (written back before any call that reads it): this loop reads one
 * correction bit per non-zero coefficient and dominates progressive decoding.
 */
function acRefine(st: Scan, c: Comp, b: number): void {
  const coef = c.coef!, base = b * c.S * c.S, slot = c.slot, acT = c.acT!, nz = c.nz, lut = acT.lut;
  const p1 = 1 << st.Al, m1 = -1 << st.Al;
  const nzb = b * 2;
  let k = st.Ss;
  let b_ = st.buf, c_ = st.cnt;
  if (st.eobrun === 0) {
    for (; k <= st.Se; k++) {
      if (c_ < 16) {
        st.buf = b_;
        st.cnt = c_;
        fill(st);
        b_ = st.buf;
        c_ = st.cnt;
      }
      const e = lut[(b_ >>> (c_ - LOOK)) & 511];
      let rs: number;
      if (e) {
        c_ -= e >> 8;
        rs = e & 255;
      } else {
        st.cnt = c_;
        rs = huff(st, acT);
        b_ = st.buf;
        c_ = st.cnt;
      }
      let r = rs >> 4;
      let s = rs & 15;
      if (s) {
        c_--;
        s = (b_ >>> c_) & 1 ? p1 : m1; // s should be 1; libjpeg warns and goes on
      } else if (r !== 15) {
        st.eobrun = 1 << r;
        if (r) {
          if (c_ < r) {
            st.buf = b_;
            st.cnt = c_;
            fill(st);
            b_ = st.buf;
            c_ = st.cnt;
          }
          c_ -= r;
          st.eobrun += (b_ >>> c_) & ((1 << r) - 1);
        }
        break;
      }
      // Pass r zero-history coefficients to the (r+1)-th one, reading a correction bit for each non-zero coefficient
      // passed. Found with the non-zero masks (two 32-bit words): no per-position branch.
      const Se = st.Se;
      let target = Se + 1;
      for (let w = k >> 5; w < 2 && target > Se; w++) {
        const lo = w << 5;
        if (Se < lo) break;
        let zm = ~nz![nzb + w];
        if (k > lo) zm &= -1 << (k - lo);
        if (Se - lo < 31) zm &= (1 << (Se - lo + 1)) - 1;
        while (zm !== 0) {
          if (r === 0) {
            target = lo + 31 - Math.clz32(zm & -zm);
            break;
          }
          r--;
          zm &= zm - 1;
        }
      }
      const last = target - 1; // non-zero coefficients in k..last get a correction bit, in order
      for (let w = k >> 5; w <= last >> 5 && k <= last; w++) {
        const lo = w << 5;
        let m = nz![nzb + w];
        if (k > lo) m &= -1 << (k - lo);
        if (last - lo < 31) m &= (1 << (last - lo + 1)) - 1;
        while (m !== 0) {
          const low = m & -m;
          m ^= low;
          if (c_ < 1) {
            st.buf = b_;
            st.cnt = c_;
            fill(st);
            b_ = st.buf;
            c_ = st.cnt;
          }
          c_--;
          if ((b_ >>> c_) & 1) {
            const sl = slot[lo + 31 - Math.clz32(low)];
            if (sl >= 0) {
              const v = coef[base + sl];
              if ((v & p1) === 0) coef[base + sl] = v >= 0 ? v + p1 : v + m1;
            }
          }
        }
      }
      k = target;
      if (s && k <= st.Se) {
        const sl = slot[k];
        if (sl >= 0) coef[base + sl] = s;
        nz![nzb + (k >> 5)] |= 1 << (k & 31);
      }
    }
  }
  if (st.eobrun > 0) {
    // Only the coefficients already non-zero read a correction bit: walk the set bits of the mask, in order.
    for (let w = k >> 5; w <= st.Se >> 5 && k <= st.Se; w++) {
      const lo = w << 5;
      let m = nz![nzb + w];
      if (k > lo) m &= ~((1 << (k - lo)) - 1);
      if (st.Se - lo < 31) m &= (1 << (st.Se - lo + 1)) - 1;
      while (m !== 0) {
        const low = m & -m;
        m ^= low;
        const kk = lo + 31 - Math.clz32(low);
        if (c_ < 1) {
          st.buf = b_;
          st.cnt = c_;
          fill(st);
          b_ = st.buf;
          c_ = st.cnt;
        }
        c_--;
        if ((b_ >>> c_) & 1) {
          const sl = slot[kk];
          if (sl >= 0) {
            const v = coef[base + sl];
            if ((v & p1) === 0) coef[base + sl] = v >= 0 ? v + p1 : v + m1;
          }
        }
      }
    }
    st.eobrun--;
  }
  st.buf = b_;
  st.cnt = c_;
}

/**
 * Entropy-decodes one scan starting at `start` (just after the SOS header) and returns the offset where the marker
 * walk continues (the 0xFF of the next marker). The per-block decoders are module-level functions over a {@link Scan}
 * (not closures made per scan, which V8 would re-learn for every scan).
 */
function decodeScan(bytes: Uint8Array, start: number, sc: Comp[], sp: ScanParams): number {
  const st = new Scan(bytes, start, sp);
  const progressive = sp.progressive;
  const progBlock = st.Ss === 0 ? (st.Ah === 0 ? dcFirst : dcRefine) : st.Ah === 0 ? acFirst : acRefine;

  const ri = sp.restartInterval;
  let todo = ri;
  const restart = () => {
    checkTruncated(st);
    // Whole unread bytes before the marker: libjpeg skips them with a warning; pixfit refuses them (as jpeg-js did).
    if (st.cnt - st.pad * 8 >= 8) throw corrupt("extraneous bytes before a restart marker");
    let q = st.pos; // markerHit: the 0xFF before the marker code; else the next unread byte
    if (!st.markerHit) {
      if (q >= st.n || st.bytes[q] !== 0xff) throw corrupt("expected a restart marker");
      while (q + 1 < st.n && st.bytes[q + 1] === 0xff) q++;
    }
    const mc = q + 1 < st.n ? st.bytes[q + 1] : -1;
    if (mc < 0xd0 || mc > 0xd7) throw corrupt("expected a restart marker");
    st.pos = q + 2;
    st.buf = st.cnt = st.pad = 0;
    st.markerHit = false;
    st.eobrun = 0;
    for (const c of sc) c.pred = 0;
    todo = ri;
  };

  if (sc.length === 1) {
    const c = sc[0];
    const total = c.bw * c.bh;
    for (let m = 0; m < total; m++) {
      if (ri && todo === 0) restart();
      const br = (m / c.bw) | 0, bc = m - br * c.bw;
      if (progressive) progBlock(st, c, br * c.pbw + bc);
      else seqBlock(st, c, br, bc);
      todo--;
      if (bc === c.bw - 1) checkTruncated(st); // fail at the first row past the data, not after decoding zeros
    }
  } else {
    const total = sp.mcusX * sp.mcusY;
    for (let m = 0; m < total; m++) {
      if (ri && todo === 0) restart();
      const my = (m / sp.mcusX) | 0, mx = m - my * sp.mcusX;
      for (const c of sc)
        for (let v = 0; v < c.v; v++)
          for (let h = 0; h < c.h; h++) {
            const br = my * c.v + v, bc = mx * c.h + h;
            if (progressive) progBlock(st, c, br * c.pbw + bc);
            else seqBlock(st, c, br, bc);
          }
      todo--;
      if (mx === sp.mcusX - 1) checkTruncated(st);
    }
  }
  checkTruncated(st);
  // Continue the marker walk at the next marker.
  if (st.markerHit) return st.pos;
  let q = st.pos;
  for (; q + 1 < st.n; q++) if (st.bytes[q] === 0xff && st.bytes[q + 1] !== 0 && !(st.bytes[q + 1] >= 0xd0 && st.bytes[q + 1] <= 0xd7)) break;
  return q;
}

/** IDCT of every stored progressive block into the plane. */
function idctAll(c: Comp): void {
  // A component that no scan ever reached has no quantisation table bound (and no coefficients).
  if (!c.q || !c.coef) throw corrupt(`component ${c.id} is never coded in any scan`);
  const coef = c.coef, S = c.S, SS = S * S;
  for (let br = 0; br < c.pbh; br++)
    for (let bc = 0; bc < c.pbw; bc++) idctBlock(coef, (br * c.pbw + bc) * SS, S, c.q, S, c.plane, (br * c.stride + bc) * S, c.stride);
  c.coef = null;
  c.nz = null;
}

// ---- IDCTs ----

const ws = new Int32Array(64);
const CB = 13, P1 = 2;
const F0298 = 2446, F0390 = 3196, F0541 = 4433, F0765 = 6270, F0899 = 7373, F1175 = 9633, F1501 = 12299, F1847 = 15137;
const F1961 = 16069, F2053 = 16819, F2562 = 20995, F3072 = 25172;

/** Reduced IDCT table for S = 2: T[x * 2 + u] = C(u) cos((2x+1)uπ / 4) / 2 (C(0) = 1/√2); S = 4 has {@link idct4}. */
const RED: Record<number, Float64Array> = {};
for (const S of [2]) {
  const t = new Float64Array(S * S);
  for (let x = 0; x < S; x++) for (let u = 0; u < S; u++) t[x * S + u] = ((u === 0 ? Math.SQRT1_2 : 1) * Math.cos(((2 * x + 1) * u * Math.PI) / (2 * S))) / 2;
  RED[S] = t;
}
const tmpF = new Float64Array(64);

/**
 * Dequantises and inverse-transforms one block. `src[off + v * rs + u]` holds coefficient (u, v) (natural order,
 * row stride `rs`); `q` is natural order (stride 8). Writes S×S samples to `out` at `o` with row stride `os`.
 */
function idctBlock(src: Int32Array | Int16Array, off: number, rs: number, q: Int32Array, S: number, out: Uint8Array, o: number, os: number): void {
  if (S === 8) return idct8(src, off, q, out, o, os);
  if (S === 1) {
    let v = Math.round((src[off] * q[0]) / 8) + 128;
    out[o] = v < 0 ? 0 : v > 255 ? 255 : v;
    return;
  }
  if (S === 4) return idct4(src, off, rs, q, out, o, os);
  const T = RED[S];
  // rows: tmp[v * S + x] = Σu T[x,u] F(u,v) q
  for (let v = 0; v < S; v++) {
    for (let x = 0; x < S; x++) {
      let a = 0;
      for (let u = 0; u < S; u++) a += T[x * S + u] * src[off + v * rs + u] * q[v * 8 + u];
      tmpF[v * S + x] = a;
    }
  }
  for (let y = 0; y < S; y++) {
    for (let x = 0; x < S; x++) {
      let a = 128.5;
      for (let v = 0; v < S; v++) a += T[y * S + v] * tmpF[v * S + x];
      out[o + y * os + x] = a < 0 ? 0 : a >= 256 ? 255 : a;
    }
  }
}

const K4 = Math.SQRT1_2 / 2, C4 = Math.cos(Math.PI / 8) / 2, S4 = Math.sin(Math.PI / 8) / 2;
const t4 = new Float64Array(16);

/**
 * 4×4 output from the low 4×4 coefficients (the S = 4 case of {@link idctBlock}), as butterflies:
 * f(0) = A + B + O₀, f(1) = A − B + O₁, f(2) = A − B − O₁, f(3) = A + B − O₀ with A = k·F₀, B = k·F₂,
 * O₀ = c·F₁ + s·F₃, O₁ = s·F₁ − c·F₃ (k = cos(π/4)/2, c = cos(π/8)/2, s = sin(π/8)/2).
 */
function idct4(src: Int32Array | Int16Array, off: number, rs: number, q: Int32Array, out: Uint8Array, o: number, os: number): void {
  let ac = 0;
  for (let v = 0; v < 4; v++) for (let u = v === 0 ? 1 : 0; u < 4; u++) ac |= src[off + v * rs + u];
  if (ac === 0) {
    let d = Math.round((src[off] * q[0]) / 8) + 128;
    d = d < 0 ? 0 : d > 255 ? 255 : d;
    for (let y = 0; y < 4; y++) {
      const p = o + y * os;
      out[p] = out[p + 1] = out[p + 2] = out[p + 3] = d;
    }
    return;
  }
  for (let v = 0; v < 4; v++) {
    const i = off + v * rs, qi = v * 8;
    const A = src[i] * q[qi] * K4, B = src[i + 2] * q[qi + 2] * K4;
    const f1 = src[i + 1] * q[qi + 1], f3 = src[i + 3] * q[qi + 3];
    const o0 = f1 * C4 + f3 * S4, o1 = f1 * S4 - f3 * C4;
    t4[v * 4] = A + B + o0;
    t4[v * 4 + 1] = A - B + o1;
    t4[v * 4 + 2] = A - B - o1;
    t4[v * 4 + 3] = A + B - o0;
  }
  for (let x = 0; x < 4; x++) {
    const A = t4[x] * K4, B = t4[8 + x] * K4;
    const f1 = t4[4 + x], f3 = t4[12 + x];
    const o0 = f1 * C4 + f3 * S4, o1 = f1 * S4 - f3 * C4;
    let a = A + B + o0 + 128.5;
    out[o + x] = a < 0 ? 0 : a >= 256 ? 255 : a;
    a = A - B + o1 + 128.5;
    out[o + os + x] = a < 0 ? 0 : a >= 256 ? 255 : a;
    a = A - B - o1 + 128.5;
    out[o + 2 * os + x] = a < 0 ? 0 : a >= 256 ? 255 : a;
    a = A + B - o0 + 128.5;
    out[o + 3 * os + x] = a < 0 ? 0 : a >= 256 ? 255 : a;
  }
}

/** libjpeg jidctint.c `jpeg_idct_islow` (accurate integer IDCT, CONST_BITS 13, PASS1_BITS 2). */
function idct8(src: Int32Array | Int16Array, off: number, q: Int32Array, out: Uint8Array, o: number, os: number): void {
  for (let c = 0; c < 8; c++) {
    const i = off + c;
    if (src[i + 8] === 0 && src[i + 16] === 0 && src[i + 24] === 0 && src[i + 32] === 0 && src[i + 40] === 0 && src[i + 48] === 0 && src[i + 56] === 0) {
      const dc = (src[i] * q[c]) << P1;
      for (let r = 0; r < 64; r += 8) ws[r + c] = dc;
      continue;
    }
    let z2 = src[i + 16] * q[16 + c], z3 = src[i + 48] * q[48 + c];
    let z1 = (z2 + z3) * F0541;
    let tmp2 = z1 - z3 * F1847;
    let tmp3 = z1 + z2 * F0765;
    z2 = src[i] * q[c];
    z3 = src[i + 32] * q[32 + c];
    let tmp0 = (z2 + z3) * 8192;
    let tmp1 = (z2 - z3) * 8192;
    const t10 = tmp0 + tmp3, t13 = tmp0 - tmp3, t11 = tmp1 + tmp2, t12 = tmp1 - tmp2;
    tmp0 = src[i + 56] * q[56 + c];
    tmp1 = src[i + 40] * q[40 + c];
    tmp2 = src[i + 24] * q[24 + c];
    tmp3 = src[i + 8] * q[8 + c];
    z1 = tmp0 + tmp3;
    z2 = tmp1 + tmp2;
    z3 = tmp0 + tmp2;
    let z4 = tmp1 + tmp3;
    const z5 = (z3 + z4) * F1175;
    tmp0 *= F0298;
    tmp1 *= F2053;
    tmp2 *= F3072;
    tmp3 *= F1501;
    z1 *= -F0899;
    z2 *= -F2562;
    z3 = z3 * -F1961 + z5;
    z4 = z4 * -F0390 + z5;
    tmp0 += z1 + z3;
    tmp1 += z2 + z4;
    tmp2 += z2 + z3;
    tmp3 += z1 + z4;
    const R = 1 << (CB - P1 - 1), SH = CB - P1;
    ws[c] = (t10 + tmp3 + R) >> SH;
    ws[56 + c] = (t10 - tmp3 + R) >> SH;
    ws[8 + c] = (t11 + tmp2 + R) >> SH;
    ws[48 + c] = (t11 - tmp2 + R) >> SH;
    ws[16 + c] = (t12 + tmp1 + R) >> SH;
    ws[40 + c] = (t12 - tmp1 + R) >> SH;
    ws[24 + c] = (t13 + tmp0 + R) >> SH;
    ws[32 + c] = (t13 - tmp0 + R) >> SH;
  }
  const R2 = 1 << (CB + P1 + 3 - 1), SH2 = CB + P1 + 3;
  for (let r = 0; r < 64; r += 8) {
    const p = o + (r >> 3) * os;
    if (ws[r + 1] === 0 && ws[r + 2] === 0 && ws[r + 3] === 0 && ws[r + 4] === 0 && ws[r + 5] === 0 && ws[r + 6] === 0 && ws[r + 7] === 0) {
      let v = ((ws[r] + (1 << (P1 + 2))) >> (P1 + 3)) + 128;
      v = v < 0 ? 0 : v > 255 ? 255 : v;
      for (let k = 0; k < 8; k++) out[p + k] = v;
      continue;
    }
    let z2 = ws[r + 2], z3 = ws[r + 6];
    let z1 = (z2 + z3) * F0541;
    let tmp2 = z1 - z3 * F1847;
    let tmp3 = z1 + z2 * F0765;
    let tmp0 = (ws[r] + ws[r + 4]) * 8192;
    let tmp1 = (ws[r] - ws[r + 4]) * 8192;
    const t10 = tmp0 + tmp3, t13 = tmp0 - tmp3, t11 = tmp1 + tmp2, t12 = tmp1 - tmp2;
    tmp0 = ws[r + 7];
    tmp1 = ws[r + 5];
    tmp2 = ws[r + 3];
    tmp3 = ws[r + 1];
    z1 = tmp0 + tmp3;
    z2 = tmp1 + tmp2;
    z3 = tmp0 + tmp2;
    let z4 = tmp1 + tmp3;
    const z5 = (z3 + z4) * F1175;
    tmp0 *= F0298;
    tmp1 *= F2053;
    tmp2 *= F3072;
    tmp3 *= F1501;
    z1 *= -F0899;
    z2 *= -F2562;
    z3 = z3 * -F1961 + z5;
    z4 = z4 * -F0390 + z5;
    tmp0 += z1 + z3;
    tmp1 += z2 + z4;
    tmp2 += z2 + z3;
    tmp3 += z1 + z4;
    out[p] = clamp8(((t10 + tmp3 + R2) >> SH2) + 128);
    out[p + 7] = clamp8(((t10 - tmp3 + R2) >> SH2) + 128);
    out[p + 1] = clamp8(((t11 + tmp2 + R2) >> SH2) + 128);
    out[p + 6] = clamp8(((t11 - tmp2 + R2) >> SH2) + 128);
    out[p + 2] = clamp8(((t12 + tmp1 + R2) >> SH2) + 128);
    out[p + 5] = clamp8(((t12 - tmp1 + R2) >> SH2) + 128);
    out[p + 3] = clamp8(((t13 + tmp0 + R2) >> SH2) + 128);
    out[p + 4] = clamp8(((t13 - tmp0 + R2) >> SH2) + 128);
  }
}

function clamp8(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}
