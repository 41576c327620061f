/**
 * The runtime checks: one list, run unchanged in Node, Bun, Deno, Cloudflare workerd and Chromium.
 *
 * Runtime-neutral on purpose: plain ES2022 JavaScript, no `node:` imports, no `Buffer`, no file system.
 * The only globals used are `atob`, `crypto.subtle`, `TextEncoder`, `Uint8Array` and `JSON`, which all five
 * runtimes provide. pixfit itself is passed in as a module namespace, imported by each runtime the way a user
 * of that runtime writes it (see README.md, section "Runtimes"), so the checks also test loading.
 *
 * Each check computes a short string (sizes and SHA-256 hex digests of pixels or encoded bytes); the
 * expected strings in ./fixtures.js were written by `node scripts/test-runtimes.mjs --update`, from Node,
 * except the PngSuite parity hashes, which come from ImageMagick's decoding of the same files. "One
 * behaviour everywhere": every runtime must reproduce the same strings byte for byte.
 */
import { expected, files, fileInfo } from "./fixtures.js";

/** Bytes of an embedded fixture (base64 in ./fixtures.js). */
export function fixture(key) {
  const b64 = files[key];
  if (b64 === undefined) throw new Error(`no fixture ${key}`);
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Lower-case hex SHA-256 (FIPS 180-4) of bytes, through WebCrypto. */
export async function sha256(bytes) {
  const view = bytes instanceof Uint8Array ? bytes : new TextEncoder().encode(String(bytes));
  const digest = await crypto.subtle.digest("SHA-256", view);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A deterministic 16 × 12 RGBA test pattern: gradients in R and G, a checker in B, alpha falling left to right. */
export function pattern(width = 16, height = 12) {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = Math.round((x * 255) / (width - 1));
      data[i + 1] = Math.round((y * 255) / (height - 1));
      data[i + 2] = ((x >> 2) + (y >> 2)) & 1 ? 200 : 40;
      data[i + 3] = 255 - x * 8;
    }
  return { width, height, data };
}

/** The same pattern with alpha 255 everywhere (formats without alpha: JPEG, 24-bit BMP). */
function opaque(r) {
  const data = r.data.slice();
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { width: r.width, height: r.height, data };
}

/** "W×H sha256" of a raster's RGBA. */
async function rasterId(r) {
  return `${r.width}x${r.height} ${await sha256(r.data)}`;
}

/** "media W×H flags sha256" of a prepare() result. */
async function preparedId(r, input) {
  const flags = [r.resized && "resized", r.transcoded && "transcoded", r.bytes === input && "same-array"].filter(Boolean).join(",");
  return `${r.mediaType} ${r.width}x${r.height} o${r.orientation} ${flags || "-"} ${r.bytes.length}B ${await sha256(r.bytes)}`;
}

/** The error code a promise rejects with, or "resolved" when it does not. */
async function codeOf(promise) {
  try {
    await promise;
    return "resolved";
  } catch (err) {
    return err && typeof err === "object" && "code" in err ? `${err.name}:${err.code}` : `thrown:${String(err)}`;
  }
}

/** Image fixtures decoded in every runtime (keys of ./fixtures.js `files`). */
export const decodeKeys = Object.keys(fileInfo).filter((k) => fileInfo[k].decode);
/** PngSuite files whose expected RGBA comes from ImageMagick (parity), not from Node. */
export const pngsuiteKeys = Object.keys(fileInfo).filter((k) => fileInfo[k].parity);

/**
 * The checks as `{ name, run }`; `run()` resolves to the string compared with `expected[name]`.
 * @param px the pixfit module namespace (`import * as px from "pixfit"`).
 */
export function defineChecks(px) {
  const codec = (format) => {
    const c = px.codecs.find((k) => k.format === format);
    if (!c) throw new Error(`codec ${format} missing from the registry`);
    return c;
  };
  const checks = [];
  const add = (name, run) => checks.push({ name, run });

  // Detection, from magic bytes, of every fixture plus a PDF, a HEIC header and garbage.
  for (const key of Object.keys(files)) add(`detect ${key}`, async () => String(px.detect(fixture(key))));
  add("detect unsupported heic", async () => JSON.stringify(px.detectUnsupported(fixture("heic/ftyp-header"))));
  add("detect garbage", async () => String(px.detect(new TextEncoder().encode("hello, world"))));

  // Header probe.
  for (const key of decodeKeys) add(`probe ${key}`, async () => JSON.stringify(px.probe(fixture(key))));

  // Each codec's decoder; PngSuite files against ImageMagick's RGBA.
  for (const key of decodeKeys) {
    const name = fileInfo[key].parity ? `decode ${key} (PngSuite parity)` : `decode ${key}`;
    add(name, async () => rasterId(await codec(fileInfo[key].format).decode(fixture(key), { maxPixels: 1e8 })));
  }

  // Each codec's encoder, on the same pattern; output bytes hashed.
  for (const format of ["png", "jpeg", "gif", "bmp"]) {
    add(`encode ${format}`, async () => {
      const c = codec(format);
      const raster = format === "jpeg" ? opaque(pattern()) : pattern();
      const bytes = await c.encode(raster, { quality: 80 });
      const back = await c.decode(bytes, { maxPixels: 1e8 });
      return `${bytes.length}B ${await sha256(bytes)} -> ${await rasterId(back)}`;
    });
  }

  // Resize (Mitchell, pure JavaScript) and the fit arithmetic.
  add("resize mitchell 16x12 -> 7x5", async () => rasterId(await px.resize(pattern(), 7, 5, { filter: "mitchell" })));
  add("resize mitchell 16x12 -> 40x30", async () => rasterId(await px.resize(pattern(), 40, 30, { filter: "mitchell" })));
  // pica's filters: pica uses its WASM where the runtime compiles wasm from bytes and silently falls back
  // to its JS path where it cannot (workerd); the output must not depend on which path ran.
  for (const filter of ["lanczos3", "box", "mks2013"])
    add(`resize ${filter} (pica) 16x12 -> 7x5`, async () => rasterId(await px.resize(pattern(), 7, 5, { filter })));
  add("resize lanczos3 (pica) 64x48 -> 20x15", async () => rasterId(await px.resize(pattern(64, 48), 20, 15, { filter: "lanczos3" })));
  add("fitWithin 4000x3000 in 2000x2000", async () => JSON.stringify(px.fitWithin(4000, 3000, 2000, 2000)));

  // prepare(): pass-through keeps the very bytes; otherwise decode → orient → resize → encode.
  add("prepare pass-through png", async () => {
    const input = fixture("png/basn6a08");
    return preparedId(await px.prepare(input), input);
  });
  add("prepare pass-through pdf", async () => {
    const input = fixture("pdf/minimal");
    return preparedId(await px.prepare(input), input);
  });
  const resized = [
    ["jpeg/ycbcr-32x32", { maxWidth: 16, maxHeight: 16 }],
    ["jpeg/exif-orientation-6", {}],
    ["png/basn6a08", { maxWidth: 20, maxHeight: 20 }],
    ["gif/peterdn-static-transparent", { maxWidth: 8, maxHeight: 8 }],
    ["bmp/pal8", { maxWidth: 50, maxHeight: 50 }],
    ["webp/simple-rgb", { maxWidth: 20, maxHeight: 20 }],
    ["webp/lossy-alpha", { maxWidth: 30, maxHeight: 30 }],
  ];
  for (const [key, options] of resized)
    add(`prepare ${key} ${JSON.stringify(options)}`, async () => {
      const input = fixture(key);
      return preparedId(await px.prepare(input, options), input);
    });

  // Typed errors.
  add("error empty input", () => codeOf(px.prepare(new Uint8Array(0))));
  add("error HEIC", () => codeOf(px.prepare(fixture("heic/ftyp-header"))));
  add("error truncated PNG", () => codeOf(px.prepare(fixture("png/basn6a08").subarray(0, 60), { maxWidth: 8, maxHeight: 8 })));
  add("error pixel budget", () => codeOf(px.prepare(fixture("bmp/pal8"), { maxInputPixels: 1000 })));

  // A serializer: tool output → parts → Anthropic tool_result JSON.
  add("serialize anthropic tool_result", async () => {
    const parts = await px.toParts(
      { text: "two images", attachments: [{ bytes: fixture("jpeg/ycbcr-32x32"), name: "a.jpg" }, { bytes: fixture("webp/simple-rgb"), name: "b.webp" }] },
      { target: px.targets.anthropic, maxWidth: 16, maxHeight: 16 },
    );
    const json = JSON.stringify(px.toAnthropicToolResult({ toolCallId: "toolu_1", parts }));
    return `${json.length}B ${await sha256(json)}`;
  });
  return checks;
}

/**
 * Runs every check and compares with ./fixtures.js.
 * @param px the pixfit module namespace.
 * @returns `{ name, ok, detail }` per check, in definition order; `detail` is the value, or what differed.
 */
export async function runChecks(px) {
  const results = [];
  for (const { name, run } of defineChecks(px)) {
    let actual;
    try {
      actual = await run();
    } catch (err) {
      results.push({ name, ok: false, detail: `threw ${err && err.stack ? err.stack.split("\n").slice(0, 3).join(" | ") : String(err)}` });
      continue;
    }
    const want = expected[name];
    if (want === undefined) results.push({ name, ok: false, detail: `no expected value (got ${actual}); run node scripts/test-runtimes.mjs --update` });
    else if (want === actual) results.push({ name, ok: true, detail: actual.length > 90 ? actual.slice(0, 87) + "..." : actual });
    else results.push({ name, ok: false, detail: `expected ${want}, got ${actual}` });
  }
  return results;
}

/** Runs every check and returns `{ name: value }` (errors as "threw ..."), for writing ./fixtures.js. */
export async function computeValues(px) {
  const values = {};
  for (const { name, run } of defineChecks(px)) {
    try {
      values[name] = await run();
    } catch (err) {
      values[name] = `threw ${String(err)}`;
    }
  }
  return values;
}
