/**
 * Loopback: serialized requests sent through the official Anthropic and OpenAI SDK clients to an HTTP server on
 * 127.0.0.1 started here; the test asserts on the exact body each client put on the wire.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { toParts, type ToolResult } from "../src/parts.js";
import { toAnthropicToolResult, toOpenAIChatMessages, toOpenAIResponsesOutput } from "../src/serialize.js";
import { targets } from "../src/targets.js";
import { png } from "../codecs/png.js";

interface Received {
  method: string;
  url: string;
  body: string;
}

let server: Server;
let base = "";
const received: Received[] = [];
const replies: Record<string, unknown> = {
  "/v1/messages": {
    id: "msg_1", type: "message", role: "assistant", model: "claude-test", content: [{ type: "text", text: "ok" }],
    stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
  },
  "/v1/chat/completions": {
    id: "chatcmpl-1", object: "chat.completion", created: 0, model: "gpt-test",
    choices: [{ index: 0, message: { role: "assistant", content: "ok", refusal: null }, finish_reason: "stop", logprobs: null }],
  },
  "/v1/responses": { id: "resp_1", object: "response", created_at: 0, model: "gpt-test", status: "completed", output: [], parallel_tool_calls: true, tools: [] },
};

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = req.url ?? "";
      received.push({ method: req.method ?? "", url, body: Buffer.concat(chunks).toString("utf8") });
      const path = url.split("?")[0];
      const reply = replies[path];
      res.writeHead(reply ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(reply ?? { error: { message: "not found" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function toolResult(target: (typeof targets)[keyof typeof targets]): Promise<ToolResult> {
  const data = new Uint8Array(4 * 3 * 4).fill(200);
  const pngBytes = await png.encode!({ width: 4, height: 3, data }, {});
  const pdf = new TextEncoder().encode("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
  const parts = await toParts({ text: "Screenshot taken.", attachments: [{ bytes: pngBytes, name: "shot.png" }, { bytes: pdf, name: "spec.pdf" }] }, { target });
  return { toolCallId: "call_42", name: "screenshot", parts };
}

function last(): Received {
  const r = received[received.length - 1];
  assert.ok(r, "the server received a request");
  return r;
}

test("Anthropic SDK → 127.0.0.1: the body holds the tool_result exactly as serialized", async () => {
  const result = await toolResult(targets.anthropic);
  const client = new Anthropic({ apiKey: "test-key", baseURL: base, maxRetries: 0 });
  const params = {
    model: "claude-test",
    max_tokens: 16,
    messages: [
      { role: "user" as const, content: "Take a screenshot." },
      { role: "assistant" as const, content: [{ type: "tool_use" as const, id: "call_42", name: "screenshot", input: {} }] },
      { role: "user" as const, content: [toAnthropicToolResult(result)] },
    ],
  };
  const msg = await client.messages.create(params);
  assert.equal(msg.id, "msg_1");
  const r = last();
  assert.equal(r.method, "POST");
  assert.equal(r.url, "/v1/messages");
  assert.deepEqual(JSON.parse(r.body), params);
  const block = JSON.parse(r.body).messages[2].content[0];
  assert.equal(block.type, "tool_result");
  assert.deepEqual(block.content.map((b: { type: string }) => b.type), ["text", "image", "document"]);
  assert.equal(block.content[1].source.media_type, "image/png");
  assert.equal(block.content[1].source.data, (result.parts[1] as { data: string }).data);
});

test("OpenAI SDK (Chat Completions) → 127.0.0.1: tool message with text only, then a user message with the media", async () => {
  const result = await toolResult(targets.openaiChat);
  const client = new OpenAI({ apiKey: "test-key", baseURL: `${base}/v1`, maxRetries: 0 });
  const params = {
    model: "gpt-test",
    messages: [
      { role: "user" as const, content: "Take a screenshot." },
      { role: "assistant" as const, content: null, tool_calls: [{ id: "call_42", type: "function" as const, function: { name: "screenshot", arguments: "{}" } }] },
      ...toOpenAIChatMessages(result, { detail: "high" }),
    ],
  };
  const completion = await client.chat.completions.create(params);
  assert.equal(completion.choices[0].message.content, "ok");
  const r = last();
  assert.equal(r.url, "/v1/chat/completions");
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const body: any = JSON.parse(r.body);
  assert.deepEqual(JSON.parse(r.body), params);
  assert.equal(body.messages[2].role, "tool");
  assert.ok(body.messages[2].content.every((p: { type: string }) => p.type === "text"), "no media in the tool message");
  assert.equal(body.messages[2].content.at(-1).text, "[1 image and 1 PDF attached in the next message]");
  assert.equal(body.messages[3].role, "user");
  assert.match(body.messages[3].content[1].image_url.url, /^data:image\/png;base64,iVBORw0KGgo/);
  assert.equal(body.messages[3].content[2].file.filename, "spec.pdf");
  assert.match(body.messages[3].content[2].file.file_data, /^data:application\/pdf;base64,JVBERi0xLjQK/);
});

test("OpenAI SDK (Responses) → 127.0.0.1: function_call_output with input_text, input_image, input_file", async () => {
  const result = await toolResult(targets.openaiResponses);
  const client = new OpenAI({ apiKey: "test-key", baseURL: `${base}/v1`, maxRetries: 0 });
  const params = {
    model: "gpt-test",
    input: [
      { type: "function_call" as const, call_id: "call_42", name: "screenshot", arguments: "{}" },
      toOpenAIResponsesOutput(result),
    ],
  };
  const response = await client.responses.create(params);
  assert.equal(response.id, "resp_1");
  const r = last();
  assert.equal(r.url, "/v1/responses");
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const body: any = JSON.parse(r.body);
  assert.deepEqual(JSON.parse(r.body), params);
  assert.deepEqual(body.input[1].output.map((o: { type: string }) => o.type), ["input_text", "input_image", "input_file"]);
});
