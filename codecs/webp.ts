/**
 * WEBP codec: RIFF header probe written here; pixel decoding by libwebp compiled to WebAssembly
 * (the decoder that @jsquash/webp ships). Decode only: pixfit re-encodes WEBP input as JPEG/PNG.
 *
 * Loading the WebAssembly: @jsquash/webp's own loader fetches `webp_dec.wasm` relative to
 * `import.meta.url`, which fails in Node 20 (no fetch of file: URLs) and after bundling (404). So the
 * .wasm is embedded as base64 in `codecs/wasm/webp-wasm.js` (written by
 * `scripts/embed-wasm.mjs`; the `#webp-wasm` import's default branch), compiled once, lazily, with `WebAssembly.compile`, and handed to the
 * Emscripten factory that @jsquash/webp ships (`codec/dec/webp_dec.js`) through an asynchronous
 * `instantiateWasm` hook. jsquash's `init(module)` is not used because it instantiates synchronously
 * (`new WebAssembly.Instance`, refused by Chrome on the main thread for modules over 4 KB) and its
 * `decode()` never settles when instantiation fails. Runtimes that forbid compiling wasm from bytes
 * (Cloudflare workerd) can pass a precompiled module to {@link setWebpWasmModule}.
 *
 * `ImageData`: the decoder builds its result with `new ImageData(...)` from the global scope, which Node
 * 20 and Deno lack. A minimal stand-in is installed on `globalThis` only for the duration of the
 * synchronous decode call (and the factory's own Node/workerd shim is removed after start-up), so no
 * global is left behind.
 *
 * Animated WEBP (VP8X with the animation flag): libwebp's still-image API refuses animations, so the
 * first ANMF frame is cut out, wrapped as a still WEBP, decoded, and placed at its offset on a
 * transparent canvas of the VP8X canvas size (WebP container spec: the canvas starts transparent for
 * the first frame; the ANIM background colour is only a hint). The result is the first frame as a
 * viewer shows it. Colour profiles (ICCP) are ignored.
 *
 * Spec: "WebP Container Specification" and "WebP Lossless Bitstream Specification" (RFC 9649),
 * VP8 frame header per RFC 6386 §9.1 / §19.1.
 */
import { ascii, hasBytes, u16le, u24le, u32le } from "../src/bytes.js";
import { PixfitError, asCorrupt } from "../src/errors.js";
import { readExifOrientation } from "../src/exif.js";
import type { Codec, DecodeOptions, ImageInfo, Raster } from "../src/types.js";
import webpDecFactory from "@jsquash/webp/codec/dec/webp_dec.js";
import { decodeBase64 } from "../src/base64.js";
// package.json "imports": a precompiled module under the `workerd` condition, else the .wasm as base64.
import { wasmBase64, wasmModule } from "#webp-wasm";

const FORMAT = "webp";

function corrupt(message: string): PixfitError {
  return new PixfitError("CORRUPT_IMAGE", `Corrupt WEBP: ${message}`, { format: FORMAT });
}

/** One RIFF chunk: FourCC and the payload's byte range in the file. */
interface Chunk {
  fourcc: string;
  start: number;
  size: number;
}

/**
 * The chunks of a RIFF/WEBP file in order. A chunk whose payload runs past the end of the file is
 * `CORRUPT_IMAGE`; bytes beyond the RIFF size are ignored (WebP container spec: readers MAY ignore them).
 */
function readChunks(b: Uint8Array): Chunk[] {
  if (!hasBytes(b, 0, "RIFF") || !hasBytes(b, 8, "WEBP")) throw corrupt("missing RIFF/WEBP header");
  const riffEnd = Math.min(8 + u32le(b, 4), b.length);
  const chunks: Chunk[] = [];
  let p = 12;
  while (p + 8 <= riffEnd) {
    const size = u32le(b, p + 4);
    if (p + 8 + size > b.length) throw corrupt(`chunk "${ascii(b, p, 4)}" of ${size} bytes runs past the end of the file`);
    chunks.push({ fourcc: ascii(b, p, 4), start: p + 8, size });
    p += 8 + size + (size & 1);
  }
  if (chunks.length === 0) throw corrupt("no chunks");
  return chunks;
}

