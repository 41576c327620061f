/**
 * EXIF orientation: turn stored pixels upright.
 *
 * Orientation values are those of TIFF 6.0 tag 0x0112 as used by EXIF 2.32 (CIPA DC-008, §4.6.4 A,
 * "Orientation"): the value names where the stored row 0 / column 0 are meant to be shown.
 * What pixfit does for each value, with W×H the stored size:
 *
 * | value | EXIF name     | transform            | stored (x, y) lands at |
 * |-------|---------------|----------------------|------------------------|
 * | 1     | top-left      | none                 | (x, y)                 |
 * | 2     | top-right     | mirror horizontal    | (W-1-x, y)             |
 * | 3     | bottom-right  | rotate 180°          | (W-1-x, H-1-y)         |
 * | 4     | bottom-left   | mirror vertical      | (x, H-1-y)             |
 * | 5     | left-top      | transpose            | (y, x)                 |
 * | 6     | right-top     | rotate 90° clockwise | (H-1-y, x)             |
 * | 7     | right-bottom  | transverse           | (H-1-y, W-1-x)         |
 * | 8     | left-bottom   | rotate 270° clockwise| (y, W-1-x)             |
 *
 * Values 5–8 swap width and height. Anything other than 2–8 (0 = "undefined", absent, out of range)
 * is treated as 1, as `ImageInfo.orientation` (src/types.ts) already promises.
 */
import type { Raster } from "./types.js";

/** Side of the square blocks used for the transposing orientations (5–8), in pixels; keeps reads and writes cache-local. */
const BLOCK = 64;

function normalise(orientation: number): number {
  return Number.isInteger(orientation) && orientation >= 2 && orientation <= 8 ? orientation : 1;
}

/**
 * Width and height, in pixels, after applying `orientation` (TIFF 6.0 tag 0x0112): values 5–8 swap
 * the two sides, every other value keeps them. Never throws.
 *
 * @example orientedSize(4000, 3000, 6) // { width: 3000, height: 4000 }
 */
export function orientedSize(width: number, height: number, orientation: number): { width: number; height: number } {
  return normalise(orientation) >= 5 ? { width: height, height: width } : { width, height };
}

/**
 * Applies an EXIF orientation (1–8, TIFF 6.0 tag 0x0112; table in this module's header) to an RGBA raster
 * and returns a new upright raster of size {@link orientedSize}. Returns `src` itself (not a copy)
 * for 1 and for values outside 2–8. Pixels are moved, never resampled, so the result is exact.
 *
 * Throws `RangeError` when `src.data.length !== src.width * src.height * 4` (a programming error,
 * not bad image input).
 */
export function applyOrientation(src: Raster, orientation: number): Raster {
  const o = normalise(orientation);
  if (o === 1) return src;
  const { width: w, height: h, data } = src;
  if (data.length !== w * h * 4) throw new RangeError(`raster data is ${data.length} bytes, expected ${w}x${h}x4`);
  const out = new Uint8Array(data.length);

  // Destination pixel index of stored pixel (x, y) is start + x*dx + y*dy (see the table above).
  let start: number, dx: number, dy: number;
  switch (o) {
    case 2: start = w - 1; dx = -1; dy = w; break;
    case 3: start = w * h - 1; dx = -1; dy = -w; break;
    case 4: start = (h - 1) * w; dx = 1; dy = -w; break;
    case 5: start = 0; dx = h; dy = 1; break;
    case 6: start = h - 1; dx = h; dy = -1; break;
    case 7: start = w * h - 1; dx = -h; dy = -1; break;
    default: start = (w - 1) * h; dx = -h; dy = 1; break; // 8
  }

  // Move whole pixels as 32-bit words when the source is aligned (byte order is irrelevant: a word is
  // copied as is; Int32 rather than Uint32 so V8 keeps opaque pixels, >= 2^31 unsigned, out of doubles).
  if (data.byteOffset % 4 === 0) {
    const s32 = new Int32Array(data.buffer, data.byteOffset, w * h);
    const d32 = new Int32Array(out.buffer);
    if (o <= 4) {
      for (let y = 0; y < h; y++) {
        let si = y * w;
        let di = start + y * dy;
        for (let x = 0; x < w; x++, si++, di += dx) d32[di] = s32[si];
      }
    } else {
      for (let by = 0; by < h; by += BLOCK) {
        const ey = Math.min(h, by + BLOCK);
        for (let bx = 0; bx < w; bx += BLOCK) {
          const ex = Math.min(w, bx + BLOCK);
          for (let y = by; y < ey; y++) {
            let si = y * w + bx;
            let di = start + bx * dx + y * dy;
            for (let x = bx; x < ex; x++, si++, di += dx) d32[di] = s32[si];
          }
        }
      }
    }
  } else {
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const si = (y * w + x) * 4;
        const di = (start + x * dx + y * dy) * 4;
        out[di] = data[si];
        out[di + 1] = data[si + 1];
        out[di + 2] = data[si + 2];
        out[di + 3] = data[si + 3];
      }
    }
  }
  const size = orientedSize(w, h, o);
  return { width: size.width, height: size.height, data: out };
}

