import { test } from "node:test";
import assert from "node:assert/strict";
import { estimateChars, estimateTokens, MEDIA_PART_CHARS } from "../src/estimate.js";
import { targets, defineTarget } from "../src/targets.js";
import { encodeBase64 } from "../src/base64.js";
import { PixfitError } from "../src/errors.js";
import { png } from "../codecs/png.js";

test("estimateChars: text by length, every media part a fixed 4800 whatever its size", () => {
  const big = "A".repeat(3_000_000);
  assert.equal(MEDIA_PART_CHARS, 4800);
  assert.equal(
    estimateChars([
      { type: "text", text: "hello" },
      { type: "media", mediaType: "image/png", data: big },
      { type: "media", mediaType: "application/pdf", data: "JVBERi0=" },
    ]),
    5 + 4800 + 4800,
  );
  assert.equal(estimateChars([]), 0);
});

test("Anthropic: ⌈w/28⌉·⌈h/28⌉ after the native resize", () => {
  assert.equal(estimateTokens({ width: 1000, height: 1000 }, targets.anthropic), 1296); // 36 × 36
  assert.equal(estimateTokens({ width: 200, height: 200 }, targets.anthropic), 64); // 8 × 8
  const big = estimateTokens({ width: 5640, height: 3172 }, targets.anthropic);
  assert.ok(big <= 1568 && big > 1400, String(big));
  const hi = estimateTokens({ width: 5640, height: 3172 }, defineTarget(targets.anthropic, { vision: { kind: "anthropic", patch: 28, maxLongEdge: 2576, maxPatches: 4784 } }));
  assert.ok(hi <= 4784 && hi > 4000, String(hi));
});

test("OpenAI tiles: the guide's worked examples; detail low is the base", () => {
  assert.equal(estimateTokens({ width: 1024, height: 1024 }, targets.openaiChat, { detail: "high" }), 765);
  assert.equal(estimateTokens({ width: 2048, height: 4096 }, targets.openaiChat, { detail: "high" }), 1105);
  assert.equal(estimateTokens({ width: 4096, height: 8192 }, targets.openaiChat, { detail: "low" }), 85);
});

test("OpenAI patch models: patches × multiplier", () => {
  const mini = defineTarget(targets.openaiChat, { vision: { kind: "openai-patches", patch: 32, maxPatches: 1536, multiplier: 1.62 } });
  assert.equal(estimateTokens({ width: 1024, height: 1024 }, mini), Math.ceil(1024 * 1.62));
  assert.equal(estimateTokens({ width: 1800, height: 2400 }, mini), Math.ceil(1452 * 1.62));
});

test("Gemini 2: 258 for ≤ 384 px, else 768-px tiles; Gemini 3: the media_resolution budget", () => {
  assert.equal(estimateTokens({ width: 384, height: 300 }, targets.gemini2), 258);
  assert.equal(estimateTokens({ width: 1000, height: 700 }, targets.gemini2), 2 * 1 * 258);
  assert.equal(estimateTokens({ width: 1000, height: 700 }, targets.gemini3), 1120);
});

test("a media part is measured from its header; PDFs are refused with UNSUPPORTED_FORMAT", async () => {
  const bytes = await png.encode!({ width: 56, height: 28, data: new Uint8Array(56 * 28 * 4) }, {});
  assert.equal(estimateTokens({ type: "media", mediaType: "image/png", data: encodeBase64(bytes) }, targets.anthropic), 2);
  assert.throws(
    () => estimateTokens({ type: "media", mediaType: "application/pdf", data: "JVBERi0=" }, targets.anthropic),
    (e: unknown) => e instanceof PixfitError && e.code === "UNSUPPORTED_FORMAT",
  );
  assert.equal(estimateTokens({ width: 750, height: 100 }, targets.openaiCompatible), 100, "no documented rule: ⌈w·h/750⌉");
});
