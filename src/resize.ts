/**
 * Resampling RGBA rasters.
 *
 * The default filter is Mitchell–Netravali (B = C = 1/3; D. P. Mitchell & A. N. Netravali,
 * "Reconstruction Filters in Computer Graphics", SIGGRAPH 1988), support radius 2 source
 * pixels, widened by the shrink factor when downsampling (as stb_image_resize2 and libvips do), so
 * it also acts as the anti-aliasing low-pass. It is implemented here the way pica implements its
 * own filters: a separable two-pass convolution with per-output-pixel weights precomputed in 14-bit
 * fixed point, a horizontal pass into a 16-bit intermediate, then a vertical pass.
 *
 * pica's own filters ("box", "hamming", "lanczos2", "lanczos3", "mks2013") are offered through pica
 * itself (`resizeBuffer`, JS + WASM features; no canvas, no workers), loaded on first use.
 *
 * Colour is resampled with premultiplied alpha so fully transparent pixels (whatever RGB they hold)
 * do not bleed dark fringes into their neighbours; fully transparent output pixels get RGB 0.
 * Opaque inputs skip the premultiply work. Gamma: values are resampled as stored (sRGB-encoded), as
 * sharp/libvips do by default.
 */
import type { Raster } from "./types.js";

/**
 * Resampling kernel. "mitchell" is pixfit's own implementation (the default); the others are pica's
 * filters (pica 10 `lib/mm_resize/resize_filter_info.js`): "box" (window 0.5), "hamming" (1),
 * "lanczos2" (2), "lanczos3" (3), "mks2013" (Magic Kernel Sharp 2013, 2.5).
 */
export type ResizeFilter = "mitchell" | "box" | "hamming" | "lanczos2" | "lanczos3" | "mks2013";

/** Every {@link ResizeFilter} name, the default first. */
export const resizeFilters: readonly ResizeFilter[] = ["mitchell", "box", "hamming", "lanczos2", "lanczos3", "mks2013"];

/** Mitchell–Netravali support radius, in source pixels at scale 1 (the kernel is zero for |x| ≥ 2). */
const MITCHELL_RADIUS = 2;
/** Fractional bits of the weights: 1.0 = 2^14, as in pica (`resize_filter_gen.js`). */
const WEIGHT_BITS = 14;
const WEIGHT_ONE = 1 << WEIGHT_BITS;
/**
 * Fractional bits of the intermediate buffer (Int16): a level is 64 units, so values from −512 to
 * +511.98 fit; Mitchell's over/undershoot stays within about ±10 % of the range.
 */
const MID_BITS = 6;
/** Horizontal pass: weight × 8-bit value → intermediate. */
const H_SHIFT = WEIGHT_BITS - MID_BITS;
const H_ROUND = 1 << (H_SHIFT - 1);
/** Horizontal pass with alpha: Σ w·a·c is in units of 2^14 · 255 per premultiplied level. */
const H_PREMUL_SCALE = (1 << MID_BITS) / (WEIGHT_ONE * 255);
/** Vertical pass: weight × intermediate → 8-bit. */
const V_SHIFT = WEIGHT_BITS + MID_BITS;
const V_ROUND = 1 << (V_SHIFT - 1);

/**
 * The size that fits inside `maxWidth` × `maxHeight` (pixels) with the aspect ratio kept, never
 * enlarging: the limiting side becomes exactly its maximum, the other is `side × scale` rounded to
 * the nearest pixel (halves up) and at least 1. Sizes already inside the box come back unchanged.
 *
 * `width`, `height` must be positive integers; `maxWidth`, `maxHeight` positive integers or
 * `Infinity` (no limit on that side). Throws `RangeError` otherwise (a programming error, not bad image input).
 *
 * @example fitWithin(5640, 3172, 2000, 2000) // { width: 2000, height: 1125 }
 * @example fitWithin(1, 10000, 2000, 2000)   // { width: 1, height: 2000 }
 */
