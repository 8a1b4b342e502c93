#!/usr/bin/env node
// upstream.mjs - an MCP server over stdio, written with the official SDK's
// server API, that the interop tests configure as an upstream of
// bin/sandboxd-mcp (code mode). Each tool exercises one rule of the bridge's
// result unwrapping or of its handling of a misbehaving server.
//
// Environment:
//   UPSTREAM_LOG    a file each event is appended to (one line each): "start",
//                   "call NAME", "slow-cancelled", "exit"; read by the tests to
//                   see what reached the server (restarts, cancellations)
//   UPSTREAM_PAGE   tools per tools/list page (default: all in one), so the
//                   bridge must follow nextCursor
//   UPSTREAM_GREETING  returned by the env tool (set through the config's env,
//                   with ${VAR:-default} expansion)
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

function log(line) {
	if (process.env.UPSTREAM_LOG)
		appendFileSync(process.env.UPSTREAM_LOG, `${process.pid} ${line}\n`);
}

const server = new McpServer(
	{ name: "sandboxd-interop-upstream", version: "1.0.0" },
	{ capabilities: { tools: { listChanged: true } } },
);

// With structuredContent and an outputSchema. The text says something else
// than the structured value, so a script that receives {sum} proves the
// bridge took structuredContent over the text.
server.registerTool(
	"add",
	{
		description: "Adds two numbers",
		inputSchema: { a: z.number().describe("first addend"), b: z.number() },
		outputSchema: { sum: z.number() },
	},
	async ({ a, b }) => {
		log("call add");
		return {
			content: [{ type: "text", text: `the sum is ${a + b}` }],
			structuredContent: { sum: a + b },
		};
	},
);

// Without structuredContent: text that is not JSON comes through as the string.
server.registerTool(
	"greet",
	{ description: "Greets someone", inputSchema: { name: z.string() } },
	async ({ name }) => {
		log("call greet");
		return { content: [{ type: "text", text: `hello ${name}` }] };
	},
);

// Text that is JSON (parsed by the bridge) or not (kept as a string),
// whatever the caller passes.
server.registerTool(
	"echo_text",
	{ description: "Returns the text it is given as a text block", inputSchema: { text: z.string() } },
	async ({ text }) => {
		log("call echo_text");
		return { content: [{ type: "text", text }] };
	},
);

// A block that is neither text nor structured: comes through as an object.
server.registerTool("image", { description: "Returns a 1x1 PNG image block" }, async () => {
	log("call image");
	return {
		content: [
			{
				type: "image",
				mimeType: "image/png",
				data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
			},
		],
	};
});

// isError: the script's call throws an Error with this text.
server.registerTool(
	"fail",
	{ description: "Always fails with the message given", inputSchema: { message: z.string() } },
	async ({ message }) => {
		log("call fail");
		return { isError: true, content: [{ type: "text", text: message }] };
	},
);

// Sleeps ms milliseconds; a notifications/cancelled for the call ends the
// sleep early and is logged as "slow-cancelled".
server.registerTool(
	"slow",
	{ description: "Answers after ms milliseconds", inputSchema: { ms: z.number().int().min(0) } },
	async ({ ms }, extra) => {
		log("call slow");
		await new Promise((resolve) => {
			const t = setTimeout(resolve, ms);
			extra.signal.addEventListener("abort", () => {
				clearTimeout(t);
				log("slow-cancelled");
				resolve();
			});
		});
		return { content: [{ type: "text", text: JSON.stringify({ slept: ms }) }] };
	},
);

// Ends the server's process in the middle of the call: no answer ever comes.
server.registerTool(
	"crash",
	{ description: "Exits the server process with status 3" },
	async () => {
		log("call crash");
		log("exit");
		process.exit(3);
	},
);

server.registerTool("env", { description: "Returns UPSTREAM_GREETING" }, async () => {
	log("call env");
	return { content: [{ type: "text", text: JSON.stringify({ greeting: process.env.UPSTREAM_GREETING ?? null }) }] };
});

// Names a script reaches only through the identifier rule, and one the
// config's deny list hides.
server.registerTool("dash-name.v2", { description: "A tool whose name is no identifier" }, async () => {
	log("call dash-name.v2");
	return { content: [{ type: "text", text: '"dashed"' }] };
});
server.registerTool("secret_tool", { description: "Denied by the interop config" }, async () => {
	log("call secret_tool");
	return { content: [{ type: "text", text: "leaked" }] };
});

// Registers the tool "late" once called: the SDK then sends
// notifications/tools/list_changed, which the bridge must follow.
let late = null;
server.registerTool("add_late_tool", { description: "Adds the tool late and announces it" }, async () => {
	log("call add_late_tool");
	if (!late)
		late = server.registerTool("late", { description: "Exists only after add_late_tool" }, async () => {
			log("call late");
			return { content: [{ type: "text", text: '{"late":true}' }] };
		});
	return { content: [{ type: "text", text: '"added"' }] };
});

// With UPSTREAM_PAGE, tools/list answers in pages of that many tools, so
// the bridge has to follow nextCursor to see them all. The SDK's own handler
// lists everything at once; this one wraps it.
const page = Number(process.env.UPSTREAM_PAGE || 0);
if (page > 0) {
	const inner = server.server._requestHandlers.get("tools/list");
	server.server.setRequestHandler(ListToolsRequestSchema, async (req, extra) => {
		const all = (await inner(req, extra)).tools;
		const from = Number(req.params?.cursor ?? 0);
		const tools = all.slice(from, from + page);
		const next = from + page < all.length ? { nextCursor: String(from + page) } : {};
		return { tools, ...next };
	});
}

log("start");
process.stdin.on("end", () => log("stdin-closed"));
await server.connect(new StdioServerTransport());
