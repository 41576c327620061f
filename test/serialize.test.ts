import { test } from "node:test";
import assert from "node:assert/strict";
import {
  toAnthropicToolResult,
  toAnthropicContent,
  toOpenAIChatMessages,
  toOpenAIResponsesOutput,
  toGeminiParts,
  toBedrockToolResult,
  bedrockDocumentName,
} from "../src/serialize.js";
import { targets } from "../src/targets.js";
import type { ToolResult } from "../src/parts.js";

// Short, valid base64 stand-ins: serializers never decode images (Bedrock's default decodes to bytes).
const PNG = "iVBORw0KGgo="; // 89 50 4E 47 0D 0A 1A 0A
const JPG = "/9j/4AAQ"; // FF D8 FF E0 00 10
const PDF = "JVBERi0xLjQK"; // "%PDF-1.4\n"

const mixed: ToolResult = {
  toolCallId: "call_1",
  name: "screenshot",
  parts: [
    { type: "text", text: "Captured." },
    { type: "media", mediaType: "image/png", data: PNG, width: 10, height: 5 },
    { type: "media", mediaType: "application/pdf", data: PDF, name: "report.pdf" },
    { type: "text", text: "Done." },
  ],
};
const frozen = structuredClone(mixed);

test("Anthropic tool_result: golden JSON", () => {
  assert.equal(
    JSON.stringify(toAnthropicToolResult(mixed)),
    `{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"Captured."},` +
      `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"${PNG}"}},` +
      `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"${PDF}"}},` +
      `{"type":"text","text":"Done."}]}`,
  );
  assert.deepEqual(mixed, frozen, "input not mutated");
});

test("Anthropic tool_result: is_error only when true; text-only; user-message blocks", () => {
  assert.equal(
    JSON.stringify(toAnthropicToolResult({ toolCallId: "t", parts: [{ type: "text", text: "boom" }], isError: true })),
    `{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"boom"}],"is_error":true}`,
  );
  assert.equal(JSON.stringify(toAnthropicToolResult({ toolCallId: "t", parts: [], isError: false })), `{"type":"tool_result","tool_use_id":"t","content":[]}`);
  assert.equal(
    JSON.stringify(toAnthropicContent([{ type: "media", mediaType: "image/jpeg", data: JPG }])),
    `[{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"${JPG}"}}]`,
  );
});

test("Anthropic: a media type the API does not take becomes a text note, never an invalid block", () => {
  assert.equal(
    JSON.stringify(toAnthropicContent([{ type: "media", mediaType: "image/bmp", data: "Qk0=", name: "a.bmp" }])),
    `[{"type":"text","text":"[image/bmp attachment \\"a.bmp\\" omitted: this API does not accept image/bmp]"}]`,
  );
});

test("OpenAI Chat: tool message holds text and a note; the user message carries image_url and file parts", () => {
  const msgs = toOpenAIChatMessages(mixed);
  assert.equal(msgs.length, 2);
  assert.equal(
    JSON.stringify(msgs),
    `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"Captured."},{"type":"text","text":"Done."},` +
      `{"type":"text","text":"[1 image and 1 PDF attached in the next message]"}]},` +
      `{"role":"user","content":[{"type":"text","text":"[attachments from tool call call_1]"},` +
      `{"type":"image_url","image_url":{"url":"data:image/png;base64,${PNG}"}},` +
      `{"type":"file","file":{"filename":"report.pdf","file_data":"data:application/pdf;base64,${PDF}"}}]}]`,
  );
  assert.deepEqual(mixed, frozen);
});

test("OpenAI Chat: detail option, plural note, text-only and empty results", () => {
  const two: ToolResult = {
    toolCallId: "c2",
    parts: [
      { type: "media", mediaType: "image/jpeg", data: JPG },
      { type: "media", mediaType: "image/png", data: PNG },
    ],
  };
  assert.equal(
    JSON.stringify(toOpenAIChatMessages(two, { detail: "high" })),
    `[{"role":"tool","tool_call_id":"c2","content":[{"type":"text","text":"[2 images attached in the next message]"}]},` +
      `{"role":"user","content":[{"type":"text","text":"[attachments from tool call c2]"},` +
      `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,${JPG}","detail":"high"}},` +
      `{"type":"image_url","image_url":{"url":"data:image/png;base64,${PNG}","detail":"high"}}]}]`,
  );
  assert.equal(JSON.stringify(toOpenAIChatMessages({ toolCallId: "c3", parts: [{ type: "text", text: "ok" }] })), `[{"role":"tool","tool_call_id":"c3","content":[{"type":"text","text":"ok"}]}]`);
  assert.equal(JSON.stringify(toOpenAIChatMessages({ toolCallId: "c4", parts: [] })), `[{"role":"tool","tool_call_id":"c4","content":""}]`);
  // A PDF without a name gets a .pdf file name.
  const [, user] = toOpenAIChatMessages({ toolCallId: "c5", parts: [{ type: "media", mediaType: "application/pdf", data: PDF }] });
  assert.equal(JSON.stringify(user!.content[1]), `{"type":"file","file":{"filename":"document-1.pdf","file_data":"data:application/pdf;base64,${PDF}"}}`);
});

