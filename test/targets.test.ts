import { test } from "node:test";
import assert from "node:assert/strict";
import { targets, defineTarget, nativeSize, openaiHighDetailSize, openaiPatchSize, countedBytes, claudeVisionHighRes } from "../src/targets.js";

const MiB = 1024 * 1024;

test("every preset named in issue 4 exists and is complete plain data", () => {
  assert.deepEqual(Object.keys(targets).sort(), [
    "anthropic", "anthropicBedrock", "anthropicVertex", "bedrockConverse", "gemini2", "gemini3", "openaiChat", "openaiCompatible", "openaiResponses",
  ]);
  for (const [key, t] of Object.entries(targets)) {
    assert.ok(t.name && t.api && t.mediaIn, key);
    assert.ok(t.accepts.length > 0, key);
    assert.ok(t.image.maxBytes > 0 && t.image.maxWidth > 0 && t.image.maxHeight > 0, key);
    assert.ok(t.request.maxImages > 0 && t.request.maxBytes > 0, key);
    assert.equal(t.accepts.includes("application/pdf"), t.document !== null, `${key}: document rule iff PDFs accepted`);
    assert.ok(!t.accepts.includes("image/bmp"), `${key}: no API takes BMP`);
    assert.ok(Object.isFrozen(t) && Object.isFrozen(t.image) && Object.isFrozen(t.request) && Object.isFrozen(t.accepts), key);
    assert.deepEqual(JSON.parse(JSON.stringify(t)), t, `${key} is plain JSON data`);
  }
});

test("documented limits: Anthropic direct vs Bedrock/Vertex, Bedrock Converse, Gemini, OpenAI", () => {
  assert.deepEqual(targets.anthropic.image, { maxBytes: 10 * MiB, countsBase64: true, maxWidth: 8000, maxHeight: 8000 });
  assert.equal(targets.anthropicBedrock.image.maxBytes, 5 * MiB);
  assert.equal(targets.anthropicVertex.image.maxBytes, 5 * MiB);
  assert.deepEqual(targets.anthropic.manyImages, { above: 20, maxWidth: 2000, maxHeight: 2000 });
  assert.equal(targets.anthropic.request.maxBytes, 32 * MiB);
  assert.deepEqual(targets.bedrockConverse.image, { maxBytes: 3.75 * MiB, countsBase64: false, maxWidth: 8000, maxHeight: 8000 });
  assert.deepEqual(targets.bedrockConverse.request, { maxImages: 20, maxDocuments: 5, maxBytes: 20 * MiB, scope: "message" });
  assert.equal(targets.bedrockConverse.document!.maxBytes, 4.5 * MiB);
  assert.equal(targets.gemini2.request.maxBytes, 20 * MiB);
  assert.equal(targets.gemini2.mediaIn, "sibling-parts");
  assert.equal(targets.gemini3.mediaIn, "tool-result");
  assert.ok(!targets.gemini2.accepts.includes("image/gif"));
  assert.equal(targets.openaiChat.mediaIn, "user-message");
  assert.equal(targets.openaiResponses.mediaIn, "tool-result");
  assert.equal(targets.openaiCompatible.document, null);
});

test("defineTarget overrides any value without touching the base", () => {
  const before = JSON.stringify(targets.anthropic);
  const five = defineTarget(targets.anthropic, { name: "anthropic-5mb", image: { maxBytes: 5 * MiB }, manyImages: null, vision: claudeVisionHighRes });
  assert.equal(five.image.maxBytes, 5 * MiB);
  assert.equal(five.image.maxWidth, 8000, "unmentioned nested fields are kept");
  assert.equal(five.manyImages, null);
  assert.deepEqual(five.vision, { kind: "anthropic", patch: 28, maxLongEdge: 2576, maxPatches: 4784 });
  assert.equal(JSON.stringify(targets.anthropic), before);
  const overrides = { image: { maxWidth: 100 }, accepts: ["image/png" as const] };
  const t = defineTarget(targets.anthropic, overrides);
  assert.ok(!Object.isFrozen(overrides.image) && !Object.isFrozen(overrides.accepts), "the caller's objects are not frozen");
  assert.ok(Object.isFrozen(t.image) && Object.isFrozen(t.accepts), "the new target is");
});

test("countedBytes: base64 is 4·⌈n/3⌉", () => {
  assert.equal(countedBytes(3, true), 4);
  assert.equal(countedBytes(4, true), 8);
  assert.equal(countedBytes(3_932_160, true), 5 * MiB);
  assert.equal(countedBytes(7, false), 7);
});

test("Anthropic native size: long edge ≤ 1568 and ⌈w/28⌉·⌈h/28⌉ ≤ 1568 patches, aspect kept", () => {
  assert.deepEqual(nativeSize(1000, 1000, targets.anthropic.vision), { width: 1000, height: 1000 }); // 36·36 = 1296 patches
  for (const [w, h] of [[5640, 3172], [4000, 2250], [1092, 1092], [3000, 200], [200, 3000], [1568, 1568]]) {
    const s = nativeSize(w, h, targets.anthropic.vision);
    assert.ok(Math.max(s.width, s.height) <= 1568, `${w}x${h}`);
    const patches = Math.ceil(s.width / 28) * Math.ceil(s.height / 28);
    assert.ok(patches <= 1568, `${w}x${h} → ${s.width}x${s.height}: ${patches} patches`);
    assert.ok(patches > 1568 * 0.9 || Math.max(s.width, s.height) >= 1560, `${w}x${h} → ${s.width}x${s.height} is not needlessly small`);
    assert.ok(Math.abs(s.width / s.height - w / h) < 0.02 * (w / h), "aspect ratio kept");
  }
  const hi = nativeSize(5640, 3172, claudeVisionHighRes);
  assert.ok(hi.width <= 2576 && Math.ceil(hi.width / 28) * Math.ceil(hi.height / 28) <= 4784);
  assert.deepEqual(nativeSize(4000, 3000, null), { width: 4000, height: 3000 });
});

test("OpenAI high detail: fit 2048², then short side 768 (the guide's examples)", () => {
  assert.deepEqual(openaiHighDetailSize(1024, 1024, 2048, 768), { width: 768, height: 768 });
  assert.deepEqual(openaiHighDetailSize(2048, 4096, 2048, 768), { width: 768, height: 1536 });
  assert.deepEqual(openaiHighDetailSize(500, 300, 2048, 768), { width: 500, height: 300 });
});

test("OpenAI patch models: the guide's 1800×2400 example keeps 1452 patches", () => {
  assert.deepEqual(openaiPatchSize(1024, 1024, 32, 1536), { width: 1024, height: 1024 });
  const s = openaiPatchSize(1800, 2400, 32, 1536);
  assert.equal(Math.ceil(s.width / 32) * Math.ceil(s.height / 32), 1452);
  assert.deepEqual(s, { width: 1056, height: 1408 });
});