/** Width, height, alpha flag of a VP8 or VP8L bitstream chunk (RFC 6386 §19.1; RFC 9649 §3.2). */
function bitstreamInfo(b: Uint8Array, c: Chunk): { width: number; height: number; alpha: boolean } {
  const p = c.start;
  if (c.fourcc === "VP8 ") {
    if (c.size < 10) throw corrupt("VP8 chunk too short");
    const tag = b[p] | (b[p + 1] << 8) | (b[p + 2] << 16);
    if (tag & 1) throw corrupt("VP8 bitstream does not start with a key frame");
    if (!hasBytes(b, p + 3, [0x9d, 0x01, 0x2a])) throw corrupt("bad VP8 start code");
    // 14 bits of size; the top 2 bits are an upscaling hint that decoders ignore.
    const width = u16le(b, p + 6) & 0x3fff;
    const height = u16le(b, p + 8) & 0x3fff;
    if (!width || !height) throw corrupt("zero VP8 frame size");
    return { width, height, alpha: false };
  }
  if (c.fourcc === "VP8L") {
    if (c.size < 5 || b[p] !== 0x2f) throw corrupt("bad VP8L signature");
    const v = u32le(b, p + 1);
    if (v >>> 29 !== 0) throw corrupt("unknown VP8L version");
    return { width: (v & 0x3fff) + 1, height: ((v >>> 14) & 0x3fff) + 1, alpha: ((v >>> 28) & 1) === 1 };
  }
  throw corrupt(`unexpected "${c.fourcc}" chunk where image data was expected`);
}

// VP8X flags (WebP container spec, "Extended File Format").
const VP8X_ANIMATION = 0x02;
const VP8X_ALPHA = 0x10;

/** Parsed layout of a WEBP file. */
interface Layout {
  chunks: Chunk[];
  width: number;
  height: number;
  hasAlpha: boolean;
  animated: boolean;
  orientation: number;
}

function layout(b: Uint8Array): Layout {
  const chunks = readChunks(b);
  const first = chunks[0];
  if (first.fourcc !== "VP8X") {
    const info = bitstreamInfo(b, first);
    return { chunks, width: info.width, height: info.height, hasAlpha: info.alpha, animated: false, orientation: 1 };
  }
  if (first.size < 10) throw corrupt("VP8X chunk too short");
  const flags = b[first.start];
  const width = u24le(b, first.start + 4) + 1;
  const height = u24le(b, first.start + 7) + 1;
  // Container spec: canvas width × height must not exceed 2^32 − 1.
  if (width * height > 0xffffffff) throw corrupt(`canvas ${width}x${height} exceeds 2^32 - 1 pixels`);
  const exif = chunks.find((c) => c.fourcc === "EXIF");
  const orientation = exif ? readExifOrientation(b.subarray(exif.start, exif.start + exif.size)) : 1;
  return { chunks, width, height, hasAlpha: (flags & VP8X_ALPHA) !== 0, animated: (flags & VP8X_ANIMATION) !== 0, orientation };
}

/**
 * Header facts of a WEBP file, without decoding: width and height in pixels (the VP8X canvas, or the
 * VP8/VP8L frame size), `hasAlpha` (VP8X alpha flag, or the VP8L alpha_is_used bit), and the EXIF
 * orientation (1–8) from an EXIF chunk, else 1. Animated files report their canvas.
 * @throws PixfitError `CORRUPT_IMAGE` when the RIFF structure or the first image header is malformed.
 */
export function probeWebp(bytes: Uint8Array): ImageInfo {
  const l = layout(bytes);
  return { width: l.width, height: l.height, hasAlpha: l.hasAlpha, orientation: l.orientation };
}

/**
 * Decodes a WEBP (lossy, lossless, lossy+alpha, or the first frame of an animation) to RGBA.
 * @param options.maxPixels checked against the canvas size before the decoder runs.
 * @returns a {@link Raster} the size of the canvas.
 * @throws PixfitError `TOO_MANY_PIXELS` over `maxPixels`; `CORRUPT_IMAGE` for malformed files or
 * when libwebp rejects the data (its error is the `cause`), or when the WebAssembly cannot be loaded.
 */
