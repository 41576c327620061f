import { test } from "node:test";
import assert from "node:assert/strict";
import { fitRequest } from "../src/fit-request.js";
import { toAnthropicToolResult } from "../src/serialize.js";
import { targets, defineTarget } from "../src/targets.js";
import { decodeBase64, encodeBase64 } from "../src/base64.js";
import { probe } from "../src/probe.js";
import type { MediaPart, ResultPart, ToolResult } from "../src/parts.js";
import { png } from "../codecs/png.js";
import { bmp } from "../codecs/bmp.js";
import type { Raster } from "../src/types.js";
import { noise } from "./reference.js";

/** A screenshot-like raster: flat blocks and edges, different per `seed`. */
function screenshot(width: number, height: number, seed: number): Raster {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = ((x >> 5) * 7 + seed * 40) & 255;
      data[i + 1] = ((y >> 5) * 11 + seed * 90) & 255;
      data[i + 2] = ((x >> 6) + (y >> 6) + seed) % 2 ? 230 : 20;
      data[i + 3] = 255;
    }
  return { width, height, data };
}

const images = (ms: readonly { parts: readonly ResultPart[] }[]) => ms.flatMap((m) => m.parts.filter((p): p is MediaPart => p.type === "media" && p.mediaType !== "application/pdf"));
const notes = (ms: readonly { parts: readonly ResultPart[] }[]) => ms.flatMap((m) => m.parts.filter((p) => p.type === "text" && /removed:/.test(p.text)));

test("a 30-image conversation of 4000-px screenshots is made to satisfy Anthropic's many-image rule", { timeout: 300_000 }, async () => {
  const shots = await Promise.all([0, 1, 2].map(async (seed) => encodeBase64(await png.encode!(screenshot(4000, 2250, seed), {}))));
  const conversation: ToolResult[] = Array.from({ length: 30 }, (_, i) => ({
    toolCallId: `call_${i}`,
    name: "screenshot",
    parts: [
      { type: "text", text: `step ${i}` },
      // Half the parts say their size, half leave it to be read from the header.
      i % 2 ? { type: "media", mediaType: "image/png", data: shots[i % 3], name: `s${i}.png`, width: 4000, height: 2250 } : { type: "media", mediaType: "image/png", data: shots[i % 3] },
    ],
  }));
  const snapshot = structuredClone(conversation);
  const fitted = await fitRequest(conversation, targets.anthropic);
  assert.deepEqual(conversation, snapshot, "input not mutated");
  assert.equal(fitted.length, 30);
  const imgs = images(fitted);
  assert.equal(imgs.length, 30, "no image dropped: 30 ≤ 100");
  assert.deepEqual(notes(fitted), []);
  for (const p of imgs) {
    const info = probe(decodeBase64(p.data)); // measured, not trusted from the part
    assert.ok(info.width <= 2000 && info.height <= 2000, `${info.width}x${info.height}`);
    assert.deepEqual([p.width, p.height], [info.width, info.height]);
    assert.equal(p.mediaType, "image/png", "lossless stays lossless");
  }
  assert.deepEqual(fitted.map((m) => (m.parts[0] as { text: string }).text), conversation.map((m) => (m.parts[0] as { text: string }).text));
  assert.equal((fitted[1].parts[1] as MediaPart).name, "s1.png");
  assert.equal(fitted[1].toolCallId, "call_1", "other message fields kept");
  const body = JSON.stringify({ model: "m", max_tokens: 1, messages: [{ role: "user", content: fitted.map(toAnthropicToolResult) }] });
  assert.ok(body.length < targets.anthropic.request.maxBytes);

  // The same conversation cut to 20 images needs no change: the images stay as they were (same objects).
  const twenty = conversation.slice(0, 20);
  const same = await fitRequest(twenty, targets.anthropic);
  same.forEach((m, i) => assert.equal(m, twenty[i]));
});

