/**
 * Type-level test: each serializer's output is assignable to the official SDK's request parameter types.
 * The assignments below are checked by `tsc -p tsconfig.json --noEmit` (this file is in `include`), and by the test at
 * the bottom, which runs tsc on this file alone and fails on any diagnostic located here. The `@ts-expect-error` lines
 * are negative controls: if the SDK types stopped being checked, tsc would report them as unused.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { Content, Part } from "@google/genai";
import type { ContentBlock, Message as BedrockMessage } from "@aws-sdk/client-bedrock-runtime";
import { toAnthropicToolResult, toAnthropicContent, toOpenAIChatMessages, toOpenAIResponsesOutput, toGeminiParts, toBedrockToolResult } from "../src/serialize.js";
import { targets } from "../src/targets.js";
import type { ToolResult } from "../src/parts.js";

const r: ToolResult = {
  toolCallId: "call_1",
  name: "shot",
  parts: [
    { type: "text", text: "hi" },
    { type: "media", mediaType: "image/png", data: "iVBORw0KGgo=" },
    { type: "media", mediaType: "application/pdf", data: "JVBERi0xLjQK" },
  ],
};

// Anthropic Messages: the block in a user message, and user content blocks.
export const anthropicBlock: Anthropic.ToolResultBlockParam = toAnthropicToolResult(r);
export const anthropicMessage: Anthropic.MessageParam = { role: "user", content: [toAnthropicToolResult(r), ...toAnthropicContent(r.parts)] };
export const anthropicParams: Anthropic.MessageCreateParamsNonStreaming = { model: "claude-x", max_tokens: 1, messages: [anthropicMessage] };

// OpenAI Chat Completions: the tool message and the user message.
export const chatMessages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = toOpenAIChatMessages(r);
export const chatParams: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = { model: "gpt-x", messages: toOpenAIChatMessages(r, { detail: "low" }) };

// OpenAI Responses: a function_call_output input item.
export const responsesItem: OpenAI.Responses.ResponseInputItem = toOpenAIResponsesOutput(r, { detail: "high" });
export const responsesParams: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model: "gpt-x", input: [toOpenAIResponsesOutput(r)] };

// Gemini: parts of a user Content, for 2.x and 3.
export const gemini3Parts: Part[] = toGeminiParts(r, targets.gemini3);
export const gemini2Content: Content = { role: "user", parts: toGeminiParts(r, targets.gemini2) };

// Bedrock Converse: a content block of a user message.
export const bedrockBlock: ContentBlock = toBedrockToolResult(r);
export const bedrockMessage: BedrockMessage = { role: "user", content: [toBedrockToolResult(r)] };

// Negative controls.
// @ts-expect-error base64 mode holds strings, the SDK wants Uint8Array bytes
export const bedrockWrong: ContentBlock = toBedrockToolResult(r, { bytes: "base64" });
// @ts-expect-error a Chat Completions tool message cannot carry image parts
export const chatWrong: OpenAI.Chat.Completions.ChatCompletionToolMessageParam = { role: "tool", tool_call_id: "x", content: [{ type: "image_url", image_url: { url: "data:," } }] };

test("the serializers' outputs type-check against the official SDKs (tsc on this file)", { timeout: 120_000 }, () => {
  const root = join(import.meta.dirname, "..");
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const args = [tsc, "--noEmit", "--pretty", "false", "--strict", "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext",
    "--skipLibCheck", "--types", "node", "--verbatimModuleSyntax", "--lib", "ES2022,DOM", join("test", "sdk-types.test.ts")];
  let output = "";
  try {
    output = execFileSync(process.execPath, args, { cwd: root, encoding: "utf8" });
  } catch (err) {
    output = String((err as { stdout?: string }).stdout ?? "");
  }
  // Diagnostics in other files (work in progress elsewhere) are not this test's concern.
  const mine = output.split("\n").filter((l) => l.startsWith("test/sdk-types.test.ts") || l.includes("src/serialize.ts") || l.includes("src/parts.ts"));
  assert.deepEqual(mine, []);
});
