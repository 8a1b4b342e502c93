// sdk.test.mjs - bin/sandboxd-mcp's tools through the official TypeScript
// SDK's Client + StdioClientTransport (which checks every structuredContent
// against the tool's outputSchema), against the real daemon.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { connectBridge, daemonRequest, startDaemon, stopDaemon, text } from "./lib.mjs";

const TOOLS = ["execute", "status", "cancel", "list_executions", "test", "list_scripts"];
const READ_ONLY = ["status", "list_executions", "list_scripts"];

// A busy wait, which spends the CPU a timer's sleep would not.
const spin = (ms) => `{ const end = Date.now() + ${ms}; while (Date.now() < end) {} }`;

let d, b, version;
const errors = [];

before(async () => {
	d = await startDaemon();
	b = await connectBridge(d, [], {
		beforeConnect: (t) => {
			t.setProtocolVersion = (v) => {
				version = v;
			};
		},
	});
	b.client.onerror = (e) => errors.push(e);
	await b.client.listTools();
});

after(async () => {
	await b?.client.close();
	await stopDaemon(d);
});

function call(name, args, opts) {
	return b.client.callTool({ name, arguments: args }, undefined, opts);
}

describe("lifecycle", () => {
	test("initialize negotiates the SDK's latest version and names the server", () => {
		assert.equal(version, "2025-11-25");
		const info = b.client.getServerVersion();
		assert.ok(info?.name, "serverInfo.name");
		assert.ok(info?.version, "serverInfo.version");
		assert.ok(b.client.getServerCapabilities()?.tools, "tools capability");
	});

	test("ping", async () => {
		assert.deepEqual(await b.client.ping(), {});
	});

	test("tools/list: every tool with inputSchema, outputSchema and annotations", async () => {
		const { tools } = await b.client.listTools();
		const names = tools.map((t) => t.name);
		for (const n of TOOLS)
			assert.ok(names.includes(n), `tool ${n} listed (have ${names})`);
		assert.ok(!names.includes("search_tools"), "no search_tools without upstream servers");
		for (const t of tools) {
			assert.ok(t.description, `${t.name}: description`);
			assert.equal(t.inputSchema?.type, "object", `${t.name}: inputSchema.type`);
			assert.equal(t.outputSchema?.type, "object", `${t.name}: outputSchema.type`);
			assert.equal(typeof t.annotations, "object", `${t.name}: annotations`);
			if (READ_ONLY.includes(t.name))
				assert.equal(t.annotations.readOnlyHint, true, `${t.name}: readOnlyHint`);
		}
		const exec = tools.find((t) => t.name === "execute");
		assert.ok(exec.inputSchema.properties?.code, "execute takes code");
		assert.ok(exec.inputSchema.properties?.background, "execute takes background");
	});

	test("an unknown tool is JSON-RPC error -32602", async () => {
		await assert.rejects(call("no_such_tool", {}), (e) => e instanceof McpError && e.code === -32602);
	});
});