test("OpenAI Responses: function_call_output golden JSON", () => {
  assert.equal(
    JSON.stringify(toOpenAIResponsesOutput(mixed)),
    `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"Captured."},` +
      `{"type":"input_image","image_url":"data:image/png;base64,${PNG}"},` +
      `{"type":"input_file","filename":"report.pdf","file_data":"data:application/pdf;base64,${PDF}"},` +
      `{"type":"input_text","text":"Done."}]}`,
  );
  assert.equal(
    JSON.stringify(toOpenAIResponsesOutput({ toolCallId: "x", parts: [{ type: "media", mediaType: "image/jpeg", data: JPG }] }, { detail: "low" })),
    `{"type":"function_call_output","call_id":"x","output":[{"type":"input_image","image_url":"data:image/jpeg;base64,${JPG}","detail":"low"}]}`,
  );
  assert.equal(JSON.stringify(toOpenAIResponsesOutput({ toolCallId: "y", parts: [] })), `{"type":"function_call_output","call_id":"y","output":""}`);
});

test("Gemini 3: media inside functionResponse.parts", () => {
  assert.equal(
    JSON.stringify(toGeminiParts(mixed, targets.gemini3)),
    `[{"functionResponse":{"id":"call_1","name":"screenshot","response":{"output":"Captured.\\nDone."},` +
      `"parts":[{"inlineData":{"mimeType":"image/png","data":"${PNG}"}},{"inlineData":{"mimeType":"application/pdf","data":"${PDF}"}}]}}]`,
  );
});

test("Gemini 2: media as inlineData parts after the functionResponse; errors under response.error", () => {
  assert.equal(
    JSON.stringify(toGeminiParts(mixed, targets.gemini2)),
    `[{"functionResponse":{"id":"call_1","name":"screenshot","response":{"output":"Captured.\\nDone."}}},` +
      `{"inlineData":{"mimeType":"image/png","data":"${PNG}"}},{"inlineData":{"mimeType":"application/pdf","data":"${PDF}"}}]`,
  );
  assert.equal(
    JSON.stringify(toGeminiParts({ toolCallId: "e", parts: [{ type: "text", text: "no such file" }], isError: true }, targets.gemini3)),
    `[{"functionResponse":{"id":"e","name":"e","response":{"error":"no such file"}}}]`,
  );
  // GIF is not a Gemini input type: it becomes a line of the output text, not an inlineData part.
  assert.equal(
    JSON.stringify(toGeminiParts({ toolCallId: "g", name: "t", parts: [{ type: "media", mediaType: "image/gif", data: "R0lG" }] }, targets.gemini3)),
    `[{"functionResponse":{"id":"g","name":"t","response":{"output":"[image/gif attachment omitted: this API does not accept image/gif]"}}}]`,
  );
});

test("Bedrock Converse: toolResult golden JSON (base64 mode) and raw bytes (default)", () => {
  assert.equal(
    JSON.stringify(toBedrockToolResult(mixed, { bytes: "base64" })),
    `{"toolResult":{"toolUseId":"call_1","content":[{"text":"Captured."},{"image":{"format":"png","source":{"bytes":"${PNG}"}}},` +
      `{"document":{"format":"pdf","name":"report","source":{"bytes":"${PDF}"}}},{"text":"Done."}]}}`,
  );
  const raw = toBedrockToolResult(mixed);
  const img = raw.toolResult.content[1] as { image: { format: string; source: { bytes: Uint8Array } } };
  assert.ok(img.image.source.bytes instanceof Uint8Array);
  assert.deepEqual([...img.image.source.bytes], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const doc = raw.toolResult.content[2] as { document: { source: { bytes: Uint8Array } } };
  assert.equal(new TextDecoder().decode(doc.document.source.bytes), "%PDF-1.4\n");
  assert.equal(
    JSON.stringify(toBedrockToolResult({ toolCallId: "t", parts: [{ type: "text", text: "x" }], isError: true }, { bytes: "base64" })),
    `{"toolResult":{"toolUseId":"t","content":[{"text":"x"}],"status":"error"}}`,
  );
});

test("Bedrock document names: only allowed characters, extension dropped, unique within a result", () => {
  assert.equal(bedrockDocumentName("Q3 report (final).pdf"), "Q3 report (final)");
  assert.equal(bedrockDocumentName("a__b..c.pdf"), "a-b-c");
  assert.equal(bedrockDocumentName("x  y\tz"), "x y z");
  assert.equal(bedrockDocumentName("日本.pdf"), "document");
  assert.equal(bedrockDocumentName("   "), "document");
  const r = toBedrockToolResult(
    { toolCallId: "d", parts: [{ type: "media", mediaType: "application/pdf", data: PDF, name: "a.pdf" }, { type: "media", mediaType: "application/pdf", data: PDF, name: "a.pdf" }] },
    { bytes: "base64" },
  );
  assert.deepEqual(r.toolResult.content.map((c) => ("document" in c ? c.document.name : "")), ["a", "a (2)"]);
});
