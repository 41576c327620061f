import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { toParts, type MediaPart, type ResultPart, type TextPart, type ToolResult } from "../src/parts.js";
import { toAnthropicToolResult, toOpenAIChatMessages, toOpenAIResponsesOutput, toGeminiParts, toBedrockToolResult } from "../src/serialize.js";
import { probe } from "../src/probe.js";
import { prepare } from "../src/prepare.js";
import { targets, defineTarget, nativeSize, countedBytes, type Target } from "../src/targets.js";
import { decodeBase64, encodeBase64 } from "../src/base64.js";
import { PixfitError, type ErrorCode } from "../src/errors.js";
import { readAttachment } from "../src/attachment.js";
import { png } from "../codecs/png.js";
import { jpeg } from "../codecs/jpeg.js";
import { gif } from "../codecs/gif.js";
import { bmp } from "../codecs/bmp.js";
import type { Raster } from "../src/types.js";
import { noise } from "./reference.js";

/** Gradients with hard edges: compresses like a screenshot. */
function picture(width: number, height: number): Raster {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = (x * 255) / Math.max(1, width - 1);
      data[i + 1] = (y * 255) / Math.max(1, height - 1);
      data[i + 2] = (x >> 4) % 2 === (y >> 4) % 2 ? 220 : 30;
      data[i + 3] = 255;
    }
  return { width, height, data };
}

const text = (p: ResultPart) => (p as TextPart).text;
const media = (p: ResultPart) => p as MediaPart;
const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");

