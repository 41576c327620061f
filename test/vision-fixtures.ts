/**
 * Helpers for the vision tests: images made with pixfit's own encoders in a temporary directory, so the tests
 * need no files from /work/shared.
 */
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codecByMediaType } from "../codecs/index.js";
import type { Raster } from "../src/types.js";
import type { VisionConfig } from "../src/vision/index.js";

/** A width × height RGBA raster: a gradient, or deterministic noise (incompressible) when `noise` is set. */
export function makeRaster(width: number, height: number, noise = false): Raster {
  const data = new Uint8Array(width * height * 4);
  let seed = 12345;
  for (let i = 0; i < width * height; i++) {
    if (noise) {
      for (let c = 0; c < 4; c++) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        data[i * 4 + c] = c === 3 ? 255 : seed >>> 24;
      }
    } else {
      const x = i % width;
      const y = Math.floor(i / width);
      data.set([(x * 255) / Math.max(1, width - 1), (y * 255) / Math.max(1, height - 1), 128, 255], i * 4);
    }
  }
  return { width, height, data };
}

/** Encodes with the registry's encoder for `mediaType` (PNG and BMP have one). */
export async function encode(mediaType: "image/png" | "image/bmp", raster: Raster): Promise<Uint8Array> {
  const codec = codecByMediaType(mediaType);
  if (!codec?.encode) throw new Error(`no encoder for ${mediaType}`);
  return codec.encode(raster, {});
}

/** A temporary directory with a helper to write files into it; `cleanup()` removes it. */
export async function tempDir(): Promise<{ dir: string; write(name: string, bytes: Uint8Array | string): Promise<string>; mkdir(name: string): Promise<string>; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "pixfit-vision-"));
  return {
    dir,
    async write(name, bytes) {
      const path = join(dir, name);
      await writeFile(path, bytes);
      return path;
    },
    async mkdir(name) {
      const path = join(dir, name);
      await mkdir(path, { recursive: true });
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A complete config for tests; override what a test needs. */
export function testConfig(overrides: Partial<VisionConfig> = {}): VisionConfig {
  return {
    apiKey: "sk-test-SECRET-123",
    baseUrl: "http://127.0.0.1:9",
    endpoint: "http://127.0.0.1:9/chat/completions",
    model: "vision-test-model",
    maxTokens: 1000,
    timeoutMs: 5000,
    thinking: false,
    thinkingFormat: "deepseek",
    ...overrides,
  };
}

/** Expects `promise` to reject with a VisionError of `category`; returns it for further checks. */
export async function rejectsWith(promise: Promise<unknown>, category: string): Promise<Error & { category: string; status?: number; path?: string }> {
  try {
    await promise;
  } catch (err) {
    const e = err as Error & { category: string };
    if (e?.name !== "VisionError") throw new Error(`expected a VisionError (${category}), got ${String(err)}`, { cause: err });
    if (e.category !== category) throw new Error(`expected category ${category}, got ${e.category}: ${e.message}`, { cause: err });
    return e;
  }
  throw new Error(`expected a VisionError (${category}), but the promise resolved`);
}
