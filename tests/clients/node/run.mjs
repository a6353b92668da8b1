// The real Vercel AI SDK on one served stream: `streamText` over the provider package that reads
// the stream's dialect: `@ai-sdk/openai-compatible` (openai-chat), `@ai-sdk/anthropic`
// (anthropic), `@ai-sdk/openai` Responses (openai-responses), `@ai-sdk/google` (gemini),
// `@ai-sdk/cohere` (cohere-v2), `@ai-sdk/amazon-bedrock` (bedrock-converse: ConverseStream) and
// its `/anthropic` entry (bedrock-invoke: Anthropic models over InvokeModelWithResponseStream).
//
// Usage: node run.mjs BASE_URL MODEL [DIALECT] < tools.json
//   tools.json: [{"name", "description", "parameters"}] (the stream's declared tools; each is
//   given to the SDK with `jsonSchema(parameters)` and no validator, so only the wire decides
//   whether a call parses).
// Prints one JSON line: {"calls", "error", "errors", "parts", "versions"}:
//   calls:  every `tool-call` part of `fullStream`, in order: {"id", "name", "arguments",
//           "invalid", "hosted"}; arguments as the SDK hands them over: the parsed input as
//           JSON (`JSON.stringify`), or the raw text when it did not parse; hosted: the part
//           says `providerExecuted` (the provider ran the tool: web search, code execution…).
//   errors: every `error` part of `fullStream` and a thrown error, in order:
//           {"type": the error's class name, "message", "how": "part" | "thrown",
//            "after": how many `tool-call` parts came before it}.
//   error:  the first of `errors` (or null).
//   parts:  the types of every `fullStream` part, in order (for reading what happened).
import { readFileSync } from 'node:fs';

// The SDK's generateId() draws from Math.random: fixed at 0, every id it makes is
// 0000000000000000 (its tracker then suffixes -1, -2 ... on a clash), so goldens are stable.
Math.random = () => 0;

import { createRequire } from 'node:module';
import { jsonSchema, streamText, tool } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createCohere } from '@ai-sdk/cohere';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAmazonBedrockAnthropic } from '@ai-sdk/amazon-bedrock/anthropic';

const require = createRequire(import.meta.url);
const version = name => require(`${name}/package.json`).version;

function describe(error, how, after = 0) {
  const type = error?.constructor?.name ?? typeof error;
  const message = error instanceof Error ? error.message : String(error);
  return { type, message, how, after };
}

// The model of the provider package that reads DIALECT (each with its defaults, as an agent
// creates it; the key is a dummy: the replay server answers anything).
function modelFor(dialect, baseURL, model) {
  const apiKey = 'test-key';
  switch (dialect ?? 'openai-chat') {
    case 'anthropic':
      return createAnthropic({ baseURL, apiKey })(model);
    case 'openai-responses':
      return createOpenAI({ baseURL, apiKey }).responses(model);
    case 'gemini':
      return createGoogleGenerativeAI({ baseURL, apiKey })(model);
    case 'bedrock-converse':
      return createAmazonBedrock({
        baseURL, region: 'us-east-1', accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret',
      })(model);
    case 'bedrock-invoke':
      return createAmazonBedrockAnthropic({
        baseURL, region: 'us-east-1', accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret',
      })(model);
    case 'cohere-v2':
      return createCohere({ baseURL, apiKey })(model);
    case 'openai-chat':
      return createOpenAICompatible({ name: 'replay', baseURL, apiKey }).chatModel(model);
    default:
      throw new Error(`no AI SDK provider for dialect ${dialect}`);
  }
}

const PACKAGES = {
  'openai-chat': '@ai-sdk/openai-compatible',
  anthropic: '@ai-sdk/anthropic',
  'openai-responses': '@ai-sdk/openai',
  gemini: '@ai-sdk/google',
  'cohere-v2': '@ai-sdk/cohere',
  'bedrock-converse': '@ai-sdk/amazon-bedrock',
  'bedrock-invoke': '@ai-sdk/amazon-bedrock',
};

async function main() {
  const [baseURL, model, dialect] = process.argv.slice(2);
  const declared = JSON.parse(readFileSync(0, 'utf8') || '[]');
  const tools = {};
  for (const t of declared) {
    tools[t.name] = tool({
      description: t.description ?? undefined,
      inputSchema: jsonSchema(t.parameters ?? { type: 'object' }),
    });
  }
  const calls = [];
  const errors = [];
  const parts = [];
  try {
    const result = streamText({
      model: modelFor(dialect, baseURL, model),
      prompt: "What's the weather in Paris?",
      tools,
      maxRetries: 0,
      onError: () => {}, // the error parts are read from fullStream below
    });
    for await (const part of result.fullStream) {
      parts.push(part.type);
      if (part.type === 'tool-call') {
        const parsed = typeof part.input === 'string' && part.invalid;
        calls.push({
          id: part.toolCallId ?? null,
          name: part.toolName ?? null,
          arguments: parsed ? part.input : JSON.stringify(part.input) ?? '',
          invalid: Boolean(part.invalid),
          hosted: Boolean(part.providerExecuted),
        });
      } else if (part.type === 'error') {
        errors.push(describe(part.error, 'part', calls.length));
      }
    }
  } catch (error) {
    errors.push(describe(error, 'thrown', calls.length));
  }
  const versions = {
    ai: version('ai'),
    package: PACKAGES[dialect ?? 'openai-chat'],
    [PACKAGES[dialect ?? 'openai-chat']]: version(PACKAGES[dialect ?? 'openai-chat']),
    '@ai-sdk/provider-utils': version('@ai-sdk/provider-utils'),

    node: process.versions.node,
  };
  const error = errors.length ? { type: errors[0].type, message: errors[0].message } : null;
  process.stdout.write(JSON.stringify({ calls, error, errors, parts, versions }) + '\n');
}

main().catch(error => {
  process.stdout.write(JSON.stringify({ calls: [], error: describe(error, 'thrown') }) + '\n');
});
