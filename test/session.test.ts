import { test } from "node:test";
import assert from "node:assert/strict";
import { serializeSession, parseSession, type SessionEntry } from "../src/session.js";
import { encodeBase64 } from "../src/base64.js";
import { png } from "../codecs/png.js";

async function pngData(): Promise<string> {
  const data = new Uint8Array(3 * 2 * 4);
  for (let i = 0; i < data.length; i++) data[i] = (i * 37) & 255;
  return encodeBase64(await png.encode!({ width: 3, height: 2, data }, {}));
}

test("a tool result with text and image parts round-trips exactly, image inline as base64", async () => {
  const data = await pngData();
  const entries: SessionEntry[] = [
    { role: "user", parts: [{ type: "text", text: "Take a screenshot, please. ✓ \"quoted\"\nnew line" }] },
    {
      role: "tool",
      toolCallId: "call_1",
      name: "screenshot",
      isError: false,
      parts: [
        { type: "text", text: "Captured." },
        { type: "media", mediaType: "image/png", data, name: "shot.png", width: 3, height: 2 },
        { type: "media", mediaType: "application/pdf", data: "JVBERi0xLjQK" },
      ],
      meta: { turn: 2, tags: ["a"] },
    },
    { role: "assistant", parts: [{ type: "text", text: "I see it." }] },
  ];
  const copy = structuredClone(entries);
  const text = serializeSession(entries);
  assert.deepEqual(entries, copy, "not mutated");
  const lines = text.split("\n");
  assert.equal(lines.length, 4);
  assert.equal(lines[3], "");
  const line2 = JSON.parse(lines[1]);
  assert.deepEqual(line2.content[1], { type: "image", mimeType: "image/png", data, name: "shot.png", width: 3, height: 2 });
  assert.deepEqual(line2.content[2], { type: "document", mimeType: "application/pdf", data: "JVBERi0xLjQK" });
  assert.equal(line2.v, 2);
  const back = parseSession(text);
  assert.deepEqual(back.errors, []);
  assert.deepEqual(back.entries, entries);
  assert.equal(serializeSession(back.entries), text, "byte-identical on a second pass");
});

test("version-1 lines (a single content string) still parse, CRLF and blank lines too", () => {
  const v1 = `{"role":"user","content":"hello"}\r\n\r\n{"role":"tool","toolCallId":"c1","content":"ran ls: 3 files"}\n{"role":"assistant","content":"ok"}`;
  const { entries, errors } = parseSession(v1);
  assert.deepEqual(errors, []);
  assert.deepEqual(entries, [
    { role: "user", parts: [{ type: "text", text: "hello" }] },
    { role: "tool", toolCallId: "c1", parts: [{ type: "text", text: "ran ls: 3 files" }] },
    { role: "assistant", parts: [{ type: "text", text: "ok" }] },
  ]);
});

test("a malformed line gives an error naming its line number and loses no other line", () => {
  const text = [
    `{"v":2,"role":"user","content":[{"type":"text","text":"one"}]}`,
    `{"v":2,"role":"tool","content":[{"type":"image","mimeType":"image/png","data":"iVBOR`, // truncated JSON
    `{"v":2,"role":"tool","content":[{"type":"image","mimeType":"image/heic","data":"AAAA"}]}`, // unsupported type
    `{"v":2,"role":"robot","content":"x"}`, // bad role
    `{"v":2,"role":"tool","content":[{"type":"image","mimeType":"image/png","data":"not base64!"}]}`,
    `{"v":2,"role":"assistant","content":[{"type":"text","text":"six"}]}`,
  ].join("\n");
  const { entries, errors } = parseSession(text);
  assert.deepEqual(errors.map((e) => e.line), [2, 3, 4, 5]);
  for (const e of errors) assert.match(e.message, new RegExp(`^line ${e.line}: `));
  assert.match(errors[1].message, /mimeType/);
  assert.match(errors[2].message, /role/);
  assert.match(errors[3].message, /base64/);
  assert.deepEqual(entries.map((e) => (e.parts[0] as { text: string }).text), ["one", "six"]);
});
