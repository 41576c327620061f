/**
 * The real vision client against an HTTP server on 127.0.0.1 that answers like the Chat Completions API.
 * The server records what it received; the tests assert on the exact JSON body, headers, and error categories.
 */
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createVisionClient, createVisionTool, runVision, type ChatCompletionRequest, type VisionConfig } from "../src/vision/index.js";
import { encode, makeRaster, rejectsWith, tempDir, testConfig } from "./vision-fixtures.js";

const API_KEY = "sk-test-SECRET-123";

interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

type Route = (req: IncomingMessage, res: ServerResponse) => void;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function completion(content: string | null, finishReason: string, extra: object = {}): object {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1700000000,
    model: "vision-test-model",
    choices: [{ index: 0, message: { role: "assistant", content, ...extra }, finish_reason: finishReason }],
    usage: { prompt_tokens: 321, completion_tokens: 45, total_tokens: 366, completion_tokens_details: { reasoning_tokens: 12 } },
  };
}

const routes: Record<string, Route> = {
  ok: (_req, res) => json(res, 200, completion("The screenshot shows a login form.", "stop", { reasoning_content: "hidden chain of thought" })),
  unauthorized: (_req, res) =>
    json(res, 401, { error: { message: `Incorrect API key provided: ${API_KEY}. You can find your API key at https://example.com.`, type: "invalid_request_error", code: "invalid_api_key" } }),
  ratelimited: (_req, res) => json(res, 429, { error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } }, { "retry-after": "7" }),
  servererror: (_req, res) => {
    res.writeHead(500, { "content-type": "text/plain" });
    res.end("upstream exploded");
  },
  notjson: (_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<html>proxy login</html>");
  },
  slow: (_req, res) => {
    const timer = setTimeout(() => json(res, 200, completion("too late", "stop")), 2000);
    pending.add(timer);
    res.on("close", () => clearTimeout(timer));
  },
  "empty-length": (_req, res) => json(res, 200, completion("", "length", { reasoning_content: "long thinking" })),
  "empty-stop": (_req, res) => json(res, 200, completion("", "stop")),
  "empty-filter": (_req, res) => json(res, 200, completion(null, "content_filter")),
};

const pending = new Set<NodeJS.Timeout>();
const received: Received[] = [];
let server: Server;
let base: string;

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      received.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, contentType: req.headers["content-type"], body });
      const name = (req.url ?? "").split("/")[1];
      const route = routes[name];
      if (!route || !(req.url ?? "").endsWith("/v1/chat/completions")) return json(res, 404, { error: { message: `no route ${req.url}` } });
      route(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const t of pending) clearTimeout(t);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function config(route: string, overrides: Partial<VisionConfig> = {}): VisionConfig {
  const baseUrl = `${base}/${route}/v1`;
  return testConfig({ apiKey: API_KEY, baseUrl, endpoint: `${baseUrl}/chat/completions`, ...overrides });
}

const body: ChatCompletionRequest = {
  model: "vision-test-model",
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] }],
  max_tokens: 100,
  stream: false,
  thinking: { type: "disabled" },
};

function assertNoKey(message: string): void {
  assert.equal(message.includes(API_KEY), false, `API key leaked into: ${message}`);
}