export async function decodeWebp(bytes: Uint8Array, { maxPixels }: DecodeOptions): Promise<Raster> {
  const l = layout(bytes);
  if (l.width * l.height > maxPixels)
    throw new PixfitError("TOO_MANY_PIXELS", `WEBP is ${l.width}x${l.height} pixels, over the limit of ${maxPixels}`, { format: FORMAT });
  if (!l.animated) {
    // Check the bitstream's own size too: libwebp allocates from it.
    const bits = l.chunks.find((c) => c.fourcc === "VP8 " || c.fourcc === "VP8L");
    if (!bits) throw corrupt("no VP8/VP8L image data");
    const info = bitstreamInfo(bytes, bits);
    if (info.width * info.height > maxPixels)
      throw new PixfitError("TOO_MANY_PIXELS", `WEBP frame is ${info.width}x${info.height} pixels, over the limit of ${maxPixels}`, { format: FORMAT });
    return wasmDecode(bytes);
  }
  return decodeFirstFrame(bytes, l);
}

/** First ANMF frame of an animation composited on a transparent canvas (see module doc). */
async function decodeFirstFrame(b: Uint8Array, l: Layout): Promise<Raster> {
  const anmf = l.chunks.find((c) => c.fourcc === "ANMF");
  if (!anmf || anmf.size < 16 + 8) throw corrupt("animated WEBP without a frame");
  const p = anmf.start;
  const fx = u24le(b, p) * 2;
  const fy = u24le(b, p + 3) * 2;
  const fw = u24le(b, p + 6) + 1;
  const fh = u24le(b, p + 9) + 1;
  if (fx + fw > l.width || fy + fh > l.height) throw corrupt(`frame ${fw}x${fh}+${fx}+${fy} outside the ${l.width}x${l.height} canvas`);
  // Sub-chunks of the frame: optional ALPH, then VP8 or VP8L (unknown chunks are skipped).
  let alph: Chunk | undefined;
  let bits: Chunk | undefined;
  for (let q = p + 16; q + 8 <= anmf.start + anmf.size; ) {
    const size = u32le(b, q + 4);
    if (q + 8 + size > anmf.start + anmf.size) throw corrupt("frame sub-chunk runs past its ANMF chunk");
    const c = { fourcc: ascii(b, q, 4), start: q + 8, size };
    if (c.fourcc === "ALPH") alph ??= c;
    else if (c.fourcc === "VP8 " || c.fourcc === "VP8L") {
      bits = c;
      break;
    }
    q += 8 + size + (size & 1);
  }
  if (!bits) throw corrupt("animation frame without VP8/VP8L data");
  const info = bitstreamInfo(b, bits);
  if (info.width !== fw || info.height !== fh) throw corrupt("frame size differs from its bitstream");
  const still = wrapStill(b, bits, bits.fourcc === "VP8 " ? alph : undefined, fw, fh);
  const frame = await wasmDecode(still);
  if (fx === 0 && fy === 0 && fw === l.width && fh === l.height) return frame;
  const data = new Uint8Array(l.width * l.height * 4);
  for (let y = 0; y < fh; y++) data.set(frame.data.subarray(y * fw * 4, (y + 1) * fw * 4), ((fy + y) * l.width + fx) * 4);
  return { width: l.width, height: l.height, data };
}

/** A still WEBP file holding one bitstream chunk, with its ALPH chunk behind a VP8X header when given. */
function wrapStill(b: Uint8Array, bits: Chunk, alph: Chunk | undefined, w: number, h: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const chunk = (fourcc: string, payload: Uint8Array): void => {
    const head = new Uint8Array(8);
    for (let i = 0; i < 4; i++) head[i] = fourcc.charCodeAt(i);
    new DataView(head.buffer).setUint32(4, payload.length, true);
    parts.push(head, payload);
    if (payload.length & 1) parts.push(new Uint8Array(1));
  };
  if (alph) {
    const x = new Uint8Array(10);
    x[0] = VP8X_ALPHA;
    x[4] = (w - 1) & 0xff;
    x[5] = ((w - 1) >> 8) & 0xff;
    x[6] = (w - 1) >> 16;
    x[7] = (h - 1) & 0xff;
    x[8] = ((h - 1) >> 8) & 0xff;
    x[9] = (h - 1) >> 16;
    chunk("VP8X", x);
    chunk("ALPH", b.subarray(alph.start, alph.start + alph.size));
  }
  chunk(bits.fourcc, b.subarray(bits.start, bits.start + bits.size));
  const body = parts.reduce((n, a) => n + a.length, 0);
  const out = new Uint8Array(12 + body);
  out.set([0x52, 0x49, 0x46, 0x46], 0); // RIFF
  new DataView(out.buffer).setUint32(4, 4 + body, true);
  out.set([0x57, 0x45, 0x42, 0x50], 8); // WEBP
  let o = 12;
  for (const a of parts) {
    out.set(a, o);
    o += a.length;
  }
  return out;
}