describe("execute", () => {
	test("value, stdout and stderr in structuredContent and in the text", async () => {
		const r = await call("execute", {
			code: 'console.log("out line"); console.error("err line"); return {answer: 42, list: [1, "two"]}',
		});
		assert.notEqual(r.isError, true, text(r));
		const s = r.structuredContent;
		assert.match(s.execution_id, /^exec_[0-9a-f]{16}$/);
		assert.equal(s.state, "completed");
		assert.equal(s.success, true);
		assert.deepEqual(s.value, { answer: 42, list: [1, "two"] });
		assert.equal(s.stdout, "out line\n");
		assert.equal(s.stderr, "err line\n");
		const t = text(r);
		for (const part of ["out line", "err line", "42", '"two"', s.execution_id])
			assert.ok(t.includes(part), `text has ${part}: ${t}`);
	});

	test("a script that throws: isError, kind script, the line, in both", async () => {
		const r = await call("execute", { code: 'const x = 1;\nthrow new TypeError("broken here " + x);' });
		assert.equal(r.isError, true);
		const s = r.structuredContent;
		assert.equal(s.success, false);
		assert.equal(s.state, "failed");
		assert.equal(s.error.kind, "script");
		assert.equal(s.error.line, 2);
		assert.match(s.error.message, /TypeError: broken here 1/);
		const t = text(r);
		assert.ok(t.includes("broken here 1"), t);
		assert.match(t, /script/);
		assert.match(t, /line 2|:2\b/, t);
	});

	test("a syntax error: kind syntax with line and column", async () => {
		const r = await call("execute", { code: "let ok = 1;\nreturn (;" });
		assert.equal(r.isError, true);
		assert.equal(r.structuredContent.error.kind, "syntax");
		assert.equal(r.structuredContent.error.line, 2);
		assert.equal(typeof r.structuredContent.error.column, "number");
		assert.match(text(r), /syntax/i);
	});

	test("timeout_ms: kind timeout", async () => {
		const r = await call("execute", { code: "while (true) {}", timeout_ms: 300 });
		assert.equal(r.isError, true);
		assert.equal(r.structuredContent.state, "timeout");
		assert.equal(r.structuredContent.error.kind, "timeout");
	});

	test("typescript", async () => {
		const r = await call("execute", {
			code: "const n: number = 20; return n + 1;",
			language: "typescript",
		});
		assert.notEqual(r.isError, true, text(r));
		assert.equal(r.structuredContent.value, 21);
	});

	test("wrong or missing arguments: isError naming the field", async () => {
		let r = await call("execute", {});
		assert.equal(r.isError, true);
		assert.match(text(r), /code/);
		r = await call("execute", { code: 5 });
		assert.equal(r.isError, true);
		assert.match(text(r), /code/);
		r = await call("execute", { code: "return 1", timeout_ms: "soon" });
		assert.equal(r.isError, true);
		assert.match(text(r), /timeout_ms/);
		r = await call("status", {});
		assert.equal(r.isError, true);
		assert.match(text(r), /execution_id/);
	});

	test("long output is cut in both, naming the offsets for status", async () => {
		const total = 256 * 1024;
		const r = await call("execute", { code: `console.log("x".repeat(${total - 1})); return "big"` });
		assert.notEqual(r.isError, true, text(r).slice(0, 500));
		const s = r.structuredContent;
		assert.equal(s.value, "big");
		assert.ok(s.stdout.length < total, `stdout cut (has ${s.stdout.length} of ${total})`);
		assert.ok(text(r).length < total, "text cut");
		assert.match(text(r), /stdout_offset/);
		const rest = await call("status", { execution_id: s.execution_id, stdout_offset: s.stdout.length });
		assert.notEqual(rest.isError, true, text(rest).slice(0, 500));
		assert.ok(rest.structuredContent.stdout.length > 0, "status gives the rest");
		assert.ok(rest.structuredContent.stdout.startsWith("x"));
	});
});