describe("vision client over HTTP", () => {
  test("end to end: the tool posts the exact body, with the image data URLs, and maps the answer", async () => {
    const tmp = await tempDir();
    try {
      const png = await encode("image/png", makeRaster(3, 2));
      await tmp.write("shot.png", png);
      const bmpRaster = makeRaster(2, 2);
      await tmp.write("icon.bmp", await encode("image/bmp", bmpRaster));
      const tool = createVisionTool(config("ok", { model: "vision-x", maxTokens: 512 }));
      const before = received.length;
      const result = await tool.execute("call-7", { prompt: "Describe the UI.", images: ["shot.png", "icon.bmp"], detail: "high", thinking: true }, undefined, undefined, { cwd: tmp.dir });

      assert.equal(received.length, before + 1);
      const got = received[received.length - 1];
      assert.equal(got.method, "POST");
      assert.equal(got.url, "/ok/v1/chat/completions");
      assert.equal(got.authorization, `Bearer ${API_KEY}`);
      assert.equal(got.contentType, "application/json");
      const sent = got.body as ChatCompletionRequest;
      const bmpUrl = (sent.messages[0].content[2] as { image_url: { url: string } }).image_url.url;
      assert.match(bmpUrl, /^data:image\/png;base64,/, "BMP is sent as PNG");
      assert.deepEqual(sent, {
        model: "vision-x",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Describe the UI." },
              { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(png).toString("base64")}`, detail: "high" } },
              { type: "image_url", image_url: { url: bmpUrl, detail: "high" } },
            ],
          },
        ],
        max_tokens: 512,
        stream: false,
        thinking: { type: "enabled" },
      });

      assert.deepEqual(result.content, [{ type: "text", text: "The screenshot shows a login form." }]);
      assert.equal(JSON.stringify(result).includes("hidden chain of thought"), false);
      assert.equal(result.details.model, "vision-x");
      assert.equal(result.details.thinking, true);
      assert.equal(result.details.detail, "high");
      assert.equal(result.details.finishReason, "stop");
      assert.ok(result.details.durationMs >= 0);
      assert.deepEqual(result.details.images, [
        { path: "shot.png", mediaType: "image/png", width: 3, height: 2, byteLength: png.length },
        { path: "icon.bmp", mediaType: "image/png", width: 2, height: 2, byteLength: Buffer.from(bmpUrl.split(",")[1], "base64").length },
      ]);
      assert.deepEqual(result.details.usage, { promptTokens: 321, completionTokens: 45, reasoningTokens: 12, totalTokens: 366 });
      assert.equal(result.usage?.input, 321);
      assert.equal(result.usage?.output, 45);
      assert.equal(result.usage?.reasoning, 12);
    } finally {
      await tmp.cleanup();
    }
  });

  test("401 is an http error with the status and the API's message, never the key", async () => {
    const e = await rejectsWith(createVisionClient(config("unauthorized")).complete(body), "http");
    assert.equal(e.status, 401);
    assert.match(e.message, /HTTP 401/);
    assert.match(e.message, /Incorrect API key provided: \[redacted\]/);
    assert.match(e.message, /VISION_API_KEY/);
    assertNoKey(e.message);
  });

  test("429 is an http error with Retry-After", async () => {
    const e = await rejectsWith(createVisionClient(config("ratelimited")).complete(body), "http");
    assert.equal(e.status, 429);
    assert.match(e.message, /Rate limit reached for requests/);
    assert.match(e.message, /Retry-After: 7/);
    assertNoKey(e.message);
  });

  test("a non-JSON error body is quoted; a non-JSON 200 is a response error", async () => {
    const e500 = await rejectsWith(createVisionClient(config("servererror")).complete(body), "http");
    assert.equal(e500.status, 500);
    assert.match(e500.message, /upstream exploded/);
    const e200 = await rejectsWith(createVisionClient(config("notjson")).complete(body), "response");
    assert.match(e200.message, /not JSON/);
  });

  test("a slow answer past the deadline is a timeout even without a caller signal", async () => {
    const e = await rejectsWith(createVisionClient(config("slow", { timeoutMs: 200 })).complete(body), "timeout");
    assert.match(e.message, /200 ms/);
    assert.match(e.message, /VISION_TIMEOUT_MS/);
    assertNoKey(e.message);
  });

  test("the caller's abort is reported as aborted, not as a timeout", async () => {
    const ctrl = new AbortController();
    const call = createVisionClient(config("slow", { timeoutMs: 5000 })).complete(body, { signal: ctrl.signal });
    setTimeout(() => ctrl.abort(), 50);
    await rejectsWith(call, "aborted");
  });

  test("an unreachable endpoint is an http error without status", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const e = await rejectsWith(
      createVisionClient(testConfig({ apiKey: API_KEY, endpoint: `http://127.0.0.1:${port}/v1/chat/completions` })).complete(body),
      "http",
    );
    assert.equal(e.status, undefined);
    assert.match(e.message, /Could not reach/);
    assertNoKey(e.message);
  });

  test("empty content: length names VISION_MAX_TOKENS; stop and content_filter suggest thinking: true", async () => {
    const load = async (paths: readonly string[]) => paths.map((path) => ({ dataUrl: "data:image/png;base64,AAAA", meta: { path, mediaType: "image/png", width: 1, height: 1, byteLength: 3 } }));
    const run = (route: string, thinking: boolean) =>
      runVision({ prompt: "p", images: ["x.png"], thinking }, config(route, { maxTokens: 64 }), { loadImages: load, cwd: "/" });

    const length = await rejectsWith(run("empty-length", true), "response");
    assert.match(length.message, /VISION_MAX_TOKENS = 64/);
    assert.match(length.message, /reasoning tokens count toward it \(12 were used\)/);
    assert.equal(length.message.includes("long thinking"), false);

    for (const route of ["empty-stop", "empty-filter"]) {
      const e = await rejectsWith(run(route, false), "response");
      assert.match(e.message, /thinking: true/);
      assertNoKey(e.message);
    }
  });
});