/** The Emscripten module's one export we use (squoosh webp_dec.cpp: `WebPDecodeRGBA` → ImageData or null). */
interface WebpDecModule {
  decode(data: Uint8Array): { data: Uint8ClampedArray | Uint8Array; width: number; height: number } | null;
}
type Factory = (opts: Record<string, unknown>) => Promise<WebpDecModule>;

let loading: Promise<WebpDecModule> | undefined;
let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * Supplies a precompiled decoder module (the bytes of `@jsquash/webp/codec/dec/webp_dec.wasm`), for
 * runtimes that refuse `WebAssembly.compile` on bytes (Cloudflare workerd: import the .wasm file and
 * pass it here). Later decodes use a fresh instance of this module.
 */
export function setWebpWasmModule(module: WebAssembly.Module): void {
  compiled = Promise.resolve(module);
  loading = undefined;
}

/**
 * Compiles the decoder once and instantiates it once; failures are not cached, so a later call retries.
 * After the decoder throws (a wasm trap or abort, after which an Emscripten instance is unusable),
 * {@link wasmDecode} drops the instance and the next call makes a fresh one from the compiled module.
 */
function loadDecoder(): Promise<WebpDecModule> {
  loading ??= (async () => {
    compiled ??= wasmModule ? Promise.resolve(wasmModule) : WebAssembly.compile(decodeBase64(wasmBase64));
    compiled.catch(() => (compiled = undefined));
    const wasm = await compiled;
    const factory = webpDecFactory as unknown as Factory;
    const hadImageData = Object.prototype.hasOwnProperty.call(globalThis, "ImageData");
    let failed: (e: unknown) => void = () => {};
    const failure = new Promise<never>((_, reject) => (failed = reject));
    try {
      return await Promise.race([
        factory({
          noInitialRun: true,
          instantiateWasm(imports: WebAssembly.Imports, done: (i: WebAssembly.Instance) => void) {
            WebAssembly.instantiate(wasm, imports).then(done, failed);
            return {};
          },
        }),
        failure,
      ]);
    } finally {
      // The factory installs its own ImageData class in Node/workerd; take it away again.
      if (!hadImageData) delete (globalThis as { ImageData?: unknown }).ImageData;
    }
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

/** Minimal `ImageData` for runtimes without one; present only during a decode call. */
class ImageDataShim {
  constructor(
    readonly data: Uint8ClampedArray,
    readonly width: number,
    readonly height: number,
  ) {}
}

/** Runs libwebp on a still WEBP file. Throws `CORRUPT_IMAGE` (libwebp's refusal as cause). */
async function wasmDecode(bytes: Uint8Array): Promise<Raster> {
  let mod: WebpDecModule;
  try {
    mod = await loadDecoder();
  } catch (e) {
    throw new PixfitError("CORRUPT_IMAGE", `WEBP decoder could not be loaded: ${e instanceof Error ? e.message : String(e)}`, { cause: e, format: FORMAT });
  }
  const g = globalThis as { ImageData?: unknown };
  const shim = g.ImageData === undefined;
  let img: ReturnType<WebpDecModule["decode"]>;
  try {
    if (shim) g.ImageData = ImageDataShim;
    img = mod.decode(bytes);
  } catch (e) {
    loading = undefined; // the instance may be aborted; start a fresh one next time
    throw asCorrupt(e, FORMAT);
  } finally {
    if (shim) delete g.ImageData;
  }
  if (!img) throw corrupt("libwebp could not decode the data");
  const { width, height, data } = img;
  if (data.length !== width * height * 4) throw corrupt("decoder returned a buffer of the wrong size");
  // The decoder copies pixels out of wasm memory into a fresh buffer; view it as Uint8Array (copy otherwise).
  const own = data.byteOffset === 0 && data.buffer.byteLength === data.length;
  const out = own ? new Uint8Array(data.buffer) : Uint8Array.from(data);
  return { width, height, data: out };
}

/** The WEBP registry entry: sniff (RIFF....WEBP), probe and decode; no encoder (output falls back to JPEG/PNG). */
export const webp: Codec = {
  format: FORMAT,
  mediaType: "image/webp",
  kind: "image",
  sniff: (b) => hasBytes(b, 0, "RIFF") && hasBytes(b, 8, "WEBP"),
  probe: probeWebp,
  decode: decodeWebp,
};