test("image count: the oldest images beyond the limit become notes (request scope); Bedrock counts per message", async () => {
  const small = encodeBase64(await png.encode!(screenshot(8, 8, 1), {}));
  const msgs = Array.from({ length: 25 }, (_, i) => ({ role: "tool", parts: [{ type: "media", mediaType: "image/png", data: small, name: `i${i}.png` }] as ResultPart[] }));
  const fitted = await fitRequest(msgs, targets.openaiCompatible);
  assert.equal(images(fitted).length, 20);
  assert.deepEqual(
    fitted.slice(0, 5).map((m) => (m.parts[0] as { text: string }).text),
    [0, 1, 2, 3, 4].map((i) => `[image "i${i}.png" removed: openai-compatible accepts at most 20 images per request]`),
  );
  assert.equal(fitted[5], msgs[5]);

  const perMessage = [0, 1].map(() => ({ parts: Array.from({ length: 15 }, (): ResultPart => ({ type: "media", mediaType: "image/png", data: small })) }));
  const b = await fitRequest(perMessage, targets.bedrockConverse);
  assert.equal(images(b).length, 30, "15 per message is within Bedrock's 20 per message");
  const over = await fitRequest([{ parts: Array.from({ length: 22 }, (): ResultPart => ({ type: "media", mediaType: "image/png", data: small })) }], targets.bedrockConverse);
  assert.equal(images(over).length, 20);
});

test("request size: oldest images are halved first, then replaced by notes; the newest survive", async () => {
  const datas = await Promise.all([1, 2, 3, 4].map(async (s) => encodeBase64(await png.encode!(noise(256, 256, s), {}))));
  const one = datas[0].length; // ≈ 350 KB of base64 each
  const target = defineTarget(targets.anthropic, { request: { maxBytes: Math.floor(one * 2.5) } });
  const msgs = datas.map((data, i) => ({ parts: [{ type: "text", text: `t${i}` }, { type: "media", mediaType: "image/png", data, name: `n${i}.png` }] as ResultPart[] }));
  const fitted = await fitRequest(msgs, target, { reserveBytes: 0, minLongEdge: 64 });
  const total = fitted.reduce((n, m) => n + m.parts.reduce((k, p) => k + (p.type === "text" ? p.text.length : p.data.length), 0), 0);
  assert.ok(total <= target.request.maxBytes, `${total} > ${target.request.maxBytes}`);
  const last = fitted[3].parts[1] as MediaPart;
  assert.equal(last.type, "media", "newest image kept");
  const first = fitted[0].parts[1];
  assert.ok(first.type === "text" || (first.width ?? 256) < 256, "oldest image shrunk or removed");
  assert.deepEqual(fitted.map((m) => (m.parts[0] as { text: string }).text), ["t0", "t1", "t2", "t3"], "text kept");

  // Nothing can fit: every media part becomes a note, text stays.
  const none = await fitRequest(msgs, defineTarget(targets.anthropic, { request: { maxBytes: 100 } }), { reserveBytes: 0 });
  assert.equal(images(none).length, 0);
  assert.equal(notes(none).length, 4);
  assert.match((none[0].parts[1] as { text: string }).text, /^\[image "n0\.png" removed: the request would exceed anthropic's 100-byte limit\]$/);
});

test("parts the target cannot take are converted (BMP → PNG) or noted (PDF where none are accepted)", async () => {
  const raster = screenshot(20, 10, 3);
  const msgs = [{
    parts: [
      { type: "media", mediaType: "image/bmp", data: encodeBase64(await bmp.encode!(raster, {})), name: "b.bmp" },
      { type: "media", mediaType: "application/pdf", data: "JVBERi0xLjQK", name: "d.pdf" },
      { type: "media", mediaType: "image/png", data: "iVBORw0KGgo=", name: "cut.png" },
    ] as ResultPart[],
  }];
  const fitted = await fitRequest(msgs, targets.openaiCompatible);
  const [b, d, cut] = fitted[0].parts;
  assert.equal((b as MediaPart).mediaType, "image/png");
  assert.deepEqual((await png.decode!(decodeBase64((b as MediaPart).data), { maxPixels: 1e6 })).data, raster.data);
  assert.equal((d as { text: string }).text, `[document "d.pdf" removed: openai-compatible does not accept application/pdf]`);
  assert.match((cut as { text: string }).text, /^\[image "cut\.png" removed: it is unreadable \(CORRUPT_IMAGE\)\]$/);
});