async function rejects(p: Promise<unknown>, code: ErrorCode, message?: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof PixfitError, `expected PixfitError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

test("a string is one text part; empty attachments list adds nothing", async () => {
  assert.deepEqual(await toParts("hello", { target: targets.anthropic }), [{ type: "text", text: "hello" }]);
  assert.deepEqual(await toParts({ text: "hi", attachments: [] }, { target: targets.anthropic }), [{ type: "text", text: "hi" }]);
  assert.deepEqual(await toParts({}, { target: targets.anthropic }), []);
});

test("magic bytes decide the media type: JPEG bytes labelled image/png are written as image/jpeg", async () => {
  const jpg = await jpeg.encode!(picture(64, 32), { quality: 85 });
  const parts = await toParts({ attachments: [{ bytes: jpg, mediaType: "image/png", name: "x.png" }] }, { target: targets.anthropic });
  assert.equal(parts.length, 1);
  assert.equal(media(parts[0]).mediaType, "image/jpeg");
  assert.deepEqual(decodeBase64(media(parts[0]).data), jpg, "fits: passed through byte for byte");
  assert.equal(media(parts[0]).width, 64);
});

test("BMP becomes PNG (lossless: same pixels) for every preset; GIF becomes PNG for Gemini", async () => {
  const raster = picture(40, 30);
  const bmpBytes = await bmp.encode!(raster, {});
  for (const [key, target] of Object.entries(targets)) {
    const [p] = await toParts({ attachments: [{ bytes: bmpBytes, name: "a.bmp" }] }, { target });
    assert.equal(media(p).mediaType, "image/png", key);
    const back = await png.decode!(decodeBase64(media(p).data), { maxPixels: 1e6 });
    assert.deepEqual(back.data, raster.data, `${key}: lossless`);
  }
  const gifBytes = await gif.encode!(picture(16, 16), {});
  const [g] = await toParts({ attachments: [{ bytes: gifBytes }] }, { target: targets.gemini3 });
  assert.equal(media(g).mediaType, "image/png");
  const [a] = await toParts({ attachments: [{ bytes: gifBytes }] }, { target: targets.anthropic });
  assert.equal(media(a).mediaType, "image/gif", "Anthropic takes GIF as it is");
  // WEBP where it is not accepted: JPEG when the target takes JPEG.
  const webp = new Uint8Array(readFileSync(join(import.meta.dirname, "fixtures", "pipeline", "lossy_alpha.webp")));
  const [w] = await toParts({ attachments: [{ bytes: webp }] }, { target: targets.openaiCompatible });
  assert.equal(media(w).mediaType, "image/jpeg");
  const [w2] = await toParts({ attachments: [{ bytes: webp }] }, { target: targets.openaiChat });
  assert.equal(media(w2).mediaType, "image/webp", "accepted: passed through");
  assert.deepEqual(decodeBase64(media(w2).data), webp);
});

test("an unusable attachment becomes a note naming it and the reason; text survives; the turn goes on", async () => {
  const good = await png.encode!(picture(8, 8), {});
  const corrupt = good.slice(0, 60); // header intact, data cut
  const heic = new Uint8Array([0, 0, 0, 24, 0x66, 0x74, 0x79, 0x70, 0x68, 0x65, 0x69, 0x63, 0, 0, 0, 0, 0x6d, 0x69, 0x66, 0x31, 0x68, 0x65, 0x69, 0x63]);
  const input = {
    text: "Result:",
    attachments: [
      { bytes: corrupt, name: "broken.png" },
      { bytes: new Uint8Array([1, 2, 3, 4]), name: "blob.bin" },
      { bytes: new Uint8Array(0), name: "empty.png" },
      { bytes: heic, name: "photo.heic" },
      { bytes: good, name: "ok.png" },
    ],
  };
  const before = structuredClone(input);
  const parts = await toParts(input, { target: targets.anthropic });
  assert.deepEqual(input, before, "input not mutated");
  assert.equal(text(parts[0]), "Result:");
  assert.match(text(parts[1]), /^\[attachment "broken\.png" omitted: .*\(CORRUPT_IMAGE\)\]$/);
  assert.match(text(parts[2]), /^\[attachment "blob\.bin" omitted: .*\(UNSUPPORTED_FORMAT\)\]$/);
  assert.match(text(parts[3]), /^\[attachment "empty\.png" omitted: .*\(EMPTY_INPUT\)\]$/);
  assert.match(text(parts[4]), /^\[attachment "photo\.heic" omitted: HEIC images are not supported.*\(UNSUPPORTED_FORMAT\)\]$/);
  assert.equal(media(parts[5]).mediaType, "image/png");
  assert.equal(parts.length, 6);
});

test("a resized image is followed by a coordinate note (on by default)", async () => {
  const big = await png.encode!(picture(3000, 1000), {});
  const parts = await toParts({ attachments: [{ bytes: big, name: "wide.png" }] }, { target: targets.anthropic });
  assert.equal(media(parts[0]).width, 2000);
  assert.equal(media(parts[0]).height, 667);
  assert.equal(text(parts[1]), `[image "wide.png" was resized from 3000x1000 to 2000x667 px (scale 0.6667); multiply coordinates in it by 1.5 to get original pixels]`);
  const quiet = await toParts({ attachments: [{ bytes: big, name: "wide.png" }] }, { target: targets.anthropic, coordinateNote: false });
  assert.equal(quiet.length, 1);
});

test("size: \"native\" resizes once to the model's native size", async () => {
  const big = await png.encode!(picture(3000, 2000), {});
  const out = await prepare(big, { target: targets.anthropic, size: "native" });
  assert.deepEqual({ width: out.width, height: out.height }, nativeSize(2000, 1333, targets.anthropic.vision));
  assert.ok(Math.ceil(out.width / 28) * Math.ceil(out.height / 28) <= 1568);
  const oa = await prepare(big, { target: targets.openaiChat, size: "native" });
  assert.deepEqual({ width: oa.width, height: oa.height }, { width: 1152, height: 768 });
});

test("byte limit: JPEG quality steps down, then 0.75 scale steps; PNG stays PNG; impossible → INPUT_TOO_LARGE naming the limit", async () => {
  const jpg = await jpeg.encode!(noise(600, 400), { quality: 95 });
  const decoded = await jpeg.decode!(jpg, { maxPixels: 1e6 });
  const at = (q: number) => jpeg.encode!(decoded, { quality: q }); // what prepare re-encodes
  const q70 = (await at(70)).length;
  const q55 = (await at(55)).length;
  // A limit between the q55 and q70 sizes: quality 55 at full size is the first that fits.
  const t1 = defineTarget(targets.anthropic, { image: { maxBytes: countedBytes(Math.floor((q55 + q70) / 2), true) } });
  const r1 = await prepare(jpg, { target: t1 });
  assert.deepEqual([r1.width, r1.height, r1.bytes.length], [600, 400, q55]);
  // A limit below the q40 size: scaled by 0.75 (450 × 300) at quality 40.
  const q40 = (await at(40)).length;
  const t2 = defineTarget(targets.bedrockConverse, { image: { maxBytes: Math.floor(q40 * 0.8) } });
  const r2 = await prepare(jpg, { target: t2 });
  assert.equal(r2.mediaType, "image/jpeg");
  assert.ok(r2.width <= 450 && r2.bytes.length <= t2.image.maxBytes, `${r2.width} ${r2.bytes.length}`);
  assert.equal(r2.width % 1, 0);
  // PNG over the limit is scaled, and stays lossless PNG.
  const pngBytes = await png.encode!(noise(300, 200), {});
  const t3 = defineTarget(targets.openaiChat, { image: { maxBytes: Math.floor(pngBytes.length / 2) } });
  const r3 = await prepare(pngBytes, { target: t3 });
  assert.equal(r3.mediaType, "image/png");
  assert.ok(r3.bytes.length <= t3.image.maxBytes && r3.width < 300);
  // Impossible.
  await rejects(prepare(jpg, { target: defineTarget(targets.anthropic, { image: { maxBytes: 10 } }) }), "INPUT_TOO_LARGE", /per-image limit of 10 bytes of base64/);
});

test("PDFs: passed through where accepted; refused (as a note) where not, or over the document limit", async () => {
  const ok = await toParts({ attachments: [{ bytes: PDF, name: "spec.pdf" }] }, { target: targets.anthropic });
  assert.deepEqual(ok, [{ type: "media", mediaType: "application/pdf", data: encodeBase64(PDF), name: "spec.pdf" }]);
  const no = await toParts({ attachments: [{ bytes: PDF, name: "spec.pdf" }] }, { target: targets.openaiCompatible });
  assert.match(text(no[0]), /^\[attachment "spec\.pdf" omitted: openai-compatible does not accept application\/pdf documents\. \(UNSUPPORTED_FORMAT\)\]$/);
  await rejects(prepare(PDF, { target: defineTarget(targets.bedrockConverse, { document: { maxBytes: 10 } }) }), "INPUT_TOO_LARGE", /at most 10 bytes per document/);
});

test("per-request counts: Bedrock Converse keeps 20 images and 5 documents, the rest become notes", async () => {
  const small = await png.encode!(picture(4, 4), {});
  const attachments = [...Array.from({ length: 22 }, (_, i) => ({ bytes: small, name: `i${i}.png` })), ...Array.from({ length: 6 }, (_, i) => ({ bytes: PDF, name: `d${i}.pdf` }))];
  const parts = await toParts({ attachments }, { target: targets.bedrockConverse });
  assert.equal(parts.filter((p) => p.type === "media" && p.mediaType === "image/png").length, 20);
  assert.equal(parts.filter((p) => p.type === "media" && p.mediaType === "application/pdf").length, 5);
  assert.match(text(parts[20]), /^\[attachment "i20\.png" omitted: bedrock-converse accepts at most 20 images per message\]$/);
  assert.match(text(parts[27]), /^\[attachment "d5\.pdf" omitted: bedrock-converse accepts at most 5 documents per message\]$/);
});

test("paths: images read and prepared, PDFs streamed, missing files noted; readAttachment streams exact base64", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pixfit-parts-"));
  const pngBytes = await png.encode!(picture(2500, 100), {});
  writeFileSync(join(dir, "wide.png"), pngBytes);
  writeFileSync(join(dir, "doc.pdf"), PDF);
  const parts = await toParts(
    { attachments: [{ path: join(dir, "wide.png") }, { path: join(dir, "doc.pdf") }, { path: join(dir, "nope.png") }] },
    { target: targets.anthropic },
  );
  assert.equal(media(parts[0]).name, "wide.png");
  assert.equal(media(parts[0]).width, 2000);
  assert.match(text(parts[1]), /^\[image "wide\.png" was resized/);
  assert.deepEqual(parts[2], { type: "media", mediaType: "application/pdf", data: encodeBase64(PDF), name: "doc.pdf" });
  assert.match(text(parts[3]), /^\[attachment "nope\.png" omitted: .*ENOENT/);

  // Larger than one 768 KiB chunk, length not a multiple of 3: the streamed text equals one-shot base64.
  const big = new Uint8Array(3 * 256 * 1024 * 2 + 7);
  big.set(PDF);
  for (let i = PDF.length; i < big.length; i++) big[i] = (i * 131) & 255;
  writeFileSync(join(dir, "big.pdf"), big);
  const a = await readAttachment(join(dir, "big.pdf"));
  assert.equal(a.mediaType, "application/pdf");
  assert.equal(a.byteLength, big.length);
  assert.equal(a.data, Buffer.from(readFileSync(join(dir, "big.pdf"))).toString("base64"));
  await rejects(readAttachment(join(dir, "big.pdf"), { maxInputBytes: 1000 }), "INPUT_TOO_LARGE");
  writeFileSync(join(dir, "x.dat"), new Uint8Array([1, 2, 3]));
  await rejects(readAttachment(join(dir, "x.dat")), "UNSUPPORTED_FORMAT");
});

// ---------------------------------------------------------------------------------------------------------------
// Issue 4, "Done when": text + a 5640 × 3172 JPEG + a BMP + a PDF + a corrupt file, for every preset.

const ELEPHANTS = "/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg";

function serializeFor(target: Target, result: ToolResult): unknown {
  switch (target.api) {
    case "anthropic-messages":
      return toAnthropicToolResult(result);
    case "openai-chat":
      return toOpenAIChatMessages(result);
    case "openai-responses":
      return toOpenAIResponsesOutput(result);
    case "gemini":
      return toGeminiParts(result, target);
    case "bedrock-converse":
      return toBedrockToolResult(result, { bytes: "base64" });
  }
}

test("done when: text + 5640×3172 JPEG + BMP + PDF + corrupt file serialize for every preset within its limits", { timeout: 900_000 }, async () => {
  const big = existsSync(ELEPHANTS)
    ? new Uint8Array(readFileSync(ELEPHANTS))
    : await jpeg.encode!(picture(5640, 3172), { quality: 92 }); // stand-in when the system image is absent
  assert.deepEqual([probe(big).width, probe(big).height], [5640, 3172]);
  const bmpRaster = picture(300, 200);
  const bmpBytes = await bmp.encode!(bmpRaster, {});
  const good = await png.encode!(picture(32, 32), {});
  const corrupt = good.slice(0, good.length - 30); // truncated inside IDAT
  const input = {
    text: "Here is what the tool found.",
    attachments: [
      { bytes: big, name: "elephants.jpg", mediaType: "image/jpg" }, // a wrong hint: ignored
      { bytes: bmpBytes, name: "chart.bmp" },
      { bytes: PDF, name: "spec.pdf" },
      { bytes: corrupt, name: "broken.png", mediaType: "image/png" },
    ],
  };
  for (const [key, target] of Object.entries(targets)) {
    const parts = await toParts(input, { target });
    const result: ToolResult = { toolCallId: "call_1", name: "inspect", parts };
    assert.deepEqual(parts[0], { type: "text", text: "Here is what the tool found." }, `${key}: text survived`);

    const photo = media(parts[1]);
    assert.equal(photo.type, "media", key);
    assert.ok(target.accepts.includes(photo.mediaType), `${key}: ${photo.mediaType} accepted`);
    const info = probe(decodeBase64(photo.data));
    const maxW = Math.min(target.image.maxWidth, target.manyImages?.maxWidth ?? Infinity);
    const maxH = Math.min(target.image.maxHeight, target.manyImages?.maxHeight ?? Infinity);
    assert.ok(info.width <= maxW && info.height <= maxH, `${key}: ${info.width}x${info.height}`);
    assert.ok(countedBytes(decodeBase64(photo.data).length, target.image.countsBase64) <= target.image.maxBytes, `${key}: bytes`);
    let i = 2;
    if (info.width !== 5640) assert.match(text(parts[i++]), /^\[image "elephants\.jpg" was resized from 5640x3172 to /, key);

    const chart = media(parts[i++]);
    assert.equal(chart.mediaType, "image/png", `${key}: the BMP became PNG`);
    assert.deepEqual((await png.decode!(decodeBase64(chart.data), { maxPixels: 1e6 })).data, bmpRaster.data, `${key}: losslessly`);

    const pdf = parts[i++];
    if (target.accepts.includes("application/pdf")) assert.deepEqual(pdf, { type: "media", mediaType: "application/pdf", data: encodeBase64(PDF), name: "spec.pdf" }, key);
    else assert.match(text(pdf), /^\[attachment "spec\.pdf" omitted: .*\(UNSUPPORTED_FORMAT\)\]$/, key);

    assert.match(text(parts[i++]), /^\[attachment "broken\.png" omitted: .*\(CORRUPT_IMAGE\)\]$/, `${key}: the corrupt file became a note`);
    assert.equal(parts.length, i, key);

    const json = JSON.stringify(serializeFor(target, result));
    assert.ok(json.length <= target.request.maxBytes, `${key}: request ${json.length} bytes`);
    const body = JSON.parse(json);
    if (target.api === "openai-chat") {
      assert.ok(!JSON.stringify(body[0]).includes("image_url"), `${key}: no image in the tool message`);
      assert.equal(body[1].role, "user");
    }
    if (key === "gemini2") assert.ok(body.length > 1 && body[1].inlineData, "Gemini 2: media after the functionResponse");
    if (key === "gemini3") assert.equal(body[0].functionResponse.parts.length, 3, "Gemini 3: media inside the functionResponse");
  }
});

test("the package root bundles for the browser with no node: import (readAttachment loads node:fs/promises lazily)", async () => {
  const esbuild = await import("esbuild");
  const r = await esbuild.build({ entryPoints: [join(import.meta.dirname, "..", "src", "index.ts")], bundle: true, platform: "browser", format: "esm", write: false, metafile: true, logLevel: "silent" });
  const imports = Object.values(r.metafile!.inputs).flatMap((i) => i.imports.map((x) => x.path));
  assert.deepEqual(imports.filter((p) => p.startsWith("node:")), []);
  assert.ok(Object.keys(r.metafile!.inputs).some((f) => f.endsWith("src/attachment.ts")), "readAttachment is in the root graph");
});
