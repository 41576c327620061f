/**
 * Fidelity check for the benchmark (issue 6): PSNR of a pipeline's output against a float Mitchell reference of the
 * same input. Node-only (uses sharp, a dev dependency, to decode sources and outputs; sharp's JPEG decoder is
 * libjpeg-turbo/mozjpeg at full scale when no resize is asked for).
 *
 * The reference: the source decoded once to 8-bit RGBA, resampled in float64 with Mitchell–Netravali
 * (B = C = 1/3, Mitchell & Netravali 1988 eq. 8, support 2 × the shrink factor, edge clamp), separable, in
 * premultiplied alpha, in the stored (sRGB-encoded) values — the same model pixfit's resize approximates in fixed
 * point. PSNR is computed over premultiplied R, G, B (so colour under zero alpha does not count), peak 255.
 */
import sharp from "sharp";

/** A float raster: `width × height × 4` premultiplied RGBA values in 0–255 (float). */
export interface FloatRaster {
  width: number;
  height: number;
  data: Float32Array;
}

/** Mitchell–Netravali B = C = 1/3 (eq. 8). */
function mitchell(x: number): number {
  x = Math.abs(x);
  if (x < 1) return ((7 * x - 12) * x * x + 16 / 3) / 6;
  if (x < 2) return (((-7 / 3) * x + 12) * x * x - 20 * x + 32 / 3) / 6;
  return 0;
}

/** Per-output weights for one axis: for output o, source indices `idx[o]` and weights `w[o]` (sum 1). */
function axisWeights(srcLen: number, dstLen: number): { idx: Int32Array[]; w: Float64Array[] } {
  const scale = srcLen / dstLen;
  const support = 2 * Math.max(1, scale);
  const fscale = 1 / Math.max(1, scale);
  const idx: Int32Array[] = [];
  const w: Float64Array[] = [];
  for (let o = 0; o < dstLen; o++) {
    const centre = (o + 0.5) * scale - 0.5;
    const lo = Math.ceil(centre - support), hi = Math.floor(centre + support);
    const ii: number[] = [], ww: number[] = [];
    let sum = 0;
    for (let s = lo; s <= hi; s++) {
      const k = mitchell((s - centre) * fscale);
      if (k === 0) continue;
      ii.push(Math.min(srcLen - 1, Math.max(0, s)));
      ww.push(k);
      sum += k;
    }
    idx.push(Int32Array.from(ii));
    w.push(Float64Array.from(ww, (v) => v / sum));
  }
  return { idx, w };
}

/**
 * Float Mitchell resample of straight-alpha RGBA bytes (`w × h × 4`) to `dw × dh`; result is premultiplied float.
 */
export function floatMitchell(src: Uint8Array, w: number, h: number, dw: number, dh: number): FloatRaster {
  const pre = new Float32Array(w * h * 4);
  for (let i = 0; i < pre.length; i += 4) {
    const a = src[i + 3] / 255;
    pre[i] = src[i] * a;
    pre[i + 1] = src[i + 1] * a;
    pre[i + 2] = src[i + 2] * a;
    pre[i + 3] = src[i + 3];
  }
  const hx = axisWeights(w, dw);
  const mid = new Float32Array(dw * h * 4);
  for (let y = 0; y < h; y++) {
    const row = y * w * 4;
    for (let x = 0; x < dw; x++) {
      const ii = hx.idx[x], ww = hx.w[x];
      let r = 0, g = 0, b = 0, a = 0;
      for (let k = 0; k < ii.length; k++) {
        const p = row + ii[k] * 4, c = ww[k];
        r += pre[p] * c;
        g += pre[p + 1] * c;
        b += pre[p + 2] * c;
        a += pre[p + 3] * c;
      }
      const o = (y * dw + x) * 4;
      mid[o] = r;
      mid[o + 1] = g;
      mid[o + 2] = b;
      mid[o + 3] = a;
    }
  }
  const vy = axisWeights(h, dh);
  const out = new Float32Array(dw * dh * 4);
  for (let y = 0; y < dh; y++) {
    const ii = vy.idx[y], ww = vy.w[y];
    for (let x = 0; x < dw * 4; x++) {
      let s = 0;
      for (let k = 0; k < ii.length; k++) s += mid[ii[k] * dw * 4 + x] * ww[k];
      out[y * dw * 4 + x] = Math.min(255, Math.max(0, s));
    }
  }
  return { width: dw, height: dh, data: out };
}

/** Decodes any file sharp reads to straight-alpha RGBA bytes at full size. */
export async function decodeRGBA(input: Uint8Array | string): Promise<{ width: number; height: number; data: Uint8Array }> {
  const { data, info } = await sharp(input, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/**
 * PSNR (dB) of an encoded output against a float reference of the same size, over premultiplied RGB.
 * Returns NaN when the sizes differ by more than one pixel per side; when they differ by one pixel
 * (rounding of the fitted size), the caller should pass a reference made at the output's size.
 */
export async function psnrAgainst(output: Uint8Array, ref: FloatRaster): Promise<number> {
  const o = await decodeRGBA(output);
  if (o.width !== ref.width || o.height !== ref.height) return NaN;
  let se = 0;
  const d = o.data, r = ref.data;
  for (let i = 0; i < d.length; i += 4) {
    const a = d[i + 3] / 255;
    for (let c = 0; c < 3; c++) {
      const e = d[i + c] * a - r[i + c];
      se += e * e;
    }
  }
  const mse = se / ((d.length / 4) * 3);
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}

/** References cached per source path and output size. */
const cache = new Map<string, FloatRaster>();
const sources = new Map<string, { width: number; height: number; data: Uint8Array }>();

/** The float Mitchell reference of `path` at `dw × dh` (decoded once per path, resampled once per size). */
export async function referenceFor(path: string, dw: number, dh: number): Promise<FloatRaster> {
  const key = `${path} ${dw}x${dh}`;
  let ref = cache.get(key);
  if (!ref) {
    let src = sources.get(path);
    if (!src) {
      sources.clear(); // one large source at a time
      src = await decodeRGBA(path);
      sources.set(path, src);
    }
    ref = floatMitchell(src.data, src.width, src.height, dw, dh);
    cache.set(key, ref);
  }
  return ref;
}

/** Size of an encoded image (pixels) as sharp reads it. */
export async function outputSize(bytes: Uint8Array): Promise<{ width: number; height: number }> {
  const m = await sharp(bytes).metadata();
  return { width: m.width ?? 0, height: m.height ?? 0 };
}
