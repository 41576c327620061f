/** Reference decodes and pixel comparisons for tests. */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { PNG } from "pngjs";
import { isPixfitError } from "../src/errors.js";
import type { Raster } from "../src/types.js";
import { corpusFile, corpusHas } from "./corpus.js";

/** The real ImageMagick 6 `convert` from Debian (a stand-in may shadow it on PATH), or null. */
export const imagemagick: string | null = existsSync("/usr/bin/convert") ? "/usr/bin/convert" : null;

/**
 * Decodes the first frame of a file with ImageMagick into 8-bit RGBA (no colour management, EXIF orientation NOT applied).
 * Returns null when ImageMagick is missing or refuses the file.
 */
export function imagemagickRGBA(path: string): Raster | null {
  if (!imagemagick) return null;
  try {
    const out = execFileSync(imagemagick, [`${path}[0]`, "-format", "%w %h", "info:"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const [w, h] = out.split(" ").map(Number);
    const data = execFileSync(imagemagick, [`${path}[0]`, "-depth", "8", "rgba:-"], { maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "ignore"] });
    if (data.length !== w * h * 4) return null;
    return { width: w, height: h, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  } catch {
    return null;
  }
}

/** Per-channel comparison of two same-sized rasters: mean and max absolute difference over RGBA, and PSNR (dB) over RGB. */
export function compareRasters(a: Raster, b: Raster): { mean: number; max: number; psnr: number } {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`size ${a.width}x${a.height} != ${b.width}x${b.height}`);
  let sum = 0, max = 0, se = 0;
  const n = a.data.length;
  for (let i = 0; i < n; i++) {
    const d = Math.abs(a.data[i] - b.data[i]);
    sum += d;
    if (d > max) max = d;
    if ((i & 3) !== 3) se += d * d;
  }
  const mse = se / ((n / 4) * 3);
  return { mean: sum / n, max, psnr: mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse) };
}

/** Composites straight-alpha RGBA over a solid background (for comparing with references that drop alpha). */
export function flatten(r: Raster, bg: [number, number, number] = [255, 255, 255]): Raster {
  const d = new Uint8Array(r.data.length);
  for (let i = 0; i < d.length; i += 4) {
    const a = r.data[i + 3];
    for (let c = 0; c < 3; c++) d[i + c] = Math.round((r.data[i + c] * a + bg[c] * (255 - a)) / 255);
    d[i + 3] = 255;
  }
  return { width: r.width, height: r.height, data: d };
}

/** Decodes PNG bytes with pngjs (an independent reference decoder, dev dependency only). */
export function pngjsRaster(bytes: Uint8Array): Raster {
  const p = PNG.sync.read(Buffer.from(bytes));
  return { width: p.width, height: p.height, data: new Uint8Array(p.data) };
}

/** Fully transparent pixels carry no colour: zeroes their RGB so rasters differing only there compare equal. */
export function visible(r: Raster): Raster {
  const d = r.data.slice();
  for (let i = 0; i < d.length; i += 4) if (d[i + 3] === 0) d[i] = d[i + 1] = d[i + 2] = 0;
  return { ...r, data: d };
}

/** Largest channel difference after zeroing the colour of fully transparent pixels. */
export function maxVisibleDiff(a: Raster, b: Raster): number {
  return compareRasters(visible(a), visible(b)).max;
}

/**
 * Runs `fn` with `globalThis.Buffer` replaced by a getter that throws "Buffer touched", to prove the code under test
 * never reaches for it (not even to feature-detect it); the original is restored afterwards.
 */
export async function withoutBuffer<T>(fn: () => Promise<T>): Promise<T> {
  const saved = Object.getOwnPropertyDescriptor(globalThis, "Buffer")!;
  Object.defineProperty(globalThis, "Buffer", {
    configurable: true,
    get() {
      throw new Error("Buffer touched");
    },
  });
  try {
    return await fn();
  } finally {
    Object.defineProperty(globalThis, "Buffer", saved);
  }
}

/** Source files (paths relative to test/) whose code, comments stripped, imports from `node:` or names `Buffer`. */
export function nodeOrBufferIn(...files: string[]): string[] {
  return files.filter((f) => {
    const code = readFileSync(new URL(f, import.meta.url), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    return /from "node:|\bBuffer\b/.test(code);
  });
}

/** "decoded" when `p` resolves, else the `PixfitError` code it rejects with (anything else fails the test). */
export async function errorCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "decoded";
  } catch (e) {
    if (!isPixfitError(e)) throw new Error(`expected a PixfitError, got ${String(e)}`, { cause: e });
    return e.code;
  }
}

/** md5 of libwebp `dwebp`'s PAM output per file name, from libwebp-test-data (empty when that set is absent). */
export const dwebpMd5 = new Map<string, string>();
if (corpusHas("webp/libwebp-test-data/ref/libwebp_tests.md5"))
  for (const line of new TextDecoder().decode(corpusFile("webp/libwebp-test-data/ref/libwebp_tests.md5")).split("\n")) {
    const [hash, file] = line.trim().split(/\s+/);
    if (file?.endsWith(".webp.pam")) dwebpMd5.set(file.slice(0, -4), hash);
  }

/** md5 of a raster written as `dwebp -pam` writes it (RGBA PAM), to compare with {@link dwebpMd5}. */
export function pamMd5(r: Raster): string {
  const header = `P7\nWIDTH ${r.width}\nHEIGHT ${r.height}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n`;
  return createHash("md5").update(header).update(r.data).digest("hex");
}

/** Deterministic RGB noise, opaque (a linear congruential generator from `seed`): compresses badly, so byte limits bite. */
export function noise(width: number, height: number, seed = 1): Raster {
  const data = new Uint8Array(width * height * 4);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = i % 4 === 3 ? 255 : s >>> 24;
  }
  return { width, height, data };
}