describe("progress and cancellation", () => {
	test("progressToken: notifications/progress, monotonic, the output line as message, heartbeat", async () => {
		const code = [1, 2, 3, 4, 5].map((i) => `console.log("line ${i}"); ${spin(250)}`).join("\n");
		const notes = [];
		const t0 = Date.now();
		const r = await call(
			"execute",
			{ code: `${code}\nconsole.log("last line"); ${spin(6500)}\nreturn "done"`, timeout_ms: 30000 },
			{ onprogress: (p) => notes.push({ ...p, at: Date.now() - t0 }), resetTimeoutOnProgress: true },
		);
		const end = Date.now() - t0;
		assert.notEqual(r.isError, true, text(r));
		assert.equal(r.structuredContent.value, "done");
		assert.equal(r.structuredContent.stdout, "line 1\nline 2\nline 3\nline 4\nline 5\nlast line\n");
		assert.ok(notes.length >= 2, `progress notifications: ${JSON.stringify(notes)}`);
		for (let i = 1; i < notes.length; i++)
			assert.ok(notes[i].progress > notes[i - 1].progress, `monotonic: ${JSON.stringify(notes)}`);
		const lines = notes.map((n) => n.message).filter((m) => /^(line \d|last line)$/.test(m ?? ""));
		assert.ok(lines.length >= 1, `an output line as message: ${JSON.stringify(notes)}`);
		// The script writes "last line" at about 1.25 s, then nothing for 6.5 s:
		// a heartbeat (at most 5 s apart) must arrive in that silence.
		const last = notes.find((n) => n.message === "last line");
		const from = (last ? last.at : 1250) + 1000;
		assert.ok(
			notes.some((n) => n.at > from && n.at < end),
			`a heartbeat during the silent ${end - from} ms: ${JSON.stringify(notes)}`,
		);
	});

	test("an AbortSignal cancels the execution in the daemon, and nothing answers it afterwards", async () => {
		const marker = `abort-marker-${process.pid}`;
		const ac = new AbortController();
		let seen = false;
		const p = call(
			"execute",
			{ code: `// ${marker}\nconsole.log("running"); while (true) {}`, timeout_ms: 60000 },
			{
				signal: ac.signal,
				onprogress: () => {
					if (!seen) {
						seen = true;
						ac.abort("test");
					}
				},
			},
		);
		await assert.rejects(p);
		assert.ok(seen, "progress came before the abort");
		const list = await daemonRequest(d.sock, { op: "list", limit: 20 });
		assert.equal(list.ok, true);
		const e = list.executions.find((x) => x.code_preview.includes(marker));
		assert.ok(e, `the execution in the daemon's list: ${JSON.stringify(list.executions)}`);
		const st = await daemonRequest(d.sock, { op: "status", execution_id: e.execution_id, wait: true, wait_ms: 10000 });
		assert.equal(st.state, "cancelled", JSON.stringify(st));
		assert.equal(st.error?.kind, "cancelled");
		// Messages are handled in order: a reply for the cancelled request
		// would come before this ping's.
		await b.client.ping();
		assert.deepEqual(
			errors.filter((x) => /unknown message ID/.test(String(x))).map(String),
			[],
			"no reply for the cancelled request",
		);
	});

	test("background: true returns the id at once; status long-polls with wait_ms and offsets", async () => {
		const t0 = Date.now();
		const r = await call("execute", {
			code: `console.log("first"); ${spin(1500)} console.log("second"); return 7`,
			background: true,
		});
		assert.notEqual(r.isError, true, text(r));
		assert.ok(Date.now() - t0 < 1400, "answered before the script ended");
		const id = r.structuredContent.execution_id;
		assert.match(id, /^exec_[0-9a-f]{16}$/);
		assert.ok(["pending", "running"].includes(r.structuredContent.state), r.structuredContent.state);
		assert.ok(text(r).includes(id), "the id in the text");

		const early = await call("status", { execution_id: id, wait_ms: 100 });
		assert.notEqual(early.isError, true, text(early));
		assert.ok(["pending", "running"].includes(early.structuredContent.state), "still running after 100 ms");

		const done = await call("status", { execution_id: id, wait_ms: 20000 });
		assert.equal(done.structuredContent.state, "completed", text(done));
		assert.equal(done.structuredContent.value, 7);
		assert.equal(done.structuredContent.stdout, "first\nsecond\n");
		assert.ok(text(done).includes("second"));

		const tail = await call("status", { execution_id: id, stdout_offset: 6 });
		assert.equal(tail.structuredContent.stdout, "second\n");
	});

	test("cancel: a background execution ends cancelled", async () => {
		const r = await call("execute", { code: "while (true) {}", background: true, timeout_ms: 60000 });
		const id = r.structuredContent.execution_id;
		const c = await call("cancel", { execution_id: id });
		assert.notEqual(c.isError, true, text(c));
		assert.equal(c.structuredContent.state, "cancelled");
		const st = await daemonRequest(d.sock, { op: "status", execution_id: id });
		assert.equal(st.state, "cancelled");
		const again = await call("cancel", { execution_id: id });
		assert.equal(again.isError, true, "cancelling an ended execution is an error");
	});
});

