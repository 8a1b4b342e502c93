// inspector.test.mjs - bin/sandboxd-mcp through the MCP Inspector's CLI
// (`mcp-inspector --cli`), in both protocol eras: legacy (initialize) and
// modern (2026-07-28: server/discover and a version on every request):
// tools/list and every tool but search_tools (which needs upstream servers;
// codemode.test.mjs has it), each run of the CLI a session of its own.
//
// The Inspector declares Node >= 22.19 but runs on Node 20; on an older Node
// these checks do not run, and say so (each is reported as not run, never
// as passed).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { bridgeBin, here, startDaemon, stopDaemon } from "./lib.mjs";

const major = Number(process.versions.node.split(".")[0]);
const notRun =
	major < 20
		? `NOT RUN: the MCP Inspector needs Node 20 or later (it declares >= 22.19); this is Node ${process.versions.node}`
		: false;
if (notRun)
	console.log(notRun);

// What `npx mcp-inspector` runs, without npx's look-ups in the registry.
const inspector = join(here, "node_modules/.bin/mcp-inspector");

let d;
before(async () => {
	if (!notRun)
		d = await startDaemon();
});
after(async () => {
	await stopDaemon(d);
});

// Runs the Inspector's CLI against the bridge; resolves to {code, out, err,
// json} where json is its --format json answer on stdout.
function run(era, args) {
	return new Promise((res) => {
		execFile(
			process.execPath,
			[inspector, "--cli", "--protocol-era", era, "--format", "json", ...args, "--", bridgeBin, "--socket", d.sock],
			{ timeout: 60000, maxBuffer: 64 << 20 },
			(error, out, err) => {
				let json = null;
				try {
					json = JSON.parse(out);
				} catch {}
				res({ code: error ? (error.code ?? error.signal) : 0, out, err, json });
			},
		);
	});
}

for (const era of ["legacy", "modern"]) {
	describe(`Inspector CLI, --protocol-era ${era}`, () => {
		test(`${era}: tools/list lists the tools with their schemas`, { skip: notRun }, async () => {
			const r = await run(era, ["--method", "tools/list"]);
			assert.equal(r.code, 0, `exit ${r.code}: ${r.out}\n${r.err}`);
			const tools = r.json?.result?.tools;
			assert.ok(Array.isArray(tools), r.out);
			for (const n of ["execute", "status", "cancel", "list_executions", "test", "list_scripts"]) {
				const t = tools.find((x) => x.name === n);
				assert.ok(t, `${n} listed`);
				assert.equal(t.outputSchema?.type, "object", `${n} outputSchema`);
			}
		});

		test(`${era}: tools/call execute`, { skip: notRun }, async () => {
			const r = await run(era, [
				"--method",
				"tools/call",
				"--tool-name",
				"execute",
				"--tool-args-json",
				JSON.stringify({ code: 'console.log("via inspector"); return 6 * 7' }),
			]);
			assert.equal(r.code, 0, `exit ${r.code}: ${r.out}\n${r.err}`);
			const res = r.json?.result;
			assert.equal(res?.structuredContent?.value, 42, r.out);
			assert.equal(res.structuredContent.stdout, "via inspector\n");
			assert.ok(res.content[0].text.includes("via inspector"));
		});

		test(`${era}: tools/call execute of a failing script is isError`, { skip: notRun }, async () => {
			const r = await run(era, [
				"--method",
				"tools/call",
				"--tool-name",
				"execute",
				"--tool-args-json",
				JSON.stringify({ code: 'throw new Error("inspector sees this")' }),
			]);
			assert.notEqual(r.code, 0, "the CLI exits non-zero for isError");
			const res = r.json?.result;
			assert.equal(res?.isError, true, `${r.out}\n${r.err}`);
			assert.equal(res.structuredContent?.error?.kind, "script");
			assert.ok(res.content[0].text.includes("inspector sees this"));
		});

		test(`${era}: status, list_executions, cancel, test and list_scripts`, { skip: notRun }, async () => {
			const call = (name, args) =>
				run(era, ["--method", "tools/call", "--tool-name", name, "--tool-args-json", JSON.stringify(args)]);
			// Each run is a session of its own: an execution that ended in one
			// is found by id in the next.
			const code = `return "inspector ${era} " + ${Date.now()}`;
			const ex = await call("execute", { code });
			assert.equal(ex.code, 0, `exit ${ex.code}: ${ex.out}\n${ex.err}`);
			const id = ex.json?.result?.structuredContent?.execution_id;
			assert.match(id ?? "", /^exec_/, ex.out);

			const st = await call("status", { execution_id: id, wait_ms: 1000 });
			assert.equal(st.code, 0, `exit ${st.code}: ${st.out}\n${st.err}`);
			assert.equal(st.json.result.structuredContent.execution_id, id);
			assert.equal(st.json.result.structuredContent.state, "completed");
			assert.ok(st.json.result.content[0].text.includes(id));

			const ls = await call("list_executions", { states: ["completed"], limit: 100 });
			assert.equal(ls.code, 0, `exit ${ls.code}: ${ls.out}\n${ls.err}`);
			const listed = ls.json.result.structuredContent.executions;
			assert.ok(listed.some((e) => e.execution_id === id && e.state === "completed"), ls.out);

			// An execution that has ended cannot be cancelled: a tool error
			// naming it, not a protocol error.
			const ca = await call("cancel", { execution_id: id });
			assert.equal(ca.json?.result?.isError, true, `${ca.out}\n${ca.err}`);
			assert.ok(ca.json.result.content[0].text.includes(id), ca.out);

			const te = await call("test", {
				code: "function twice(x) { return 2 * x; }",
				tests: 'test("twice", () => assert.is(twice(4), 8)); test("wrong", () => assert.is(twice(1), 3));',
			});
			assert.equal(te.code, 0, `failing tests are a result, not an error: ${te.out}\n${te.err}`);
			assert.deepEqual(te.json.result.structuredContent.summary, { total: 2, passed: 1, failed: 1, skipped: 0 });
			assert.notEqual(te.json.result.isError, true);

			const sc = await call("list_scripts", {});
			assert.equal(sc.code, 0, `exit ${sc.code}: ${sc.out}\n${sc.err}`);
			const cachedName = ex.json.result.structuredContent.cached?.name;
			assert.ok(cachedName, `the execute was cached: ${ex.out}`);
			assert.ok(sc.json.result.structuredContent.scripts.some((x) => x.name === cachedName), sc.out);
		});
	});
}
