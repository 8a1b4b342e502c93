// summary.mjs - a node:test reporter that ends the run with one summary: how
// many tests passed, failed and did not run, then each failure (file, name,
// first line of the error) and each test that did not run with the reason.
import { basename } from "node:path";

export default async function* summary(source) {
	const passed = [];
	const failed = [];
	const notRun = [];
	for await (const { type, data } of source) {
		if (type !== "test:pass" && type !== "test:fail")
			continue;
		const where = `${data.file ? basename(data.file) : "?"}: ${data.name}`;
		// A skipped suite (describe) stands for its tests, which do not
		// report; other suites report too, but only their tests count.
		if (data.skip !== undefined || data.todo !== undefined)
			notRun.push(`${where} (${data.skip || data.todo || "skipped"})`);
		else if (data.details?.type === "suite")
			continue;
		else if (type === "test:pass")
			passed.push(where);
		else {
			const err = data.details?.error;
			const msg = String(err?.cause?.message ?? err?.message ?? err ?? "").split("\n")[0];
			failed.push(`${where}: ${msg}`);
		}
	}
	let out = "\n== mcp interop summary\n";
	out += `${passed.length} passed, ${failed.length} failed, ${notRun.length} not run\n`;
	for (const f of failed)
		out += `FAILED   ${f}\n`;
	for (const n of notRun)
		out += `NOT RUN  ${n}\n`;
	yield out;
}