export function fitWithin(width: number, height: number, maxWidth: number, maxHeight: number): { width: number; height: number } {
  for (const [name, v] of [["width", width], ["height", height]] as const)
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${v}`);
  for (const [name, v] of [["maxWidth", maxWidth], ["maxHeight", maxHeight]] as const)
    if (!(v === Infinity || (Number.isInteger(v) && v >= 1))) throw new RangeError(`${name} must be a positive integer or Infinity, got ${v}`);
  if (width <= maxWidth && height <= maxHeight) return { width, height };
  // Compare maxWidth/width with maxHeight/height exactly, in integers.
  if (maxWidth * height <= maxHeight * width) {
    return { width: maxWidth, height: Math.max(1, Math.round((height * maxWidth) / width)) };
  }
  return { width: Math.max(1, Math.round((width * maxHeight) / height)), height: maxHeight };
}

/**
 * Resamples an RGBA raster (8-bit, straight alpha) to exactly `width` × `height` pixels, in either
 * direction and with independent factors per axis. Returns a new raster; `src` is not modified.
 * Same size in → an exact copy out. With "mitchell", an axis whose size does not change is copied,
 * not filtered (the kernel is not interpolating: at scale 1 it would soften the image slightly).
 *
 * - `filter` "mitchell" (default): Mitchell–Netravali B = C = 1/3, radius 2 × max(1, shrink factor),
 *   edges extended by repeating the border pixel (stb_image_resize's default STBIR_EDGE_CLAMP), 14-bit
 *   fixed-point weights; within 1 level of a float64 implementation on average.
 * - the pica filters: computed by pica 10 (`resizeBuffer`, WASM when the runtime allows compiling
 *   WebAssembly from bytes, else its JS path). pica keeps its WASM memory (about 4 bytes per source
 *   pixel plus 8 per intermediate pixel) for the life of the module. Exception: enlarging with "box"
 *   (nearest neighbour) is done by pixfit's fixed-point code, because pica 10.0.3 leaves transparent
 *   black rows/columns there.
 *
 * Both paths resample premultiplied colour when any pixel has alpha < 255, and output pixels with
 * alpha 0 have RGB 0.
 *
 * Throws `RangeError` when `width`/`height` are not positive integers, `src.data.length` is not
 * `src.width * src.height * 4`, or `filter` is unknown (programming errors, not bad image input).
 */
export async function resize(src: Raster, width: number, height: number, options: { filter?: ResizeFilter } = {}): Promise<Raster> {
  const filter = options.filter ?? "mitchell";
  checkRaster(src);
  if (!Number.isInteger(width) || width < 1 || !Number.isInteger(height) || height < 1)
    throw new RangeError(`target size must be positive integers, got ${width}x${height}`);
  if (!resizeFilters.includes(filter)) throw new RangeError(`unknown resize filter "${String(filter)}"`);
  if (width === src.width && height === src.height) return { width, height, data: src.data.slice() };
  if (filter === "mitchell") return resizeFixed(src, width, height, MITCHELL);
  // pica 10.0.3's box gives an all-zero (transparent black) column or row wherever an enlarged
  // output pixel's centre falls exactly on a source pixel boundary (its window |x| < 0.5 is then
  // empty and the weights are 0/0). Enlarging with box is nearest neighbour; do it here instead.
  if (filter === "box" && (width > src.width || height > src.height)) return resizeFixed(src, width, height, BOX);
  return resizePica(src, width, height, filter);
}

function checkRaster(r: Raster): void {
  if (!Number.isInteger(r.width) || r.width < 1 || !Number.isInteger(r.height) || r.height < 1)
    throw new RangeError(`raster size must be positive integers, got ${r.width}x${r.height}`);
  if (r.data.length !== r.width * r.height * 4)
    throw new RangeError(`raster data is ${r.data.length} bytes, expected ${r.width}x${r.height}x4`);
}

// ---------------------------------------------------------------------------------------------
// Fixed-point separable convolution (Mitchell–Netravali; box when pica cannot)

/** Mitchell–Netravali cubic with B = C = 1/3 (Mitchell & Netravali 1988; the general B, C cubic with the values put in). */
function mitchell(x: number): number {
  if (x < 0) x = -x;
  if (x < 1) return ((7 * x - 12) * x * x + 16 / 3) / 6;
  if (x < 2) return (((-7 / 3) * x + 12) * x * x - 20 * x + 32 / 3) / 6;
  return 0;
}

/**
 * Per-output-pixel weights for one axis: output pixel `o` reads `taps` consecutive source pixels from
 * `first[o]`, with weights `coef[o * taps ...]` summing to exactly 2^14.
 */
interface Weights {
  taps: number;
  first: Int32Array;
  coef: Int16Array;
}

/**
 * Box as a half-open window [-0.5, 0.5): exactly one source pixel per output pixel when enlarging
 * (nearest neighbour), the plain average of the covered pixels when shrinking.
 */
function box(x: number): number {
  return x >= -0.5 && x < 0.5 ? 1 : 0;
}

/** A kernel and its support radius in source pixels at scale 1. */
interface Kernel {
  fn: (x: number) => number;
  radius: number;
}
const MITCHELL: Kernel = { fn: mitchell, radius: MITCHELL_RADIUS };
const BOX: Kernel = { fn: box, radius: 0.5 };

function filterWeights(srcSize: number, dstSize: number, kernel: Kernel): Weights {
  if (srcSize === dstSize) {
    const first = new Int32Array(dstSize);
    for (let i = 0; i < dstSize; i++) first[i] = i;
    return { taps: 1, first, coef: new Int16Array(dstSize).fill(WEIGHT_ONE) };
  }
  const ratio = srcSize / dstSize;
  const scale = Math.max(1, ratio); // kernel stretch: widen when shrinking (anti-aliasing)
  const support = kernel.radius * scale;
  const span = Math.ceil(2 * support) + 3; // upper bound on source pixels one output can touch
  const floats = new Float64Array(dstSize * span);
  const lo = new Int32Array(dstSize);
  const count = new Int32Array(dstSize);
  let taps = 1;
  for (let o = 0; o < dstSize; o++) {
    const center = (o + 0.5) * ratio; // in source pixel coordinates, pixel i covering [i, i+1)
    const a = Math.floor(center - support - 0.5);
    const b = Math.ceil(center + support - 0.5);
    const l = Math.min(Math.max(a, 0), srcSize - 1);
    const h = Math.min(Math.max(b, 0), srcSize - 1);
    const base = o * span;
    let sum = 0;
    for (let i = a; i <= b; i++) {
      const k = kernel.fn((i + 0.5 - center) / scale);
      if (k === 0) continue;
      // Samples outside the image repeat the border pixel.
      floats[base + (i < l ? l : i > h ? h : i) - l] += k;
      sum += k;
    }
    let f0 = 0;
    let f1 = h - l;
    while (f0 < f1 && floats[base + f0] === 0) f0++;
    while (f1 > f0 && floats[base + f1] === 0) f1--;
    const n = f1 - f0 + 1;
    for (let j = 0; j < n; j++) floats[base + j] = floats[base + f0 + j] / sum;
    lo[o] = l + f0;
    count[o] = n;
    if (n > taps) taps = n;
  }
  const first = new Int32Array(dstSize);
  const coef = new Int16Array(dstSize * taps);
  for (let o = 0; o < dstSize; o++) {
    const start = Math.min(lo[o], srcSize - taps);
    first[o] = start;
    const at = o * taps + (lo[o] - start);
    const base = o * span;
    // Round the running sum, not each weight: quantisation errors do not accumulate and the
    // weights sum to exactly 2^14, so flat areas stay exactly flat.
    let cum = 0;
    let prev = 0;
    for (let j = 0; j < count[o]; j++) {
      cum += floats[base + j] * WEIGHT_ONE;
      const r = Math.round(cum);
      coef[at + j] = r - prev;
      prev = r;
    }
    if (prev !== WEIGHT_ONE) {
      let m = at;
      for (let j = 1; j < count[o]; j++) if (coef[at + j] > coef[m]) m = at + j;
      coef[m] += WEIGHT_ONE - prev;
    }
  }
  return { taps, first, coef };
}

function resizeFixed(src: Raster, width: number, height: number, kernel: Kernel): Raster {
  const sw = src.width;
  const sh = src.height;
  const wx = filterWeights(sw, width, kernel);
  const wy = filterWeights(sh, height, kernel);
  const out = new Uint8ClampedArray(width * height * 4);
  // Read whole pixels as 32-bit words (one load per tap instead of four); copy when misaligned.
  const bytes = src.data.byteOffset % 4 === 0 ? src.data : src.data.slice();
  // Int32, not Uint32: an opaque pixel is >= 2^31 as unsigned, which V8 would handle as a double.
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, sw * sh);
  if (isOpaque(words)) {
    const mid = new Int16Array(width * sh * 3);
    horizontalOpaque(words, sw, sh, mid, width, wx);
    verticalOpaque(mid, width, out, height, wy);
  } else {
    const mid = new Int16Array(width * sh * 4);
    horizontalPremultiplied(words, sw, sh, mid, width, wx);
    verticalUnpremultiplied(mid, width, out, height, wy);
  }
  return { width, height, data: new Uint8Array(out.buffer) };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Bit positions of R, G, B, A inside an RGBA pixel read as one 32-bit word (platform byte order). */
const R_SHIFT = LITTLE_ENDIAN ? 0 : 24;
const G_SHIFT = LITTLE_ENDIAN ? 8 : 16;
const B_SHIFT = LITTLE_ENDIAN ? 16 : 8;
const A_SHIFT = LITTLE_ENDIAN ? 24 : 0;

/** True when every alpha byte is 255; stops at the first 4096-pixel chunk that has alpha. */
function isOpaque(words: Int32Array): boolean {
  const mask = (255 << A_SHIFT) | 0;
  for (let i = 0; i < words.length; ) {
    const end = Math.min(words.length, i + 4096);
    let all = -1;
    for (; i < end; i++) all &= words[i];
    if ((all & mask) !== mask) return false;
  }
  return true;
}

/** Opaque rows (as 32-bit pixels) → 3-channel Int16 intermediate (`dw * sh * 3`), values × 2^MID_BITS. */
function horizontalOpaque(src: Int32Array, sw: number, sh: number, mid: Int16Array, dw: number, w: Weights): void {
  const { taps, first, coef } = w;
  const rs = R_SHIFT;
  const gs = G_SHIFT;
  const bs = B_SHIFT;
  let t = 0;
  for (let y = 0; y < sh; y++) {
    const row = y * sw;
    let c = 0;
    for (let x = 0; x < dw; x++) {
      let p = row + first[x];
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = 0; k < taps; k++, c++, p++) {
        const f = coef[c];
        const v = src[p];
        r += f * ((v >> rs) & 255);
        g += f * ((v >> gs) & 255);
        b += f * ((v >> bs) & 255);
      }
      mid[t] = (r + H_ROUND) >> H_SHIFT;
      mid[t + 1] = (g + H_ROUND) >> H_SHIFT;
      mid[t + 2] = (b + H_ROUND) >> H_SHIFT;
      t += 3;
    }
  }
}

/** 3-channel intermediate columns → RGBA output with alpha 255 (the clamped store rounds and clamps to 0..255). */
function verticalOpaque(mid: Int16Array, dw: number, out: Uint8ClampedArray, dh: number, w: Weights): void {
  const { taps, first, coef } = w;
  const stride = dw * 3;
  let o = 0;
  for (let y = 0; y < dh; y++) {
    const c0 = y * taps;
    const base = first[y] * stride;
    for (let x = 0; x < dw; x++) {
      let q = base + x * 3;
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = 0; k < taps; k++, q += stride) {
        const f = coef[c0 + k];
        r += f * mid[q];
        g += f * mid[q + 1];
        b += f * mid[q + 2];
      }
      out[o] = (r + V_ROUND) >> V_SHIFT;
      out[o + 1] = (g + V_ROUND) >> V_SHIFT;
      out[o + 2] = (b + V_ROUND) >> V_SHIFT;
      out[o + 3] = 255;
      o += 4;
    }
  }
}

/** Straight-alpha rows (as 32-bit pixels) → premultiplied 4-channel Int16 intermediate (`dw * sh * 4`), values × 2^MID_BITS. */
function horizontalPremultiplied(src: Int32Array, sw: number, sh: number, mid: Int16Array, dw: number, w: Weights): void {
  const { taps, first, coef } = w;
  const rs = R_SHIFT;
  const gs = G_SHIFT;
  const bs = B_SHIFT;
  const as = A_SHIFT;
  let t = 0;
  for (let y = 0; y < sh; y++) {
    const row = y * sw;
    let c = 0;
    for (let x = 0; x < dw; x++) {
      let p = row + first[x];
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let k = 0; k < taps; k++, c++, p++) {
        const v = src[p];
        const fa = coef[c] * ((v >> as) & 255);
        r += fa * ((v >> rs) & 255);
        g += fa * ((v >> gs) & 255);
        b += fa * ((v >> bs) & 255);
        a += fa;
      }
      mid[t] = Math.floor(r * H_PREMUL_SCALE + 0.5);
      mid[t + 1] = Math.floor(g * H_PREMUL_SCALE + 0.5);
      mid[t + 2] = Math.floor(b * H_PREMUL_SCALE + 0.5);
      mid[t + 3] = (a + H_ROUND) >> H_SHIFT;
      t += 4;
    }
  }
}

/** Premultiplied intermediate columns → straight-alpha RGBA; alpha 0 → RGB 0. Unpremultiplies with the unrounded alpha sum. */
function verticalUnpremultiplied(mid: Int16Array, dw: number, out: Uint8ClampedArray, dh: number, w: Weights): void {
  const { taps, first, coef } = w;
  const stride = dw * 4;
  let o = 0;
  for (let y = 0; y < dh; y++) {
    const c0 = y * taps;
    const base = first[y] * stride;
    for (let x = 0; x < dw; x++) {
      let q = base + x * 4;
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let k = 0; k < taps; k++, q += stride) {
        const f = coef[c0 + k];
        r += f * mid[q];
        g += f * mid[q + 1];
        b += f * mid[q + 2];
        a += f * mid[q + 3];
      }
      const alpha = (a + V_ROUND) >> V_SHIFT;
      if (alpha <= 0) {
        out[o] = 0;
        out[o + 1] = 0;
        out[o + 2] = 0;
        out[o + 3] = 0;
      } else {
        const s = 255 / a;
        out[o] = r * s;
        out[o + 1] = g * s;
        out[o + 2] = b * s;
        out[o + 3] = alpha;
      }
      o += 4;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// pica

type PicaFilter = Exclude<ResizeFilter, "mitchell">;
interface PicaLike {
  resizeBuffer(o: { src: Uint8Array; width: number; height: number; toWidth: number; toHeight: number; filter: PicaFilter }): Promise<Uint8Array>;
}
type PicaFactory = (options: { features: ("js" | "wasm")[] }) => PicaLike;
let picaInstance: Promise<PicaLike> | undefined;

/** One pica instance, JS + WASM features only (no canvas, no workers), loaded on first use. */
function getPica(): Promise<PicaLike> {
  picaInstance ??= import("pica").then((m) => {
    // pica's ESM build exports the factory as `default`; its typings (a .d.ts in a package without
    // "type": "module") look like CommonJS to TypeScript, hence the loose typing and the fallback.
    const d = (m as { default: unknown }).default as PicaFactory | { default: PicaFactory };
    const factory = typeof d === "function" ? d : d.default;
    return factory({ features: ["js", "wasm"] });
  });
  return picaInstance;
}

async function resizePica(src: Raster, width: number, height: number, filter: PicaFilter): Promise<Raster> {
  // pica's WASM path copies `src.buffer` from byte 0 and ignores byteOffset: give it a buffer of its own.
  let data = src.data;
  if (data.byteOffset !== 0 || data.byteLength !== data.buffer.byteLength) data = data.slice();
  const p = await getPica();
  // pica 10 premultiplies by itself whenever an alpha byte is < 255 (mm_resize convolveHorWithPre /
  // convolveVertWithPre, WASM convolveHV with its premultiply flag) and writes alpha 255 otherwise,
  // so premultiplying here too would apply alpha twice. What it does not do is clear the colour of
  // pixels that end up fully transparent; do that here.
  const out = await p.resizeBuffer({ src: data, width: src.width, height: src.height, toWidth: width, toHeight: height, filter });
  for (let i = 3; i < out.length; i += 4) {
    if (out[i] === 0) {
      out[i - 3] = 0;
      out[i - 2] = 0;
      out[i - 1] = 0;
    }
  }
  return { width, height, data: out };
}
