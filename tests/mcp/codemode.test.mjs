// codemode.test.mjs - code mode: bin/sandboxd-mcp --config with upstream.mjs
// (an MCP server written with the SDK's server API) as server "up", scripts
// calling tools.up.*, through the SDK's client against the real daemon.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import {
	connectBridge,
	startDaemon,
	stopDaemon,
	text,
	upstreamEvents,
	waitForUpstreamEvent,
	within,
	writeConfig,
} from "./lib.mjs";

let d, b, cfg, log;
const listChanged = [];

before(async () => {
	d = await startDaemon();
	log = join(d.dir, "upstream.log");
	// Pages of 3 tools: the bridge must follow nextCursor to see them all.
	cfg = writeConfig(d.dir, { log, page: 3 });
	const env = { ...process.env };
	delete env.SANDBOXD_INTEROP_GREETING;
	b = await connectBridge(d, ["--config", cfg], { env });
	b.client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged.push(Date.now()));
	await b.client.listTools();
});

after(async () => {
	await b?.client.close();
	await stopDaemon(d);
});

function execute(code, more = {}) {
	return b.client.callTool({ name: "execute", arguments: { code, ...more } });
}

// The value of a successful execution, or a failure naming what happened.
async function value(code, more) {
	const r = await execute(code, more);
	assert.notEqual(r.isError, true, `${text(r)}\n-- bridge log:\n${b.stderr().slice(-2000)}`);
	return r.structuredContent.value;
}