describe("executions, tests, scripts, store", () => {
	test("list_executions: states and limit", async () => {
		const r = await call("execute", { code: "return 'listed'" });
		const id = r.structuredContent.execution_id;
		const all = await call("list_executions", {});
		assert.notEqual(all.isError, true, text(all));
		assert.ok(Array.isArray(all.structuredContent.executions));
		assert.ok(
			all.structuredContent.executions.some((e) => e.execution_id === id),
			"the last execution is listed",
		);
		assert.ok(text(all).includes(id));
		const done = await call("list_executions", { states: ["completed"], limit: 50 });
		assert.ok(done.structuredContent.executions.length >= 1);
		for (const e of done.structuredContent.executions)
			assert.equal(e.state, "completed");
		const one = await call("list_executions", { limit: 1 });
		assert.equal(one.structuredContent.executions.length, 1);
		const bad = await call("list_executions", { states: ["sleeping"] });
		assert.equal(bad.isError, true);
		assert.match(text(bad), /states/);
	});

	test("test: the summary and per-test results; isError only when loading fails", async () => {
		const r = await call("test", {
			code: "function add(a, b) { return a + b }",
			tests: "test('adds', () => assert.is(add(2, 2), 4));\ntest('wrong', () => assert.is(add(2, 2), 5));",
		});
		assert.notEqual(r.isError, true, "failing tests are not a tool error");
		const s = r.structuredContent;
		assert.deepEqual(
			{ total: s.summary.total, passed: s.summary.passed, failed: s.summary.failed },
			{ total: 2, passed: 1, failed: 1 },
		);
		assert.equal(s.tests.length, 2);
		assert.equal(s.tests[0].name, "adds");
		assert.equal(s.tests[0].passed, true);
		assert.equal(s.tests[1].passed, false);
		assert.match(s.tests[1].error, /5/);
		assert.ok(text(r).includes("wrong") && text(r).includes("adds"), text(r));

		const broken = await call("test", { tests: "test('x', () => {" });
		assert.equal(broken.isError, true, "tests that do not load are a tool error");
		assert.equal(broken.structuredContent.error.source, "tests");
	});

	test("list_scripts finds a cached script, and execute {cached} runs it", async () => {
		const tag = `interop cache ${process.pid}`;
		const r = await call("execute", { code: `// ${tag}\nreturn 6 * 7` });
		assert.notEqual(r.isError, true, text(r));
		const ls = await call("list_scripts", { filter: tag });
		assert.notEqual(ls.isError, true, text(ls));
		const scripts = ls.structuredContent.scripts;
		assert.equal(scripts.length, 1, JSON.stringify(scripts));
		assert.ok(scripts[0].description.includes(tag));
		assert.ok(text(ls).includes(scripts[0].name));
		const again = await call("execute", { cached: scripts[0].name });
		assert.equal(again.structuredContent.value, 42);
		const none = await call("list_scripts", { filter: "no script is called this" });
		assert.deepEqual(none.structuredContent.scripts, []);
	});

	test("the store persists across the executions of one session", async () => {
		const code = 'store("count", (load("count") || 0) + 1); return load("count")';
		assert.equal((await call("execute", { code })).structuredContent.value, 1);
		assert.equal((await call("execute", { code })).structuredContent.value, 2);
		const failing = await call("execute", { code: 'store("count", 100); throw new Error("no")' });
		assert.equal(failing.isError, true);
		assert.equal((await call("execute", { code })).structuredContent.value, 3, "a failed run writes nothing");
	});

	test("--store-file keeps the store across sessions", async () => {
		const file = join(d.dir, "store.json");
		const code = 'store("visits", (load("visits") || 0) + 1); return load("visits")';
		for (const expect of [1, 2]) {
			const s = await connectBridge(d, ["--store-file", file]);
			try {
				const r = await s.client.callTool({ name: "execute", arguments: { code } });
				assert.equal(r.structuredContent.value, expect, text(r));
			} finally {
				await s.client.close();
			}
			assert.ok(existsSync(file), "the store file is written");
			const kept = JSON.stringify(JSON.parse(readFileSync(file, "utf8")));
			assert.ok(kept.includes(`"visits":${expect}`), `the file holds the store as JSON: ${kept}`);
		}
	});
});