describe("code mode", () => {
	test("tools/list: search_tools, and execute's description declares the upstream tools", async () => {
		const { tools } = await b.client.listTools();
		const search = tools.find((t) => t.name === "search_tools");
		assert.ok(search, "search_tools is listed with upstream servers");
		assert.equal(search.annotations?.readOnlyHint, true);
		assert.equal(search.outputSchema?.type, "object");
		const desc = tools.find((t) => t.name === "execute").description;
		for (const n of ["add", "greet", "echo_text", "slow", "dash_name_v2"])
			assert.ok(desc.includes(`${n}(args`), `execute's description declares ${n}: ${desc.slice(0, 3000)}`);
		assert.ok(!desc.includes("secret_tool"), "a denied tool is not declared");
	});

	test("structuredContent is the value; text is JSON when it is JSON, else the string", async () => {
		const v = await value(`return {
			sum: tools.up.add({a: 2, b: 3}),
			greeting: tools.up.greet({name: "ann"}),
			json: tools.up.echo_text({text: '{"k": [1, 2], "s": "x"}'}),
			plain: tools.up.echo_text({text: "plain words"}),
			dashed: tools.up.dash_name_v2({}),
			denied: typeof tools.up.secret_tool,
		}`);
		assert.deepEqual(v, {
			sum: { sum: 5 },
			greeting: "hello ann",
			json: { k: [1, 2], s: "x" },
			plain: "plain words",
			dashed: "dashed",
			denied: "undefined",
		});
	});

	test("calls are reported in the execution fields", async () => {
		const r = await execute("tools.up.add({a: 1, b: 1}); return tools.up.greet({name: 'bo'})");
		assert.notEqual(r.isError, true, text(r));
		const calls = r.structuredContent.calls;
		assert.ok(Array.isArray(calls), JSON.stringify(r.structuredContent));
		assert.equal(calls.length, 2);
		assert.deepEqual(
			calls.map((c) => c.status),
			["ok", "ok"],
		);
		assert.ok(calls[0].name.includes("add") && calls[1].name.includes("greet"), JSON.stringify(calls));
	});

	test("an image block comes through as an object", async () => {
		const v = await value("return tools.up.image({})");
		assert.equal(typeof v, "object");
		const s = JSON.stringify(v);
		assert.ok(s.includes("image/png") && s.includes("iVBORw0KGgo"), s);
	});

	test("${VAR:-default} in the config's env", async () => {
		assert.deepEqual(await value("return tools.up.env({})"), { greeting: "fallback greeting" });
		const other = await connectBridge(d, ["--config", cfg], {
			env: { SANDBOXD_INTEROP_GREETING: "from the environment" },
		});
		try {
			const r = await other.client.callTool({ name: "execute", arguments: { code: "return tools.up.env({})" } });
			assert.deepEqual(r.structuredContent?.value, { greeting: "from the environment" }, text(r));
		} finally {
			await other.client.close();
		}
	});

	test("an erroring tool throws an Error with its text", async () => {
		const v = await value(
			'try { tools.up.fail({message: "upstream says no"}); return "no throw" } catch (e) { return {error: e instanceof Error, message: e.message} }',
		);
		assert.equal(v.error, true);
		assert.match(v.message, /upstream says no/);
		const r = await execute('tools.up.fail({message: "uncaught upstream error"})');
		assert.equal(r.isError, true);
		assert.equal(r.structuredContent.error.kind, "script");
		assert.match(r.structuredContent.error.message, /uncaught upstream error/);
		assert.equal(r.structuredContent.calls?.[0]?.status, "error");
	});

	test("the slow tool cancelled by the execution's timeout: kind timeout, cancelled upstream", async () => {
		const t0 = Date.now();
		const r = await execute('tools.up.slow({ms: 30000}); return "not reached"', { timeout_ms: 1500 });
		const took = Date.now() - t0;
		assert.equal(r.isError, true);
		assert.equal(r.structuredContent.state, "timeout", text(r));
		assert.equal(r.structuredContent.error.kind, "timeout");
		assert.ok(took < 15000, `ended by the timeout, not the tool (${took} ms)`);
		// The cancellation went to the server before the next call did.
		await value("return tools.up.greet({name: 'after'})");
		const ev = upstreamEvents(log).map((e) => e.event);
		const slow = ev.lastIndexOf("call slow");
		assert.ok(slow >= 0, ev.join(","));
		assert.ok(ev.indexOf("slow-cancelled", slow) > slow, `notifications/cancelled reached the server: ${ev}`);
	});

	test("a host that cancels the execution cancels its upstream call", async () => {
		const before = upstreamEvents(log).length;
		const ac = new AbortController();
		const p = b.client.callTool(
			{ name: "execute", arguments: { code: "return tools.up.slow({ms: 30000})" } },
			undefined,
			{ signal: ac.signal },
		);
		p.catch(() => {});
		await waitForUpstreamEvent(log, "call slow", before, 10000);
		ac.abort("test");
		await assert.rejects(p);
		// The cancellation goes to the server before the next call does.
		await value("return tools.up.greet({name: 'next'})");
		const ev = upstreamEvents(log)
			.slice(before)
			.map((e) => e.event);
		assert.ok(ev.includes("call slow"), `the call reached the server: ${ev}`);
		assert.ok(ev.indexOf("slow-cancelled") > ev.indexOf("call slow"), `notifications/cancelled reached it: ${ev}`);
	});

	test("notifications/tools/list_changed is followed", async () => {
		assert.equal(await value("return typeof tools.up.late"), "undefined");
		const before = listChanged.length;
		const seen = new Promise((res) => {
			b.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
				listChanged.push(Date.now());
				res();
			});
		});
		assert.equal(await value("return tools.up.add_late_tool({})"), "added");
		if (listChanged.length === before)
			await within(seen, 10000, "notifications/tools/list_changed from the bridge");
		const { tools } = await b.client.listTools();
		assert.ok(tools.find((t) => t.name === "execute").description.includes(" late(args"), "late is declared");
		assert.deepEqual(await value("return tools.up.late({})"), { late: true });
	});

	test("search_tools returns declarations for matching tools", async () => {
		const r = await b.client.callTool({ name: "search_tools", arguments: { query: "greet" } });
		assert.notEqual(r.isError, true, text(r));
		// Declarations of the matching tool, in both renderings.
		assert.match(text(r), /greet\(args/);
		assert.match(JSON.stringify(r.structuredContent), /greet\(args/);
		assert.ok(!text(r).includes("add(args"), "a tool that does not match is left out");
		assert.ok(!text(r).includes("secret_tool"));
		const bad = await b.client.callTool({ name: "search_tools", arguments: {} });
		assert.equal(bad.isError, true);
		assert.match(text(bad), /query/);
	});

	test("a server that crashes is reported and restarted on the next call", async () => {
		const pidsBefore = new Set(upstreamEvents(log).filter((e) => e.event === "start").map((e) => e.pid));
		const r = await execute('try { tools.up.crash({}); return "survived" } catch (e) { return "threw: " + e.message }');
		// The call threw, naming the server and why.
		const v = r.structuredContent?.value;
		assert.match(String(v), /^threw: /, text(r));
		assert.match(v, /\bup\b/, "names the server");
		assert.match(v, /exit|died|crash|terminat|closed|stopped/i, "says it died");
		assert.ok(upstreamEvents(log).some((e) => e.event === "exit"), "the server did exit");
		// The next call starts it again: the first restart is at once
		// (LIMIT_MCP_BACKOFF_FIRST_MS is the wait before the second).
		const again = await execute("return tools.up.greet({name: 'again'})");
		assert.notEqual(again.isError, true, `restarted on the next call: ${text(again)}`);
		assert.equal(again.structuredContent.value, "hello again");
		const started = upstreamEvents(log).filter((e) => e.event === "start" && !pidsBefore.has(e.pid));
		assert.ok(started.length >= 1, "a new server process started");
	});

	test("a server that fails to start is reported in execute's result", async () => {
		const cfg2 = writeConfig(d.dir, {
			name: "broken.json",
			log,
			extraServers: { broken: { command: join(d.dir, "no-such-server"), args: [] } },
		});
		const s = await connectBridge(d, ["--config", cfg2]);
		try {
			const { tools } = await s.client.listTools();
			const desc = tools.find((t) => t.name === "execute").description;
			assert.match(desc, /broken/, "execute's description names the server that is down");
			const r = await s.client.callTool({
				name: "execute",
				arguments: { code: "return {up: tools.up.greet({name: 'x'}), other: typeof tools['bro' + 'ken']}" },
			});
			assert.notEqual(r.isError, true, `the other server still works: ${text(r)}`);
			assert.deepEqual(r.structuredContent.value, { up: "hello x", other: "undefined" });
			// The script's code is not echoed, and nothing in it spells the name.
			const all = `${text(r)} ${JSON.stringify(r.structuredContent)}`;
			assert.match(all, /broken/, `the result names the server that failed to start: ${all}`);
		} finally {
			await s.client.close();
		}
	});
});
